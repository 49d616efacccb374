"""``python -m bench scale``: the retrieval step from 10^4 to 10^6 passages, per backend, in one run.

For each corpus size (``--sizes``; corpora from ``bench.scale_corpus``: the dev
paragraphs planted among distractors) and each backend (``--backends``):

- ``lance``: the Lance index (``function.retrieval.lance_index``) on a local
  folder, written as ingestion writes it (``LanceIndex.upsert`` of 256 rows at a
  time, then ``optimize`` once);
- ``sqlite``: the embedded store's FTS5 index (``SqliteStore.upsert_many`` of 256
  passages at a time: the store's own write path, its passages with a one-token
  stand-in for their tokens, since only the index is measured here).

it measures ingestion (rows per second over the whole build and for each tenth
of it: flat means no rewrite of what was written before), the index's size on
disk, and then, in a fresh process per backend: the time to open the index and
answer a first question (cold), every dev question's search (top 5) timed one
after another (warm p50 / p99), recall@5 of the gold paragraph, and the
process's peak resident memory. Writes ``scale.json`` and ``scale.md`` into
``--out`` (default ``records/bench/scale``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.scale_corpus import corpus, dev_questions, fetch_brown
from bench.stats import latency_summary
from harness.paths import REPO, SQUAD

BATCH = 256
BACKENDS = ("lance", "sqlite")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench scale", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    p.add_argument("--backends", nargs="+", choices=BACKENDS, default=list(BACKENDS))
    p.add_argument("--data", type=Path, default=SQUAD)
    p.add_argument("--no-brown", action="store_true", help="no Brown corpus among the real distractors")
    p.add_argument("--work", type=Path, default=REPO / "build" / "scale", help="where the indexes are built")
    p.add_argument("--keep", action="store_true", help="keep the built indexes")
    p.add_argument("--top-k", type=int, default=5)
    p.add_argument("--out", type=Path, default=REPO / "records" / "bench" / "scale")
    return p.parse_args(argv)


def log(message: str) -> None:
    print(f"[scale] {message}", file=sys.stderr, flush=True)


def folder_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


# -- building ---------------------------------------------------------------------


def _batches(passages, size: int = BATCH):
    batch = []
    for p in passages:
        batch.append(p)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _writer(backend: str, path: Path):
    """(write one batch of ``scale_corpus.Passage``, finish, close) for a backend at ``path``."""
    if backend == "lance":
        from function.ingest.job import index_rows
        from function.retrieval.lance_index import LanceIndex

        index = LanceIndex(str(path))
        return lambda batch: index.upsert(index_rows(batch)), index.optimize, index.close
    from function.store.records import Passage
    from function.store.sqlite import SqliteStore

    store = SqliteStore(path, 60.0)

    def write(batch):
        store.upsert_many([Passage.from_tokens(p.id, p.title, p.doc_id, p.text, [1], [[0, 1]], "stand-in", 2)
                           for p in batch])

    return write, lambda: None, store.close


def build(backend: str, path: Path, passages, size: int) -> dict:
    """Write the corpus in batches; only the writes are timed (making the corpus and analysing its terms
    are not the backend's work), and their rate is kept for each tenth of the corpus."""
    write, finish, close = _writer(backend, path)
    spent, tenths, done, tenth_spent, tenth_rows = 0.0, [], 0, 0.0, 0
    for batch in _batches(passages):
        t = time.perf_counter()
        write(batch)
        took = time.perf_counter() - t
        spent, tenth_spent = spent + took, tenth_spent + took
        tenth_rows, done = tenth_rows + len(batch), done + len(batch)
        if done * 10 // size > len(tenths) or done == size:
            tenths.append(round(tenth_rows / tenth_spent, 1))
            tenth_spent, tenth_rows = 0.0, 0
    t = time.perf_counter()
    finish()
    finished = time.perf_counter() - t
    close()
    return {"rows": done, "write_s": round(spent, 1), "finish_s": round(finished, 1),
            "rows_per_s": round(done / (spent + finished), 1), "rows_per_s_by_tenth": tenths,
            "bytes": folder_bytes(path)}


# -- querying, in a fresh process ---------------------------------------------------


def query(backend: str, path: Path, data: Path, k: int) -> dict:
    """Open the index, time a first question, then every dev question; recall@k; peak memory."""
    from function.retrieval.terms import query_terms

    questions = dev_questions(data / "dev.json")
    t0 = time.perf_counter()
    if backend == "lance":
        import lance  # noqa: F401 - the import is part of what a cold instance pays

        from function.retrieval.lance_index import LanceIndex

        searcher = LanceIndex(str(path), timeout_s=60.0, refresh_s=1e9)
    else:
        from function.store.sqlite import SqliteStore

        searcher = SqliteStore(path, 60.0)
    opened = time.perf_counter()
    searcher.search(query_terms(questions[0]["question"]), k)
    first = time.perf_counter()
    times, found = [], 0
    for q in questions:
        s = time.perf_counter()
        hits = searcher.search(query_terms(q["question"]), k)
        times.append((time.perf_counter() - s) * 1000)
        found += q["gold"] in [h.passage_id for h in hits]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"open_ms": round((opened - t0) * 1000, 1), "first_question_ms": round((first - opened) * 1000, 1),
            "warm_ms": latency_summary(times), "recall_at_k": round(found / len(questions), 4),
            "questions": len(questions), "peak_rss_mb": round(peak_mb, 1)}


def query_in_fresh_process(backend: str, path: Path, data: Path, k: int) -> dict:
    code = ("import json, sys\nfrom pathlib import Path\nfrom bench.scale import query\n"
            f"print(json.dumps(query({backend!r}, Path({str(path)!r}), Path({str(data)!r}), {k})))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- the run ----------------------------------------------------------------------


def markdown(result: dict) -> str:
    lines = [f"# The retrieval step from {min(result['sizes']):,} to {max(result['sizes']):,} passages", "",
             f"`{result['command']}`, {result['date']}, {result['machine'].get('cpu', 'CPU')} "
             f"({result['machine'].get('available_cpus')} CPUs, load average at start "
             f"{result['machine'].get('load_average_at_start')}). Top {result['top_k']}; "
             f"{result['questions']} dev questions over the 285 planted dev paragraphs.", "",
             "| passages | real / synthetic | backend | build (rows/s) | rows/s, first and last tenth | index MB | "
             "open + first question (ms) | warm p50 / p99 (ms) | recall@5 | peak RSS (MB) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row in result["rows"]:
        b, q, c = row["build"], row["query"], row["corpus"]
        tenths = b["rows_per_s_by_tenth"]
        lines.append(f"| {row['size']:,} | {c['planted'] + c['real']:,} / {c['synthetic']:,} | {row['backend']} | "
                     f"{b['rows_per_s']:,.0f} | {tenths[0]:,.0f} -> {tenths[-1]:,.0f} | "
                     f"{b['bytes'] / 1e6:.1f} | {q['open_ms']} + {q['first_question_ms']} | "
                     f"{q['warm_ms']['p50']:.1f} / {q['warm_ms']['p99']:.1f} | {q['recall_at_k']:.3f} | "
                     f"{q['peak_rss_mb']} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    args = parse_args(argv)
    from bench.machine import describe

    brown = None if args.no_brown else fetch_brown(REPO / "build" / "corpora")
    rows = []
    for size in sorted(args.sizes):
        for backend in args.backends:
            path = args.work / f"{backend}-{size}" / ("index.lance" if backend == "lance" else "passages.sqlite")
            shutil.rmtree(path.parent, ignore_errors=True)
            path.parent.mkdir(parents=True)
            passages, info = corpus(size, args.data, brown)
            log(f"{size:,} passages, {backend}: building ({info})")
            built = build(backend, path, passages, size)
            log(f"{size:,} passages, {backend}: {built['rows_per_s']:,.0f} rows/s, {built['bytes'] / 1e6:.1f} MB")
            asked = query_in_fresh_process(backend, path, args.data, args.top_k)
            log(f"{size:,} passages, {backend}: recall@{args.top_k} {asked['recall_at_k']}, "
                f"warm p50 {asked['warm_ms']['p50']:.1f} ms")
            rows.append({"size": size, "backend": backend, "corpus": info, "build": built, "query": asked})
            if not args.keep:
                shutil.rmtree(path.parent, ignore_errors=True)
    result = {"command": "python -m bench scale " + " ".join(argv if argv is not None else sys.argv[1:]),
              "date": datetime.now(UTC).strftime("%Y-%m-%d"), "machine": describe(),
              "sizes": sorted(args.sizes), "top_k": args.top_k, "batch": BATCH, "rows": rows,
              "questions": rows[0]["query"]["questions"] if rows else 0}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "scale.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    (args.out / "scale.md").write_text(markdown(result), encoding="utf-8")
    print(markdown(result))
    return 0
