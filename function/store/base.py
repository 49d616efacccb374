"""What the function needs from a store, in three small protocols; the SQLite and Firestore stores keep all three.

- ``PassageStore``: the passages by id (the request path reads them, ingestion writes them) and, as
  ``index``, the retrieval index the store keeps beside them (``function.retrieval.searcher.Searcher``;
  None where a separate index, ``QA_INDEX_URI``, is configured);
- ``DocumentStore``: the per-document records ingestion keeps for skip, replace, delete and sync;
- ``AnswerStore``: the shared tier of the answer cache (``function.service.cache.AnswerCache``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from function.store.passage import DocumentRecord, Passage

if TYPE_CHECKING:
    from function.retrieval.searcher import Searcher


class PassageStore(Protocol):
    description: str  # e.g. "sqlite:/path/passages.sqlite", "firestore:project/(default)/passages"
    index: Searcher | None  # the store's own retrieval index, written with the passages

    def get_many(self, ids: list[str]) -> dict[str, Passage]:
        """The passages that exist among ``ids`` (unknown ids are simply absent)."""

    def upsert_many(self, passages: Iterable[Passage]) -> int:
        """Write passages by id (re-writing one replaces it) and index their terms; returns how many."""

    def delete_many(self, ids: list[str]) -> int:
        """Delete passages by id, and their postings; returns how many existed."""

    def count(self) -> int:
        """Number of stored passages."""

    def generation(self) -> str:
        """The corpus generation: a token replaced in the same transaction or batch as every passage write and
        deletion ("" before the first), so that answers cached with another one are not served
        (``function.service.cache.CorpusGeneration``)."""

    def new_generation(self) -> None:
        """Replace the corpus generation without writing a passage (what a separate index's writer calls)."""

    def close(self) -> None:
        """Release connections."""


class DocumentStore(PassageStore, Protocol):
    """What ``function.ingest`` needs on top: per-document records for skip, replace, delete and sync."""

    def passages_of(self, doc_id: str) -> dict[str, str]:
        """Passage id -> source of every stored passage whose ``doc_id`` is ``doc_id``."""

    def get_documents(self, doc_ids: list[str]) -> dict[str, DocumentRecord]:
        """The document records that exist among ``doc_ids``, by doc id."""

    def documents_under(self, prefix: str) -> list[DocumentRecord]:
        """The document records whose source starts with ``prefix`` ("" for all), by doc id."""

    def passage_sources_under(self, prefix: str) -> set[tuple[str, str]]:
        """(doc id, source) of the stored passages whose source starts with ``prefix``: a JSON document's records can
        come from several files, and its one record names the last of them only."""

    def passage_count_under(self, prefix: str) -> int:
        """How many stored passages have a source starting with ``prefix``: more than the documents recorded under it
        hold means a JSON document recorded from another folder has passages from a file here."""

    def put_documents(self, records: Iterable[DocumentRecord]) -> None:
        """Write document records by doc id (re-writing one replaces it)."""

    def delete_documents(self, doc_ids: list[str]) -> int:
        """Delete document records (not their passages); returns how many existed."""

    def document_count(self) -> int:
        """Number of document records."""


class AnswerStore(Protocol):
    """The answer cache's shared tier: answers by key, each until it expires."""

    def get_answer(self, key: str) -> dict | None:
        """A shared cached answer that has not expired, or None."""

    def put_answer(self, key: str, payload: dict, expires_at: float) -> None:
        """Keep an answer in the shared cache until ``expires_at`` (Unix time)."""


class Store(DocumentStore, AnswerStore, Protocol):
    """What ``open_store`` returns: passages with their index, documents, shared answers."""
