"""Which fusion of BM25 and dense vectors puts the gold paragraph in the first 5: tuned on train questions, told on dev.

    python -m experiments.fusion_sweep build/scale-run/w/hybrid-100000/index.lance --out records/bench/fusion-1e5

The table is one that ``python -m bench scale --keep`` left at a hybrid size
(terms and vectors, the dev paragraphs planted, train.json's paragraphs among
the real distractors). For each question, once: BM25's top ``--depth`` with
scores, the approximate dense top ``--depth``, and for every passage in either
list its BM25 score (a full-text search restricted to them) and its exact cosine
to the question (its stored vector), beside the score the dense search gave it
(1 - Lance's distance: on another scale through the approximate index,
``LanceIndex.nearest``). The rules below are then scored from those lists alone:

- ``rrf``: reciprocal-rank fusion of BM25's first ``db`` and the dense first
  ``dd``, the dense ranks weighted by ``w`` (the function's rule: k 60, 20, 20, 1);
- ``linear``: ``a * bm25 / best bm25 + (1 - a) * cosine`` over both lists' first ``d``;
- ``linear, no vectors read``: the same, with the cosine of a passage the dense
  list lacks taken as the list's last (what it costs not to read those vectors);
- ``linear, scaled cosine``: the same without reading vectors either, the
  cosines scaled per question between the dense list's last (0) and first (1),
  0 for a passage the list lacks, from the dense search's own scores: what the
  function does (``function.retrieval.hybrid.mixed_scores``), indifferent to
  the scale Lance reports cosines on;
- ``rerank``: BM25's first ``n`` reordered by the same sum (no vector search:
  the question's embedding and ``n`` stored vectors).

Each rule's parameters are chosen on ``--train`` questions of train.json (their
paragraphs are in the table), and the chosen ones are scored on every dev
question: the dev questions pick nothing. The question lists are kept in
``--cache`` so that a second run only scores.
"""

from __future__ import annotations

import argparse
import itertools
import json
import pickle
import random
import time
from pathlib import Path

import numpy as np

from bench.scale_hybrid import ENCODER
from harness.paths import REPO, SQUAD

DEPTH = 100
KS = (1, 5, 20)
A_GRID = [a / 20 for a in range(21)]
# each row of the table: a rule and the grid its parameters are chosen from
GRIDS = {
    "rrf": ("rrf", [{"k": k, "db": db, "dd": dd, "w": w} for k, db, dd, w in itertools.product(
        (10, 30, 60, 100), (20, 50, 100), (10, 20, 50, 100), (0.25, 0.5, 0.75, 1.0, 1.5))]),
    **{f"linear, d {d}": ("linear", [{"d": d, "a": a} for a in A_GRID]) for d in (20, 100)},
    **{f"linear, no vectors read, d {d}": ("linear, no vectors read", [{"d": d, "a": a} for a in A_GRID])
       for d in (20, 100)},
    **{f"linear, scaled cosine, d {d}": ("linear, scaled cosine", [{"d": d, "a": a} for a in A_GRID])
       for d in (20, 100)},
    "rerank": ("rerank", [{"n": n, "a": a} for n in (20, 50, 100) for a in A_GRID]),
}
PREVIOUS_RULE = ("rrf", {"k": 60, "db": 20, "dd": 20, "w": 1.0})  # the function's until 2026-11-25
SHIPPED_RULE = ("linear, scaled cosine", {"d": 20, "a": 0.65})  # function.retrieval.hybrid's


def train_questions(data: Path, n: int, seed: int = 0) -> list[dict]:
    from function.ingest.records import squad_id

    articles = json.loads((data / "train.json").read_text(encoding="utf-8"))["data"]
    every = [{"question": qa["question"], "gold": "train-" + squad_id(a["title"], i)}
             for a in articles for i, p in enumerate(a["paragraphs"]) for qa in p["qas"]]
    return random.Random(seed).sample(every, min(n, len(every)))


def lists(table: Path, encoder_folder: Path, questions: list[dict], depth: int) -> list[dict]:
    """Each question's BM25 and dense lists, and both scores of every passage in either."""
    import lance

    from function.retrieval.encoder import SentenceEncoder
    from function.retrieval.lance_index import LanceIndex, quote
    from function.retrieval.terms import query_terms

    encoder = SentenceEncoder(encoder_folder, 1)
    index = LanceIndex(str(table), timeout_s=600.0, refresh_s=1e9, dim=encoder.dim)
    ds = lance.dataset(str(table))
    out = []
    for n, q in enumerate(questions, 1):
        terms = query_terms(q["question"])
        vector = encoder.embed([q["question"]])[0]
        bm25 = index.search(terms, depth) if terms else []
        dense = index.nearest(vector, depth)
        scores = {h.passage_id: h.score for h in bm25}
        union = list(dict.fromkeys([h.passage_id for h in bm25] + [h.passage_id for h in dense]))
        missing = tuple(p for p in union if p not in scores)
        if missing and terms:
            scores.update((h.passage_id, h.score) for h in index.search(terms, len(missing), among=missing))
        rows = ds.to_table(columns=["id", "vector"], filter="id IN (" + ", ".join(quote(p) for p in union) + ")")
        vectors = np.asarray(rows.column("vector").to_pylist(), dtype=np.float32)
        cosine = dict(zip(rows.column("id").to_pylist(), (vectors @ vector).tolist()))
        out.append({"gold": q["gold"], "bm25": [h.passage_id for h in bm25], "dense": [h.passage_id for h in dense],
                    "score": {p: scores.get(p, 0.0) for p in union}, "cosine": cosine,
                    "dense_score": {h.passage_id: h.score for h in dense}})
        if n % 200 == 0:
            print(f"[fusion] {n}/{len(questions)} questions", flush=True)
    index.close()
    return out


def ranked(rule: str, params: dict, q: dict) -> list[str]:
    """The question's passages in the order ``rule`` with ``params`` reads them."""
    if rule == "rrf":
        fused: dict[str, float] = {}
        for ranking, weight in ((q["bm25"][:params["db"]], 1.0), (q["dense"][:params["dd"]], params["w"])):
            for rank, pid in enumerate(ranking, 1):
                fused[pid] = fused.get(pid, 0.0) + weight / (params["k"] + rank)
        return [p for p, _ in sorted(fused.items(), key=lambda item: (-item[1], item[0]))]
    if rule == "linear, scaled cosine":
        from function.retrieval.hybrid import mixed_scores

        dense = q["dense"][:params["d"]]
        pool = dict.fromkeys(q["bm25"][:params["d"]] + dense)
        return [p for p, _ in mixed_scores({p: q["score"][p] for p in pool}, {p: q["dense_score"][p] for p in dense},
                                           params["a"])]
    if rule == "rerank":
        pool, cosine = q["bm25"][:params["n"]], q["cosine"]
    else:
        dense = q["dense"][:params["d"]]
        pool = list(dict.fromkeys(q["bm25"][:params["d"]] + dense))
        cosine = q["cosine"]
        if rule.endswith("no vectors read"):
            floor = min((q["cosine"][p] for p in dense), default=0.0)
            cosine = {p: q["cosine"][p] if p in dense else floor for p in pool}
    best = max((q["score"][p] for p in pool), default=0.0) or 1.0
    a = params["a"]
    mixed = {p: a * q["score"][p] / best + (1 - a) * cosine.get(p, 0.0) for p in pool}
    return [p for p, _ in sorted(mixed.items(), key=lambda item: (-item[1], item[0]))]


def recall(rule: str, params: dict, questions: list[dict], ks=KS) -> dict[str, float]:
    found = dict.fromkeys(ks, 0)
    for q in questions:
        order = ranked(rule, params, q)
        for k in ks:
            found[k] += q["gold"] in order[:k]
    return {f"@{k}": round(v / len(questions), 4) for k, v in found.items()}


def tune(rule: str, grid: list[dict], questions: list[dict]) -> tuple[dict, float]:
    """The grid's parameters with the best recall@5 on ``questions`` (the first of equals)."""
    best, best_r = None, -1.0
    for params in grid:
        r = recall(rule, params, questions, (5,))["@5"]
        if r > best_r:
            best, best_r = params, r
    return best, best_r


def cached_lists(cache: Path, name: str, make) -> list[dict]:
    path = cache / f"{name}.pickle"
    if path.exists():
        return pickle.loads(path.read_bytes())
    made = make()
    cache.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(made))
    return made


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.fusion_sweep", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("table", type=Path, help="a hybrid Lance table that python -m bench scale --keep left")
    p.add_argument("--encoder", type=Path, default=ENCODER)
    p.add_argument("--data", type=Path, default=SQUAD)
    p.add_argument("--train", type=int, default=1500, help="train questions the parameters are chosen on")
    p.add_argument("--depth", type=int, default=DEPTH, help="each list's depth")
    p.add_argument("--cache", type=Path, default=None, help="where the lists are kept (default build/fusion/<table>)")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    if not args.table.exists():
        raise SystemExit(f"{args.table} does not exist (python -m bench scale --keep leaves it)")
    from bench.scale_corpus import dev_questions

    cache = args.cache or REPO / "build" / "fusion" / args.table.parent.name
    t0 = time.perf_counter()
    train = cached_lists(cache, f"train-{args.train}-{args.depth}",
                         lambda: lists(args.table, args.encoder, train_questions(args.data, args.train), args.depth))
    dev = cached_lists(cache, f"dev-{args.depth}",
                       lambda: lists(args.table, args.encoder, dev_questions(args.data / "dev.json"), args.depth))
    fixed = {"bm25": ("rerank", {"n": args.depth, "a": 1.0}),
             "dense": ("rrf", {"k": 60, "db": 0, "dd": args.depth, "w": 1}),
             "rrf (what the function did before)": PREVIOUS_RULE,
             "what the function does (scaled cosine)": SHIPPED_RULE}
    rows = [{"rule": name, "params": params if name.startswith(("rrf", "what")) else {},
             "train@5": recall(rule, params, train)["@5"], "dev": recall(rule, params, dev)}
            for name, (rule, params) in fixed.items()]
    for name, (rule, grid) in GRIDS.items():
        params, on_train = tune(rule, grid, train)
        rows.append({"rule": name, "params": params, "train@5": on_train, "dev": recall(rule, params, dev)})
    result = {"table": str(args.table), "train_questions": len(train), "dev_questions": len(dev),
              "depth": args.depth, "rows": rows, "seconds": round(time.perf_counter() - t0, 1),
              "command": "python -m experiments.fusion_sweep " + " ".join(argv or __import__("sys").argv[1:])}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "fusion.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    lines = [f"# Fusion rules on {args.table}", "", f"`{result['command']}`", "",
             f"Parameters chosen on {len(train)} train questions (recall@5 there); scored on {len(dev)} dev questions.",
             "", "| rule | parameters | train recall@5 | dev @1 | dev @5 | dev @20 |", "|---|---|---|---|---|---|"]
    for r in rows:
        shown = ", ".join(f"{k} {v}" for k, v in r["params"].items()) or "-"
        lines.append(f"| {r['rule']} | {shown} | {r['train@5']:.3f} | {r['dev']['@1']:.3f} | {r['dev']['@5']:.3f} "
                     f"| {r['dev']['@20']:.3f} |")
    (args.out / "fusion.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
