"""Embedded store: one SQLite file (stdlib), for running with no cloud account.

Same contents as the Firestore collections: a ``passages`` table and an
``answers`` table for the shared answer cache. WAL mode lets an ingestion
process write while the function reads; one connection serves all request
threads behind a lock (reads take microseconds).

The retrieval index is an FTS5 table in the same file (``function.retrieval.fts5``):
a passage and its index row are written and deleted in one transaction, and
``store.index`` (an ``Fts5Index``) searches it.

The ``meta`` table holds the corpus generation (``generation``), a random
token replaced in the transaction of every passage write and deletion: cached
answers are keyed by it (``function.service.cache.CorpusGeneration``), so an
ingestion that changes passages makes the answers cached before it unreachable.

Documents (``function.ingest``): each passage also records its ``source``, its
``chunk`` index and its character span (``span_start``, ``span_end``) in the
document's text, and a ``documents`` table holds one row per ingested document
(its id, source, content hash and passage ids) for skip/replace/delete/sync.
A file made before these existed is migrated on open by adding the columns
(old rows get ``source`` "" and no span) and the table. ``tags`` holds a
passage's tags (``--tag``) as a JSON array ('[]' for rows stored before it),
which a filtered search reads with ``json_each`` (``fts5.Fts5Index.search``);
``marks`` its inline code spans (``Passage.marks``) and ``lines`` its code blocks' lines (``Passage.lines``; NULL
for none and in rows stored before them).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable
from pathlib import Path

from function.errors import StoreUnavailable
from function.retrieval import fts5
from function.store.passage import DocumentRecord, Passage

_SCHEMA = """
CREATE TABLE IF NOT EXISTS passages (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    text TEXT NOT NULL,
    token_ids BLOB NOT NULL,
    token_dtype TEXT NOT NULL,
    offsets BLOB NOT NULL,
    n_tokens INTEGER NOT NULL,
    tokenizer TEXT NOT NULL,
    updated REAL NOT NULL,
    source TEXT NOT NULL DEFAULT '',
    chunk INTEGER,
    span_start INTEGER,
    span_end INTEGER,
    tags TEXT NOT NULL DEFAULT '[]',
    marks BLOB,
    embedding BLOB,
    encoder TEXT NOT NULL DEFAULT '',
    lines BLOB
);
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    payload TEXT NOT NULL,
    expires_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    passage_ids TEXT NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""
# Columns added after the first release: ALTER TABLE adds them to older files (see _migrate).
_ADDED_COLUMNS = {"source": "TEXT NOT NULL DEFAULT ''", "chunk": "INTEGER", "span_start": "INTEGER",
                  "span_end": "INTEGER", "tags": "TEXT NOT NULL DEFAULT '[]'", "marks": "BLOB", "embedding": "BLOB",
                  "encoder": "TEXT NOT NULL DEFAULT ''", "lines": "BLOB"}
_INDEXES = """
CREATE INDEX IF NOT EXISTS passages_doc_id ON passages (doc_id);
CREATE INDEX IF NOT EXISTS documents_source ON documents (source);
"""
_COLUMNS = ("id, title, doc_id, text, token_ids, token_dtype, offsets, n_tokens, tokenizer, "
            "source, chunk, span_start, span_end, tags, marks, embedding, encoder, lines")
_DOC_COLUMNS = "doc_id, source, sha256, passage_ids, updated"
_CHUNK = 500  # below SQLite's bound-parameter limit


def _in_chunks(keys: list[str]):
    """(chunk, "?,?,...") for each run of ``keys`` small enough for one statement's parameters."""
    for c in range(0, len(keys), _CHUNK):
        chunk = keys[c : c + _CHUNK]
        yield chunk, ",".join("?" * len(chunk))


def _delete_in(db: sqlite3.Connection, table: str, column: str, keys: list[str]) -> int:
    """Delete the rows of ``table`` whose ``column`` is one of ``keys``; how many there were."""
    return sum(len(db.execute(f"DELETE FROM {table} WHERE {column} IN ({marks}) RETURNING {column}", chunk)
                   .fetchall()) for chunk, marks in _in_chunks(keys))


def _passage(row: tuple) -> Passage:
    """A ``passages`` row (``_COLUMNS``) as a ``Passage``: the tags are a JSON array, the marks, the embedding and
    the lines NULL in rows stored before they were recorded (and where there are none)."""
    return Passage(*row[:-5], tags=tuple(json.loads(row[-5])), marks=row[-4] or b"", embedding=row[-3] or b"",
                   encoder=row[-2], lines=row[-1] or b"")


def _new_generation(db: sqlite3.Connection) -> None:
    """Give the corpus a new generation (``SqliteStore.generation``), inside the caller's transaction."""
    db.execute("INSERT OR REPLACE INTO meta (name, value) VALUES ('generation', ?)", (uuid.uuid4().hex,))


_INGEST_FIRST = ("ingest documents into it first (python -m function.ingest DOCS --sqlite-path {path}), or set "
                 "QA_SQLITE_PATH to the file ingestion wrote")


def _where(path: Path) -> str:
    """What a relative path is relative to (the working directory), for a message that names it."""
    return "" if path.is_absolute() else f"(from {Path.cwd()}) "


def _document(row: tuple) -> DocumentRecord:
    return DocumentRecord(row[0], row[1], row[2], tuple(json.loads(row[3])), row[4])


class SqliteStore:
    """``create``: make the file (and its folder) when it is not there, as ingestion does on its first run. The
    function, which never writes passages, opens with ``create=False``: a file that is not there, or holds no
    passages table, is a ``StoreUnavailable`` that says to ingest first, not an empty store served as one."""

    def __init__(self, path: Path, timeout_s: float = 3.0, create: bool = True):
        self.path = Path(path)
        self.description = f"sqlite:{self.path}"
        self._lock = threading.Lock()
        if not create and not self.path.exists():
            raise StoreUnavailable(f"the SQLite store {self.path} {_where(self.path)}does not exist: "
                                   f"{_INGEST_FIRST.format(path=self.path)}")
        try:
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(str(self.path), timeout=timeout_s, check_same_thread=False,
                                           isolation_level=None)
            else:  # read-write, never created (a file removed since the check above is an error here too)
                self._db = sqlite3.connect(f"{self.path.absolute().as_uri()}?mode=rw", timeout=timeout_s,
                                           check_same_thread=False, isolation_level=None, uri=True)
                if not self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'passages'"
                                        ).fetchone():
                    self._db.close()
                    raise StoreUnavailable(f"the SQLite store {self.path} {_where(self.path)}holds no passages "
                                           f"table: {_INGEST_FIRST.format(path=self.path)}")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA + fts5.SCHEMA)
            self._migrate()
            self._db.executescript(_INDEXES)
        except (sqlite3.Error, OSError) as e:
            raise StoreUnavailable(f"cannot open the SQLite store {self.path}: {e}") from None
        self.index = fts5.Fts5Index(self._query, self.description)  # BM25 over the passages, in this file

    def _migrate(self) -> None:
        """Add the columns a file made by an older version lacks (each ALTER is atomic by itself)."""
        have = {row[1] for row in self._db.execute("PRAGMA table_info(passages)")}
        for name, kind in _ADDED_COLUMNS.items():
            if name not in have:
                self._db.execute(f"ALTER TABLE passages ADD COLUMN {name} {kind}")

    def _query(self, sql: str, params=()) -> list[tuple]:
        try:
            with self._lock:
                return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as e:
            raise StoreUnavailable(f"SQLite store {self.path}: {e}") from None

    def get_many(self, ids: list[str]) -> dict[str, Passage]:
        found: dict[str, Passage] = {}
        for chunk, marks in _in_chunks(ids):
            for row in self._query(f"SELECT {_COLUMNS} FROM passages WHERE id IN ({marks})", chunk):
                found[row[0]] = _passage(row)
        return found

    def _transaction(self, work) -> None:
        """Run ``work(db)`` in one write transaction (all of it or nothing)."""
        try:
            with self._lock:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    work(self._db)
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
        except sqlite3.Error as e:
            raise StoreUnavailable(f"SQLite store {self.path}: {e}") from None

    def upsert_many(self, passages: Iterable[Passage]) -> int:
        now = time.time()
        given = list(passages)
        passages = list({p.id: p for p in given}.values())  # one row per id: the last one given

        def work(db: sqlite3.Connection) -> None:
            fts5.unindex(db, [p.id for p in passages])
            for p in passages:
                (rowid,) = db.execute(
                    f"INSERT OR REPLACE INTO passages ({_COLUMNS}, updated) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING rowid",
                    (p.id, p.title, p.doc_id, p.text, p.token_ids, p.token_dtype, p.offsets, p.n_tokens,
                     p.tokenizer, p.source, p.chunk, p.start, p.end, json.dumps(list(p.tags)), p.marks or None,
                     p.embedding or None, p.encoder, p.lines or None, now)).fetchone()
                fts5.write(db, rowid, p.title, p.text)
            _new_generation(db)

        self._transaction(work)
        return len(given)

    def delete_many(self, ids: list[str]) -> int:
        deleted = 0

        def work(db: sqlite3.Connection) -> None:
            nonlocal deleted
            fts5.unindex(db, ids)
            deleted = _delete_in(db, "passages", "id", ids)
            if deleted:
                _new_generation(db)

        self._transaction(work)
        return deleted

    def count(self) -> int:
        return int(self._query("SELECT COUNT(*) FROM passages")[0][0])

    def generation(self) -> str:
        """The corpus generation: a random token written in the same transaction as every passage write
        and deletion ("" for a file no passage was written to since it existed)."""
        rows = self._query("SELECT value FROM meta WHERE name = 'generation'")
        return rows[0][0] if rows else ""

    def new_generation(self) -> None:
        """A new corpus generation with no passage written (after writing a separate retrieval index)."""
        self._transaction(_new_generation)

    # -- documents (function.ingest) ------------------------------------------

    def passages_of(self, doc_id: str) -> dict[str, str]:
        """Passage id -> source of every stored passage whose ``doc_id`` is ``doc_id``."""
        return dict(self._query("SELECT id, source FROM passages WHERE doc_id = ?", (doc_id,)))

    def get_documents(self, doc_ids: list[str]) -> dict[str, DocumentRecord]:
        found: dict[str, DocumentRecord] = {}
        for chunk, marks in _in_chunks(doc_ids):
            for row in self._query(f"SELECT {_DOC_COLUMNS} FROM documents WHERE doc_id IN ({marks})", chunk):
                found[row[0]] = _document(row)
        return found

    def passage_sources_under(self, prefix: str) -> set[tuple[str, str]]:
        """(doc id, source) of the stored passages whose source starts with ``prefix``."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return set(self._query("SELECT DISTINCT doc_id, source FROM passages WHERE source LIKE ? ESCAPE '\\'",
                               (escaped + "%",)))

    def passage_count_under(self, prefix: str) -> int:
        return self._query("SELECT COUNT(*) FROM passages WHERE substr(source, 1, ?) = ?", (len(prefix), prefix))[0][0]

    def documents_under(self, prefix: str) -> list[DocumentRecord]:
        """The documents whose source starts with ``prefix`` ("" for all)."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self._query(f"SELECT {_DOC_COLUMNS} FROM documents WHERE source LIKE ? ESCAPE '\\' "
                           "ORDER BY doc_id", (escaped + "%",))
        return [_document(row) for row in rows if row[1].startswith(prefix)]  # LIKE ignores ASCII case

    def put_documents(self, records: Iterable[DocumentRecord]) -> None:
        now = time.time()
        rows = [(r.doc_id, r.source, r.sha256, json.dumps(list(r.passage_ids)), now) for r in records]

        def work(db: sqlite3.Connection) -> None:
            db.executemany(f"INSERT OR REPLACE INTO documents ({_DOC_COLUMNS}) VALUES (?, ?, ?, ?, ?)", rows)

        self._transaction(work)

    def delete_documents(self, doc_ids: list[str]) -> int:
        deleted = 0

        def work(db: sqlite3.Connection) -> None:
            nonlocal deleted
            deleted = _delete_in(db, "documents", "doc_id", doc_ids)

        self._transaction(work)
        return deleted

    def document_count(self) -> int:
        return int(self._query("SELECT COUNT(*) FROM documents")[0][0])

    def get_answer(self, key: str) -> dict | None:
        rows = self._query("SELECT payload FROM answers WHERE key = ? AND expires_at > ?", (key, time.time()))
        return json.loads(rows[0][0]) if rows else None

    def put_answer(self, key: str, payload: dict, expires_at: float) -> None:
        self._query("INSERT OR REPLACE INTO answers (key, payload, expires_at) VALUES (?, ?, ?)",
                    (key, json.dumps(payload), expires_at))

    def close(self) -> None:
        with self._lock:
            self._db.close()
