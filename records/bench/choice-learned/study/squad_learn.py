import pickle, sys, re, numpy as np
rows = pickle.load(open(sys.argv[1], "rb"))
n = len(rows)
NW = re.compile(r"\W+")
def norm(t): return NW.sub(" ", t).strip().casefold()
def feats(r):
    P = len(r["per"])
    best = np.zeros(P); mass = np.zeros(P); group = np.zeros(P)
    g = {}
    for p, s, t in r["spans"][1:] if False else r["spans"]:
        pass
    # found[0] is second-stage answer with first best's score; use spans[1:] plus spans[0]'s score for its passage
    sp = r["spans"]
    for k, (p, s, t) in enumerate(sp):
        mass[p] += s
        best[p] = max(best[p], s)
        g[norm(t)] = g.get(norm(t), 0) + s
    for p in range(P):
        group[p] = g.get(norm(r["per"][p]["text"]), 0)
    sc = np.asarray(r["scores"], float); bm = sc / sc.max() if sc.max() > 0 else sc
    cos = np.array([c or 0 for c in r["cosines"]]); names = np.zeros(P) if r["names"] is None else np.asarray(r["names"])
    cls = np.asarray(r["cls"]); ml = np.asarray(r["maxlogit"])
    rank = np.arange(P)
    F = np.stack([np.log(best + 1e-4), np.log(mass + 1e-4), np.log(group + 1e-4), bm, cos, names,
                  cls - cls.max(), ml - ml.max(), ml - cls, (rank == 0).astype(float), rank / 4.0,
                  np.asarray(r["bias"]) - np.max(r["bias"])], 1)
    return F
NAMES = "logbest logmass loggroup bm25 cos names cls maxlogit ml-cls first rank bias".split()
data = [(feats(r), np.array([p["f1"] for p in r["per"]]), r["shipped_f1"], i) for i, r in enumerate(rows) if r]
def fit(D, l2=0.01, steps=400, lr=0.5, cols=None):
    d = D[0][0].shape[1] if cols is None else len(cols)
    w = np.zeros(d)
    for it in range(steps):
        grad = np.zeros(d); obj = 0
        for F, f, _, _ in D:
            X = F if cols is None else F[:, cols]
            z = X @ w; z -= z.max(); e = np.exp(z); pr = e / e.sum()
            obj += pr @ f
            grad += X.T @ (pr * (f - pr @ f))
        grad = grad / len(D) / 100 - l2 * w
        w += lr * grad
    return w
def evaluate(D, w, cols=None):
    tot = 0
    for F, f, _, _ in D:
        X = F if cols is None else F[:, cols]
        tot += f[int(np.argmax(X @ w))]
    return tot / len(D)
cols = None if len(sys.argv) < 3 else [NAMES.index(c) for c in sys.argv[2].split(",")]
A = [x for x in data if x[3] % 2 == 0]; B = [x for x in data if x[3] % 2 == 1]
wa = fit(A, cols=cols); wb = fit(B, cols=cols)
print("shipped", sum(x[2] for x in data)/len(data), "A", sum(x[2] for x in A)/len(A), "B", sum(x[2] for x in B)/len(B))
print("fit on A: A", evaluate(A, wa, cols), "B", evaluate(B, wa, cols))
print("fit on B: B", evaluate(B, wb, cols), "A", evaluate(A, wb, cols))
print("cross-fitted", (evaluate(B, wa, cols)*len(B) + evaluate(A, wb, cols)*len(A))/len(data))
print("wA", dict(zip(NAMES if cols is None else [NAMES[c] for c in cols], np.round(wa, 2))))
