import json, sys
import numpy as np
sys.path.insert(0, "/work/study")
import sweep as S
from function.evaluate.scoring import score
from bench.documents import norm
from function.model.decode import best_spans

T = {tuple(r["key"]): r for name in ("docs", "blind") for r in json.load(open(f"/work/study/table-{name}.json"))}
W = {}
def pscores(c):
    if id(c) in W: return W[id(c)]
    n = len(c["reading"].tokens)
    sp = best_spans(c["start"], c["end"], c["batch"], 1, c["req"].max_answer_tokens, c["reading"].bias, None, 0.5, None, 1)
    w = np.zeros(n)
    for s in sp: w[s.passage] = max(w[s.passage], s.score)
    W[id(c)] = w
    return w
def run(power):
    out, moved = {}, []
    for name, items in S.DATA.items():
        for c, r in items:
            f = r["f1"]
            per = T[(r["set"], r["id"])]["per"]
            if per:
                w = pscores(c)
                tot = {}
                for p, x in enumerate(per):
                    if not x["answer"]: continue
                    k = norm(x["answer"])
                    tot.setdefault(k, [0.0, x["answer"]])
                    tot[k][0] += w[p] ** power
                if tot:
                    best = max(tot.values(), key=lambda v: v[0])[1]
                    f = score(best, r["answers"])[1]
                    if f != r["f1"]: moved.append((r["id"], r["answer"], best, r["f1"], f))
            out.setdefault(f"{name}-{r['part']}", []).append(f)
    return {k: round(100 * np.mean(v), 2) for k, v in out.items()}, moved
for pw in (4, 1, 0.5, 0.25, 0.0):
    res, moved = run(pw)
    print(pw, res, len(moved))
