"""squad_decode.py CAP.pkl: the shipped first and second stage decoded offline from captured SQuAD runs."""
import os, pickle, sys
sys.path.insert(0, "/work/study"); sys.path.insert(0, os.getcwd())
import numpy as np
import evaluate as ev
from function.model.reader import answers_from_logits
from function.retrieval.span_bias import NULL_WEIGHT
from function.service.pipeline import SentenceCosines
from build_model.evaluation.metrics import best_over_golds, f1

MAXT = 30
def f1_of(t, answers): return 100 * best_over_golds(f1, t, answers)

def decode(c, bias, top=1):
    q = c["q"]["question"]; r = c["reading"]
    found = answers_from_logits(c["start"], c["end"], c["batch"], r.tokens, top, MAXT, bias, texts=r.texts,
                                null_weight=NULL_WEIGHT, question=q, cosines=SentenceCosines(ev.ENC, q))
    return found

def text(c, found):
    return c["reading"].texts[found[0].passage][found[0].start:found[0].end] if found else ""

if __name__ == "__main__":
    caps = pickle.load(open(sys.argv[1], "rb"))
    tot = 0
    for c in caps:
        if c.get("empty"): continue
        tot += f1_of(text(c, decode(c, c["bias"])), c["q"]["answers"])
    print("shipped", tot / len(caps))
