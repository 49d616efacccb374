"""BM25 in SQLite: the embedded store's FTS5 table, written in the store's transactions.

The table, ``passages_fts``, lives in the store's file: its row ids are the
``passages`` row ids and its two columns hold each passage's title and text as
analysed index terms (``function.retrieval.terms``) joined by spaces. FTS5's
``ascii`` tokenizer splits only on ASCII non-alphanumerics, and an index term
holds none, so FTS5 sees exactly the analysed terms: its document lengths,
document frequencies and ``bm25()`` are those of ``function.retrieval.bm25``,
which Firestore's term index computes itself. ``SqliteStore`` calls ``write``
and ``unindex`` inside the transaction that writes or deletes the passages, so
re-ingesting never counts twice; it searches through ``Fts5Index``, which it
holds as ``store.index``. Passages stored before the index existed are searched
once they are re-ingested.

A filtered search (``filters.PassageFilter``) adds the filter to the same
statement's WHERE, on the ``passages`` row each match joins: SQLite ranks only
the rows within it, so LIMIT keeps the best that match. Its values are bound
parameters, never part of the SQL or of the MATCH expression.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from function.retrieval import bm25
from function.retrieval.bm25 import Hit, PassageTerms
from function.retrieval.filters import PassageFilter
from function.retrieval.searcher import Searcher

SCHEMA = """
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5(title, body, tokenize = 'ascii');
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts_vocab USING fts5vocab(passages_fts, 'row');
"""
_CHUNK = 500  # below SQLite's bound-parameter limit


def write(db: sqlite3.Connection, rowid: int, title: str, text: str) -> None:
    """Index the passage stored at ``rowid`` of ``passages`` (its old entry already removed by ``unindex``)."""
    analysed = PassageTerms.of(title, text)
    db.execute("INSERT INTO passages_fts (rowid, title, body) VALUES (?, ?, ?)",
               (rowid, " ".join(analysed.title), " ".join(analysed.text)))


def unindex(db: sqlite3.Connection, ids: list[str]) -> None:
    """Remove the entries of the passages ``ids`` (before their ``passages`` rows are replaced or deleted)."""
    for c in range(0, len(ids), _CHUNK):
        chunk = ids[c : c + _CHUNK]
        marks = ",".join("?" * len(chunk))
        db.execute(f"DELETE FROM passages_fts WHERE rowid IN (SELECT rowid FROM passages WHERE id IN ({marks}))",
                   chunk)


def _where(where: PassageFilter | None) -> tuple[str, list]:
    """The filter as SQL conditions on ``passages`` (" AND ..." or ""), and their bound values."""
    if not where:
        return "", []
    sql, params = [], []
    if where.documents is not None:
        sql.append(f"passages.doc_id IN ({','.join('?' * len(where.documents))})")
        params += where.documents
    if where.source_prefix is not None:  # substr counts characters, as Python's len does
        sql.append("substr(passages.source, 1, ?) = ?")
        params += [len(where.source_prefix), where.source_prefix]
    if where.tags is not None:
        sql.append(f"EXISTS (SELECT 1 FROM json_each(passages.tags) WHERE json_each.value IN "
                   f"({','.join('?' * len(where.tags))}))")
        params += where.tags
    return "".join(f" AND {condition}" for condition in sql), params


class Fts5Index(Searcher):
    """Searches the FTS5 table through ``query``: the store's statement runner (its connection, its lock, its
    errors as ``StoreUnavailable``)."""

    def __init__(self, query: Callable[..., list[tuple]], description: str):
        self._query = query
        self.description = description

    def search(self, terms: list[str], k: int, where: PassageFilter | None = None) -> list[Hit]:
        """The ``k`` passages with the highest BM25 score for any of ``terms`` (FTS5's ``bm25()``), within
        ``where``."""
        if not terms:
            return []
        match = " OR ".join(f'"{t}"' for t in terms)  # index terms hold no quotes
        conditions, values = _where(where)
        rows = self._query(
            "SELECT passages.id, bm25(passages_fts, ?, ?) AS rank FROM passages_fts "
            "JOIN passages ON passages.rowid = passages_fts.rowid "
            f"WHERE passages_fts MATCH ?{conditions} ORDER BY rank, passages.id LIMIT ?",
            (bm25.TITLE_WEIGHT, bm25.TEXT_WEIGHT, match, *values, k))
        return [Hit(pid, -rank) for pid, rank in rows]

    def stats(self, terms: list[str]) -> dict:
        """``{"passages": N, "total_length": index terms of all passages, "df": {term: passages}}``."""
        n = int(self._query("SELECT COUNT(*) FROM passages_fts")[0][0])
        total = int(self._query("SELECT COALESCE(SUM(cnt), 0) FROM passages_fts_vocab")[0][0])
        df = dict.fromkeys(terms, 0)
        if terms:
            marks = ",".join("?" * len(terms))
            df.update(self._query(f"SELECT term, doc FROM passages_fts_vocab WHERE term IN ({marks})", terms))
        return {"passages": n, "total_length": total, "df": df}

    def warm(self) -> None:
        """Nothing to open: the store's connection is the index's."""
