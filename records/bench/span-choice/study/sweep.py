import itertools, json, sys
import numpy as np
sys.path.insert(0, "/work/study")
import evaluate as ev
from function.evaluate.scoring import score
from function.retrieval import span_bias
import function.service.pipeline as pl

DATA = {}
for name in ("docs", "blind"):
    caps, rows = ev.load(name)
    DATA[name] = [(caps[k], r) for k, r in rows.items()]

def bias_of(c, w):
    rd = c["reading"]
    s = np.asarray(rd.scores, float)
    b = w["bm25"] * s / s.max() if s.max() > 0 else np.zeros_like(s)
    cos = [r.get("cosine") for r in rd.retrieved]
    if all(x is not None for x in cos):
        b = b + w["cos"] * np.asarray(cos)
    if rd.names is not None:
        b = b + w["names"] * np.asarray(rd.names)
    b = b.copy()
    b[0] += w.get("first", 0.0)
    if w.get("decay"):
        b = b - w["decay"] * np.arange(len(b))
    return b

def run(w):
    out = {}
    for name, items in DATA.items():
        for c, r in items:
            if c["stopped"] or r["no_answer"] or len(c["reading"].tokens) < 2:
                f = r["f1"]
            else:
                text, _ = ev.decode(c, bias_of(c, w))
                f = score(text, r["answers"])[1]
            key = f"{name}-{r['part']}"
            out.setdefault(key, []).append(f)
    return {k: round(100 * np.mean(v), 2) for k, v in out.items()}

BASE = {"bm25": 8.0, "cos": 2.0, "names": 6.0}
if __name__ == "__main__":
    print("base", run(BASE))
    for k, vals in (("first", [1, 2, 3, 4]), ("decay", [0.5, 1, 2]), ("bm25", [4, 12, 16]), ("cos", [0, 4, 8]), ("names", [3, 9])):
        for v in vals:
            print(k, v, run({**BASE, k: v}))

from function.model.decode import best_spans, null_score
FEAT = {}
def feats(c):
    k = id(c)
    if k in FEAT: return FEAT[k]
    b, s, e = c["batch"], c["start"], c["end"]
    n = len(c["reading"].tokens)
    lp, mg = np.full(n, -30.0), np.zeros(n)
    for p in range(n):
        rows = np.flatnonzero(b.passage_index == p)
        sub = b.rows(slice(rows[0], rows[-1] + 1))
        sp = best_spans(s[rows], e[rows], sub, 1, c["req"].max_answer_tokens)
        if sp: lp[p] = np.log(max(sp[0].score, 1e-12))
        mg[p] = null_score(s[rows], e[rows], sub, c["req"].max_answer_tokens).margin
    FEAT[k] = (lp, mg)
    return FEAT[k]

_orig_bias_of = bias_of
def bias_of(c, w):
    b = _orig_bias_of(c, w)
    if w.get("lp") or w.get("mg"):
        lp, mg = feats(c)
        b = b + w.get("lp", 0) * lp - w.get("mg", 0) * mg
    return b
