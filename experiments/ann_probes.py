"""How wide the vector index's search must look: partitions probed and HNSW candidates, against recall and time.

    python -m experiments.ann_probes build/scale-1e6h/hybrid-1000000/index.lance --out records/bench/ann-probes-1e6

The table is a hybrid one that ``python -m bench scale --keep`` left (terms and
vectors, an IVF_HNSW_SQ index of one partition per ``ANN_ROWS_PER_PARTITION``
rows). Every question is embedded and searched by BM25 once; then, for every
setting of ``nprobes`` (partitions probed) and ``ef`` (HNSW candidates) (their order rotated question by
question, so that a busy moment of the machine falls on each alike), the dense
top ``DEPTH`` is searched and timed, and the function's own fusion
(``HybridSearcher.fuse``) ranks the union. Reported per setting: the dense
search's p50 / p99, the dense recall@20 and the mixed recall@1 / @5 of the gold
paragraph, and the reads the dense search made (Lance's ``io_stats``: one
Cloud Storage GET each on a deployed table, as ``bench cost lance`` found for
the terms). The settings are chosen on ``--train`` questions of train.json
(their paragraphs are in the table) and told on the dev questions, which
choose nothing.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

import numpy as np

from bench.scale_hybrid import ENCODER
from harness.paths import SQUAD

NPROBES = (3, 5, 10, 20, 40)
EFS = (50, 100, 300)


def measure(table: Path, encoder_folder: Path, questions: list[dict], settings: list[tuple[int, int]]) -> dict:
    """Per setting: the dense search's times, its recall@20 and the mixed ranking's recall@1 / @5."""
    from function.retrieval.encoder import SentenceEncoder
    from function.retrieval.hybrid import DEPTH, HybridSearcher, Rankings
    from function.retrieval.lance_index import LanceIndex
    from function.retrieval.terms import query_terms

    encoder = SentenceEncoder(encoder_folder, 1)
    index = LanceIndex(str(table), timeout_s=600.0, refresh_s=1e9, dim=encoder.dim)
    searcher = HybridSearcher(index, encoder)
    index.nearest(encoder.embed(["warm"])[0], DEPTH)  # the first search opens the index: not a setting's cost
    got = {s: {"ms": [], "reads": 0, "dense@20": 0, "mixed@1": 0, "mixed@5": 0} for s in settings}
    dataset = index._current()
    for n, q in enumerate(questions):
        terms = query_terms(q["question"])
        vector = encoder.embed([q["question"]])[0]
        bm25 = index.search(terms, DEPTH) if terms else []
        for s in settings[n % len(settings):] + settings[: n % len(settings)]:
            index.ann_nprobes, index.ann_ef = s
            dataset.io_stats_incremental()
            t0 = time.perf_counter()
            dense = index.nearest(vector, DEPTH)
            got[s]["ms"].append((time.perf_counter() - t0) * 1000)
            got[s]["reads"] += dataset.io_stats_incremental().read_iops
            mixed = [h.passage_id for h in searcher.fuse(terms, Rankings(bm25, dense), 5)]
            got[s]["dense@20"] += q["gold"] in {h.passage_id for h in dense}
            got[s]["mixed@1"] += q["gold"] in mixed[:1]
            got[s]["mixed@5"] += q["gold"] in mixed
        if (n + 1) % 200 == 0:
            print(f"[ann] {n + 1}/{len(questions)} questions", flush=True)
    index.close()
    return {f"{p},{ef}": {"nprobes": p, "ef": ef, "p50_ms": round(float(np.percentile(g["ms"], 50)), 2),
                          "p99_ms": round(float(np.percentile(g["ms"], 99)), 2),
                          "reads": round(g["reads"] / len(questions), 2),
                          **{k: round(g[k] / len(questions), 4) for k in ("dense@20", "mixed@1", "mixed@5")}}
            for (p, ef), g in got.items()}


def table(rows: dict) -> list[str]:
    lines = ["| nprobes | ef | dense p50 / p99 (ms) | reads per search | dense recall@20 | mixed recall@1 / @5 |",
             "|---|---|---|---|---|---|"]
    for r in rows.values():
        lines.append(f"| {r['nprobes']} | {r['ef']} | {r['p50_ms']:.1f} / {r['p99_ms']:.1f} | {r.get('reads', '-')} | "
                     f"{r['dense@20']:.3f} | "
                     f"{r['mixed@1']:.3f} / {r['mixed@5']:.3f} |")
    return lines


def main(argv=None) -> int:
    from bench.scale_corpus import dev_questions
    from experiments.fusion_sweep import train_questions

    p = argparse.ArgumentParser(prog="python -m experiments.ann_probes", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("table", type=Path, help="a hybrid Lance table that python -m bench scale --keep left")
    p.add_argument("--encoder", type=Path, default=ENCODER, help="the exported sentence encoder's folder")
    p.add_argument("--data", type=Path, default=SQUAD, help="the folder with train.json and dev.json")
    p.add_argument("--train", type=int, default=600, help="train.json questions the settings are chosen on")
    p.add_argument("--dev-every", type=int, default=1, help="every n-th dev question is told")
    p.add_argument("--nprobes", type=int, nargs="+", default=list(NPROBES))
    p.add_argument("--ef", type=int, nargs="+", default=list(EFS))
    p.add_argument("--out", type=Path, required=True, help="folder for ann_probes.json and ann_probes.md")
    args = p.parse_args(argv)
    if not (args.table / "_versions").exists():
        raise SystemExit(f"{args.table} is not a Lance table (python -m bench scale --keep leaves one)")
    settings = [(n, ef) for n in args.nprobes for ef in args.ef]
    train = measure(args.table, args.encoder, train_questions(args.data, args.train), settings)
    dev = measure(args.table, args.encoder, dev_questions(args.data / "dev.json")[:: args.dev_every], settings)
    command = "python -m experiments.ann_probes " + shlex.join(argv if argv is not None else sys.argv[1:])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "ann_probes.json").write_text(json.dumps(
        {"command": command, "table": str(args.table), "train": train, "dev": dev}, indent=2) + "\n", encoding="utf-8")
    md = [f"# Vector index search width: `{args.table}`",
          "", f"`{command}`", "", f"## {args.train} train.json questions (choose)", "", *table(train), "",
          f"## {len(dev_questions(args.data / 'dev.json')[:: args.dev_every])} dev questions (tell)", "", *table(dev)]
    (args.out / "ann_probes.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
