"""``python -m bench filters``: the time a filtered question's search takes beside an unfiltered one, on Lance.

A Lance index (``function.retrieval.lance_index``) of ``--rows`` passages
(``bench.scale_corpus``: SQuAD's dev paragraphs among train paragraphs and
synthetic distractors) is written once into ``--out`` (kept for the next run),
each row with a source and a tag of its document: ``corpus/part<0-9>/...`` and
one of four tags, by a hash of the document's id. Then each dev question
(``--questions``) is searched (BM25, top 5) five ways, one after the other so
that a busy machine slows all five alike: unfiltered; within ten documents (its
gold paragraph's and nine drawn at random); within its gold document's source
prefix (a tenth of the corpus); within its gold document's tag (a quarter); and
within that tag and prefix together. Reported per way: p50 / p95 of the search
in milliseconds, their ratio to the unfiltered one's, and recall@5 of the gold
paragraph (which every filter here keeps). Writes ``filters.json`` and
``filters.md`` into ``--out`` (default ``records/bench/filters``).
"""

from __future__ import annotations

import argparse
import json
import random
import time
import zlib
from datetime import UTC, datetime
from pathlib import Path

from bench.scale_corpus import corpus, dev_questions
from bench.stats import latency_summary
from bench.util import batches
from harness.paths import REPO, SQUAD

WAYS = ("unfiltered", "documents", "source_prefix", "tags", "tags_and_prefix")


def doc_of(pid: str, doc_id: str) -> str:
    """The document a corpus passage stands for; synthetic passages are grouped ten to a document."""
    return f"synth-{int(pid[6:]) // 10}" if pid.startswith("synth-") else doc_id


def bucket(doc: str, n: int) -> int:
    return zlib.crc32(doc.encode("utf-8")) % n


def build(uri: Path, rows: int) -> list[str]:
    """Write the index if ``uri`` does not hold it yet; the corpus's document ids either way."""
    from function.retrieval.lance_index import IndexRow, LanceIndex
    from function.retrieval.terms import terms

    passages, _ = corpus(rows, SQUAD, None)
    index = LanceIndex(str(uri), refresh_s=3600)
    docs: dict[str, None] = {}
    exists = uri.exists()
    for batch in batches(passages, 10_000):
        out = []
        for p in batch:
            doc = doc_of(p.id, p.doc_id)
            docs[doc] = None
            out.append(IndexRow(p.id, doc, " ".join(terms(p.title) + terms(p.text)),
                                f"corpus/part{bucket(doc, 10)}/{doc}", (f"t{bucket(doc, 4)}",)))
        if not exists:
            index.upsert(out)
    if not exists:
        index.optimize()
    index.close()
    return list(docs)


def measure(uri: Path, docs: list[str], n_questions: int, seed: int = 0) -> dict:
    from function.retrieval.filters import PassageFilter
    from function.retrieval.lance_index import LanceIndex
    from function.retrieval.terms import query_terms

    rng = random.Random(seed)
    questions = dev_questions(SQUAD / "dev.json")
    rng.shuffle(questions)
    index = LanceIndex(str(uri), timeout_s=60, refresh_s=3600)
    index.search(["warm"], 5)
    ms: dict[str, list[float]] = {way: [] for way in WAYS}
    found = dict.fromkeys(WAYS, 0)
    asked = 0
    for q in questions:
        terms = query_terms(q["question"])
        if not terms:
            continue
        gold_doc = q["gold"].rsplit("-", 1)[0]
        prefix, tag = f"corpus/part{bucket(gold_doc, 10)}/", (f"t{bucket(gold_doc, 4)}",)
        ways = {"unfiltered": None,
                "documents": PassageFilter(documents=(gold_doc, *rng.sample(docs, 9))),
                "source_prefix": PassageFilter(source_prefix=prefix),
                "tags": PassageFilter(tags=tag),
                "tags_and_prefix": PassageFilter(source_prefix=prefix, tags=tag)}
        for way, where in ways.items():
            t0 = time.perf_counter()
            hits = index.search(terms, 5, where)
            ms[way].append((time.perf_counter() - t0) * 1000)
            found[way] += q["gold"] in [h.passage_id for h in hits]
        asked += 1
        if asked == n_questions:
            break
    index.close()
    base = latency_summary(ms["unfiltered"])
    out = {}
    for way in WAYS:
        summary = latency_summary(ms[way])
        out[way] = {"ms": summary, "p50_ratio": round(summary["p50"] / base["p50"], 3),
                    "p95_ratio": round(summary["p95"] / base["p95"], 3), "recall_at_5": round(found[way] / asked, 3)}
    return {"questions": asked, "ways": out}


def markdown(result: dict) -> str:
    lines = [f"# Filtered questions on Lance: {result['rows']:,} passages, {result['questions']} questions", "",
             f"`{result['command']}`, {result['date']}, commit {result['commit']}.", "",
             "| Search | p50 ms | p95 ms | p50 / unfiltered | p95 / unfiltered | recall@5 |",
             "|---|---|---|---|---|---|"]
    for way, row in result["ways"].items():
        lines.append(f"| {way} | {row['ms']['p50']} | {row['ms']['p95']} | {row['p50_ratio']} | {row['p95_ratio']} | "
                     f"{row['recall_at_5']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    import subprocess

    p = argparse.ArgumentParser(prog="python -m bench filters", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--questions", type=int, default=500)
    p.add_argument("--index", type=Path, default=REPO / "build" / "bench-filters",
                   help="folder of the Lance indexes (kept: the next run with the same --rows reuses its index)")
    p.add_argument("--out", type=Path, default=REPO / "records" / "bench" / "filters")
    args = p.parse_args(argv)
    uri = args.index / f"{args.rows}.lance"
    uri.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    docs = build(uri, args.rows)
    built_s = time.perf_counter() - t0
    result = {"rows": args.rows, "documents": len(docs), "build_or_read_s": round(built_s, 1),
              **measure(uri, docs, args.questions),
              "command": "python -m bench filters " + " ".join(argv if argv is not None else []),
              "date": datetime.now(UTC).strftime("%Y-%m-%d"),
              "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                                       text=True).stdout.strip()}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "filters.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "filters.md").write_text(markdown(result))
    print(markdown(result))
    return 0
