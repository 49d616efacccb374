"""``python -m bench filters``: a filtered question's time beside an unfiltered one's, on Lance.

A Lance index (``function.retrieval.lance_index``) of ``--rows`` passages
(``bench.scale_corpus``: SQuAD's dev paragraphs among train paragraphs and
synthetic distractors) is written once into ``--index`` (kept for the next run),
each row with a source and a tag of its document: ``corpus/part<0-9>/...`` and
one of four tags, by a hash of the document's id. Each dev question
(``--questions``) is then asked five ways, one after the other so that a busy
machine slows all five alike: unfiltered; within ten documents (its gold
paragraph's and nine drawn at random); within its gold document's source prefix
(a tenth of the corpus); within its gold document's tag (a quarter); and within
that tag and prefix together. Every filter keeps the gold paragraph.

Two arms, each its own pass over the same questions and filters:

- **search**: the index's BM25 search alone (top 5): p50 / p95 in milliseconds,
  their ratio to the unfiltered one's, and recall@5 of the gold paragraph.
- **question** (``--read``, the default): the whole question as the function
  serves it. The request is a JSON body, as ``POST /`` takes it (``question``,
  ``abstain: false`` so every question is scored on its best span, and the
  filter's ``documents`` / ``source_prefix`` / ``tags``), parsed by
  ``function.http.parse`` and answered by ``QAService`` with ``QA_INDEX_URI`` on
  the same Lance index: search, the 5 passages fetched from a SQLite reading
  store, the shipped model's run (``--artifact``; the cascade as shipped, the
  answer cache and the passage cache off, so every way reads its passages from
  the store). Tokenising all ``--rows`` passages would take long on a small
  machine, so the reading store holds only the passages the search arm returned
  for these questions, any way (their union), tokenised and written as ingestion
  writes them (``bench.scale_reading.build_store``): every passage a question
  here retrieves is in it. Reported per way: p50 / p95 of the server time
  (``timings_ms.total``) and of its search step (``retrieve``), their ratios to
  the unfiltered way's, EM / F1, the share of questions whose gold paragraph was
  retrieved and read, and the passages and tokens the model read per question.

Writes ``filters.json`` and ``filters.md`` into ``--out`` (default ``records/bench/filters``).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
import zlib
from datetime import UTC, datetime
from pathlib import Path

from bench.scale_corpus import corpus, dev_questions
from bench.stats import latency_summary
from bench.util import batches
from harness.paths import ARTIFACT, REPO, SQUAD

WAYS = ("unfiltered", "documents", "source_prefix", "tags", "tags_and_prefix")
K = 5  # passages retrieved (QA_TOP_K_PASSAGES as shipped)


def doc_of(pid: str, doc_id: str) -> str:
    """The document a corpus passage stands for; synthetic passages are grouped ten to a document."""
    return f"synth-{int(pid[6:]) // 10}" if pid.startswith("synth-") else doc_id


def bucket(doc: str, n: int) -> int:
    return zlib.crc32(doc.encode("utf-8")) % n


def build(uri: Path, rows: int, data: Path) -> list[str]:
    """Write the index if ``uri`` does not hold it yet; the corpus's document ids either way."""
    from function.retrieval.lance_index import IndexRow, LanceIndex
    from function.retrieval.terms import terms

    passages, _ = corpus(rows, data, None)
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


def asks(data: Path, docs: list[str], n_questions: int, seed: int = 0) -> list[tuple[dict, dict[str, dict]]]:
    """The first ``n_questions`` shuffled dev questions with a searchable word, each with its five ways' filters
    as a request's JSON fields (``{}``: unfiltered)."""
    from function.retrieval.terms import query_terms

    rng = random.Random(seed)
    questions = dev_questions(data / "dev.json")
    rng.shuffle(questions)
    out = []
    for q in questions:
        if not query_terms(q["question"]):
            continue
        gold_doc = q["gold"].rsplit("-", 1)[0]
        prefix, tag = f"corpus/part{bucket(gold_doc, 10)}/", [f"t{bucket(gold_doc, 4)}"]
        out.append((q, {"unfiltered": {}, "documents": {"documents": [gold_doc, *rng.sample(docs, 9)]},
                        "source_prefix": {"source_prefix": prefix}, "tags": {"tags": tag},
                        "tags_and_prefix": {"source_prefix": prefix, "tags": tag}}))
        if len(out) == n_questions:
            break
    return out


def passage_filter(fields: dict):
    """A request's filter fields as the ``PassageFilter`` the index takes (None: unfiltered)."""
    from function.retrieval.filters import PassageFilter

    documents, tags = fields.get("documents"), fields.get("tags")
    return PassageFilter(None if documents is None else tuple(documents), fields.get("source_prefix"),
                         None if tags is None else tuple(tags)) or None


def search(uri: Path, planned: list[tuple[dict, dict[str, dict]]]) -> tuple[dict, set[str]]:
    """The search arm (per way: ms, ratios, recall@5) and every passage id any way returned."""
    from function.retrieval.lance_index import LanceIndex
    from function.retrieval.terms import query_terms

    index = LanceIndex(str(uri), timeout_s=60, refresh_s=3600)
    index.search(["warm"], K)
    ms: dict[str, list[float]] = {way: [] for way in WAYS}
    found = dict.fromkeys(WAYS, 0)
    returned: set[str] = set()
    for q, ways in planned:
        terms = query_terms(q["question"])
        for way, fields in ways.items():
            where = passage_filter(fields)
            t0 = time.perf_counter()
            hits = index.search(terms, K, where)
            ms[way].append((time.perf_counter() - t0) * 1000)
            ids = [h.passage_id for h in hits]
            found[way] += q["gold"] in ids
            returned.update(ids)
    index.close()
    base = latency_summary(ms["unfiltered"])
    out = {}
    for way in WAYS:
        summary = latency_summary(ms[way])
        out[way] = {"ms": summary, "p50_ratio": round(summary["p50"] / base["p50"], 3),
                    "p95_ratio": round(summary["p95"] / base["p95"], 3),
                    "recall_at_5": round(found[way] / len(planned), 3)}
    return out, returned


def reading_passages(rows: int, data: Path, ids: set[str]) -> list:
    """The corpus passages whose ids are in ``ids`` (the corpus is drawn again: the same seed, the same rows)."""
    return [p for p in corpus(rows, data, None)[0] if p.id in ids]


def ask_all(service, planned: list[tuple[dict, dict[str, dict]]], n_tokens: dict[str, int]) -> dict:
    """The question arm: every question asked every way through ``function.http.parse`` and ``QAService``."""
    from function.evaluate.metrics import squad_scores
    from function.http.parse import parse

    settings = service.rt.settings
    max_tokens = service.rt.manifest().sequence["max_answer_tokens"]

    def request(q: dict, fields: dict):
        body = json.dumps({"question": q["question"], "abstain": False, **fields}).encode("utf-8")
        return parse(body, settings, max_tokens)

    for q, _ in planned[:5]:  # the model loaded and the index open, as on a warm instance
        service.answer(request(q, {}))
    total: dict[str, list[float]] = {way: [] for way in WAYS}
    retrieve: dict[str, list[float]] = {way: [] for way in WAYS}
    answers: dict[str, dict[str, str]] = {way: {} for way in WAYS}
    gold_read, passages, tokens = dict.fromkeys(WAYS, 0), dict.fromkeys(WAYS, 0), dict.fromkeys(WAYS, 0)
    missing = 0
    for q, ways in planned:
        for way, fields in ways.items():
            result = service.answer(request(q, fields))
            total[way].append(result.timings_ms["total"])
            retrieve[way].append(result.timings_ms["retrieve"])
            found = result.payload["answers"]
            answers[way][q["id"]] = found[0]["text"] if found else ""
            retrieved = [r["passage_id"] for r in result.payload["retrieved"]]
            read = retrieved[: result.passages_read or 0]
            gold_read[way] += q["gold"] in read
            passages[way] += len(read)
            tokens[way] += sum(n_tokens[pid] for pid in read)
            missing += sum(pid not in n_tokens for pid in retrieved)
    if missing:
        raise SystemExit(f"{missing} retrieved passage(s) missing from the reading store: the search arm and the "
                         "function's search disagree")
    golds = {q["id"]: q["answers"] for q, _ in planned}
    n = len(planned)
    base_total, base_retrieve = latency_summary(total["unfiltered"]), latency_summary(retrieve["unfiltered"])
    out = {}
    for way in WAYS:
        t, r, scores = latency_summary(total[way]), latency_summary(retrieve[way]), squad_scores(answers[way], golds)
        out[way] = {"total_ms": t, "retrieve_ms": r,
                    "p50_ratio": round(t["p50"] / base_total["p50"], 3),
                    "p95_ratio": round(t["p95"] / base_total["p95"], 3),
                    "retrieve_p50_ratio": round(r["p50"] / base_retrieve["p50"], 3),
                    "exact_match": round(scores["exact_match"], 2), "f1": round(scores["f1"], 2),
                    "gold_read": round(gold_read[way] / n, 3), "passages_read": round(passages[way] / n, 2),
                    "tokens_read": round(tokens[way] / n, 1)}
    return out


def read(uri: Path, rows: int, data: Path, planned: list, ids: set[str], artifact: Path, threads: int) -> dict:
    """The question arm on a reading store of the passages in ``ids``: its figures and the store's size."""
    from bench.in_process import open_service
    from bench.scale_reading import build_store, reading_env

    with tempfile.TemporaryDirectory(prefix="bench-filters-") as folder:
        store = Path(folder) / "passages.sqlite"
        made = build_store(reading_passages(rows, data, ids), artifact, store, threads)
        # the passage cache off: a filtered way would otherwise read from memory what the unfiltered one fetched
        env = {**reading_env(artifact, store, threads, str(uri)), "QA_PASSAGE_CACHE_BYTES": "0"}
        service = open_service(env)
        n_tokens = {pid: p.n_tokens for pid, p in service.rt.store().get_many(sorted(ids)).items()}
        try:
            ways = ask_all(service, planned, n_tokens)
        finally:
            service.rt.store().close()
    return {"artifact": artifact.name, "threads": threads, "reading_store": made, "ways": ways}


def markdown(result: dict) -> str:
    lines = [f"# Filtered questions on Lance: {result['rows']:,} passages, {result['questions']} questions", "",
             f"`{result['command']}`, {result['date']}, commit {result['commit']}.", "",
             "| Search | p50 ms | p95 ms | p50 / unfiltered | p95 / unfiltered | recall@5 |",
             "|---|---|---|---|---|---|"]
    for way, row in result["ways"].items():
        lines.append(f"| {way} | {row['ms']['p50']} | {row['ms']['p95']} | {row['p50_ratio']} | {row['p95_ratio']} | "
                     f"{row['recall_at_5']} |")
    asked = result.get("question")
    if asked:
        store = asked["reading_store"]
        lines += ["", f"The whole question (`QAService`, {asked['threads']} thread(s), cascade on, caches off, "
                      f"never abstaining; reading store: the {store['passages']:,} passages any way's search "
                      "returned). Server time and its search step in ms:", "",
                  "| Question | p50 | p95 | p50 / unfiltered | p95 / unfiltered | search p50 | search / unfiltered "
                  "| EM | F1 | gold read | passages read | tokens read |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for way, row in asked["ways"].items():
            lines.append(f"| {way} | {row['total_ms']['p50']} | {row['total_ms']['p95']} | {row['p50_ratio']} | "
                         f"{row['p95_ratio']} | {row['retrieve_ms']['p50']} | {row['retrieve_p50_ratio']} | "
                         f"{row['exact_match']} | {row['f1']} | {row['gold_read']} | {row['passages_read']} | "
                         f"{row['tokens_read']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    import subprocess

    p = argparse.ArgumentParser(prog="python -m bench filters", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--questions", type=int, default=500)
    p.add_argument("--read", action=argparse.BooleanOptionalAction, default=True,
                   help="also ask each question whole, through QAService (--no-read: the search alone)")
    p.add_argument("--artifact", type=Path, default=ARTIFACT, help="the model that reads (the question arm)")
    p.add_argument("--threads", type=int, default=1, help="ONNX Runtime threads of the reader (QA_THREADS)")
    p.add_argument("--data", type=Path, default=SQUAD, help="a folder of SQuAD's train.json and dev.json")
    p.add_argument("--index", type=Path, default=REPO / "build" / "bench-filters",
                   help="folder of the Lance indexes (kept: the next run with the same --rows reuses its index)")
    p.add_argument("--out", type=Path, default=REPO / "records" / "bench" / "filters")
    args = p.parse_args(argv)
    uri = args.index / f"{args.rows}.lance"
    uri.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    docs = build(uri, args.rows, args.data)
    built_s = time.perf_counter() - t0
    planned = asks(args.data, docs, args.questions)
    ways, returned = search(uri, planned)
    result = {"rows": args.rows, "documents": len(docs), "build_or_read_s": round(built_s, 1),
              "questions": len(planned), "ways": ways,
              "command": "python -m bench filters " + " ".join(argv if argv is not None else []),
              "date": datetime.now(UTC).strftime("%Y-%m-%d"),
              "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                                       text=True).stdout.strip()}
    if args.read:
        result["question"] = read(uri, args.rows, args.data, planned, returned, args.artifact, args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "filters.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "filters.md").write_text(markdown(result))
    print(markdown(result))
    return 0
