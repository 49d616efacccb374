"""Study: the sentence term's weight and form, decoded from the dumps (squad_dump.py, docs_dump.py) with the
function's own code (function.model.sentence), the odd and even halves of the SQuAD questions apart.
PYTHONPATH=. python records/bench/sentence/sweep.py > records/bench/sentence/sweep.txt"""
import json
from pathlib import Path

import numpy as np

from bench.docs import score as docs_f1
from function.model.sentence import Sentences, question_terms
from function.retrieval.terms import terms

DUMPS = Path("build/sentence")
WEIGHTS = (0, 1, 2, 3, 4, 6, 8, 10, 12, 16)


def features(question, texts, spans, base):
    """Per candidate: the shipped term (the sentence outside the span), the whole sentence, the question's terms
    inside the span, and the shipped term of the sentence's best span by ``base`` (one value per sentence)."""
    q = question_terms(question)
    cache, rows, keys = {}, [], []
    for p, a, z in spans:
        s = cache.setdefault(p, Sentences(texts[p]))
        sa, se = s._bounds(a)
        whole = len({w for w, _, _ in s._terms(sa, se) if w in q}) / max(1, len(q))
        inside = len(set(terms(texts[p][a:z])) & q) / max(1, len(q))
        rows.append([s.overlap(q, a, z), whole, inside])
        keys.append((p, sa))
    out = np.array(rows).reshape(-1, 3)
    best = {}
    for i, k in enumerate(keys):
        if k not in best or base[i] > base[best[k]]:
            best[k] = i
    return np.c_[out, [out[best[k], 0] for k in keys]]


FORMS = {"outside the span (shipped)": lambda f, w: w * f[:, 0], "whole sentence": lambda f, w: w * f[:, 1],
         "whole sentence - question terms in the span": lambda f, w: w * (f[:, 1] - f[:, 2]),
         "one value per sentence": lambda f, w: w * f[:, 3]}


def squad(kind):
    rows = json.loads((DUMPS / f"cands-{kind}-k5.json").read_text())
    qs = []
    for r in rows:
        c = np.array(r["c"]).reshape(-1, 11)
        if kind == "gold":
            base = c[:, 0]
        else:  # the shipped span ranking: logits + 8 x BM25 / best - 0.5 x [CLS] (+ 2 x cosine, hybrid)
            base = c[:, 0] + 8 * c[:, 3] - 0.5 * c[:, 1] + (2 * c[:, 6] if kind == "hybrid" else 0)
        f = features(r["q"], r["t"], [(int(x[8]), int(x[9]), int(x[10])) for x in c], base) if len(c) else None
        qs.append((base, f, c[:, 7]))
    n = len(qs)
    print(f"\nSQuAD dev, {kind} ({n} questions): F1 all / odd half / even half")
    plain = np.array([float(f1[np.argmax(base)]) if len(base) else 0.0 for base, f, f1 in qs])
    for name, form in FORMS.items():
        for w in WEIGHTS:
            got = np.array([float(f1[np.argmax(base + form(f, w))]) if len(base) else 0.0 for base, f, f1 in qs])
            diff = got - plain  # F1 in points (bench.cascade.f1_of)
            print(f"  {name:45} w={w}: {got.mean():.2f} / {got[1::2].mean():.2f} / "
                  f"{got[0::2].mean():.2f}   paired against w=0: {diff.mean():+.2f} +- "
                  f"{diff.std(ddof=1) / np.sqrt(n):.2f}")
    shipped = FORMS["outside the span (shipped)"]
    for best in (8, 16, 32):  # only the best N by the shipped ranking ranked again (the reader's CANDIDATES)
        got = []
        for base, f, f1 in qs:
            top = np.argsort(-base, kind="stable")[:best]
            got.append(float(f1[top[np.argmax(base[top] + shipped(f[top], 2))]]) if len(base) else 0.0)
        print(f"  best {best} ranked again, w=2: {np.mean(got):.2f}")


def docs():
    recs = json.loads((DUMPS / "docs-cands.json").read_text())
    golds = {r["question"]: r["answers"]
             for s in json.loads((DUMPS / "docs-cands.json.d/docs.json").read_text())["sets"] for r in s["rows"]}
    last = {}  # the question's last call in each mode (the warm-up asks come first)
    for rec in recs:
        if rec["q"] in golds and rec["c"]:
            last[(rec["mode"], rec["q"])] = rec
    print(f"\nDocumentation benchmark, dev part ({len(golds)} questions; abstentions score 0): F1 asked alone / "
          "right passage given")
    for name, form in FORMS.items():
        for w in WEIGHTS:
            tot = {"alone": 0.0, "given": 0.0}
            for (mode, q), rec in last.items():
                if mode not in tot:
                    continue
                c = rec["c"]
                base = np.log(np.maximum([x[3] for x in c], 1e-300))
                f = features(q, rec["t"], [(x[0], x[1], x[2]) for x in c], base)
                key = np.where([x[1] < x[2] for x in c], base + form(f, w), -np.inf)
                p, a, z, _ = c[int(np.argmax(key))]
                tot[mode] += docs_f1(rec["t"][p][a:z], golds[q])[1]
            print(f"  {name:45} w={w}: {100 * tot['alone'] / len(golds):.1f} / {100 * tot['given'] / len(golds):.1f}")


if __name__ == "__main__":
    for kind in ("bm25", "hybrid", "gold"):
        squad(kind)
    docs()
