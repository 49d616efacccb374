# ruff: noqa  (a study script kept as it ran)
"""Dense recall of an int8 encoder folder against the shipped one: SQuAD dev questions against the 1,757 train + dev
paragraphs, and held-out generated documentation questions against their held-out packages' passages.
usage: eval_enc.py ENCODER_FOLDER [NAME]"""
import gzip, json, sys
from pathlib import Path
import numpy as np
sys.path.insert(0, "/work/main")
sys.path.insert(0, "/work/main/build/qadapt")
from function.retrieval.encoder import SentenceEncoder
from embed import squad, docs

D = Path("/work/main/build/qadapt")
folder = Path(sys.argv[1]); name = sys.argv[2] if len(sys.argv) > 2 else folder.name
enc = SentenceEncoder(folder, threads=2)
meta = json.load(open(D / "meta.json"))
pkg = meta["docs"]["pkg"]
pkgs = sorted(set(pkg))
held = set(np.random.default_rng(0).choice(pkgs, size=len(pkgs) // 5, replace=False))


def ranks(qv, pv, labels):
    sims = qv @ pv.T
    gold = sims[np.arange(len(labels)), labels][:, None]
    return (sims > gold).sum(1)


def summary(r):
    return {f"r@{k}": round(float((r < k).mean()), 4) for k in (1, 5, 20)}


def run(embed_p, embed_q):
    tp, tq = squad("train"); dp_, dq_ = squad("dev")
    P = np.concatenate([embed_p("squad-train-p", tp), embed_p("squad-dev-p", dp_)])
    Q = embed_q("squad-dev-q", [q for q, _ in dq_])
    lab = np.array([p for _, p in dq_]) + len(tp)
    out = {"squad_dev": summary(ranks(Q, P, lab))}
    paras, qs, _ = docs()
    keep = [i for i in range(len(paras)) if pkg[i] in held]
    pos = {i: j for j, i in enumerate(keep)}
    hq = [(q, pos[p]) for q, p, _ in qs if p in pos]
    P = embed_p("docs-p", paras, keep)
    Q = embed_q("docs-q", [q for q, _, _ in qs], [k for k, (q, p, _) in enumerate(qs) if p in pos])
    out["docs_held"] = summary(ranks(Q, P, np.array([p for _, p in hq])))
    return out


def cached(nm, texts, rows=None):
    v = np.load(D / f"{nm}.npy")
    return v if rows is None else v[rows]


def fresh(nm, texts, rows=None):
    if rows is not None:
        texts = [texts[i] for i in rows]
    return enc.embed(texts)


if __name__ == "__main__":
    res = {"shipped": run(cached, cached), name: run(fresh, fresh)}
    print(json.dumps(res), flush=True)
    json.dump(res, open(D / f"eval-{name}.json", "w"), indent=1)
