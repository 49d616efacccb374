"""sq_dense.py W OUT: bench cascade's SQuAD sweep with the dense sentence term of p_dense (both stages, max-normalised)."""
import sys, functools
import numpy as np
from pathlib import Path
sys.path.insert(0, "/work/main")
from function.model import reader, sentence
from function.model.reader import Answer
from function.retrieval.encoder import SentenceEncoder
import bench.cascade as bc

W = float(sys.argv[1]); OUT = sys.argv[2]
ENC = SentenceEncoder(Path("/work/main/encoder"))

@functools.lru_cache(maxsize=200000)
def emb(text):
    return ENC.embed([text])[0]

orig = reader._by_sentence

def patched(found, question, texts, weight, titles=None, marks=None, lines=None):
    out = orig(found, question, texts, weight, titles, marks, lines)
    if not out or W == 0:
        return out
    q = emb(question)
    sents = []
    for a in out:
        s = sentence.Sentences(texts[a.passage])
        b, e = s._bounds(a.start)
        sents.append(texts[a.passage][b:max(e, a.end)][:400])
    cos = np.array([float(q @ emb(t)) for t in sents])
    lifted = np.array([a.score for a in out]) * np.exp(W * (cos - cos.max()))
    order = np.argsort(-lifted, kind="stable")
    return [Answer(out[i].passage, out[i].start, out[i].end, float(lifted[i])) for i in order]

reader._by_sentence = patched
sys.exit(bc.main(["--questions", "0", "--timed", "0", "--hybrid", "--data", "/work/shared/data/squad", "--out", OUT]))
