"""Passage records from SQuAD-format JSON or JSON Lines: the JSON formats, as ``extract`` is the document ones.

A record is ``{"id", "title", "text"}`` (``doc_id`` optional). SQuAD files give
one record per paragraph with the stable id ``<title>-<paragraph index>``, so
ingesting the same file twice writes the same documents. A malformed record is
yielded as a ``Rejected`` naming it, and reading goes on; fields other than
those (``FIELDS``) are not read, and a file whose records have any ends with an
``Unread`` naming them and where they first are; a file without any
record (empty, or SQuAD without paragraphs) raises ``NoRecords``, and fails by
name. ``documents`` groups the records of a file into documents.
"""

from __future__ import annotations

import difflib
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass

from function.store.ids import valid_passage_id


@dataclass(frozen=True)
class Record:
    id: str
    title: str
    doc_id: str
    text: str
    where: str = ""  # "file.jsonl line 12": for a message about the record


class NoPassages(ValueError):
    """A JSON file that is one object holding neither SQuAD's ``data`` nor a record's ``id`` and ``text``: a built
    site's search index (MkDocs' ``search/search_index.json``), a ``package.json``, a generator's ``meta.json``. Not a
    file that failed: ingestion leaves it out and says so, as it does a file of another type."""


@dataclass(frozen=True)
class Rejected:
    where: str  # "file.jsonl line 12", "file.json article 3 paragraph 4"
    reason: str


# A record's fields, all that is read of it; any other is neither read nor stored
FIELDS = ("id", "text", "title", "doc_id")


@dataclass(frozen=True)
class Unread:
    """A file whose records hold fields that are not read (``FIELDS``), named with the line of each one's first record:
    not an error (a record may carry a "url" of the user's own), but said, since a misspelt field is lost in silence
    (a "titel" or "docid" changes which document its record is, "txt" rejects it for want of 'text')."""

    where: str  # the file
    message: str


def _unread_message(name: str, unknown: dict[str, tuple[int, int, str]], unit: str = "line") -> str:
    """``unknown``: field -> (line (or array item) of its first record, records holding it, the known field it may
    misspell)."""
    shown = []
    for field, (line, n, like) in list(unknown.items())[:8]:
        more = f" and {n - 1} more record{'s' if n > 2 else ''}" if n > 1 else ""
        shown.append(f"{field[:40]!r} ({unit} {line}{more}{f'; did you mean {like!r}?' if like else ''})")
    rest = f" and {len(unknown) - 8} other fields" if len(unknown) > 8 else ""
    return (f"{name}: record fields not read, so not stored: {', '.join(shown)}{rest}; a record's fields are "
            f"{', '.join(FIELDS)} (its document: doc_id, else title, else id)")


def _misspelt(field: str, raw: dict) -> str:
    """The known field that ``field`` may be a misspelling of, one ``raw`` lacks ("titel": 'title'), or ''."""
    lacking = [f for f in FIELDS if f not in raw]
    close = difflib.get_close_matches(field.strip().lower(), lacking, n=1, cutoff=0.6)
    return close[0] if close else ""


def _check(where: str, raw: object) -> Record | Rejected:
    if not isinstance(raw, dict):
        return Rejected(where, "not a JSON object")
    pid, text = raw.get("id"), raw.get("text")
    title, doc_id = raw.get("title", ""), raw.get("doc_id", raw.get("title", ""))
    if not valid_passage_id(pid):
        return Rejected(where, "'id' must be a non-empty string without '/' (at most 500 bytes)")
    if not isinstance(text, str) or not text.strip():
        return Rejected(where, f"passage {pid!r}: 'text' must be a non-empty string")
    if not isinstance(title, str) or not isinstance(doc_id, str):
        return Rejected(where, f"passage {pid!r}: 'title' and 'doc_id' must be strings")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return Rejected(where, f"passage {pid!r}: 'text' is not valid Unicode")
    return Record(pid, title, doc_id, text, where)


def squad_id(title: str, index: int) -> str:
    return f"{title.replace('/', '_')}-{index:04d}"


def _squad_records(name: str, data: dict) -> Iterator[Record | Rejected]:
    articles = data.get("data")
    if not isinstance(articles, list):
        yield Rejected(name, "SQuAD file without a 'data' list")
        return
    for a, article in enumerate(articles):
        title = article.get("title", f"article{a}") if isinstance(article, dict) else None
        paragraphs = article.get("paragraphs") if isinstance(article, dict) else None
        if not isinstance(title, str) or not isinstance(paragraphs, list):
            yield Rejected(f"{name} article {a}", "needs a 'title' string and a 'paragraphs' list")
            continue
        for p, para in enumerate(paragraphs):
            where = f"{name} article {a} ({title}) paragraph {p}"
            context = para.get("context") if isinstance(para, dict) else None
            yield _check(where, {"id": squad_id(title, p), "title": title.replace("_", " "),
                                 "doc_id": title, "text": context})


def _jsonl_records(name: str, lines: Iterator[str]) -> Iterator[Record | Rejected | Unread]:
    def parsed() -> Iterator[tuple[int, object]]:
        for n, line in enumerate(lines, 1):
            if line.strip():
                try:
                    yield n, json.loads(line)
                except ValueError as e:
                    yield n, e

    yield from _records(name, parsed(), "line")


def _records(name: str, items: Iterator[tuple[int, object]], unit: str) -> Iterator[Record | Rejected | Unread]:
    """Records of ``items`` ((line or array item number, the parsed object or the error parsing it)), and an ``Unread``
    last if their objects hold fields that are not read."""
    unknown: dict[str, tuple[int, int, str]] = {}
    for n, raw in items:
        if isinstance(raw, ValueError):
            yield Rejected(f"{name} {unit} {n}", f"not valid JSON ({str(raw)[:100]})")
            continue
        if isinstance(raw, dict):
            for field in raw:
                if field in unknown:
                    first, count, like = unknown[field]
                    unknown[field] = (first, count + 1, like)
                elif field not in FIELDS:
                    unknown[field] = (n, 1, _misspelt(field, raw))
        yield _check(f"{name} {unit} {n}", raw)
    if unknown:
        yield Unread(name, _unread_message(name, unknown, unit))


class NoRecords(ValueError):
    """A JSON file with no record at all: empty (or blank), or SQuAD with no paragraph. It fails by name, as an empty
    text or Markdown file does (``extract.NoText``): it was read in silence, named nowhere in the run's report."""


def parse_text(name: str, text: str) -> Iterator[Record | Rejected | Unread]:
    """Records of one file's text; SQuAD if it is one JSON object with 'data', a JSON array's items if it is one
    (records as JSON Lines writes them, named by item), else JSON Lines. Raises ``NoPassages`` for one JSON object
    that is neither SQuAD nor a record, or an array none of whose items is a record (a site's search index),
    ``NoRecords`` for a file without any."""
    if not text.strip():
        raise NoRecords(f"{name}: no records in this file (it is empty)")
    head = text.lstrip()[:1]
    if head == "{" and not name.endswith(".jsonl"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict) and "data" in data:
            paragraphs = 0
            for rec in _squad_records(name, data):
                paragraphs += 1
                yield rec
            if not paragraphs:
                raise NoRecords(f"{name}: no records in this SQuAD file (its 'data' holds no paragraphs)")
            return
        if isinstance(data, dict) and not ("id" in data and "text" in data):
            raise NoPassages(f"{name}: a JSON object with no passages (neither SQuAD's 'data' nor a record's 'id' "
                             f"and 'text'; keys: {', '.join(list(map(str, data))[:5]) or 'none'})")
    if head == "[" and not name.endswith(".jsonl"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, list):
            if not data:
                raise NoRecords(f"{name}: no records in this file (an empty JSON array)")
            if not any(isinstance(item, dict) and "id" in item and "text" in item for item in data):
                raise NoPassages(f"{name}: a JSON array with no passages (no item has a record's 'id' and 'text')")
            yield from _records(name, enumerate(data, 1), "item")
            return
    yield from _jsonl_records(name, io.StringIO(text))
