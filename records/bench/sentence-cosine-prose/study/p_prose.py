"""Prototype: the question's cosine to each candidate span's sentence (the shipped sentence encoder) as one more term
in reader._by_sentence. W and the stage are read from argv."""
import sys, functools
import numpy as np
sys.path.insert(0, "/work/study")
import proto
from pathlib import Path
from function.model import reader, sentence
from function.model.reader import Answer
from function.retrieval.encoder import SentenceEncoder

ENC = SentenceEncoder(Path("/work/main/encoder"))
W = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
STAGE = sys.argv[2] if len(sys.argv) > 2 else "both"   # across | within | both
MODE = sys.argv[3] if len(sys.argv) > 3 else "max"     # max: cos - best cos ; raw: cos
TOPN = int(sys.argv[4]) if len(sys.argv) > 4 else 99

@functools.lru_cache(maxsize=100000)
def emb(text):
    return ENC.embed([text])[0]

orig = reader._by_sentence
NSENT = []

def patched(found, question, texts, weight, titles=None, marks=None, lines=None):
    out = orig(found, question, texts, weight, titles, marks, lines)
    across = titles is None
    if not out or W == 0 or (STAGE == "across" and not across) or (STAGE == "within" and across):
        return out
    if any("\n" in texts[a.passage] for a in out[:TOPN]):
        return out
    q = emb(question)
    sents = []
    for a in out:
        s = sentence.Sentences(texts[a.passage])
        b, e = s._bounds(a.start)
        e = max(e, a.end)
        sents.append(texts[a.passage][b:e][:400])
    cos = np.array([float(q @ emb(t)) if i < TOPN else np.nan for i, t in enumerate(sents)])
    cos = np.where(np.isnan(cos), np.nanmin(cos), cos)
    global NSENT; NSENT.append(len(set(sents[:TOPN])))
    bonus = W * (cos - cos.max()) if MODE == "max" else W * cos
    scores = np.array([a.score for a in out])
    lifted = scores * np.exp(bonus)
    order = np.argsort(-lifted, kind="stable")
    return [Answer(out[i].passage, out[i].start, out[i].end, float(lifted[i])) for i in order]

before = proto.decode_all()
reader._by_sentence = patched
after = proto.decode_all()
proto.report(before, after, parts=None)
print('distinct sentences per call: mean', np.mean(NSENT), 'p50', np.median(NSENT), 'p90', np.percentile(NSENT, 90))
