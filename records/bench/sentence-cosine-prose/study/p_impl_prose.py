"""The built form (reader.SENTENCE_COSINE with its line-break gate) over every captured run: each question alone's
reading given the shipped encoder's SentenceCosines, as the function gives it with QA_INDEX_ENCODER; answers
compared with the captures decoded without it (main's ranking)."""
import sys
from pathlib import Path
sys.path.insert(0, "/work/study")
import proto
from function.retrieval.encoder import SentenceEncoder
from function.service.pipeline import SentenceCosines

before = proto.decode_all()
enc = SentenceEncoder(Path("/work/main/encoder"))
n = 0
for name, (caps, rows) in proto.DATA.items():
    for key, c in caps.items():
        if key[-1] == "alone":
            c["reading"].cosines = SentenceCosines(enc, c["req"].question)
            n += 1
after = proto.decode_all()
print("readings given cosines:", n)
proto.report(before, after, parts=None)
ms = [c["reading"].cosines.ms for caps, _ in proto.DATA.values() for k, c in caps.items() if k[-1] == "alone"]
print("readings that embedded anything:", sum(m > 0 for m in ms))
