"""learn.py: logistic regression (L2, numpy) choosing among the passages read; leave-one-set-out on dev, then
(only if the rule's first step passes, or with --report) fitted on all dev and scored on test and the blind sets."""
import pickle, sys
import numpy as np

DROP = [int(a) for a in sys.argv[1:] if a.isdigit()]
docs = pickle.load(open("/work/lc/feat-docs.pkl", "rb")); blind = pickle.load(open("/work/lc/feat-blind.pkl", "rb"))
dev = [r for r in docs if r["part"] == "dev"]; test = [r for r in docs if r["part"] == "test"]

def stack(rows):
    X = np.vstack([np.delete(r["X"], DROP, 1) for r in rows if r["X"] is not None]); y = np.concatenate([r["y"] for r in rows if r["X"] is not None])
    return X, (y >= 0.5).astype(float)

def fit(rows, lam):
    X, y = stack(rows)
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = np.hstack([(X - mu) / sd, np.ones((len(X), 1))])
    w = np.zeros(Z.shape[1])
    for _ in range(500):  # Newton
        p = 1 / (1 + np.exp(-Z @ w))
        g = Z.T @ (p - y) + lam * np.r_[w[:-1], 0]
        H = (Z * (p * (1 - p))[:, None]).T @ Z + lam * np.diag(np.r_[np.ones(len(w) - 1), 0]) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(H, g); w -= step
        if np.abs(step).max() < 1e-8: break
    return mu, sd, w

def f1(rows, model):
    tot = 0.0
    for r in rows:
        if r["X"] is None or model is None:
            tot += r["f1"]; continue
        mu, sd, w = model
        s = np.hstack([(np.delete(r["X"], DROP, 1) - mu) / sd, np.ones((len(r["X"]), 1))]) @ w
        tot += r["y"][int(np.argmax(s))]
    return 100 * tot / len(rows)

sets = sorted({r["set"] for r in dev})
print("dev today", round(f1(dev, None), 2), "oracle", round(100 * sum((r["y"].max() if r["X"] is not None else r["f1"]) for r in dev) / len(dev), 2))
best = None
for lam in (0.01, 0.1, 1, 10):
    tot = 0.0
    for s in sets:
        m = fit([r for r in dev if r["set"] != s], lam)
        held = [r for r in dev if r["set"] == s]
        tot += f1(held, m) * len(held) / 100
    cv = 100 * tot / len(dev)
    print("lambda", lam, "dev LOSO", round(cv, 2))
    if best is None or cv > best[1]: best = (lam, cv)
print("best", best, "gain", round(best[1] - f1(dev, None), 2))
if "--report" in sys.argv or best[1] - f1(dev, None) >= 1.0:
    m = fit(dev, best[0])
    print("weights", np.round(m[2], 3))
    for name, rows in (("test", test), ("blind", blind)):
        print(name, "today", round(f1(rows, None), 2), "learned", round(f1(rows, m), 2))
