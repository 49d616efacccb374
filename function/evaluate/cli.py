"""``python -m function.evaluate``: how well the function answers your questions about your documents.

    python -m function.evaluate my-questions.jsonl --docs ~/my-docs          # that folder, ingested for the run
    python -m function.evaluate my-questions.jsonl                           # the store QA_* names, as served
    python -m function.evaluate my-questions.jsonl --url http://localhost:8080/   # a function already running
    python -m function.evaluate my-questions.jsonl --docs ~/my-docs --show --out figures.json --md figures.md

Every question is asked alone (no passage ids), one at a time, with the same body
(``{"question", "top_k_passages", "passages": true}``: the retrieved passages' documents, for recall): through
the function's own request parsing and answer pipeline in this process, with the answer cache off, or with
``--url`` as ``POST`` to a running function. Each reply is scored (``function.evaluate.scoring``): EM/F1 over
the answerable questions (SQuAD normalisation, best over the acceptable answers, "no answer" scoring 0), EM as
written beside them (case and punctuation kept: "a" is not "-a", which SQuAD's EM counts right), recall@k of
the answer's document (a passage the reply retrieved is from the question's ``document_id``; k is
``top_k_passages``), the "no answer" rate on answerable and on unanswerable questions, and the server time
(``timings_ms.total``) p50 and p90 with the model already loaded; with ``--url`` the client's round trip p50
and p90 too, and how many answers came from the function's answer cache. ``--show`` prints a row per
question, with the passage its answer came from; ``--out`` writes the figures and every row as JSON (the
answer's passage id, title and snippet, the passages retrieved), ``--md`` the figures and the rows as Markdown.
The questions file's format is in ``function/evaluate/questions.py`` (JSON Lines, a JSON array or SQuAD JSON).

``--docs FOLDER`` ingests the folder, as ``make run DOCS=FOLDER`` serves it, into a temporary SQLite store
and a Lance index beside it that the run alone uses: BM25 and sentence embeddings mixed (``--encoder``, else
``QA_INDEX_ENCODER``, else the shipped ``encoder/``); ``--retrieval stored``: the store's own BM25 index with
each passage's embedding stored beside it (stored cosines, the same encoder); ``--retrieval bm25``: the store's own
BM25 index alone.
Without it, the store and index are those the ``QA_*`` variables name (``--sqlite-path`` overrides
``QA_SQLITE_PATH``). Needs requirements.txt and, with ``--docs``, requirements-ingest.txt (and
requirements-lance.txt with ``--retrieval hybrid``); nothing else. Exit status 2 for a bad questions file,
folder or setting; 1 when the model or the store cannot be read, or the ``--url`` cannot be reached or answers
what is not the function's reply (a question the function refuses, one too long for the model, is a row with
its error, as in process).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import shlex
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from function.config import ConfigError, Settings, index_encoder
from function.evaluate.questions import Question, QuestionsError, load_questions
from function.evaluate.remote import Remote, RemoteError, check_url, describe_store
from function.evaluate.scoring import answer_text, as_written, figures, said_no_answer, score

PROG = "python -m function.evaluate"


class EvaluationError(Exception):
    """Nothing to evaluate against, or a question names a document the store does not hold."""


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("questions", type=Path, help="your questions: JSON Lines, a JSON array or SQuAD JSON")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--docs", type=Path, metavar="FOLDER", help="ingest this folder into a store of the run's own")
    where.add_argument("--url", help="ask a running function over HTTP (POST URL) instead of asking in process")
    p.add_argument("--retrieval", choices=("hybrid", "stored", "bm25"), default="hybrid",
                   help="with --docs: hybrid (a Lance index beside the store, BM25 and sentence embeddings mixed, as "
                        "`make run DOCS=...` serves), stored (the store's own index, each passage's embedding stored "
                        "with it: stored cosines) or bm25 (the store's own index alone)")
    p.add_argument("--encoder", metavar="FOLDER", help="with --docs --retrieval hybrid|stored: the sentence encoder "
                                                       "(default QA_INDEX_ENCODER, else encoder/)")
    p.add_argument("--sqlite-path", help="overrides QA_SQLITE_PATH (in process, without --docs)")
    p.add_argument("--artifact", help="overrides QA_ARTIFACT_DIR (in process)")
    p.add_argument("--top-k-passages", type=int, help="passages retrieved per question (default QA_TOP_K_PASSAGES)")
    p.add_argument("--show", action="store_true", help="print a row per question too")
    p.add_argument("--out", type=Path, metavar="FILE", help="write the figures and every row as JSON")
    p.add_argument("--md", type=Path, metavar="FILE", help="write the figures and a row per question as Markdown")
    args = p.parse_args(argv)
    if args.url is not None:
        if why := check_url(args.url):
            p.error(why)
        for option, value in (("--sqlite-path", args.sqlite_path), ("--artifact", args.artifact),
                              ("--encoder", args.encoder)):
            if value:
                p.error(f"{option} is for asking in process; --url asks the function at that address")
    return args


def _settings(args) -> Settings:
    env = os.environ
    if args.docs is not None:  # the run's own store and index (``run``): the caller's index settings are not its
        env = {k: v for k, v in env.items() if k not in ("QA_INDEX_URI", "QA_INDEX_ENCODER")}
    settings = Settings.from_env(env)
    overrides: dict = {"cache": False}  # every question read by the model: figures of the model, not the cache
    if args.artifact:
        overrides["artifact_dir"] = Path(args.artifact)
    if args.sqlite_path:
        overrides["sqlite_path"] = Path(args.sqlite_path)
    if args.top_k_passages is not None:
        if not 1 <= args.top_k_passages <= settings.max_top_k_passages:
            raise ConfigError(f"--top-k-passages must be 1..{settings.max_top_k_passages} (QA_MAX_TOP_K_PASSAGES)")
        overrides["top_k_passages"] = args.top_k_passages
    return dataclasses.replace(settings, **overrides)


def ingest_folder(folder: Path, settings: Settings) -> None:
    """The folder into ``settings``' store, by the ingestion command's own code; files that fail are reported on
    stderr and the others kept. ``EvaluationError`` when the folder gives no document."""
    from function.ingest import cli

    if not folder.is_dir():
        raise EvaluationError(f"--docs {folder}: " + ("not a folder" if folder.exists() else "no such folder"))
    status = cli.run(cli.parse_args([str(folder), "--quiet"]), settings, lambda message: None)
    if status != 0:
        from function.store import open_store

        store = open_store(settings)
        try:
            if store.document_count() == 0:
                raise EvaluationError(f"--docs {folder}: no document could be ingested from it (above)")
        finally:
            store.close()


def check_documents(questions: list[Question], store, name: str) -> None:
    """Every ``document_id`` the questions name is in the store; else ``EvaluationError`` naming the first."""
    named = sorted({q.document_id for q in questions if q.document_id})
    found = store.get_documents(named) if named else {}
    for q in questions:
        if q.document_id and q.document_id not in found:
            some = [r.doc_id for r in store.documents_under("")[:3]]
            raise EvaluationError(f"{name}: question {q.id}: document_id {q.document_id!r} is not in the store "
                                  f"{store.description} (its documents are named like {', '.join(map(repr, some))}: "
                                  "a file's path relative to the folder ingested)")


def request_body(q: Question, k: int) -> dict:
    """What a question is asked with, in process and over HTTP: alone, ``k`` passages, and the retrieved
    passages' documents in the reply (``passages``), where recall looks for the question's document."""
    return {"question": q.question, "top_k_passages": k, "passages": True}


def _row(q: Question) -> dict:
    return {"id": q.id, "question": q.question, "answers": list(q.answers), "answerable": q.answerable,
            "document_id": q.document_id}


def refused(q: Question, message: str, client_ms: float | None = None) -> dict:
    """The row of a question the function refused (too long for the model, ...): no answer, its reason."""
    return {**_row(q), "answer": "", "answer_document_id": None, "answer_passage_id": None, "answer_title": None,
            "answer_snippet": None, "em": 0.0, "em_as_written": 0.0, "f1": 0.0, "no_answer": True,
            "document_retrieved": False if q.document_id else None, "retrieved": [], "server_ms": None,
            "client_ms": client_ms, "cache": None, "error": message}


def scored(q: Question, payload: dict, server_ms: float | None, cache: str | None,
           client_ms: float | None = None) -> dict:
    """The row of a reply: its answer scored against the question's, where the answer came from (its document,
    passage, title and snippet, as the reply gives them), and whether it retrieved the document."""
    text = answer_text(payload)
    em, f1 = score(text, q.answers) if q.answerable else (0.0, 0.0)
    strict = as_written(text, q.answers) if q.answerable else 0.0
    retrieved = payload.get("retrieved") or ()
    hit = any(r.get("document_id") == q.document_id for r in retrieved) if q.document_id else None
    top = payload["answers"][0] if payload.get("answers") else {}
    return {**_row(q), "answer": text, "answer_document_id": top.get("document_id"),
            "answer_passage_id": top.get("passage_id"), "answer_title": top.get("title"),
            "answer_snippet": top.get("snippet"), "em": em, "em_as_written": strict, "f1": f1,
            "no_answer": said_no_answer(payload), "document_retrieved": hit,
            "retrieved": [r["passage_id"] for r in retrieved], "server_ms": server_ms, "client_ms": client_ms,
            "cache": cache, "error": None}


def ask(service, settings: Settings, max_answer_tokens: int, q: Question) -> dict:
    """One question asked in process, as ``POST /`` with ``request_body`` is answered, and its row."""
    from function.errors import QAError
    from function.http.parse import parse

    try:
        req = parse(json.dumps(request_body(q, settings.top_k_passages)).encode(), settings, max_answer_tokens)
        result = service.answer(req)
    except QAError as e:
        return refused(q, e.message)
    return scored(q, result.payload, result.timings_ms.get("total"), result.cache)


def ask_remote(remote: Remote, k: int, q: Question, name: str) -> dict:
    """One question asked over HTTP, and its row. A 400 or 413 about the question is the function refusing it
    (a row, as in process); any other reply that is not a 200 with the function's JSON stops the run."""
    try:
        reply = remote.call("POST", request_body(q, k))
    except RemoteError as e:
        raise RemoteError(f"{name}: question {q.id}: {e}") from None
    if reply.status == 200 and reply.body is not None and isinstance(reply.body.get("answers"), list):
        return scored(q, reply.body, (reply.body.get("timings_ms") or {}).get("total"), reply.body.get("cache"),
                      round(reply.ms, 2))
    message = reply.error()
    if reply.status in (400, 413) and reply.body is not None and message.startswith("'question'"):
        return refused(q, message, round(reply.ms, 2))
    what = "not the function's reply" if reply.status == 200 else f"HTTP {reply.status}"
    raise RemoteError(f"{name}: question {q.id}: {what}: {message}")


def _cell(text, width: int = 60, end: bool = False) -> str:
    """Text in a table cell, cut to ``width`` characters: its start kept, or with ``end`` its end (a passage id's
    number)."""
    text = " ".join(str(text).split()).replace("|", "\\|")
    if len(text) <= width:
        return text
    return "…" + text[1 - width:] if end else text[: width - 1] + "…"


def _n(x, fmt: str = "{:.1f}") -> str:
    return "-" if x is None else fmt.format(x)


def table(rows: list[dict]) -> str:
    """A row per question (Markdown): its scores, the passage its answer came from, and the client's round trip too
    when the questions went over HTTP."""
    remote = any(r.get("client_ms") is not None for r in rows)
    columns = ["id", "EM", "EM as written", "F1", "no answer", "document retrieved", "server ms",
               *(["round trip ms"] if remote else []), "passage", "answer", "expected", "question"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for r in rows:
        expected = " / ".join(r["answers"]) if r["answerable"] else "(no answer)"
        answer = f"error: {r['error']}" if r["error"] else r["answer"]
        doc = "-" if r["document_retrieved"] is None else "yes" if r["document_retrieved"] else "no"
        scores = ("-",) * 3 if not r["answerable"] else tuple(_n(100 * r[k], "{:.0f}")
                                                              for k in ("em", "em_as_written", "f1"))
        trip = f"{_n(r.get('client_ms'))} | " if remote else ""
        lines.append(f"| {_cell(r['id'], 20)} | {' | '.join(scores)} | {'yes' if r['no_answer'] else 'no'} "
                     f"| {doc} | {_n(r['server_ms'])} | {trip}{_cell(r['answer_passage_id'] or '-', 40, end=True)} "
                     f"| {_cell(answer)} | {_cell(expected)} | {_cell(r['question'])} |")
    return "\n".join(lines)


def summary(result: dict) -> str:
    """The figures (Markdown)."""
    f = result["figures"]

    def share(rate, of: int) -> str:
        return "-" if rate is None else f"{rate:.1f}% ({round(rate * of / 100)} of {of})"

    lines = [f"{f['questions']} questions ({f['answerable']} answerable, {f['unanswerable']} unanswerable) from "
             f"{result['questions_file']}, asked alone against {result['store']} (top {f['k']} passages), model "
             f"{result['model']['name']}" + (f"; {f['errors']} refused (see --show)" if f["errors"] else ""), "",
             "| figure | value |", "|---|---|",
             f"| EM, answerable questions | {_n(f['exact_match'])} |",
             f"| EM as written (case and punctuation kept), answerable questions "
             f"| {_n(f['exact_match_as_written'])} |",
             f"| F1, answerable questions | {_n(f['f1'])} |",
             f"| recall@{f['k']} of the answer's document ({f['with_document']} questions name it) "
             f"| {_n(f['recall_at_k'], '{:.3f}')} |",
             f"| \"no answer\", answerable questions (wrong) | {share(f['no_answer_answerable'], f['answerable'])} |",
             f"| \"no answer\", unanswerable questions (right) "
             f"| {share(f['no_answer_unanswerable'], f['unanswerable'])} |",
             f"| server time p50 / p90 | {_n(f['server_ms_p50'])} / {_n(f['server_ms_p90'])} ms |"]
    if result.get("url"):
        lines.append(f"| round trip p50 / p90 (this client) | {_n(f['client_ms_p50'])} / {_n(f['client_ms_p90'])} ms |")
    if f["cache_hits"]:
        lines.append(f"\n{f['cache_hits']} of {f['questions']} answers came from the function's answer cache: "
                     "their server times are not the model's (serve with QA_CACHE=0 to time every question)")
    return "\n".join(lines)


def markdown(result: dict) -> str:
    """What ``--md`` writes: the figures, a row per question, and the command and date of the run."""
    return f"{summary(result)}\n\n{table(result['rows'])}\n\n`{result['command']}`, {result['date']}\n"


def evaluate(args, settings: Settings, questions: list[Question], command: str, clock=None) -> dict:
    """Every question asked and scored against the store ``settings`` name; the result ``--out`` writes. ``clock``:
    when the function's code was imported (``ImportClock``), before ``--docs`` ingested the folder, so the cold start
    logged does not count the ingestion as imports."""
    from function.service.pipeline import QAService
    from function.service.runtime import Runtime

    service = QAService(Runtime(settings, clock=clock, create_store=False))  # a store that is not there: say so
    store = service.rt.store()
    if store.count() == 0:
        raise EvaluationError(f"the store {store.description} holds no passages: ingest your documents "
                              "(python -m function.ingest FOLDER) or name them with --docs FOLDER")
    check_documents(questions, store, str(args.questions))
    manifest = service.rt.manifest()
    max_answer_tokens = manifest.sequence["max_answer_tokens"]
    ask(service, settings, max_answer_tokens, questions[0])  # the model loaded: server times of a warm process
    rows = [ask(service, settings, max_answer_tokens, q) for q in questions]
    result = {
        "command": command,
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "questions_file": str(args.questions), "docs": None if args.docs is None else str(args.docs), "url": None,
        "store": store.description if args.docs is None else f"a temporary SQLite store of {args.docs}" + (
            (f" and a Lance index beside it, BM25 and sentence embeddings mixed ({Path(settings.index_encoder).name})"
             if settings.index_uri else f", each passage's embedding stored with it: stored cosines "
             f"({Path(settings.index_encoder).name})") if settings.index_encoder else ""),
        "passages": store.count(), "documents": store.document_count(),
        "model": manifest.summary(),
        "figures": figures(rows, settings.top_k_passages), "rows": rows,
    }
    store.close()
    return result


def evaluate_remote(args, settings: Settings, questions: list[Question], command: str) -> dict:
    """Every question asked over HTTP of the function at ``--url`` and scored; the result ``--out`` writes. The
    documents the questions name are not checked there: one the function's store lacks is a miss for recall."""
    remote = Remote(args.url)
    try:
        health = remote.health()
        remote.warm_up()
    except RemoteError as e:
        raise RemoteError(f"--url {args.url}: {e}") from None
    name = f"--url {args.url}: {args.questions}"
    rows = [ask_remote(remote, settings.top_k_passages, q, name) for q in questions]
    return {
        "command": command,
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "questions_file": str(args.questions), "docs": None, "url": args.url,
        "store": f"the function at {args.url} ({describe_store(health.get('store') or {})})",
        "passages": None, "documents": None,
        "model": health["model"], "answer_cache": health.get("answer_cache"),
        "figures": figures(rows, settings.top_k_passages), "rows": rows,
    }


def run(args, settings: Settings, questions: list[Question], command: str) -> dict:
    """``evaluate`` against the store the settings name, or with ``--docs`` a temporary one holding the folder;
    with ``--url``, ``evaluate_remote``."""
    if args.url is not None:
        return evaluate_remote(args, settings, questions, command)
    if args.docs is None:
        return evaluate(args, settings, questions, command)
    from function.service.runtime import ImportClock

    clock = ImportClock.now()
    with tempfile.TemporaryDirectory(prefix="qa-evaluate-") as tmp:
        index_uri, encoder = "", ""
        if args.retrieval != "bm25":  # hybrid: as make run DOCS=... serves the folder (scripts/serve_local.py)
            index_uri = str(Path(tmp) / "index.lance") if args.retrieval == "hybrid" else ""
            encoder = docs_encoder(args.encoder or os.environ.get("QA_INDEX_ENCODER") or ENCODER, args.retrieval)
        settings = dataclasses.replace(settings, store="sqlite", sqlite_path=Path(tmp) / "passages.sqlite",
                                       index_uri=index_uri, index_encoder=encoder)
        ingest_folder(args.docs.expanduser(), settings)
        return evaluate(args, settings, questions, command, clock)


ENCODER = "encoder"  # the shipped sentence encoder, relative to the working directory (as QA_ARTIFACT_DIR's default)


def docs_encoder(folder: str, retrieval: str = "hybrid") -> str:
    """The encoder folder of ``--retrieval hybrid|stored``, checked; ``EvaluationError`` saying what to do
    otherwise."""
    import importlib.util

    try:
        folder = index_encoder(str(folder))
    except ConfigError as e:
        raise EvaluationError(f"--retrieval {retrieval}: {e}; or --retrieval bm25") from None
    if retrieval == "hybrid" and importlib.util.find_spec("lance") is None:
        raise EvaluationError("--retrieval hybrid needs the Lance index (pip install -r requirements-lance.txt, "
                              "as make run DOCS=... does); or --retrieval bm25")
    return folder


def main(argv=None) -> int:
    args = parse_args(argv)
    command = f"{PROG} " + shlex.join(sys.argv[1:] if argv is None else argv)
    try:
        questions = load_questions(args.questions)
        settings = _settings(args)
    except (QuestionsError, ConfigError) as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    from function.errors import QAError

    try:
        with contextlib.redirect_stdout(sys.stderr):  # the function's JSON log lines: stdout holds the figures
            result = run(args, settings, questions, command)
    except EvaluationError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    except QAError as e:  # the artifact or the store
        print(f"{PROG}: {e.message}", file=sys.stderr)
        return 1
    except RemoteError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 1
    if args.show:
        print(table(result["rows"]) + "\n")
    print(summary(result))
    for path, text in ((args.out, json.dumps(result, indent=1, ensure_ascii=False) + "\n"),
                       (args.md, markdown(result))):
        if path:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return 0
