"""Input files (local or Cloud Storage), and passage records from SQuAD-format JSON or JSON Lines.

``list_inputs`` turns what the user named (files, folders, ``gs://`` objects and
prefixes) into ``InputFile``s: folders and prefixes are walked recursively and
keep the files whose extension is supported (JSON formats here, document formats
in ``extract.SUFFIXES``) and that pass the ``--include``/``--exclude`` globs.
Each file knows its path relative to what was named, which becomes a document's
id, and its ``source`` (absolute path or URI), which answers carry and which
``--sync`` compares with the store.

A record is ``{"id", "title", "text"}`` (``doc_id`` optional). SQuAD files give
one record per paragraph with the stable id ``<title>-<paragraph index>``, so
ingesting the same file twice writes the same documents. A malformed record is
yielded as a ``Rejected`` naming it, and reading goes on.
"""

from __future__ import annotations

import fnmatch
import io
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from function.store.ids import valid_passage_id


@dataclass(frozen=True)
class Record:
    id: str
    title: str
    doc_id: str
    text: str


@dataclass(frozen=True)
class Rejected:
    where: str  # "file.jsonl line 12", "file.json article 3 paragraph 4"
    reason: str


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
    return Record(pid, title, doc_id, text)


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


def _jsonl_records(name: str, lines: Iterator[str]) -> Iterator[Record | Rejected]:
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except ValueError as e:
            yield Rejected(f"{name} line {n}", f"not valid JSON ({str(e)[:100]})")
            continue
        yield _check(f"{name} line {n}", raw)


def parse_text(name: str, text: str) -> Iterator[Record | Rejected]:
    """Records of one file's text; SQuAD if it is one JSON object with 'data', else JSON Lines."""
    head = text.lstrip()[:1]
    if head == "{" and not name.endswith(".jsonl"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict) and "data" in data:
            yield from _squad_records(name, data)
            return
    yield from _jsonl_records(name, io.StringIO(text))


def _gcs_client():
    from google.cloud import storage

    if os.environ.get("STORAGE_EMULATOR_HOST"):
        from google.auth.credentials import AnonymousCredentials

        return storage.Client(project=os.environ.get("GOOGLE_CLOUD_PROJECT", "local"),
                              credentials=AnonymousCredentials())
    return storage.Client()


JSON_SUFFIXES = (".json", ".jsonl")


def document_suffixes() -> tuple[str, ...]:
    from function.ingest.extract import SUFFIXES

    return tuple(SUFFIXES)


def supported_suffixes() -> tuple[str, ...]:
    return JSON_SUFFIXES + document_suffixes()


def is_json(name: str) -> bool:
    return name.lower().endswith(JSON_SUFFIXES)


@dataclass(frozen=True)
class InputFile:
    source: str  # absolute local path or gs:// URI: where to read it, and what answers point to
    rel: str  # path relative to the folder or prefix named ('/'-separated), or the file name: a document id
    root: str  # the folder or prefix it was found under (ending in '/'), or the file itself


@dataclass(frozen=True)
class Listing:
    files: list[InputFile]
    roots: list[str]  # what was named, as sources: folders and prefixes end with '/'
    unsupported: list[str]  # files under a folder or prefix skipped for their extension


def _selected(rel: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    if include and not any(fnmatch.fnmatchcase(rel, g) for g in include):
        return False
    return not any(fnmatch.fnmatchcase(rel, g) for g in exclude)


def list_inputs(uris: Sequence[str], include: Sequence[str] = (), exclude: Sequence[str] = ()) -> Listing:
    """The files behind ``uris``: files, local folders, ``gs://bucket/object`` or ``gs://bucket/prefix/``.

    Folders and prefixes are walked recursively (hidden files and folders, named ``.*``, are left out) for
    supported extensions; a file named by itself is always taken (an unsupported one fails by name when it
    is read). The globs are matched (``fnmatch``, case-sensitive; ``*`` also matches '/') against the path
    relative to the folder or prefix. Sorted, without duplicates.
    """
    suffixes = supported_suffixes()
    files: dict[str, InputFile] = {}
    roots: list[str] = []
    unsupported: list[str] = []

    def take(source: str, rel: str, root: str, walked: bool) -> None:
        if not _selected(rel, include, exclude):
            return
        if walked and not rel.lower().endswith(suffixes):
            unsupported.append(source)
            return
        files.setdefault(source, InputFile(source, rel, root))

    for uri in uris:
        if uri.startswith("gs://"):
            bucket, _, path = uri[5:].partition("/")
            if path and not path.endswith("/"):
                roots.append(uri)
                take(uri, path.rsplit("/", 1)[-1], uri, False)
                continue
            root = f"gs://{bucket}/{path}"
            roots.append(root)
            for blob in _gcs_client().list_blobs(bucket, prefix=path):
                rel = blob.name[len(path):]
                if blob.name.endswith("/") or any(part.startswith(".") for part in rel.split("/")):
                    continue
                take(f"gs://{bucket}/{blob.name}", rel, root, True)
        elif os.path.isdir(uri):
            root = os.path.join(os.path.abspath(uri), "")
            roots.append(root)
            for folder, dirs, names in os.walk(root):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in names:
                    if not name.startswith("."):
                        path = os.path.join(folder, name)
                        take(path, os.path.relpath(path, root).replace(os.sep, "/"), root, True)
        else:
            path = os.path.abspath(uri)
            roots.append(path)
            take(path, os.path.basename(path), path, False)
    return Listing(sorted(files.values(), key=lambda f: f.source), roots, sorted(unsupported))


def read_bytes(uri: str) -> bytes:
    if uri.startswith("gs://"):
        bucket, _, path = uri[5:].partition("/")
        return _gcs_client().bucket(bucket).blob(path).download_as_bytes()
    with open(uri, "rb") as f:
        return f.read()


def read_text(uri: str) -> str:
    return read_bytes(uri).decode("utf-8")
