import dataclasses, sys
import numpy as np
sys.path.insert(0, "/work/study")
import sweep as S, evaluate as ev
from function.evaluate.scoring import score
from bench.documents import norm as normalize_answer
from function.service.pipeline import QAService

def answers(c, k=10):
    req = dataclasses.replace(c["req"], top_k=k)
    rd = c["reading"]
    p = QAService._payload(req, ev.MODEL, rd, c["batch"], c["start"], c["end"])
    return p.get("answers", [])

def run(mode, power=1.0):
    out = {}
    moved = []
    for name, items in S.DATA.items():
        for c, r in items:
            f = r["f1"]
            if not (c["stopped"] or r["no_answer"] or len(c["reading"].tokens) < 2):
                ans = answers(c)
                if ans:
                    tot = {}
                    for a in ans:
                        key = normalize_answer(a["text"])
                        tot.setdefault(key, [0.0, a["text"]])
                        tot[key][0] += a["score"] ** power
                    best = max(tot.values(), key=lambda v: v[0])[1] if mode == "vote" else ans[0]["text"]
                    f = score(best, r["answers"])[1]
                    if f != r["f1"]: moved.append((name, r["id"], r["answer"], best, r["f1"], f))
            out.setdefault(f"{name}-{r['part']}", []).append(f)
    return {k: round(100 * np.mean(v), 2) for k, v in out.items()}, moved

for mode, pw in (("top", 1), ("vote", 1), ("vote", 0.5)):
    res, moved = run(mode, pw)
    print(mode, pw, res, len(moved))
    if mode == "top":
        for m in moved[:10]: print("  ", m)
