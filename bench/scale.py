"""``python -m bench scale``: questions asked alone from 10^4 to 10^6 passages, per backend, in one run.

For each corpus size (``--sizes``; corpora from ``bench.scale_corpus``: the dev
paragraphs planted among distractors) and each backend (``--backends``; a
backend named in ``--backend-sizes`` runs only at the sizes it lists there):

- ``lance``: the Lance index (``function.retrieval.lance_index``) on a local
  folder, written as ingestion writes it (``LanceIndex.upsert`` of 256 rows at a
  time, then ``optimize`` once);
- ``sqlite``: the embedded store's FTS5 index (``SqliteStore.upsert_many`` of 256
  passages at a time: the store's own write path, its passages with a one-token
  stand-in for their tokens, since only the index is measured here);

it measures ingestion (rows per second over the whole build and for each tenth
of it: flat means no rewrite of what was written before; a build still running
after ``--build-budget-s`` stops there and its row says how far it got: nothing
is extrapolated, and its questions are asked of the rows it wrote), what it
wrote (bytes passed to ``write()``), the index's size, and then, in a fresh
process per backend: the time to open the index and answer a first question
(cold), every dev question's search (top 5) timed one after another (warm p50 /
p99), recall@5 of the gold paragraph, the process's peak resident memory, and
whether its top 5 are FTS5's.

At ``--f1-sizes`` (default 10^4 and 10^5) the dev questions are also answered
end to end through the function's own question-alone path (``bench.scale_reading``),
and at ``--hybrid-sizes`` dense vectors and their fusion with BM25 are measured
(``bench.scale_hybrid``; with F1 where both apply). Writes ``scale.json`` and
``scale.md`` into ``--out`` (default ``records/bench/scale``).

Firestore's term index was a third backend until its question was answered (its
figures: ``records/bench/scale``; records/README.md names the commit that
retired its code).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.scale_corpus import corpus, dev_questions, fetch_brown
from bench.stats import latency_summary
from bench.util import batches, folder_bytes, in_fresh_process, peak_rss_mb
from harness.paths import ENCODER, REPO, SQUAD, default_artifact

BATCH = 256
BACKENDS = ("lance", "sqlite")
F1_RETRIEVALS = ("sqlite", "lance", "hybrid")


def backend_sizes(values: list[str]) -> dict[str, list[int]]:
    """``BACKEND=N[,N...]`` arguments as a mapping (the defaults for backends not named)."""
    out = {}
    for value in values:
        name, _, sizes = value.partition("=")
        if name not in BACKENDS or not sizes:
            raise argparse.ArgumentTypeError(f"--backend-sizes takes BACKEND=N[,N...] with BACKEND one of "
                                             f"{', '.join(BACKENDS)}, not {value!r}")
        out[name] = [int(s) for s in sizes.split(",")]
    return out


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench scale", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    p.add_argument("--backends", nargs="+", choices=BACKENDS, default=list(BACKENDS))
    p.add_argument("--backend-sizes", nargs="*", default=[], metavar="BACKEND=N[,N...]",
                   help="the sizes at which a backend runs (default: every --sizes)")
    p.add_argument("--build-budget-s", type=float, default=3600.0,
                   help="a build still writing after this many seconds stops; its row says how far it got")
    p.add_argument("--data", type=Path, default=SQUAD)
    p.add_argument("--no-brown", action="store_true", help="no Brown corpus among the real distractors")
    p.add_argument("--work", type=Path, default=REPO / "build" / "scale", help="where the indexes are built")
    p.add_argument("--keep", action="store_true", help="keep the built indexes")
    p.add_argument("--top-k", type=int, default=5)
    p.add_argument("--f1-sizes", type=int, nargs="*", default=[10_000, 100_000],
                   help="sizes at which dev EM/F1 is measured end to end (none: leave it out)")
    p.add_argument("--f1-every", type=int, default=1, help="ask every N-th dev question for EM/F1 (1: all)")
    p.add_argument("--f1-retrievals", nargs="+", choices=F1_RETRIEVALS, default=list(F1_RETRIEVALS),
                   help="the retrieval steps read end to end (lance and hybrid where built at that size)")
    p.add_argument("--artifact", type=Path, default=None, help="the reader (default: artifact/, else the stand-in)")
    p.add_argument("--threads", type=int, default=2, help="ONNX Runtime threads of the reader and the encoder")
    p.add_argument("--hybrid-sizes", type=int, nargs="*", default=[10_000, 100_000],
                   help="sizes at which dense vectors and their fusion with BM25 are measured (none: leave out)")
    p.add_argument("--encoder", type=Path, default=None,
                   help="sentence-encoder folder (default: the shipped encoder/; one holding none is exported "
                        "from all-MiniLM-L6-v2 as it comes first)")
    p.add_argument("--embed-cache", type=Path, default=None,
                   help="where passage embeddings are kept between runs (default build/scale/embeddings)")
    p.add_argument("--out", type=Path, default=REPO / "records" / "bench" / "scale")
    args = p.parse_args(argv)
    try:
        args.backend_sizes = backend_sizes(args.backend_sizes)
    except argparse.ArgumentTypeError as e:
        p.error(str(e))
    return args


def log(message: str) -> None:
    print(f"[scale] {message}", file=sys.stderr, flush=True)


def written_bytes() -> int | None:
    """Bytes this process has passed to write() and pwrite() so far, every thread (``/proc/self/io``)."""
    try:
        for line in Path("/proc/self/io").read_text().splitlines():
            if line.startswith("wchar:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


# -- building ---------------------------------------------------------------------


def stand_in(batch) -> list:
    """Store passages with a one-token stand-in for their tokens: only the index is measured."""
    from function.store.passage import Passage

    return [Passage.from_tokens(p.id, p.title, p.doc_id, p.text, [1], [[0, 1]], "stand-in", 2) for p in batch]


def _writer(backend: str, path: Path):
    """(write one batch of ``scale_corpus.Passage``, finish, close) for a backend at ``path``."""
    if backend == "lance":
        from function.retrieval.lance_index import LanceIndex, index_rows

        index = LanceIndex(str(path))
        return lambda batch: index.upsert(index_rows(batch)), index.optimize, index.close
    from function.store.sqlite import SqliteStore

    store = SqliteStore(path, 60.0)
    return lambda batch: store.upsert_many(stand_in(batch)), lambda: None, store.close


def build(backend: str, path: Path, passages, size: int, budget_s: float = float("inf")) -> dict:
    """Write the corpus in batches; only the writes are timed (making the corpus and analysing its terms
    are not the backend's work), and their rate is kept for each tenth of the corpus. Stops once the
    writes have taken ``budget_s``."""
    write, finish, close = _writer(backend, path)
    spent, tenths, done, tenth_spent, tenth_rows = 0.0, [], 0, 0.0, 0
    wrote_before = written_bytes()
    for batch in batches(passages, BATCH):
        t = time.perf_counter()
        write(batch)
        took = time.perf_counter() - t
        spent, tenth_spent = spent + took, tenth_spent + took
        tenth_rows, done = tenth_rows + len(batch), done + len(batch)
        if done * 10 // size > len(tenths) or done == size:
            tenths.append(round(tenth_rows / tenth_spent, 1))
            tenth_spent, tenth_rows = 0.0, 0
        if spent > budget_s and done < size:
            log(f"{backend}: stopped after {done:,} of {size:,} rows ({spent:.0f} s > budget {budget_s:.0f} s)")
            break
    t = time.perf_counter()
    finish()
    finished = time.perf_counter() - t
    wrote_after = written_bytes()
    close()
    out = {"rows": done, "complete": done == size, "write_s": round(spent, 1), "finish_s": round(finished, 1),
           "rows_per_s": round(done / (spent + finished), 1), "rows_per_s_by_tenth": tenths,
           "bytes": folder_bytes(path)}
    if wrote_before is not None and wrote_after is not None:
        out["bytes_written"] = wrote_after - wrote_before
    return out


# -- querying, in a fresh process ---------------------------------------------------


def _searcher(backend: str, path: Path):
    if backend == "lance":
        import lance  # noqa: F401 - the import is part of what a cold instance pays

        from function.retrieval.lance_index import LanceIndex

        return LanceIndex(str(path), timeout_s=60.0, refresh_s=1e9)
    from function.store.sqlite import SqliteStore

    return SqliteStore(path, 60.0).index


def query(backend: str, path: Path, data: Path, k: int) -> dict:
    """Open the index, time a first question, then every dev question; recall@k; peak memory; the rankings.
    Run in a fresh process (``bench.util.in_fresh_process``), so that opening is a cold instance's."""
    from function.retrieval.terms import query_terms

    path, questions = Path(path), dev_questions(Path(data) / "dev.json")
    t0 = time.perf_counter()
    searcher = _searcher(backend, path)
    opened = time.perf_counter()
    searcher.search(query_terms(questions[0]["question"]), k)
    first = time.perf_counter()
    times, found, ranked = [], 0, []
    lance_io = searcher._current().io_stats_incremental if backend == "lance" else None
    if lance_io:
        lance_io()  # Lance's own count of its read requests (on Cloud Storage, one GET each), from here on
    for q in questions:
        s = time.perf_counter()
        hits = searcher.search(query_terms(q["question"]), k)
        times.append((time.perf_counter() - s) * 1000)
        ranked.append([h.passage_id for h in hits])
        found += q["gold"] in ranked[-1]
    peak_mb = peak_rss_mb()
    out = {"open_ms": round((opened - t0) * 1000, 1), "first_question_ms": round((first - opened) * 1000, 1),
           "warm_ms": latency_summary(times), "recall_at_k": round(found / len(questions), 4),
           "questions": len(questions), "peak_rss_mb": round(peak_mb, 1), "ranked": ranked}
    if lance_io:
        io = lance_io()
        out["reads_per_question"] = round(io.read_iops / len(questions), 2)
        out["kb_read_per_question"] = round(io.read_bytes / len(questions) / 1024, 1)
    return out


def agreement(rows: list[dict]) -> None:
    """Each row's share of questions whose top k is the sqlite (FTS5) row's of the same size; rankings dropped."""
    reference = {r["size"]: r["query"]["ranked"] for r in rows if r["backend"] == "sqlite" and r["query"]}
    for r in rows:
        if r["query"] and r["size"] in reference:
            same = sum(a == b for a, b in zip(r["query"]["ranked"], reference[r["size"]]))
            r["query"]["same_top_k_as_sqlite"] = round(same / len(reference[r["size"]]), 4)
    for r in rows:
        if r["query"]:
            r["query"].pop("ranked", None)


# -- the run ----------------------------------------------------------------------


def index_path(work: Path, backend: str, size: int) -> Path:
    name = {"lance": "index.lance", "sqlite": "passages.sqlite"}[backend]
    return work / f"{backend}-{size}" / name


class Run:
    """What the run has measured so far, written to ``scale.json`` and ``scale.md`` after every step: a run
    cut off (a lost session, a machine given back) keeps what it had measured."""

    def __init__(self, args, command: str, machine: dict):
        self.args, self.command, self.machine = args, command, machine
        self.rows: list[dict] = []
        self.hybrid: list[dict] = []
        self.f1: list[dict] = []

    def questions(self) -> int:
        """How many dev questions were asked, from whichever measurement ran (a run may skip the backends)."""
        asked = [r["query"]["questions"] for r in self.rows if r["query"]]
        asked += [h["ask"]["questions"] for h in self.hybrid] + [f["questions"] for f in self.f1]
        return asked[0] if asked else 0

    def result(self) -> dict:
        args = self.args
        result = {"command": self.command, "date": datetime.now(UTC).strftime("%Y-%m-%d"), "machine": self.machine,
                  "sizes": sorted(args.sizes), "top_k": args.top_k, "batch": BATCH, "rows": self.rows,
                  "questions": self.questions(),
                  "build_budget_s": args.build_budget_s, "f1": self.f1, "hybrid": self.hybrid}
        if self.hybrid:
            from bench.scale_hybrid import encoder_size

            manifest = json.loads((args.encoder / "encoder.json").read_text(encoding="utf-8"))
            result["encoder"] = {"folder": os.path.relpath(args.encoder, REPO), **encoder_size(args.encoder),
                                 "max_tokens": manifest["max_tokens"], "parity": manifest.get("parity")}
        if self.f1:
            from function.model.artifact import load_manifest

            manifest = load_manifest(args.artifact)
            result["artifact"] = {"name": manifest.name, "artifact_hash": manifest.artifact_hash}
        return result

    def save(self) -> dict:
        from bench.scale_report import markdown

        result = self.result()
        self.args.out.mkdir(parents=True, exist_ok=True)
        (self.args.out / "scale.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        (self.args.out / "scale.md").write_text(markdown(result), encoding="utf-8")
        return result


def run_size(run: Run, size: int, brown) -> None:
    """One corpus size: every backend's build and questions, then hybrid and F1 where asked."""
    from bench import scale_hybrid

    args, rows = run.args, []
    for backend in args.backends:
        if backend in args.backend_sizes and size not in args.backend_sizes[backend]:
            continue
        path = index_path(args.work, backend, size)
        shutil.rmtree(path.parent, ignore_errors=True)
        path.parent.mkdir(parents=True)
        passages, info = corpus(size, args.data, brown)
        log(f"{size:,} passages, {backend}: building ({info})")
        built = build(backend, path, passages, size, args.build_budget_s)
        log(f"{size:,} passages, {backend}: {built['rows_per_s']:,.0f} rows/s, {built['bytes'] / 1e6:.1f} MB")
        # a build stopped by its budget is asked too: the planted paragraphs come first, so it is a smaller
        # haystack of built["rows"] passages (its row says so)
        asked = (in_fresh_process("bench.scale", "query", backend, path, args.data, args.top_k) if built["rows"]
                 else None)
        if asked:
            log(f"{size:,} passages, {backend}: recall@{args.top_k} {asked['recall_at_k']}, "
                f"warm p50 {asked['warm_ms']['p50']:.1f} ms")
        rows.append({"size": size, "backend": backend, "corpus": info, "build": built, "query": asked})
    agreement(rows)
    run.rows += rows
    run.save()
    hybrid_path = args.work / f"hybrid-{size}" / "index.lance"
    if size in args.hybrid_sizes:
        shutil.rmtree(hybrid_path.parent, ignore_errors=True)
        hybrid_path.parent.mkdir(parents=True)
        log(f"{size:,} passages, hybrid: embedding (cache {args.embed_cache})")
        embedded = scale_hybrid.embed(corpus(size, args.data, brown)[0], args.encoder, args.embed_cache,
                                      args.threads, lambda m: log(f"{size:,} passages, hybrid: {m}"))
        built = scale_hybrid.build(hybrid_path, corpus(size, args.data, brown)[0], args.encoder, args.embed_cache)
        asked = in_fresh_process("bench.scale_hybrid", "ask", hybrid_path, args.encoder, args.data, scale_hybrid.DEPTH,
                                 args.threads)
        log(f"{size:,} passages, hybrid: recall {asked['recall']}")
        run.hybrid.append({"size": size, "embed": embedded, "build": built, "ask": asked})
        run.save()
    if size in args.f1_sizes:
        read_end_to_end(run, size, brown, hybrid_path if size in args.hybrid_sizes else None)
    if not args.keep:
        for backend in (*args.backends, "hybrid", "reading"):
            shutil.rmtree(args.work / f"{backend}-{size}", ignore_errors=True)


def read_end_to_end(run: Run, size: int, brown, hybrid_path: Path | None) -> None:
    """Dev EM/F1 asked alone through ``QAService``, with each retrieval step built at this size."""
    from bench import scale_hybrid, scale_reading
    from bench.in_process import open_service
    from bench.retrieval import read_all

    args = run.args
    store = args.work / f"reading-{size}" / "passages.sqlite"
    shutil.rmtree(store.parent, ignore_errors=True)
    store.parent.mkdir(parents=True)
    log(f"{size:,} passages: the reading store (tokenised by {args.artifact.name})")
    made = scale_reading.build_store(corpus(size, args.data, brown)[0], args.artifact, store, args.threads)
    questions = scale_reading.dev_questions(args.data, args.f1_every)
    lance_path = index_path(args.work, "lance", size)
    for retrieval in args.f1_retrievals:
        if retrieval == "sqlite":
            service = open_service(scale_reading.reading_env(args.artifact, store, args.threads))
        elif retrieval == "lance" and lance_path.exists():
            service = open_service(scale_reading.reading_env(args.artifact, store, args.threads, str(lance_path)))
        elif retrieval == "hybrid" and hybrid_path is not None:
            env = scale_reading.reading_env(args.artifact, store, args.threads, str(hybrid_path))
            service = open_service(scale_hybrid.hybrid_env(env, args.encoder))
        else:
            continue
        log(f"{size:,} passages, F1 with {retrieval}: {len(questions)} questions")
        read = read_all(service, questions, args.top_k)
        log(f"{size:,} passages, F1 with {retrieval}: {read['with_retrieval']}")
        run.f1.append({"size": size, "retrieval": retrieval, "questions": len(questions), "store": made, **read})
        run.save()


def main(argv=None) -> int:
    args = parse_args(argv)
    from bench.machine import describe
    from bench.scale_report import markdown

    args.artifact = (args.artifact or default_artifact()).resolve()
    args.encoder = (args.encoder or ENCODER).resolve()
    args.embed_cache = (args.embed_cache or REPO / "build" / "scale" / "embeddings").resolve()
    args.hybrid_sizes = [s for s in args.hybrid_sizes if s in args.sizes]
    args.f1_sizes = [s for s in args.f1_sizes if s in args.sizes]
    if args.hybrid_sizes:
        from bench.scale_hybrid import ensure_encoder

        ensure_encoder(args.encoder, args.data)
    brown = None if args.no_brown else fetch_brown(REPO / "build" / "corpora")
    command = "python -m bench scale " + " ".join(argv if argv is not None else sys.argv[1:])
    run = Run(args, command, describe())
    for size in sorted(args.sizes):
        run_size(run, size, brown)
    print(markdown(run.save()))
    return 0
