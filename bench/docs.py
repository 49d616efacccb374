"""``python -m bench docs``: questions developers ask about real documentation, asked through the function.

Each documentation set (``bench/docs_sets/<set>.json``; format in ``bench/docs_sets/README.md``) names pinned
packages written by others (Sphinx HTML from Debian, Markdown from npm, ...), fetched on first use into
``build/docs-bench/`` (``bench/docs_fetch.py``), and questions written by hand, each with the file that answers
it and the answer's surface forms. Before any model runs, every gold answer is checked verbatim against the
extracted text of its file (``function.ingest.extract``, as ingestion extracts it): a form that is not there
stops the run naming the question (``--check`` runs only the checks).

Each set is ingested into its own SQLite store by the ingestion code (extraction + splitting:
``bench.documents.ingest_documents``), and each question goes through the function's own ``QAService`` in this
process (``bench.in_process``), as ``POST /`` would serve it:

  asked alone        no passage ids (the function's default ``top_k_passages`` and abstention): EM / F1 against
                     the answers (best over the forms, SQuAD normalisation), "no answer" rate; the same
                     question never abstaining beside it; the server time (``timings_ms.total``)
  recall@5           a passage among the 5 retrieved comes from the question's file and holds the answer: a gold
                     form and, where the question gives one, its ``evidence`` (white space collapsed, NFC)
  right passage      F1 of the question asked by passage id with the first passage of its file that holds the
                     answer (never abstaining); a question whose answer no passage holds whole scores 0
  off-topic          questions the set does not answer, asked alone against its store: "no answer" rate

Figures per set, per question kind, pooled over sets, each per part (``dev``: may be tuned on; ``test``:
reported only). Also counts the answers that carry a permalink mark (¶ § 🔗). Writes ``docs.json`` (every
question's replies) and ``docs.md`` into ``--out``.

Retrieval variants (``docs/retrieval.md``, "Documentation"): ``--retrieval hybrid`` ingests each set into a Lance
index as well (``QA_INDEX_URI``, a temporary folder) with the sentence encoder's vectors (``QA_INDEX_ENCODER``,
``--encoder``), so questions asked alone are searched by BM25 and embeddings mixed; ``--retrieval lance`` the same
Lance index without vectors (BM25 alone: hybrid's control); ``--retrieval bm25`` searches the SQLite store's own
index (the SQLite and Firestore stores' default); ``--retrieval stored`` the same, with each passage's embedding
stored beside it (``QA_INDEX_ENCODER`` alone: stored cosines, for the span ranking and "no answer"). Hybrid is the
default, as ``make run DOCS=...`` serves a folder (before 2026-11-27 it was bm25: the records of that time name their
retrieval in their header).
``--title-weight W`` weights passage-title terms W times text terms in BM25 (``function.retrieval.bm25.TITLE_WEIGHT``);
``--env NAME=VALUE`` sets any other function variable for the run.

``--pooled`` ingests every set into one store (and one Lance index) instead of a store per set, then asks each set's
questions of it: a knowledge base of several manuals, where each question's passages compete with every set's. An
off-topic question written for one set that another set answers (its ``answered_in``: "What does git rebase do?"
written for PAM's guide, answered by git's manual pages) is not off-topic in such a store: it is left out of the
off-topic figures and scored against that set's answer forms instead (``off_topic_answered_in_store``).

``--whole`` asks each set's questions against the whole manual its pages come from, as a user ingests a docs folder:
a package's ``whole`` globs (where a set declares them) replace its ``include``, the set is named ``<set>-whole``
(its corpus cached apart), and sets that declare none are left out (``whole_sets``). The questions and their gold
answers are the set's own; more passages compete for them (``docs/documents.md``, "A whole manual").
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import shlex
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from bench.documents import ingest_documents, norm
from bench.in_process import open_service
from function.evaluate.scoring import answer_text as _text
from function.evaluate.scoring import as_written, score
from function.evaluate.scoring import said_no_answer as _no_answer
from harness.paths import ENCODER, REPO, default_artifact

SETS = REPO / "bench" / "docs_sets"
TOP_K = 5
PARTS = ("dev", "test")
KINDS = ("which", "default", "return", "raise", "definition", "how", "option", "type", "other")
PERMALINK_MARKS = ("¶", "§", "🔗")
_SET_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


class SetError(ValueError):
    """A question set is malformed, or a gold answer is not in its file's text (the message names it)."""


def log(message: str) -> None:
    print(f"{datetime.now(UTC):%H:%M:%S} [docs] {message}", file=sys.stderr, flush=True)


# -- the sets --------------------------------------------------------------


def _need(cond: bool, where: str, what: str) -> None:
    if not cond:
        raise SetError(f"{where}: {what}")


def _is_strings(x) -> bool:
    return isinstance(x, list) and all(isinstance(s, str) and s for s in x)


def validate(docset: dict, where: str) -> dict:
    """The set's structure (fields, types, unique ids, parts split by file); raises ``SetError`` naming the place."""
    _need(isinstance(docset, dict), where, "not a JSON object")
    for key in ("set", "generator", "source", "questions", "off_topic"):
        _need(key in docset, where, f"missing field {key!r}")
    _need(isinstance(docset["set"], str) and bool(_SET_NAME.match(docset["set"])), where,
          f"'set' must be a lower-case name of [a-z0-9-], not {docset['set']!r}")
    src = docset["source"]
    _need(isinstance(src, dict) and src.get("kind") in ("debian", "npm"), where,
          "'source.kind' must be 'debian' or 'npm'")
    _need(isinstance(src.get("packages"), list) and bool(src["packages"]), where, "'source.packages' is empty")
    for i, p in enumerate(src["packages"]):
        pw = f"{where}: source.packages[{i}]"
        _need(isinstance(p, dict), pw, "not an object")
        for key in ("name", "version", "root"):
            _need(isinstance(p.get(key), str) and bool(p[key]), pw, f"missing or empty {key!r}")
        _need(_is_strings(p.get("include")) and bool(p["include"]), pw, "'include' must be a list of globs")
        _need(_is_strings(p.get("exclude", [])), pw, "'exclude' must be a list of globs")
        _need(_is_strings(p.get("whole", [])), pw, "'whole' must be a list of globs (the whole manual: --whole)")
    _need(isinstance(docset["questions"], list) and bool(docset["questions"]), where, "'questions' is empty")
    _need(isinstance(docset["off_topic"], list), where, "'off_topic' must be a list")
    ids: set[str] = set()
    part_of_file: dict[str, str] = {}
    for i, q in enumerate(docset["questions"]):
        qw = f"{where}: question {q.get('id', f'#{i}') if isinstance(q, dict) else f'#{i}'}"
        _need(isinstance(q, dict), qw, "not an object")
        for key in ("id", "question", "file", "kind", "part"):
            _need(isinstance(q.get(key), str) and bool(q[key].strip()), qw, f"missing or empty {key!r}")
        _need(_is_strings(q.get("answers")) and bool(q["answers"]), qw, "'answers' must be a non-empty list of "
                                                                        "non-empty strings")
        _need(isinstance(q.get("evidence", ""), str), qw, "'evidence' must be a string")
        _need(q["kind"] in KINDS, qw, f"kind {q['kind']!r} is not one of {', '.join(KINDS)}")
        _need(q["part"] in PARTS, qw, f"part {q['part']!r} is not 'dev' or 'test'")
        _need(q["id"] not in ids, qw, "id used twice")
        ids.add(q["id"])
        marked = [a for a in q["answers"] if any(m in a for m in PERMALINK_MARKS)]
        _need(not marked, qw, f"answer {marked[:1]} holds a permalink mark")
        other = part_of_file.setdefault(q["file"], q["part"])
        _need(other == q["part"], qw, f"file {q['file']} has questions in both parts (dev/test split by file)")
    for i, q in enumerate(docset["off_topic"]):
        qw = f"{where}: off-topic question {q.get('id', f'#{i}') if isinstance(q, dict) else f'#{i}'}"
        _need(isinstance(q, dict), qw, "not an object")
        for key in ("id", "question", "part"):
            _need(isinstance(q.get(key), str) and bool(q[key].strip()), qw, f"missing or empty {key!r}")
        _need(q["part"] in PARTS, qw, f"part {q['part']!r} is not 'dev' or 'test'")
        _need(q["id"] not in ids, qw, "id used twice")
        ids.add(q["id"])
        if "answered_in" in q:
            a = q["answered_in"]
            _need(isinstance(a, dict) and isinstance(a.get("set"), str) and isinstance(a.get("file"), str), qw,
                  "'answered_in' must be an object with 'set', 'file' and 'answers'")
            _need(a["set"] != docset["set"], qw, "'answered_in' names the question's own set (then it is not "
                                                 "off-topic)")
            _need(_is_strings(a.get("answers")) and bool(a["answers"]), qw,
                  "'answered_in.answers' must be a non-empty list of non-empty strings")
    return docset


def whole_sets(docsets: list[dict], say=None) -> list[dict]:
    """``--whole``: each set that declares the whole manual of a package (its ``whole`` globs) with those globs in
    place of its ``include`` and named ``<set>-whole``; the others left out (``say`` names them). ``SetError`` where
    no set declares one."""
    out, left = [], []
    for docset in docsets:
        packages = docset["source"]["packages"]
        if not any(p.get("whole") for p in packages):
            left.append(docset["set"])
            continue
        wide = [{**p, "include": p["whole"]} if p.get("whole") else p for p in packages]
        out.append({**docset, "set": f"{docset['set']}-whole", "source": {**docset["source"], "packages": wide}})
    if left and say is not None:
        say(f"--whole: left out the sets that declare no whole manual ({len(left)}): {', '.join(left)}")
    if not out:
        raise SetError("--whole: none of these sets declares the whole manual its pages come from (a package's "
                       "'whole' globs)")
    return out


def load_sets(folder: Path = SETS, names: list[str] | None = None) -> list[dict]:
    """Every ``<set>.json`` of ``folder`` (or the ``names`` given), validated; ids unique across sets."""
    paths = sorted(folder.glob("*.json"))
    if names:
        known = {p.stem: p for p in paths}
        missing = [n for n in names if n not in known]
        if missing:
            raise SetError(f"no question set {', '.join(missing)} in {folder} (there: {', '.join(known) or 'none'})")
        paths = [known[n] for n in names]
    if not paths:
        raise SetError(f"no question set (*.json) in {folder}")
    sets, seen = [], {}
    for path in paths:
        try:
            docset = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise SetError(f"{path}: cannot read it as JSON: {e}") from e
        validate(docset, str(path))
        _need(docset["set"] == path.stem, str(path), f"'set' is {docset['set']!r}, the file's name says {path.stem!r}")
        for q in docset["questions"] + docset["off_topic"]:
            _need(q["id"] not in seen, str(path), f"question id {q['id']} is also in {seen.get(q['id'])}")
            seen[q["id"]] = path.name
        sets.append(docset)
    return sets


def extracted_texts(folder: Path, files: list[str]) -> dict[str, str]:
    """Each corpus file's text as ingestion extracts it (``function.ingest.extract``)."""
    from function.ingest.extract import NotDocumentation, extract

    texts = {}
    for rel in files:
        try:
            texts[rel] = extract(rel, (folder / rel).read_bytes()).text
        except NotDocumentation:  # a generator's index or source page: ingestion leaves it out
            continue
        except (ValueError, OSError) as e:  # ExtractError, UnicodeDecodeError
            raise SetError(f"{folder / rel}: cannot extract its text: {e}") from e
    return texts


def absent_form(forms: list[str], text: str) -> str | None:
    """The first of ``forms`` that is not a verbatim substring of ``text`` (white space collapsed, NFC), if any."""
    text = norm(text)
    return next((form for form in forms if norm(form) not in text), None)


def check_gold(docset: dict, texts: dict[str, str]) -> None:
    """Every question's file is in the corpus and every answer form is a verbatim substring of its text.

    White space is collapsed on both sides (and NFC applied, as extraction does): a line break of the page's
    source is not part of the answer, and SQuAD's normalisation ignores it when scoring."""
    for q in docset["questions"]:
        where = f"set {docset['set']}: question {q['id']}"
        _need(q["file"] in texts, where, f"file {q['file']} is not among the set's {len(texts)} files "
                                         f"(paths start with the package name: {next(iter(texts), '')})")
        text = norm(texts[q["file"]])
        missing = absent_form(q["answers"], text)
        if missing is not None:
            raise SetError(f"{where}: answer {missing!r} is not in the extracted text of {q['file']}")
        if q.get("evidence") and norm(q["evidence"]) not in text:
            raise SetError(f"{where}: evidence {q['evidence']!r} is not in the extracted text of {q['file']}")


def check_answered_in(prepared: list) -> None:
    """An off-topic question's ``answered_in`` (another set of the benchmark answers it): its file is among that
    set's and each answer form is a verbatim substring of its text, as ``check_gold`` checks a set's own questions.
    Where the named set is not among those run (``--sets``) there is nothing to check: it is not in any store."""
    texts = {docset["set"]: t for docset, _, _, t in prepared}
    for docset, *_ in prepared:
        for q in docset["off_topic"]:
            a = q.get("answered_in")
            if a is None or a["set"] not in texts:
                continue
            where = f"set {docset['set']}: off-topic question {q['id']}"
            _need(a["file"] in texts[a["set"]], where, f"answered_in: file {a['file']} is not among set "
                                                       f"{a['set']}'s files")
            missing = absent_form(a["answers"], texts[a["set"]][a["file"]])
            if missing is not None:
                raise SetError(f"{where}: answered_in: answer {missing!r} is not in the extracted text of "
                               f"{a['file']}")


def select(docset: dict, part: str, limit: int) -> tuple[list[dict], list[dict]]:
    """The set's questions and off-topic questions of ``part`` (``all``: both), the first ``limit`` of each."""
    qs = [q for q in docset["questions"] if part == "all" or q["part"] == part]
    off = [q for q in docset["off_topic"] if part == "all" or q["part"] == part]
    return (qs[:limit], off[:limit]) if limit else (qs, off)


# -- asking ----------------------------------------------------------------


def _ask(service, question: str, ids: tuple[str, ...] | None, abstain: bool | None) -> tuple[dict, float, int | None]:
    """The reply, its server time and, asked alone, how many of the retrieved passages the model read (the cascade)."""
    from function.service.qa_request import QARequest

    s = service.rt.settings
    req = QARequest(question, None, ids, 1, s.max_answer_tokens, None if ids else s.top_k_passages, abstain=abstain)
    result = service.answer(req)
    return result.payload, result.timings_ms.get("total", 0.0), result.passages_read


@functools.cache
def _whole(form: str) -> re.Pattern:
    """A form matched as a whole word where it starts or ends with one: "3" is not in "360", nor "get" in "getUser"."""
    a = norm(form)
    start = r"(?<!\w)" if re.match(r"\w", a) else ""
    end = r"(?!\w)" if re.search(r"\w$", a) else ""
    return re.compile(start + re.escape(a) + end)


def holds_form(text: str, forms: list[str]) -> bool:
    t = norm(text)
    return any(f and _whole(f).search(t) for f in forms)


def holds(q: dict, text: str) -> bool:
    """Whether a passage of the question's file holds its answer: a gold form, and its evidence if it has one, each
    as whole words (the gold check at bench time, ``check_gold``, only asks that each be somewhere in the file)."""
    return holds_form(text, q["answers"]) and (not q.get("evidence") or holds_form(text, [q["evidence"]]))


def right_passage(q: dict, passages: dict[str, list[tuple[str, str]]]) -> str | None:
    """The id of the first passage of the question's file that holds the answer (``holds``)."""
    return next((pid for pid, text in passages.get(q["file"], ()) if holds(q, text)), None)


def ask_question(service, q: dict, passages: dict[str, list[tuple[str, str]]]) -> dict:
    store = service.rt.store()
    served, ms, read = _ask(service, q["question"], None, None)
    # the passages the function read (the reply's ``retrieved``: copies of a better-ranked text skipped); none where
    # the question had no searchable word
    ids = [r["passage_id"] for r in served.get("retrieved", [])][:TOP_K]
    found = store.get_many(ids) if ids else {}
    holding = [i for i in ids if i in found and found[i].doc_id == q["file"] and holds(q, found[i].text)]
    never, _, _ = _ask(service, q["question"], None, False)
    pid = right_passage(q, passages)
    given = _ask(service, q["question"], (pid,), False)[0] if pid else {"answers": []}
    text, text_never, text_given = _text(served), _text(never), _text(given)
    em, f1 = score(text, q["answers"])
    em_never, f1_never = score(text_never, q["answers"])
    em_given, f1_given = score(text_given, q["answers"])
    return {"id": q["id"], "set": q["set"], "kind": q["kind"], "part": q["part"], "file": q["file"],
            "question": q["question"], "answers": q["answers"],
            "answer": text, "no_answer": _no_answer(served),
            "probability": (served.get("no_answer") or {}).get("probability"), "em": em, "f1": f1,
            "em_as_written": as_written(text, q["answers"]),
            "answer_never_abstaining": text_never, "em_never": em_never, "f1_never": f1_never,
            "retrieved": ids, "recall@5": bool(holding), "holding": holding, "passages_read": read,
            # where the answer came from: with "holding" and "passages_read", where asking alone lost (``where_lost``)
            "answer_passage": next((a.get("passage_id") for a in served.get("answers", [])), None),
            "right_passage": pid, "answer_right_passage": text_given, "em_given": em_given, "f1_given": f1_given,
            "em_as_written_given": as_written(text_given, q["answers"]),
            "server_ms": ms}


def ask_off_topic(service, q: dict, pool: frozenset[str] = frozenset()) -> dict:
    """An off-topic question asked alone. Where another set of the store (``pool``, ``--pooled``) answers it
    (``answered_in``), the row says so and scores the answer against that set's forms: it is not off-topic there."""
    served, ms, _ = _ask(service, q["question"], None, None)
    row = {"id": q["id"], "set": q["set"], "part": q["part"], "question": q["question"], "answer": _text(served),
           "no_answer": _no_answer(served), "probability": (served.get("no_answer") or {}).get("probability"),
           "server_ms": ms}
    elsewhere = q.get("answered_in")
    if elsewhere and elsewhere["set"] in pool:
        row["answered_in"] = elsewhere["set"]
        row["em"], row["f1"] = score(row["answer"], elsewhere["answers"])
    return row


def stored_passages(service, texts: dict[str, list[str]]) -> dict[str, list[tuple[str, str]]]:
    """Each document's (passage id, text) in order, read back from the store."""
    from function.store.ids import chunk_passage_id

    store = service.rt.store()
    out = {}
    for doc, chunks in texts.items():
        ids = [chunk_passage_id(doc, i) for i in range(len(chunks))]
        got = store.get_many(ids)
        if len(got) != len(ids):
            raise SystemExit(f"{doc}: {len(ids) - len(got)} of its passages are not in the store under the ids "
                             f"ingestion gives them")
        out[doc] = [(pid, got[pid].text) for pid in ids]
    return out


def _ingested(service, docset: dict, folder: Path, files: list[str]) -> tuple[dict, dict]:
    """The set's files ingested into ``service``'s store: (ingestion figures, each document's stored passages)."""
    figures, texts = ingest_documents(service, [(rel, folder / rel) for rel in files], folder)
    log(f"{docset['set']}: {figures['documents']} documents, {figures['passages']} passages")
    return figures, stored_passages(service, texts)


def _asked(service, docset: dict, part: str, limit: int, figures: dict,
           passages: dict[str, list[tuple[str, str]]], pool: frozenset[str] = frozenset()) -> dict:
    """The set's questions (``part``) and off-topic ones asked of ``service``, whose store holds ``passages`` (and
    every set of ``pool``: ``--pooled``)."""
    questions, off = select(docset, part, limit)
    questions = [{**q, "set": docset["set"]} for q in questions]
    off = [{**q, "set": docset["set"]} for q in off]
    log(f"{docset['set']}: asking {len(questions)} questions and {len(off)} off-topic ones")
    for q in questions[:3]:  # connection and caches warm, as on a warm instance
        _ask(service, q["question"], None, None)
    rows = [ask_question(service, q, passages) for q in questions]
    off_rows = [ask_off_topic(service, q, pool) for q in off]
    return {"set": docset["set"], "generator": docset["generator"], "description": docset.get("description"),
            "packages": [{"kind": docset["source"]["kind"], "name": p["name"], "version": p["version"]}
                         for p in docset["source"]["packages"]],
            "ingestion": {k: figures[k] for k in ("documents", "passages", "max_passage_tokens", "overlap_tokens",
                                                   "extract_s", "split_s", "passage_length")},
            "rows": rows, "off_topic_rows": off_rows}


def run_set(docset: dict, folder: Path, files: list[str], env: dict, work: Path, part: str, limit: int,
            lance: bool = False) -> dict:
    """The set in a store of its own (and, with ``lance``, a Lance table of its own), its questions asked."""
    env = {**env, "QA_SQLITE_PATH": str(work / f"{docset['set']}.sqlite")}
    if lance:  # --retrieval lance or hybrid: a Lance table of the set's own
        env["QA_INDEX_URI"] = str(work / f"{docset['set']}.lance")
    service = open_service(env)
    figures, passages = _ingested(service, docset, folder, files)
    result = _asked(service, docset, part, limit, figures, passages)
    service.rt.store().close()
    return result


def check_poolable(prepared: list) -> None:
    """``SetError`` where two sets hold a document of the same path: in one store they would be one document."""
    owner: dict[str, str] = {}
    for docset, _, files, _ in prepared:
        clash = next((f for f in files if f in owner), None)
        if clash is not None:
            raise SetError(f"--pooled: {docset['set']} and {owner[clash]} both hold {clash}")
        owner.update(dict.fromkeys(files, docset["set"]))


def run_pooled(prepared: list, env: dict, work: Path, part: str, limit: int, lance: bool = False) -> list[dict]:
    """Every set in ONE store (``--pooled``: a knowledge base of several manuals), then each set's questions asked
    of it: a question's passages compete with every set's. A document path held by two sets is refused."""
    env = {**env, "QA_SQLITE_PATH": str(work / "pooled.sqlite")}
    if lance:
        env["QA_INDEX_URI"] = str(work / "pooled.lance")
    check_poolable(prepared)
    service = open_service(env)
    ingested, passages = [], {}
    for docset, folder, files, _ in prepared:
        figures, own = _ingested(service, docset, folder, files)
        ingested.append((docset, figures))
        passages.update(own)
    log(f"one store: {len(passages)} documents, {sum(len(v) for v in passages.values())} passages")
    pool = frozenset(docset["set"] for docset, _ in ingested)
    results = [_asked(service, docset, part, limit, figures, passages, pool) for docset, figures in ingested]
    service.rt.store().close()
    return results


# -- figures ---------------------------------------------------------------


def _pct(values: list[float]) -> float | None:
    return round(100.0 * sum(values) / len(values), 2) if values else None


def has_mark(text: str) -> bool:
    return any(m in text for m in PERMALINK_MARKS)


def figures(rows: list[dict], off_rows: list[dict]) -> dict:
    """The figures of a group of questions (and the group's off-topic questions)."""
    elsewhere = [r for r in off_rows if "answered_in" in r]  # --pooled: another set of the store answers them
    off_rows = [r for r in off_rows if "answered_in" not in r]
    times = [r["server_ms"] for r in rows + off_rows + elsewhere]
    given = [r["answer"] for r in rows + off_rows + elsewhere if r["answer"]]
    given += [r[k] for r in rows for k in ("answer_never_abstaining", "answer_right_passage") if r[k]]
    return {
        "questions": len(rows),
        "exact_match": _pct([r["em"] for r in rows]), "f1": _pct([r["f1"] for r in rows]),
        "exact_match_as_written": _pct([r["em_as_written"] for r in rows]),
        "exact_match_never_abstaining": _pct([r["em_never"] for r in rows]),
        "f1_never_abstaining": _pct([r["f1_never"] for r in rows]),
        "f1_right_passage": _pct([r["f1_given"] for r in rows]),
        "exact_match_right_passage": _pct([r["em_given"] for r in rows]),
        "exact_match_as_written_right_passage": _pct([r["em_as_written_given"] for r in rows]),
        "recall@5": round(sum(r["recall@5"] for r in rows) / len(rows), 4) if rows else None,
        "no_answer_answerable": _pct([r["no_answer"] for r in rows]),
        "no_passage_holds_answer": sum(r["right_passage"] is None for r in rows),
        "off_topic": len(off_rows), "no_answer_off_topic": _pct([r["no_answer"] for r in off_rows]),
        "off_topic_answered_in_store": len(elsewhere),
        "f1_off_topic_answered_in_store": _pct([r["f1"] for r in elsewhere]),
        "server_ms_p50": round(statistics.median(times), 1) if times else None,
        "answers_given": len(given), "answers_with_permalink_mark": sum(map(has_mark, given)),
    }


LOSS_WHERE = {
    "abstained": "abstained",
    "not_retrieved": "no passage retrieved holds the answer",
    "not_read": "retrieved, not read (the cascade stopped before it)",
    "outranked": "read, the answer taken from a passage that does not hold it",
    "same_passage": "read, another span of a passage that holds it",
}


def where_lost(row: dict) -> str | None:
    """Why a question asked alone scores less than with its right passage given (``LOSS_WHERE``), by where the
    retrieved passages that hold its answer (``holding``) were; None where it does not. Rows of runs before
    2026-12-04 hold no ``holding``, ``passages_read`` or ``answer_passage``: not split then."""
    if row["f1"] >= row["f1_given"] or "holding" not in row:
        return None
    if row["no_answer"]:
        return "abstained"
    if not row["holding"]:
        return "not_retrieved"
    read = row["retrieved"] if row["passages_read"] is None else row["retrieved"][: row["passages_read"]]
    if not set(row["holding"]) & set(read):
        return "not_read"
    return "same_passage" if row["answer_passage"] in row["holding"] else "outranked"


def losses(rows: list[dict]) -> dict[str, dict]:
    """Where asking alone loses F1 that the right passage given scores: per ``where_lost``, the questions and the
    F1 points (of all ``rows``) lost there."""
    out = {k: {"questions": 0, "f1_points": 0.0} for k in LOSS_WHERE}
    for r in rows:
        if (where := where_lost(r)) is not None:
            out[where]["questions"] += 1
            out[where]["f1_points"] += 100.0 * (r["f1_given"] - r["f1"]) / len(rows)
    return {k: {**v, "f1_points": round(v["f1_points"], 2)} for k, v in out.items()}


def tables(results: list[dict], parts: list[str]) -> dict:
    """Figures per set, per kind and pooled, each per part and over the parts asked."""
    rows = [r for s in results for r in s["rows"]]
    off = [r for s in results for r in s["off_topic_rows"]]
    out: dict = {"by_set": {}, "by_kind": {}, "pooled": {}}
    for part in [*parts, "all"] if len(parts) > 1 else parts:
        def pick(rs, part=part):
            return [r for r in rs if part == "all" or r["part"] == part]

        for s in results:
            out["by_set"].setdefault(s["set"], {})[part] = figures(pick(s["rows"]), pick(s["off_topic_rows"]))
        kinds = [k for k in KINDS if any(r["kind"] == k for r in rows)]
        for kind in kinds:
            of_kind = [r for r in pick(rows) if r["kind"] == kind]
            if of_kind:
                out["by_kind"].setdefault(kind, {})[part] = figures(of_kind, [])
        out["pooled"][part] = figures(pick(rows), pick(off))
        out.setdefault("losses", {})[part] = losses(pick(rows))
    return out


# -- report ----------------------------------------------------------------


def _n(x, fmt: str = "{:.1f}") -> str:
    return "-" if x is None else fmt.format(x)


_HEAD = ("| {label} | part | questions | EM | EM as written | F1 | F1 never abstaining | F1 right passage "
         "| EM as written, right passage | recall@5 "
         "| \"no answer\" (answerable) | off-topic | \"no answer\" (off-topic) | server p50 ms |")


def _line(label: str, part: str, f: dict) -> str:
    return (f"| {label} | {part} | {f['questions']} | {_n(f['exact_match'])} | {_n(f['exact_match_as_written'])} "
            f"| {_n(f['f1'])} | {_n(f['f1_never_abstaining'])} | {_n(f['f1_right_passage'])} "
            f"| {_n(f['exact_match_as_written_right_passage'])} | {_n(f['recall@5'], '{:.3f}')} "
            f"| {_n(f['no_answer_answerable'], '{:.1f}%')} | {f['off_topic']} "
            f"| {_n(f['no_answer_off_topic'], '{:.1f}%')} "
            f"| {_n(f['server_ms_p50'])} |")


def _retrieval_line(result: dict) -> str:
    r = result.get("retrieval") or {"kind": "bm25", "title_weight": None, "encoder": None, "env": {}}
    kind = {"hybrid": f"hybrid (BM25 and `{r['encoder']}` embeddings mixed, a Lance index per set)",
            "lance": "BM25 in a Lance index per set (no vectors)",
            "stored": f"BM25 (the SQLite store's FTS5 index), `{r['encoder']}` embeddings stored with the "
                      "passages (stored cosines)"}.get(r["kind"], "BM25 (the SQLite store's FTS5 index)")
    extra = "".join(f", `{k}={v}`" for k, v in r["env"].items() if k != "QA_INDEX_ENCODER")
    weight = ("title terms counted as text terms (one column)" if r["title_weight"] is None
              else f"title weight {r['title_weight']:g}")
    stores = ("; **every set in one store** (`--pooled`): each question competes with every set's passages"
              if result.get("stores", "").startswith("one for every") else "")
    if stores:
        kind = kind.replace("a Lance index per set", "one Lance index")
    return f"Retrieval: {kind}, {weight}{extra}{stores}."


def markdown(result: dict) -> str:
    art, t = result["artifact"], result["tables"]
    lines = ["# Questions about real documentation, asked through the function", "",
             f"`{result['command']}` on {result['date']} ({result['machine']['cpus']} CPUs, load "
             f"{result['machine']['load_1min']}). Model: `{art['name']}` (artifact hash `{art['hash'][:12]}`, "
             f"{art['path']}). Questions asked alone with the function's defaults (top "
             f"{result['top_k_passages']} passages, abstention {result['abstention']}); the test part is "
             "reported only, the dev part may be tuned on.", "", _retrieval_line(result), "",
             "| set | generator | packages | documents | passages |", "|---|---|---|---|---|"]
    for s in result["sets"]:
        pk = ", ".join(f"{p['name']} {p['version']} ({p['kind']})" for p in s["packages"])
        lines.append(f"| {s['set']} | {s['generator']} | {pk} | {s['ingestion']['documents']} "
                     f"| {s['ingestion']['passages']:,} |")
    lines += ["", "## Per set", "", _HEAD.format(label="set"), "|---" * 14 + "|"]
    for name, by_part in t["by_set"].items():
        lines += [_line(name, part, f) for part, f in by_part.items()]
    lines += [_line("**pooled**", part, f) for part, f in t["pooled"].items()]
    lines += ["", "## Per question kind (all sets)", "", _HEAD.format(label="kind"), "|---" * 14 + "|"]
    for kind, by_part in t["by_kind"].items():
        lines += [_line(kind, part, f) for part, f in by_part.items()]
    if any(v["questions"] for by_part in t.get("losses", {}).values() for v in by_part.values()):
        parts = list(t["losses"])
        lines += ["", "## Where a question asked alone loses to its right passage given (all sets)", "",
                  "Questions scoring less asked alone than with the right passage given, and the F1 points of the "
                  "part they cost, by where the retrieved passages that hold the answer were (`where_lost`).", "",
                  "| where | " + " | ".join(f"{p}: questions, F1 points" for p in parts) + " |",
                  "|---" * (len(parts) + 1) + "|"]
        for key, label in LOSS_WHERE.items():
            cells = [f"{t['losses'][p][key]['questions']}, {t['losses'][p][key]['f1_points']:.2f}" for p in parts]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    pooled = t["pooled"].get("all") or next(iter(t["pooled"].values()))
    if pooled.get("off_topic_answered_in_store"):
        lines += ["", f"Off-topic questions another set of the store answers (`answered_in`, `--pooled`): "
                  f"{pooled['off_topic_answered_in_store']}, not counted as off-topic; F1 against that set's answer "
                  f"forms {_n(pooled['f1_off_topic_answered_in_store'])}."]
    lines += ["", f"Answers carrying a permalink mark ({' '.join(PERMALINK_MARKS)}): "
              f"{pooled['answers_with_permalink_mark']} of {pooled['answers_given']} answers given (asked alone, "
              "never abstaining, right passage, off-topic). Questions whose answer no passage of their file "
              f"holds whole (right passage scores 0): {pooled['no_passage_holds_answer']}.", "",
              "EM / F1: SQuAD normalisation, best over the answer forms, an abstention scoring 0. EM as written: the "
              "answer is one of the forms with case and punctuation kept (white space collapsed), which SQuAD's "
              "normalisation hides (\"a\" for \"-a\", \"%O\" for \"%o\"). F1 never "
              "abstaining: the same question with `\"abstain\": false`. F1 right passage: asked by passage id "
              "with the first passage of the question's file that holds the answer (a gold form, and the question's "
              "evidence phrase where it has one), never abstaining. recall@5: a passage among the 5 retrieved is "
              "from the question's file and holds the answer (white space collapsed, NFC). \"no answer\": the reply "
              "abstained or nothing matched. Server time: "
              "`timings_ms.total` of the question asked alone, off-topic ones included.", ""]
    return "\n".join(lines)


# -- entry -----------------------------------------------------------------


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench docs", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sets", nargs="+", default=None, help="set names (default: every bench/docs_sets/*.json)")
    p.add_argument("--sets-dir", type=Path, default=SETS, help=argparse.SUPPRESS)
    p.add_argument("--cache", type=Path, default=None, help="where packages are fetched (default: build/docs-bench)")
    p.add_argument("--part", choices=("dev", "test", "all"), default="all", help="which questions to ask")
    p.add_argument("--artifact", type=Path, default=None, help="model artifact folder (default: artifact/)")
    p.add_argument("--limit", type=int, default=0, help="ask only the first N questions (and off-topic) per set")
    p.add_argument("--threads", type=int, default=1, help="ONNX Runtime threads (QA_THREADS)")
    p.add_argument("--check", action="store_true", help="fetch and check the sets' gold answers only (no model)")
    p.add_argument("--show", metavar="FILE", default=None,
                   help="print FILE's extracted text (a path from the set's corpus root; with --sets NAME)")
    p.add_argument("--retrieval", choices=("bm25", "stored", "lance", "hybrid"), default="hybrid",
                   help="hybrid (the default): a Lance index per set with the encoder's vectors, BM25 and embeddings "
                        "mixed (QA_INDEX_URI + QA_INDEX_ENCODER: what make run DOCS=... and the Lance images serve); "
                        "bm25: the SQLite store's own index (the stores' default); lance: BM25 in a Lance index "
                        "per set (QA_INDEX_URI), hybrid's control")
    p.add_argument("--encoder", type=Path, default=ENCODER,
                   help="sentence-encoder folder for --retrieval hybrid|stored (default: the shipped encoder/)")
    p.add_argument("--title-weight", type=float, default=None,
                   help="weight of passage-title terms in BM25 (default: function.retrieval.bm25.TITLE_WEIGHT; "
                        "--retrieval bm25 only)")
    p.add_argument("--pooled", action="store_true",
                   help="every set in one store (and one Lance index): each question competes with every set's "
                        "passages, as in a knowledge base of several manuals (default: a store per set)")
    p.add_argument("--whole", action="store_true",
                   help="ask each set's questions against the whole manual its pages come from (the sets that "
                        "declare one, as <set>-whole): a docs folder ingested whole (default: the set's pages)")
    p.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                   help="a function variable for this run (QA_...; repeatable), e.g. --env QA_TOP_K_PASSAGES=3")
    p.add_argument("--out", type=Path, default=REPO / "records" / "bench" / "docs")
    return p.parse_args(argv)


def run_env(args) -> dict[str, str]:
    """The variables ``--retrieval`` and ``--env`` add to the function's environment; ``SetError`` names a bad one."""
    env: dict[str, str] = {}
    if args.retrieval in ("hybrid", "stored"):
        from function.retrieval.encoder import MANIFEST_FILE

        if not (args.encoder / MANIFEST_FILE).is_file():
            raise SetError(f"--retrieval {args.retrieval}: no sentence encoder in {args.encoder} (make it with "
                           "`python -m build_model.encoder_export`, or name one with --encoder)")
        env["QA_INDEX_ENCODER"] = str(args.encoder.resolve())
    for item in args.env:
        name, sep, value = item.partition("=")
        if not sep or not _ENV_NAME.match(name):
            raise SetError(f"--env {item!r}: expected NAME=VALUE with an upper-case variable name")
        env[name] = value
    if args.retrieval not in ("bm25", "stored") and args.title_weight is not None:
        raise SetError("--title-weight applies to --retrieval bm25|stored only: the Lance index holds a passage's "
                       "title and text in one column")
    if env.get("QA_INDEX_URI") or (args.retrieval not in ("hybrid", "stored") and env.get("QA_INDEX_ENCODER")):
        raise SetError("QA_INDEX_URI and QA_INDEX_ENCODER are set by --retrieval lance|hybrid|stored (a Lance table "
                       "per set; the encoder), not by --env")
    return env


def prepare(args, say=log) -> list[tuple[dict, Path, list[str], dict[str, str]]]:
    """Each set fetched, its corpus laid out, its text extracted and its gold answers checked."""
    from bench.docs_fetch import CACHE, corpus

    prepared = []
    docsets = load_sets(args.sets_dir, args.sets)
    if getattr(args, "whole", False):
        docsets = whole_sets(docsets, say)
    for docset in docsets:
        folder, files = corpus(docset, args.cache or CACHE, say)
        texts = extracted_texts(folder, files)
        if not getattr(args, "show", None):  # --show is for writing questions: a set being written may fail
            check_gold(docset, texts)
        say(f"{docset['set']}: {len(files)} files, {len(docset['questions'])} questions "
            f"({Counter(q['part'] for q in docset['questions'])['dev']} dev), {len(docset['off_topic'])} off-topic; "
            "every gold answer found in its file's text")
        prepared.append((docset, folder, files, texts))
    if not getattr(args, "show", None):
        check_answered_in(prepared)
    return prepared


def main(argv=None) -> int:
    args = parse_args(argv)
    from bench.docs_fetch import FetchError

    try:
        extra_env = run_env(args)
        prepared = prepare(args)
        if args.pooled:
            check_poolable(prepared)
    except (SetError, FetchError) as e:
        print(f"python -m bench docs: {e}", file=sys.stderr)
        return 1
    if args.show:
        for _, _, _, texts in prepared:
            if args.show in texts:
                print(texts[args.show])
                return 0
        print(f"python -m bench docs: {args.show} is not a file of the sets {[d['set'] for d, *_ in prepared]}",
              file=sys.stderr)
        return 1
    if args.check:
        return 0
    from bench.machine import describe
    from function.model.artifact import load_manifest

    artifact = (args.artifact or default_artifact()).resolve()
    manifest = load_manifest(artifact)
    env = {"QA_ARTIFACT_DIR": str(artifact), "QA_STORE": "sqlite", "QA_CACHE": "0", "QA_THREADS": str(args.threads),
           **extra_env}
    from function.retrieval import bm25

    shipped_title_weight = bm25.TITLE_WEIGHT
    if args.title_weight is not None:
        bm25.TITLE_WEIGHT = args.title_weight  # read at each search, by the SQLite store and the Python scorer
    started = time.perf_counter()
    results = []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-docs-") as tmp:
            lance = args.retrieval in ("lance", "hybrid")
            if args.pooled:
                results = run_pooled(prepared, env, Path(tmp), args.part, args.limit, lance=lance)
            else:
                results = [run_set(docset, folder, files, env, Path(tmp), args.part, args.limit, lance=lance)
                           for docset, folder, files, _ in prepared]
            for result in results:
                f = figures(result["rows"], result["off_topic_rows"])
                log(f"{result['set']}: F1 {f['f1']}, right passage {f['f1_right_passage']}, recall@5 "
                    f"{f['recall@5']}, off-topic no answer {f['no_answer_off_topic']}%")
        title_weight = bm25.TITLE_WEIGHT
    finally:
        bm25.TITLE_WEIGHT = shipped_title_weight
    from function.config import Settings

    # what a question alone gets (top_k_passages); the Lance folders --retrieval hybrid needs are made per set
    settings = Settings.from_env({k: v for k, v in env.items() if k != "QA_INDEX_ENCODER"})
    no_answer = manifest.raw.get("no_answer") if isinstance(manifest.raw.get("no_answer"), dict) else None
    result = {
        "command": "python -m bench docs " + shlex.join(argv if argv is not None else sys.argv[1:]),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "artifact": {"path": os.path.relpath(artifact, REPO), "name": manifest.name, "hash": manifest.artifact_hash},
        "top_k_passages": settings.top_k_passages,
        "retrieval": {"kind": args.retrieval,
                      "title_weight": title_weight if args.retrieval in ("bm25", "stored") else None,
                      "index_uri": "a Lance folder per set" if args.retrieval in ("lance", "hybrid") else None,
                      "encoder": (os.path.relpath(args.encoder.resolve(), REPO)
                                  if args.retrieval in ("hybrid", "stored") else None),
                      "env": extra_env},
        "stores": ("one for every set (--pooled)" if args.pooled else "one per set")
                  + (", each the whole manual its pages come from (--whole)" if args.whole else ""),
        "abstention": f"threshold {no_answer['threshold']}" if no_answer else "none recorded in the artifact",
        "part": args.part, "limit": args.limit or None,
        "tables": tables(results, list(PARTS) if args.part == "all" else [args.part]),
        "sets": results,
        "seconds": round(time.perf_counter() - started, 1),
        "machine": {**describe(), "cpus": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2),
                    "threads": args.threads},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "docs.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (args.out / "docs.md").write_text(markdown(result), encoding="utf-8")
    print(markdown(result))
    return 0
