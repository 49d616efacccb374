"""Study (not kept): the sentence encoder's cosine between the question and each candidate's sentence as another
term beside the shipped one, on the dumps of squad_dump.py / docs_dump.py (the 16 best spans, as the reader ranks).
PYTHONPATH=. python records/bench/sentence/semantic.py > records/bench/sentence/semantic.txt   (~10 min)"""
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import sweep as SW  # noqa: E402

from bench.docs import score as docs_f1  # noqa: E402
from function.model.sentence import Sentences  # noqa: E402
from function.retrieval.encoder import SentenceEncoder  # noqa: E402

enc = SentenceEncoder(Path("encoder"), threads=2)


def sem_feats(q, texts, spans):
    """Each span's sentence's cosine to the question, and how many distinct sentences were embedded."""
    enc.load()
    cache, keys = {}, []
    for p, a, _ in spans:
        s = cache.setdefault(p, Sentences(texts[p]))
        sa, se = s._bounds(a)
        keys.append((p, sa, se))
    uniq = sorted(set(keys))
    vecs = enc.embed([q] + [texts[p][sa:se] for p, sa, se in uniq])
    vecs = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
    cos = dict(zip(uniq, vecs[1:] @ vecs[0]))
    return np.array([cos[k] for k in keys]), len(uniq)


def squad(kind):
    rows = json.loads((SW.DUMPS / f"cands-{kind}-k5.json").read_text())
    qs = []
    t0, nsent = time.perf_counter(), 0
    for r in rows:
        c = np.array(r["c"]).reshape(-1, 11)
        if not len(c):
            qs.append(None)
            continue
        base = c[:, 0] if kind == "gold" else (c[:, 0] + 8 * c[:, 3] - 0.5 * c[:, 1]
                                               + (2 * c[:, 6] if kind == "hybrid" else 0))
        spans = [(int(x[8]), int(x[9]), int(x[10])) for x in c]
        f = SW.features(r["q"], r["t"], spans, base)
        top = np.argsort(-(base + 2 * f[:, 0]), kind="stable")[:16]
        sem, k = sem_feats(r["q"], r["t"], [spans[i] for i in top])
        nsent += k
        qs.append((base[top], f[top, 0], sem, c[top, 7]))
    dt = (time.perf_counter() - t0) / len(rows)
    print(kind, f"{dt * 1000:.1f} ms a question, {nsent / len(rows):.1f} sentences")
    for ws in (0, 2):
        for wc in (0, 2, 4, 8, 12):
            got = np.array([float(x[3][np.argmax(x[0] + ws * x[1] + wc * x[2])]) if x else 0.0 for x in qs])
            print(f"  lex {ws} sem {wc}: {got.mean():.2f} odd {got[1::2].mean():.2f} even {got[0::2].mean():.2f}")


def docs():
    recs = json.loads((SW.DUMPS / "docs-cands.json").read_text())
    report = json.loads((SW.DUMPS / "docs-cands.json.d/docs.json").read_text())
    golds = {r["question"]: r["answers"] for s in report["sets"] for r in s["rows"]}
    last = {}
    for rec in recs:
        if rec["q"] in golds and rec["c"]:
            last[(rec["mode"], rec["q"])] = rec
    items = []
    for (m, q), rec in last.items():
        if m not in ("alone", "given"):
            continue
        c = rec["c"]
        spans = [(x[0], x[1], x[2]) for x in c]
        base = np.log(np.maximum([x[3] for x in c], 1e-300))
        f = SW.features(q, rec["t"], spans, base)
        sem, _ = sem_feats(q, rec["t"], spans)
        ok = np.array([x[1] < x[2] for x in c])
        f1 = np.array([docs_f1(rec["t"][p][a:z], golds[q])[1] for p, a, z in spans])
        items.append((m, base, f[:, 0], sem, ok, f1))
    for ws in (0, 2):
        for wc in (0, 2, 4, 8, 12):
            tot = {"alone": 0.0, "given": 0.0}
            for m, b, o, s, ok, f1 in items:
                tot[m] += f1[int(np.argmax(np.where(ok, b + ws * o + wc * s, -np.inf)))]
            print(f"  docs lex {ws} sem {wc}: alone {100 * tot['alone'] / len(golds):.1f} "
                  f"given {100 * tot['given'] / len(golds):.1f}")

if __name__ == "__main__":
    docs()
    for kind in ("bm25", "hybrid", "gold"):
        squad(kind)
