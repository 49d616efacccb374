"""Embedded store: one SQLite file (stdlib), for running with no cloud account.

Same contents as the Firestore collections: a ``passages`` table and an
``answers`` table for the shared answer cache. WAL mode lets an ingestion
process write while the function reads; one connection serves all request
threads behind a lock (reads take microseconds).

The retrieval index is an FTS5 table, ``passages_fts``, whose row ids are the
``passages`` row ids and whose two columns hold each passage's title and text
as analysed index terms (``function.retrieval.terms``) joined by spaces. FTS5's
``ascii`` tokenizer splits only on ASCII non-alphanumerics, and an index term
holds none, so FTS5 sees exactly the analysed terms: its document lengths,
document frequencies and ``bm25()`` are those of ``function.retrieval.bm25``,
which the Firestore store computes itself. A passage and its index row are
written and deleted in one transaction, so re-ingesting never counts twice.
Passages stored before the index existed are searched once they are
re-ingested.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from function.errors import StoreUnavailable
from function.retrieval import bm25
from function.retrieval.bm25 import Hit, PassageTerms
from function.store.records import Passage

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
    updated REAL NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5(title, body, tokenize = 'ascii');
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts_vocab USING fts5vocab(passages_fts, 'row');
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    payload TEXT NOT NULL,
    expires_at REAL NOT NULL
);
"""
_COLUMNS = "id, title, doc_id, text, token_ids, token_dtype, offsets, n_tokens, tokenizer"
_CHUNK = 500  # below SQLite's bound-parameter limit


class SqliteStore:
    def __init__(self, path: Path, timeout_s: float = 3.0):
        self.path = Path(path)
        self.description = f"sqlite:{self.path}"
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), timeout=timeout_s, check_same_thread=False,
                                       isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except (sqlite3.Error, OSError) as e:
            raise StoreUnavailable(f"cannot open the SQLite store {self.path}: {e}") from None

    def _query(self, sql: str, params=()) -> list[tuple]:
        try:
            with self._lock:
                return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as e:
            raise StoreUnavailable(f"SQLite store {self.path}: {e}") from None

    def get_many(self, ids: list[str]) -> dict[str, Passage]:
        found: dict[str, Passage] = {}
        for c in range(0, len(ids), _CHUNK):
            chunk = ids[c : c + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for row in self._query(f"SELECT {_COLUMNS} FROM passages WHERE id IN ({marks})", chunk):
                found[row[0]] = Passage(*row)
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

    @staticmethod
    def _unindex(db: sqlite3.Connection, ids: list[str]) -> None:
        for c in range(0, len(ids), _CHUNK):
            chunk = ids[c : c + _CHUNK]
            marks = ",".join("?" * len(chunk))
            db.execute(f"DELETE FROM passages_fts WHERE rowid IN (SELECT rowid FROM passages WHERE id IN ({marks}))",
                       chunk)

    def upsert_many(self, passages: Iterable[Passage]) -> int:
        now = time.time()
        given = list(passages)
        passages = list({p.id: p for p in given}.values())  # one row per id: the last one given

        def work(db: sqlite3.Connection) -> None:
            self._unindex(db, [p.id for p in passages])
            for p in passages:
                (rowid,) = db.execute(
                    f"INSERT OR REPLACE INTO passages ({_COLUMNS}, updated) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING rowid",
                    (p.id, p.title, p.doc_id, p.text, p.token_ids, p.token_dtype, p.offsets, p.n_tokens,
                     p.tokenizer, now)).fetchone()
                analysed = PassageTerms.of(p.title, p.text)
                db.execute("INSERT INTO passages_fts (rowid, title, body) VALUES (?, ?, ?)",
                           (rowid, " ".join(analysed.title), " ".join(analysed.text)))

        self._transaction(work)
        return len(given)

    def delete_many(self, ids: list[str]) -> int:
        deleted = 0

        def work(db: sqlite3.Connection) -> None:
            nonlocal deleted
            self._unindex(db, ids)
            for c in range(0, len(ids), _CHUNK):
                chunk = ids[c : c + _CHUNK]
                marks = ",".join("?" * len(chunk))
                deleted += len(db.execute(f"DELETE FROM passages WHERE id IN ({marks}) RETURNING id",
                                          chunk).fetchall())

        self._transaction(work)
        return deleted

    def search(self, terms: list[str], k: int) -> list[Hit]:
        """The ``k`` passages with the highest BM25 score for any of ``terms`` (FTS5's ``bm25()``)."""
        if not terms:
            return []
        match = " OR ".join(f'"{t}"' for t in terms)  # index terms hold no quotes
        rows = self._query(
            "SELECT passages.id, bm25(passages_fts, ?, ?) AS rank FROM passages_fts "
            "JOIN passages ON passages.rowid = passages_fts.rowid "
            "WHERE passages_fts MATCH ? ORDER BY rank, passages.id LIMIT ?",
            (bm25.TITLE_WEIGHT, bm25.TEXT_WEIGHT, match, k))
        return [Hit(pid, -rank) for pid, rank in rows]

    def index_stats(self, terms: list[str]) -> dict:
        """Passages indexed, their total length in terms, and each term's document frequency."""
        n = int(self._query("SELECT COUNT(*) FROM passages_fts")[0][0])
        total = int(self._query("SELECT COALESCE(SUM(cnt), 0) FROM passages_fts_vocab")[0][0])
        df = dict.fromkeys(terms, 0)
        if terms:
            marks = ",".join("?" * len(terms))
            df.update(self._query(f"SELECT term, doc FROM passages_fts_vocab WHERE term IN ({marks})", terms))
        return {"passages": n, "total_length": total, "df": df}

    def count(self) -> int:
        return int(self._query("SELECT COUNT(*) FROM passages")[0][0])

    def get_answer(self, key: str) -> dict | None:
        rows = self._query("SELECT payload FROM answers WHERE key = ? AND expires_at > ?", (key, time.time()))
        return json.loads(rows[0][0]) if rows else None

    def put_answer(self, key: str, payload: dict, expires_at: float) -> None:
        self._query("INSERT OR REPLACE INTO answers (key, payload, expires_at) VALUES (?, ?, ?)",
                    (key, json.dumps(payload), expires_at))

    def close(self) -> None:
        with self._lock:
            self._db.close()
