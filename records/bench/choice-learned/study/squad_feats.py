"""squad_feats.py CAP.pkl OUT.pkl: per question, each passage's forced answer and F1, and choice features."""
import os, pickle, sys
sys.path.insert(0, "/work/study"); sys.path.insert(0, os.getcwd())
import numpy as np
import squad_decode as sd
from function.model.decode import null_score

caps = pickle.load(open(sys.argv[1], "rb"))
rows = []
for i, c in enumerate(caps):
    if c.get("empty"):
        rows.append(None); continue
    answers = c["q"]["answers"]; P = len(c["ids"])
    found = sd.decode(c, c["bias"], top=40)
    shipped = sd.text(c, found)
    texts = c["reading"].texts
    per = []
    for p in range(P):
        b = c["bias"].copy(); b[[j for j in range(P) if j != p]] -= 1e4
        fp = sd.decode(c, b)
        t = sd.text(c, fp)
        per.append({"text": t, "f1": sd.f1_of(t, answers), "gold": c["ids"][p] == c["q"]["gold"]})
    # first-stage spans (found[1:] as ranked; found[0] is the second stage's answer with the best span's score)
    spans = [(a.passage, a.score, texts[a.passage][a.start:a.end]) for a in found]
    pi = np.asarray(c["batch"].passage_index)
    cls = (np.asarray(c["start"])[:, 0] + np.asarray(c["end"])[:, 0])
    rows.append({"id": c["q"]["id"], "shipped": shipped, "shipped_f1": sd.f1_of(shipped, answers), "per": per,
                 "spans": spans, "scores": c["scores"], "cosines": c["cosines"], "names": c["names"],
                 "bias": c["bias"], "cls": [float(cls[pi == p].max()) for p in range(P)],
                 "maxlogit": [float((np.asarray(c["start"])[pi == p].max(axis=1) + np.asarray(c["end"])[pi == p].max(axis=1)).max()) for p in range(P)]})
    if i % 200 == 0: print(i, flush=True)
pickle.dump(rows, open(sys.argv[2], "wb"))
