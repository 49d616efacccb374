# ruff: noqa  (a study script kept as it ran)
"""A linear query-side adapter for the frozen encoder: q -> normalize(W q), W from I, in-batch + corpus softmax."""
import json, sys
import numpy as np
import torch

D = "/work/main/build/qadapt/"
meta = json.load(open(D + "meta.json"))
L = lambda n: torch.from_numpy(np.load(D + n + ".npy"))
sq_tp, sq_tq = L("squad-train-p"), L("squad-train-q")
sq_dp, sq_dq = L("squad-dev-p"), L("squad-dev-q")
dp, dq = L("docs-p"), L("docs-q")
sq_tl = torch.tensor(meta["squad-train"]["qpara"])
sq_dl = torch.tensor(meta["squad-dev"]["qpara"]) + len(sq_tp)  # dev paragraphs after train's in one store
store = torch.cat([sq_tp, sq_dp])
dl = torch.tensor(meta["docs"]["qpara"])
pkg = meta["docs"]["pkg"]
pkgs = sorted(set(pkg))
rng = np.random.default_rng(0)
held = set(rng.choice(pkgs, size=len(pkgs) // 5, replace=False))  # a fifth of the packages held out
qheld = torch.tensor([pkg[p] in held for p in dl.tolist()])
print("docs packages", len(pkgs), "held", len(held), "held questions", int(qheld.sum()), flush=True)


def recall(q, P, labels, W=None, ks=(1, 5, 20)):
    if W is not None:
        q = torch.nn.functional.normalize(q @ W.T, dim=1)
    out = {}
    with torch.no_grad():
        ranks = []
        for s in range(0, len(q), 512):
            sims = q[s:s + 512] @ P.T
            gold = sims.gather(1, labels[s:s + 512, None])
            ranks.append((sims > gold).sum(1))
        r = torch.cat(ranks)
    return {f"r@{k}": round(float((r < k).float().mean()), 4) for k in ks}


def train(sets, lam, epochs=10, scale=20.0, lr=1e-3, bs=128):
    W = torch.eye(384, requires_grad=True)
    opt = torch.optim.Adam([W], lr=lr)
    for ep in range(epochs):
        batches = []
        for (q, P, lab) in sets:
            perm = torch.randperm(len(q), generator=torch.Generator().manual_seed(ep))
            batches += [(q, P, lab, perm[i:i + bs]) for i in range(0, len(q), bs)]
        order = np.random.default_rng(ep).permutation(len(batches))
        for bi in order:
            q, P, lab, idx = batches[bi]
            qq = torch.nn.functional.normalize(q[idx] @ W.T, dim=1)
            loss = torch.nn.functional.cross_entropy(scale * qq @ P.T, lab[idx]) + lam * ((W - torch.eye(384)) ** 2).sum()
            opt.zero_grad(); loss.backward(); opt.step()
    return W.detach()


def report(name, W):
    r = {"squad_dev": recall(sq_dq, store, sq_dl, W),
         "docs_held": recall(dq[qheld], dp, dl[qheld], W),
         "squad_train": recall(sq_tq, store, sq_tl, W)}
    print(name, json.dumps(r), flush=True)
    return r


if __name__ == "__main__":
    results = {"base": report("base", None)}
    dtrain = (dq[~qheld], dp, dl[~qheld])
    strain = (sq_tq, store, sq_tl)
    for lam in (0.0, 0.01, 0.1):
        for name, sets in (("squad", [strain]), ("docs", [dtrain]), ("both", [strain, dtrain])):
            W = train(sets, lam)
            results[f"{name}-lam{lam}"] = report(f"{name} lam={lam}", W)
            torch.save(W, D + f"W-{name}-{lam}.pt")
    json.dump(results, open(D + "results.json", "w"), indent=1)
