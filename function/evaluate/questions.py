"""Your questions, as ``python -m function.evaluate`` reads them.

JSON Lines (one object per line; blank lines skipped), a JSON array of the same objects, or a SQuAD file
(v1.1 or v2.0: each paragraph's questions, ``is_impossible`` ones unanswerable, the paragraph the document):

    {"question": "How do I install it?", "answers": ["pipx install quillpad"], "document_id": "guide/install.md"}
    {"question": "Who wrote it?", "answers": ["Marta Kowalski", "Kowalski"], "id": "author"}
    {"question": "What is the capital of Peru?", "answers": []}

``question`` (required) and ``answers`` (the acceptable answers, any one of them right; none or ``[]``: the
question must get "no answer", which ``"answerable": false`` may say too), ``document_id`` (optional: the
document the answer comes from, as ingestion names it: the file's path relative to the folder ingested),
``id`` (optional: default ``line N`` or ``#N``). Any other field is an error, so that a misspelt
``answer`` does not quietly make a question unanswerable. Every error names the file and the record.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

FIELDS = ("id", "question", "answers", "answerable", "document_id")


class QuestionsError(ValueError):
    """The questions file cannot be read, or a record in it is malformed (the message names which)."""


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    answers: tuple[str, ...]  # empty: the right reply is "no answer"
    document_id: str | None = None

    @property
    def answerable(self) -> bool:
        return bool(self.answers)


def _strings(value) -> bool:
    return isinstance(value, list) and all(isinstance(s, str) and s.strip() for s in value)


def parse_record(record, where: str, default_id: str) -> Question:
    """One question (``default_id`` unless it has an ``id``); ``QuestionsError`` naming ``where`` (the file and
    the record) when it is malformed."""
    if not isinstance(record, dict):
        raise QuestionsError(f"{where}: expected a JSON object, got {type(record).__name__}")
    unknown = sorted(set(record) - set(FIELDS))
    if unknown:
        raise QuestionsError(f"{where}: unknown field {', '.join(map(repr, unknown))} (fields: {', '.join(FIELDS)})")
    question = record.get("question")
    if not isinstance(question, str) or not question.strip():
        raise QuestionsError(f"{where}: 'question' must be a non-empty string")
    answers = record.get("answers", [])
    if not _strings(answers):
        raise QuestionsError(f"{where}: 'answers' must be a list of non-empty strings (an empty list: no answer)")
    answerable = record.get("answerable", bool(answers))
    if not isinstance(answerable, bool):
        raise QuestionsError(f"{where}: 'answerable' must be true or false")
    if answerable != bool(answers):
        raise QuestionsError(f"{where}: 'answerable' is {json.dumps(answerable)} but 'answers' "
                             + ("is empty" if answerable else "holds answers"))
    document = record.get("document_id")
    if document is not None and (not isinstance(document, str) or not document.strip()):
        raise QuestionsError(f"{where}: 'document_id' must be a non-empty string")
    qid = record.get("id", default_id)
    if not isinstance(qid, str | int) or isinstance(qid, bool) or not str(qid).strip():
        raise QuestionsError(f"{where}: 'id' must be a non-empty string or an integer")
    return Question(str(qid), question, tuple(answers), document)


def _squad(data: dict, name: str) -> list[Question]:
    from function.ingest.json_input import squad_id

    out = []
    for a, article in enumerate(data["data"]):
        paragraphs = article.get("paragraphs") if isinstance(article, dict) else None
        if not isinstance(paragraphs, list) or not isinstance(article.get("title"), str):
            raise QuestionsError(f"{name}: data[{a}]: a SQuAD article needs a 'title' and a 'paragraphs' list")
        for p, paragraph in enumerate(paragraphs):
            qas = paragraph.get("qas") if isinstance(paragraph, dict) else None
            if not isinstance(qas, list):
                raise QuestionsError(f"{name}: data[{a}].paragraphs[{p}]: no 'qas' list")
            for n, qa in enumerate(qas):
                where = f"{name}: data[{a}].paragraphs[{p}].qas[{n}]"
                if not isinstance(qa, dict) or not isinstance(qa.get("answers"), list):
                    raise QuestionsError(f"{where}: a SQuAD question needs 'question' and 'answers'")
                texts = [x.get("text") for x in qa["answers"] if isinstance(x, dict)]
                if qa.get("is_impossible"):
                    texts = []
                record = {"question": qa.get("question"), "answers": list(dict.fromkeys(texts)),
                          "document_id": squad_id(article["title"], p)}
                if "id" in qa:
                    record["id"] = qa["id"]
                out.append(parse_record(record, where, f"{article['title']}-{p}-{n}"))
    return out


def _whole_json(text: str, name: str):
    """The file as one JSON value, or None for JSON Lines (an object per line, whatever the file's name)."""
    try:
        return json.loads(text)
    except ValueError as e:
        if text.lstrip().startswith("{") and "Extra data" in str(e):  # the second line's object
            return None
        if text.lstrip().startswith("["):
            raise QuestionsError(f"{name}: not JSON: {e}") from None
        return None  # a line of its own fails by number


def load_questions(path: Path) -> list[Question]:
    """The file's questions, in its order; ``QuestionsError`` names the file and the record of any fault."""
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise QuestionsError(f"{name}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise QuestionsError(f"{name}: cannot read it: {e}") from None
    data = _whole_json(text, name)
    if data is None:
        questions = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    record = json.loads(line)
                except ValueError as e:
                    raise QuestionsError(f"{name}: line {n}: not JSON: {e}") from None
                questions.append(parse_record(record, f"{name}: line {n}", f"line {n}"))
    elif isinstance(data, dict) and isinstance(data.get("data"), list):
        questions = _squad(data, name)
    elif isinstance(data, list):
        questions = [parse_record(r, f"{name}: #{i}", f"#{i}") for i, r in enumerate(data, 1)]
    elif isinstance(data, dict):  # JSON Lines of one line
        questions = [parse_record(data, f"{name}: line 1", "line 1")]
    else:
        raise QuestionsError(f"{name}: expected JSON Lines, a JSON array of questions or a SQuAD file")
    if not questions:
        raise QuestionsError(f"{name}: no questions in it")
    seen: set[str] = set()
    for q in questions:
        if q.id in seen:
            raise QuestionsError(f"{name}: id {q.id!r} is used twice")
        seen.add(q.id)
    return questions
