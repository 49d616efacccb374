"""Fit a log-linear re-ranker of the n best (softmax over candidates), leave-one-set-out on dev."""
import json, sys
import numpy as np
sys.path.insert(0, "build/oracle")
import feats

M = int(sys.argv[1]) if len(sys.argv) > 1 else 10
INTER = "--no-inter" not in sys.argv
COS = "--cos" in sys.argv
ONLY = "--only" in sys.argv


def build(rows):
    data = []
    for r in rows:
        c = r["cands"][:M]
        if not c:
            data.append((r, None, None))
            continue
        best = c[0]["score"]
        X = np.stack([feats.vector(r["question"], r["text"], a["start"], a["end"], r["marks"], a["score"], best, i,
                                   r["title"], INTER) for i, a in enumerate(c)])
        if COS:
            cl = np.asarray([a.get("cos_line", 0.0) for a in c])
            X = np.hstack([X, (cl - cl.max())[:, None], (cl >= cl.max() - 1e-9).astype(float)[:, None]])
        if ONLY:
            X = X[:, [0] + ([X.shape[1] - 2, X.shape[1] - 1] if COS else [])]
        y = np.asarray([a["f1"] for a in c])
        data.append((r, X, y))
    return data


def fit(data, lam, steps=400, lr=0.1):
    d = next(X for _, X, _ in data if X is not None).shape[1]
    w = np.zeros(d)
    w[0] = 1.0
    m = np.zeros(d); v = np.zeros(d)
    usable = [(X, y) for _, X, y in data if X is not None and y.max() >= 0.5]
    for t in range(1, steps + 1):
        g = np.zeros(d)
        for X, y in usable:
            s = X @ w
            p = np.exp(s - s.max()); p /= p.sum()
            tgt = (y >= y.max() - 1e-9).astype(float); tgt /= tgt.sum()
            g += X.T @ (p - tgt)
        g /= len(usable)
        reg = lam * w; reg[0] = lam * (w[0] - 1.0)
        g += reg
        m = 0.9 * m + 0.1 * g; v = 0.999 * v + 0.001 * g * g
        w -= lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return w


def evaluate(data, w):
    f = []
    for r, X, y in data:
        if X is None:
            f.append(0.0); continue
        f.append(y[int(np.argmax(X @ w))])
    return 100 * np.mean(f)


rows = json.load(open("build/oracle/nbest-dev.json"))
data = build(rows)
sets = sorted({r["set"] for r in rows})
base = evaluate(data, np.eye(data[0][1].shape[1])[0])
print("dev top-1", round(base, 2), "oracle", round(100 * np.mean([y.max() if y is not None else 0 for _, _, y in data]), 2))
for lam in [float(x) for x in (sys.argv[2].split(",") if len(sys.argv) > 2 else ["0.3", "0.1", "0.03", "0.01"])]:
    per = {}
    preds = []
    for s in sets:
        tr = [d for d in data if d[0]["set"] != s]
        te = [d for d in data if d[0]["set"] == s]
        w = fit(tr, lam)
        per[s] = (round(evaluate(te, w) - evaluate(te, np.eye(len(w))[0]), 1), len(te))
        preds += [(d, w) for d in te]
    cv = 100 * np.mean([y[int(np.argmax(X @ w))] if X is not None else 0 for (r, X, y), w in preds])
    print(f"lam {lam}: LOSO-CV {cv:.2f} (base {base:.2f})", per)
