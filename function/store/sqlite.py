"""Embedded store: one SQLite file (stdlib), for running with no cloud account.

Same contents as the Firestore collections: a ``passages`` table and an
``answers`` table for the shared answer cache. WAL mode lets an ingestion
process write while the function reads; one connection serves all request
threads behind a lock (reads take microseconds).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Iterable

from function.errors import StoreUnavailable
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

    def upsert_many(self, passages: Iterable[Passage]) -> int:
        now = time.time()
        rows = [(p.id, p.title, p.doc_id, p.text, p.token_ids, p.token_dtype, p.offsets, p.n_tokens,
                 p.tokenizer, now) for p in passages]
        try:
            with self._lock:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    self._db.executemany(
                        f"INSERT OR REPLACE INTO passages ({_COLUMNS}, updated) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
        except sqlite3.Error as e:
            raise StoreUnavailable(f"SQLite store {self.path}: {e}") from None
        return len(rows)

    def delete_many(self, ids: list[str]) -> int:
        deleted = 0
        for c in range(0, len(ids), _CHUNK):
            chunk = ids[c : c + _CHUNK]
            marks = ",".join("?" * len(chunk))
            deleted += len(self._query(f"DELETE FROM passages WHERE id IN ({marks}) RETURNING id", chunk))
        return deleted

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
