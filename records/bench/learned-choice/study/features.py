"""features.py: per passage read (questions asked alone that read several passages, not abstained), the features of
the learned-choice rule, from the span-choice table and the captured runs. Writes /work/lc/feat-NAME.pkl."""
import json, pickle, re, sys
import numpy as np

CODE = re.compile(r"[_.:#()\[\]{}=<>/\\-]|[a-z][A-Z]|^[A-Z0-9_]{2,}$")

def norm(t):
    return " ".join(t.lower().split())

def passage_logits(c, max_len=30):
    b = c["batch"]; s = np.asarray(c["start"], dtype=np.float64); e = np.asarray(c["end"], dtype=np.float64)
    n = len(c["reading"].tokens)
    best = np.full(n, -np.inf); cls = np.full(n, np.inf)
    for w in range(s.shape[0]):
        p = int(b.passage_index[w]); cs = int(b.context_start if np.isscalar(b.context_start) else b.context_start[w])
        L = int(b.context_len[w])
        ss = s[w, cs:cs + L]; ee = e[w, cs:cs + L]
        m = -np.inf
        for k in range(min(max_len, L)):  # span length k+1
            if L - k <= 0: break
            v = ss[: L - k] + ee[k:]
            m = max(m, float(v.max()))
        if m > best[p]:
            best[p] = m; cls[p] = float(s[w, 0] + e[w, 0])
    return best, cls

def build(name):
    table = json.load(open(f"/work/study/table-{name}.json"))
    caps = pickle.load(open(f"/work/study/cap-{name}.pkl", "rb"))
    rows = []
    for t in table:
        key = tuple(t["key"])
        item = {"key": key, "set": key[0], "part": t["part"] if name == "docs" else "blind", "f1": t["f1"],
                "answer": t["answer"], "X": None, "y": None}
        if t["per"]:
            c = caps[(*key, "alone")]
            best, cls = passage_logits(c)
            n = len(t["per"])
            answers = [norm(p["answer"]) for p in t["per"]]
            sc = t["scores"]; top = max(sc[0], 1e-9)
            feats = []
            for i, p in enumerate(t["per"]):
                a = p["answer"]
                feats.append([
                    i, 1.0 if i == 0 else 0.0, sc[i] / top, (t["cosines"][i] or 0.0),
                    (t["names"][i] if t["names"] else 0.0), t["bias"][i] - max(t["bias"]),
                    best[i] - best.max(), cls[i] - best[i],
                    sum(1 for j in range(n) if j != i and answers[j] == answers[i] and answers[i]),
                    min(len(a.split()), 10), 1.0 if CODE.search(a or "") else 0.0,
                    1.0 if norm(a) == norm(t["answer"]) else 0.0,
                ])
            item["X"] = np.asarray(feats, dtype=np.float64)
            item["y"] = np.asarray([p["f1"] for p in t["per"]])
        rows.append(item)
    pickle.dump(rows, open(f"/work/lc/feat-{name}.pkl", "wb"))
    print(name, len(rows), sum(r["X"] is not None for r in rows))

for name in sys.argv[1:]:
    build(name)
