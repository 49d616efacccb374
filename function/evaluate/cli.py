"""``python -m function.evaluate``: how well the function answers your questions about your documents.

    python -m function.evaluate my-questions.jsonl --docs ~/my-docs          # that folder, ingested for the run
    python -m function.evaluate my-questions.jsonl                           # the store QA_* names, as served
    python -m function.evaluate my-questions.jsonl --docs ~/my-docs --show --out figures.json

Every question is asked alone (no passage ids), one at a time, through the function's own request parsing and
answer pipeline in this process, with the answer cache off, and scored (``function.evaluate.scoring``): EM/F1
over the answerable questions (SQuAD normalisation, best over the acceptable answers, "no answer" scoring 0),
recall@k of the answer's document (a passage the reply retrieved is from the question's ``document_id``; k is
``top_k_passages``), the "no answer" rate on answerable and on unanswerable questions, and the server time
(``timings_ms.total``) p50 and p90 with the model already loaded. ``--show`` adds a row per question;
``--out`` writes the figures and every row as JSON. The questions file's format is in
``function/evaluate/questions.py`` (JSON Lines, a JSON array or SQuAD JSON).

``--docs FOLDER`` ingests the folder, as ``python -m function.ingest FOLDER`` would, into a temporary SQLite
store that the run alone uses (the store's own BM25 index; ``QA_INDEX_URI`` is not used). Without it, the
store and index are those the ``QA_*`` variables name (``--sqlite-path`` overrides ``QA_SQLITE_PATH``: for
``make run DOCS=FOLDER``'s store, the path that command prints). Needs requirements.txt and, with ``--docs``,
requirements-ingest.txt; nothing else. Exit status 2 for a bad questions file, folder or setting.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import shlex
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from function.config import ConfigError, Settings
from function.evaluate.questions import Question, QuestionsError, load_questions
from function.evaluate.scoring import answer_text, figures, said_no_answer, score

PROG = "python -m function.evaluate"


class EvaluationError(Exception):
    """Nothing to evaluate against, or a question names a document the store does not hold."""


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("questions", type=Path, help="your questions: JSON Lines, a JSON array or SQuAD JSON")
    p.add_argument("--docs", type=Path, metavar="FOLDER", help="ingest this folder into a store of the run's own")
    p.add_argument("--sqlite-path", help="overrides QA_SQLITE_PATH (without --docs)")
    p.add_argument("--artifact", help="overrides QA_ARTIFACT_DIR")
    p.add_argument("--top-k-passages", type=int, help="passages retrieved per question (default QA_TOP_K_PASSAGES)")
    p.add_argument("--show", action="store_true", help="print a row per question too")
    p.add_argument("--out", type=Path, metavar="FILE", help="write the figures and every row as JSON")
    return p.parse_args(argv)


def _settings(args) -> Settings:
    settings = Settings.from_env()
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


def ask(service, settings: Settings, max_answer_tokens: int, q: Question) -> dict:
    """One question asked alone, as ``POST /`` with ``{"question": ...}`` is answered, and its row."""
    from function.errors import QAError
    from function.http.parse import parse

    row = {"id": q.id, "question": q.question, "answers": list(q.answers), "answerable": q.answerable,
           "document_id": q.document_id}
    try:
        req = parse(json.dumps({"question": q.question}).encode(), settings, max_answer_tokens)
        result = service.answer(req)
    except QAError as e:  # refused (a question too long for the model, ...): no answer, reported
        return {**row, "answer": "", "answer_document_id": None, "em": 0.0, "f1": 0.0, "no_answer": True,
                "document_retrieved": False if q.document_id else None, "retrieved": [], "server_ms": None,
                "error": e.message}
    payload = result.payload
    text = answer_text(payload)
    em, f1 = score(text, q.answers) if q.answerable else (0.0, 0.0)
    retrieved = [r["passage_id"] for r in payload.get("retrieved") or ()]
    hit = None
    if q.document_id:
        passages = service.rt.store().get_many(retrieved) if retrieved else {}
        hit = any(p.doc_id == q.document_id for p in passages.values())
    top = payload["answers"][0] if payload.get("answers") else {}
    return {**row, "answer": text, "answer_document_id": top.get("document_id"), "em": em, "f1": f1,
            "no_answer": said_no_answer(payload), "document_retrieved": hit, "retrieved": retrieved,
            "server_ms": result.timings_ms.get("total"), "error": None}


def _cell(text, width: int = 60) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"


def _n(x, fmt: str = "{:.1f}") -> str:
    return "-" if x is None else fmt.format(x)


def table(rows: list[dict]) -> str:
    """A row per question (Markdown)."""
    lines = ["| id | EM | F1 | no answer | document retrieved | server ms | answer | expected | question |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        expected = " / ".join(r["answers"]) if r["answerable"] else "(no answer)"
        answer = f"error: {r['error']}" if r["error"] else r["answer"]
        doc = "-" if r["document_retrieved"] is None else "yes" if r["document_retrieved"] else "no"
        scores = ("-", "-") if not r["answerable"] else (_n(100 * r["em"], "{:.0f}"), _n(100 * r["f1"], "{:.0f}"))
        lines.append(f"| {_cell(r['id'], 20)} | {scores[0]} | {scores[1]} | {'yes' if r['no_answer'] else 'no'} "
                     f"| {doc} | {_n(r['server_ms'])} | {_cell(answer)} | {_cell(expected)} | {_cell(r['question'])} |")
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
             f"| F1, answerable questions | {_n(f['f1'])} |",
             f"| recall@{f['k']} of the answer's document ({f['with_document']} questions name it) "
             f"| {_n(f['recall_at_k'], '{:.3f}')} |",
             f"| \"no answer\", answerable questions (wrong) | {share(f['no_answer_answerable'], f['answerable'])} |",
             f"| \"no answer\", unanswerable questions (right) "
             f"| {share(f['no_answer_unanswerable'], f['unanswerable'])} |",
             f"| server time p50 / p90 | {_n(f['server_ms_p50'])} / {_n(f['server_ms_p90'])} ms |"]
    return "\n".join(lines)


def evaluate(args, settings: Settings, questions: list[Question], command: str) -> dict:
    """Every question asked and scored against the store ``settings`` name; the result ``--out`` writes."""
    from function.service.pipeline import QAService
    from function.service.runtime import Runtime

    service = QAService(Runtime(settings))
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
        "questions_file": str(args.questions), "docs": None if args.docs is None else str(args.docs),
        "store": store.description if args.docs is None else f"a temporary SQLite store of {args.docs}",
        "passages": store.count(), "documents": store.document_count(),
        "model": manifest.summary(),
        "figures": figures(rows, settings.top_k_passages), "rows": rows,
    }
    store.close()
    return result


def run(args, settings: Settings, questions: list[Question], command: str) -> dict:
    """``evaluate`` against the store the settings name, or with ``--docs`` a temporary one holding the folder."""
    if args.docs is None:
        return evaluate(args, settings, questions, command)
    with tempfile.TemporaryDirectory(prefix="qa-evaluate-") as tmp:
        settings = dataclasses.replace(settings, store="sqlite", sqlite_path=Path(tmp) / "passages.sqlite",
                                       index_uri="", index_encoder="")
        ingest_folder(args.docs.expanduser(), settings)
        return evaluate(args, settings, questions, command)


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
    if args.show:
        print(table(result["rows"]) + "\n")
    print(summary(result))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0
