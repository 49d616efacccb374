"""``python -m bench cost lance``: what the Lance retrieval index (``QA_INDEX_URI=gs://...``) does on
Cloud Storage, counted operation by operation, priced beside Firestore's term index.

    python -m bench cost lance --sizes 10000 100000 --questions 300 --cold 20 --firestore-passages 2000

Lance reaches ``gs://`` through Rust's ``object_store``, which speaks Cloud Storage's XML API. Here it
speaks to ``CountingBucket``: an HTTP server on a loopback port that answers that API from a local
folder (ranged reads, HEAD, listings in pages of 1,000 keys, uploads with ``x-goog-if-generation-match``,
multipart uploads, copies, deletes) and counts every request by Cloud Storage's billing class. What is
counted is what the function's own code (``function.retrieval.lance_index.LanceIndex``) sends:

1. *Ingestion*: the corpus of ``python -m bench scale`` (dev paragraphs, train.json, the Brown corpus,
   then synthetic passages; ``bench/scale_corpus.py``), written as ``function.ingest`` writes it: an
   ``upsert`` of each batch of 256 passages' index rows, then ``optimize`` (fold, compaction, clean-up).
2. *Questions* (dev.json's, as their analysed terms, top 5): a *cold* open (a new instance: the table
   opened, then its first question), a *refresh* (what an instance does when its last look is older
   than ``QA_INDEX_REFRESH_S``: every question looks here) that finds no new version, one that finds a
   new version each time (another writer commits one before each question, uncounted: a commit that
   changes no rows, so what is counted is the refresh alone; an ingestion's commits also bring new
   files to read), and *warm* questions on a table kept open. The refreshes' questions are the warm
   run's first ones, asked in the same order: what a refresh adds is the difference.
3. With ``--firestore-passages``: the same corpus's first passages written to the Firestore emulator by
   ``FirestoreStore`` with its term index (as without ``QA_INDEX_URI``) and without it (as with it), and
   the same questions searched in its term index: reads and writes counted by the store code
   (``function/store/ops.py``).

``bench.cost_model`` prices the counts at ``bench.prices``' list prices. Writes ``cost_lance.json`` and
``cost_lance.md`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from pathlib import Path

from bench import cost_model, machine, prices
from bench.cost_lance_counts import firestore_term_index, lance_ingest, lance_questions
from bench.gcs_counter import CountingBucket
from harness.paths import REPO


def lance_bill(size_row: dict, firestore: dict | None, busy_questions_per_s: float, refresh_s: float) -> dict:
    """Dollars per million questions and per million passages ingested, and a month of storage."""
    q, ing = size_row["questions"], size_row["ingest"]

    def ops(d: dict) -> cost_model.ObjectOps:
        return cost_model.ObjectOps(d["class_a"], d["class_b"], d["free"], d["bytes_read"])

    warm = ops(q["warm"])
    # What a refresh adds to a question: its questions' operations less the warm table's for the same questions
    refresh = ops(q["refresh"]).plus(ops(q["warm_as_refresh"]), -1)
    newer = ops(q["refresh_new_version"]).plus(ops(q["warm_as_refresh_new_version"]), -1)
    # Busy: an instance answering busy_questions_per_s looks for a new version once every refresh_s and finds
    # one (ingestion under way): that refresh's operations are shared by the questions of those seconds.
    shared = 1 / (busy_questions_per_s * refresh_s)
    busy = warm.plus(newer, shared)
    out = {"questions": {"warm": cost_model.storage_ops_per_million(warm),
                         "busy": cost_model.storage_ops_per_million(busy),
                         "scattered": cost_model.storage_ops_per_million(warm.plus(refresh)),
                         "scattered_new_version": cost_model.storage_ops_per_million(warm.plus(newer)),
                         "refresh_alone": cost_model.storage_ops_per_million(refresh),
                         "refresh_new_version_alone": cost_model.storage_ops_per_million(newer),
                         "cold_start": cost_model.storage_ops_per_million(ops(q["cold"]))},
           "busy_questions_per_s": busy_questions_per_s, "refresh_s": refresh_s,
           "passages": cost_model.storage_ops_per_million(ops(ing["per_passage"])),
           "storage_per_million_passages_month": round(
               cost_model.storage_per_month(ing["stored_bytes"] / ing["passages"] * 1e6), 4)}
    if firestore:
        out["firestore_term_index"] = {
            "questions": cost_model.firestore_per_million(firestore["per_question"]["reads"]),
            "passages": cost_model.firestore_per_million(**firestore["per_passage_term_index"]),
            "passages_with_passage_documents": cost_model.firestore_per_million(**firestore["per_passage"])}
        if "per_passage_without_term_index" in firestore:
            out["firestore_term_index"]["passage_documents_alone"] = cost_model.firestore_per_million(
                **firestore["per_passage_without_term_index"])
    return out


def lance_markdown(result: dict) -> str:
    m = result["machine"]
    lines = [f"# The Lance index on Cloud Storage: operations counted, {result['date']}", "",
             f"Reproduce: `{result['command']}`", "",
             f"Requests of Lance {result['lance_version']} (`object_store`, Cloud Storage XML API) counted by "
             "`bench.gcs_counter.CountingBucket`; the index written and searched by `function.retrieval.lance_index`. "
             f"Prices of {prices.GCS_CONSULTED} ({prices.GCS_SOURCE}): Class A ${prices.GCS_CLASS_A_PER_1000} "
             f"and Class B ${prices.GCS_CLASS_B_PER_1000} per 1,000, Standard storage "
             f"${prices.GCS_STANDARD_GB_MONTH} per GB-month; Firestore ({prices.CONSULTED}): "
             f"${prices.READ_PER_100K} per 100,000 reads, ${prices.WRITE_PER_100K} per 100,000 writes. "
             f"Load average at the start: {m['load_average_at_start']}"
             f"{'' if m['quiet'] else ', NOT quiet: ' + ', '.join(m['competing_processes'])}.", "",
             "## Per question (top 5; dev.json questions as their analysed terms)", "",
             "| passages | case | Class A | Class B | of which LIST / GET / HEAD | KB read | $ per million |",
             "|---|---|---|---|---|---|---|"]
    for row in result["sizes"]:
        n = row["questions"]["cold_questions"]
        for case, label in (("cold", f"cold open + first question (mean of {n})"),
                            ("warm", f"warm, table kept open (mean of {row['questions']['warm_questions']})"),
                            ("warm_second_half", "warm, second half of those"),
                            ("refresh", f"refresh finding no new version, + a question (mean of {n}; last look "
                                        "older than QA_INDEX_REFRESH_S)"),
                            ("warm_as_refresh", "warm, the same questions"),
                            ("refresh_new_version", f"refresh finding a new version (checked out, caches kept), "
                                                    f"+ a question (mean of {n} others)"),
                            ("warm_as_refresh_new_version", "warm, the same questions")):
            d = row["questions"][case]
            kinds = d["kinds"]
            dollars = cost_model.storage_ops_per_million(cost_model.ObjectOps(d["class_a"], d["class_b"]))
            lines.append(f"| {row['size']:,} | {label} | {d['class_a']:.2f} | {d['class_b']:.2f} | "
                         f"{kinds.get('list', 0):.2f} / {kinds.get('get', 0):.2f} / {kinds.get('head', 0):.2f} | "
                         f"{d['bytes_read'] / 1024:.1f} | {dollars['total']:.4f} |")
    lines += ["", "## Per passage ingested (batches of 256, then optimize)", "",
              "| passages | Class A | Class B | deletes | of which PUT / LIST / GET | KB written | KB read | "
              "stored bytes / passage | delta indices | $ per million passages | "
              "storage $ per million passages a month |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in result["sizes"]:
        d, ing, b = row["ingest"]["per_passage"], row["ingest"], row["bill"]
        kinds = d["kinds"]
        puts = sum(v for k, v in kinds.items() if k in ("put", "multipart-part", "multipart-create",
                                                         "multipart-complete", "copy", "put-refused"))
        lines.append(f"| {row['size']:,} | {d['class_a']:.4f} | {d['class_b']:.4f} | {d['free']:.4f} | "
                     f"{puts:.4f} / {kinds.get('list', 0):.4f} / {kinds.get('get', 0):.4f} | "
                     f"{d['bytes_written'] / 1024:.2f} | {d['bytes_read'] / 1024:.2f} | "
                     f"{ing['stored_bytes'] / ing['passages']:.0f} | {ing.get('terms_index_deltas', '-')} | "
                     f"{b['passages']['total']:.2f} | "
                     f"{b['storage_per_million_passages_month']:.4f} |")
    fs = result.get("firestore")
    lines += ["", "## Dollars per million questions: Lance on Cloud Storage vs Firestore's term index", ""]
    if fs:
        lines += [f"Firestore's term index, counted on the emulator with the first {fs['passages']:,} passages of "
                  f"the corpus and the same {fs['questions']} questions: {fs['per_question']['reads']:.2f} reads "
                  f"per question; per passage written {fs['per_passage_term_index']['reads']:.2f} reads and "
                  f"{fs['per_passage_term_index']['writes']:.2f} writes for the term index "
                  f"({fs['per_passage']['reads']:.2f} and {fs['per_passage']['writes']:.2f} with the passage "
                  "documents)."
                  + (f" With `QA_INDEX_URI` set the store keeps no term index (`term_index=False`): "
                     f"{fs['per_passage_without_term_index']['reads']:.2f} reads and "
                     f"{fs['per_passage_without_term_index']['writes']:.2f} writes per passage written, "
                     "its document alone." if "per_passage_without_term_index" in fs else ""), ""]
    lines += ["| passages | Lance warm | Lance busy | Lance scattered (every question looks for a new version) | "
              "scattered, a new version each time | Firestore term index | "
              "Lance ingest, per million passages | Firestore term index ingest |",
              "|---|---|---|---|---|---|---|---|"]
    for row in result["sizes"]:
        b = row["bill"]
        f = b.get("firestore_term_index")
        fq, fp = (f"${f['questions']:.2f}", f"${f['passages']:.2f}") if f else ("-", "-")
        lines.append(f"| {row['size']:,} | ${b['questions']['warm']['total']:.4f} | "
                     f"${b['questions']['busy']['total']:.4f} | ${b['questions']['scattered']['total']:.4f} | "
                     f"${b['questions']['scattered_new_version']['total']:.4f} | "
                     f"{fq} | ${b['passages']['total']:.2f} | {fp} |")
    b0 = result["sizes"][0]["bill"]
    lines += ["", f"Busy: one refresh per {b0['refresh_s']:g} s (`QA_INDEX_REFRESH_S`), finding a new version, "
                  f"shared by {b0['busy_questions_per_s']:g} questions a second on the instance. Scattered: questions "
                  "more than `QA_INDEX_REFRESH_S` apart on an instance, each pays a refresh (a listing of the "
                  "table's versions), and the checkout of a new version where there is one."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    from datetime import UTC, datetime

    import lance

    from bench.scale_corpus import corpus, dev_questions, fetch_brown
    from function.retrieval.terms import query_terms
    from harness.paths import SQUAD

    p = argparse.ArgumentParser(prog="python -m bench cost lance", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    p.add_argument("--questions", type=int, default=300, help="warm questions (dev.json's, in order)")
    p.add_argument("--cold", type=int, default=20, help="cold opens and re-opens, one question each")
    p.add_argument("--firestore-passages", type=int, default=0,
                   help="also count Firestore's term index on the emulator with this many passages (0: not)")
    p.add_argument("--busy-questions-per-s", type=float, default=7.7,
                   help="questions a second on a busy instance (docs/cost.md: 7.7 for questions alone)")
    p.add_argument("--refresh-s", type=float, default=10.0, help="QA_INDEX_REFRESH_S")
    p.add_argument("--data", type=Path, default=SQUAD, help="train.json and dev.json")
    p.add_argument("--no-brown", action="store_true", help="synthetic distractors after train.json")
    p.add_argument("--out", type=Path, default=REPO / "records" / "bench" / "cost_lance")
    args = p.parse_args(argv)

    brown = None if args.no_brown else fetch_brown(REPO / "build" / "corpora")
    questions = [t for t in (query_terms(q["question"]) for q in dev_questions(args.data / "dev.json")) if t]
    questions = questions[: args.questions]
    rows, firestore = [], None
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            bucket = CountingBucket(Path(tmp) / "bucket")
            uri = "gs://qa-bucket/index/bert-qa"
            try:
                passages, info = corpus(size, args.data, brown)
                print(f"{size:,} passages: ingesting ({info})", flush=True)
                ingested = lance_ingest(bucket, uri, passages)
                print(f"  {json.dumps(ingested['per_passage'])}", flush=True)
                asked = lance_questions(bucket, uri, questions, args.cold)
                print(f"  warm {json.dumps(asked['warm'])}\n  cold {json.dumps(asked['cold'])}", flush=True)
            finally:
                bucket.close()
        rows.append({"size": size, "corpus": info, "ingest": ingested, "questions": asked})
    if args.firestore_passages:
        passages, _ = corpus(max(args.firestore_passages, 285), args.data, brown)
        print(f"Firestore emulator: {args.firestore_passages:,} passages", flush=True)
        firestore = firestore_term_index(list(passages)[: args.firestore_passages], questions)
    for row in rows:
        row["bill"] = lance_bill(row, firestore, args.busy_questions_per_s, args.refresh_s)
    result = {"command": "python -m bench cost lance " + shlex.join(argv if argv is not None else sys.argv[1:]),
              "date": datetime.now(UTC).strftime("%Y-%m-%d"), "lance_version": lance.__version__,
              "machine": machine.describe(), "prices_consulted": prices.GCS_CONSULTED, "sizes": rows,
              "firestore": firestore}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "cost_lance.json").write_text(json.dumps(result, indent=1) + "\n")
    (args.out / "cost_lance.md").write_text(lance_markdown(result))
    print(lance_markdown(result))
    return 0
