import sys, dataclasses
from pathlib import Path
sys.path.insert(0, "/work/study")
import proto, evaluate as ev
from function.model import reader
from function.retrieval.encoder import SentenceEncoder
from function.service.pipeline import SentenceCosines
ENC = SentenceEncoder(Path("/work/main/encoder"))
reader.SENTENCE_COSINE = 0.0
before = proto.decode_all()
reader.SENTENCE_COSINE = 2.0
for name, (caps, rows) in proto.DATA.items():
    for key, c in caps.items():
        if key[-1] == "alone":
            c["reading"] = dataclasses.replace(c["reading"], cosines=SentenceCosines(ENC, c["req"].question))
after = proto.decode_all()
proto.report(before, after, parts=("dev",))
