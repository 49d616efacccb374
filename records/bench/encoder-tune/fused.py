# ruff: noqa  (a study script kept as it ran)
"""Fused (BM25 + cosine) recall on SQuAD dev against the 1,757 paragraphs, the shipped and tuned encoders, by alpha."""
import json, math, sys
from collections import Counter
from pathlib import Path
import numpy as np
sys.path.insert(0, "/work/main"); sys.path.insert(0, "/work/main/build/qadapt")
from function.retrieval.bm25 import PassageTerms, idf, term_scores
from function.retrieval.terms import query_terms
from function.retrieval.hybrid import mixed_scores
from function.retrieval.encoder import SentenceEncoder
from embed import squad

D = Path("/work/main/build/qadapt")
tp, tq = squad("train"); dp_, dq_ = squad("dev")
texts = tp + dp_
pts = []
for art_file in ("train", "dev"):
    for art in json.load(open(f"/work/shared/data/squad/{art_file}.json"))["data"]:
        for p in art["paragraphs"]:
            pts.append(PassageTerms.of(art["title"].replace("_", " "), p["context"]))
N = len(pts); lengths = np.array([p.length for p in pts], float); avgdl = lengths.mean()
freqs = [p.frequencies() for p in pts]
df = Counter(t for f in freqs for t in f)
qs = [q for q, _ in dq_]; gold = np.array([p for _, p in dq_]) + len(tp)

def bm25(q):
    s = np.zeros(N)
    for t in dict.fromkeys(query_terms(q)):
        if t not in df: continue
        tt = np.array([freqs[i].get(t, (0, 0))[0] for i in range(N)], float)
        tx = np.array([freqs[i].get(t, (0, 0))[1] for i in range(N)], float)
        s += np.where(tt + tx > 0, term_scores(idf(N, df[t]), avgdl, lengths, tt, tx), 0.0)
    return s

B = np.stack([bm25(q) for q in qs]); print("bm25 done", flush=True)
enc = {"shipped": (np.concatenate([np.load(D / "squad-train-p.npy"), np.load(D / "squad-dev-p.npy")]), np.load(D / "squad-dev-q.npy"))}
if not (D / "ft1-p.npy").exists():
    e = SentenceEncoder(D / "enc-ft1", threads=2)
    np.save(D / "ft1-p.npy", e.embed(texts)); np.save(D / "ft1-q.npy", e.embed(qs))
enc["ft1"] = (np.load(D / "ft1-p.npy"), np.load(D / "ft1-q.npy"))
out = {}
for name, (P, Q) in enc.items():
    C = Q @ P.T
    for alpha in (1.0, 0.8, 0.65, 0.5, 0.35, 0.2):
        r1 = r5 = 0
        for i in range(len(qs)):
            b = B[i]; top_b = [j for j in np.argsort(-b)[:20] if b[j] > 0]; top_d = list(np.argsort(-C[i])[:20])
            cand = dict.fromkeys(top_b + top_d)
            mixed = mixed_scores({str(j): b[j] for j in cand}, {str(j): C[i, j] for j in top_d}, alpha)
            ranked = [int(p) for p, _ in mixed[:5]]
            r1 += ranked[:1] == [gold[i]]; r5 += gold[i] in ranked
        out[f"{name} alpha {alpha}"] = (round(r1 / len(qs), 4), round(r5 / len(qs), 4))
        print(name, alpha, out[f"{name} alpha {alpha}"], flush=True)
json.dump(out, open(D / "fused.json", "w"), indent=1)
