# ruff: noqa  (a study script kept as it ran)
"""Embed SQuAD paragraphs/questions and generated documentation contexts/questions with the shipped encoder (cached)."""
import gzip, json, sys
from pathlib import Path
import numpy as np
sys.path.insert(0, "/work/main")
from function.retrieval.encoder import SentenceEncoder
from function.retrieval.hybrid import dense_text

OUT = Path("/work/main/build/qadapt")
enc = SentenceEncoder(Path("/work/main/encoder"), threads=2)


def squad(name):
    d = json.load(open(f"/work/shared/data/squad/{name}.json"))["data"]
    paras, qs = [], []
    for art in d:
        title = art["title"].replace("_", " ")
        for p in art["paragraphs"]:
            pi = len(paras)
            paras.append(dense_text(title, p["context"]))
            for qa in p["qas"]:
                qs.append((qa["question"], pi))
    return paras, qs


def docs():
    d = json.load(gzip.open("/work/main/records/build/sandbox/docs-gpu/docqa-corpus-negatives.json.gz"))["data"]
    paras, qs, pkg = [], [], []
    for art in d:
        for p in art["paragraphs"]:
            answerable = [qa for qa in p["qas"] if not qa.get("is_impossible")]
            if not answerable:
                continue
            pi = len(paras)
            paras.append(p["context"])
            pkg.append(art["title"].split("/")[0])
            for qa in answerable:
                qs.append((qa["question"], pi, qa.get("kind", "")))
    return paras, qs, pkg


def cached(name, texts):
    f = OUT / f"{name}.npy"
    if f.exists():
        return np.load(f)
    v = enc.embed(texts)
    np.save(f, v)
    return v


if __name__ == "__main__":
    meta = {}
    for name in ("train", "dev"):
        paras, qs = squad(name)
        cached(f"squad-{name}-p", paras)
        cached(f"squad-{name}-q", [q for q, _ in qs])
        meta[f"squad-{name}"] = {"qpara": [p for _, p in qs], "n_paras": len(paras)}
        print(name, len(paras), len(qs), flush=True)
    paras, qs, pkg = docs()
    print("docs", len(paras), len(qs), flush=True)
    cached("docs-p", paras)
    cached("docs-q", [q for q, _, _ in qs])
    meta["docs"] = {"qpara": [p for _, p, _ in qs], "kind": [k for _, _, k in qs], "pkg": pkg, "n_paras": len(paras)}
    json.dump(meta, open(OUT / "meta.json", "w"))
