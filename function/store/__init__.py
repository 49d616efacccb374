"""Passage stores. ``open_store`` imports only the one the configuration selects."""

from __future__ import annotations

from typing import TYPE_CHECKING

from function.config import Settings

if TYPE_CHECKING:
    from function.store.base import Store


def open_store(settings: Settings, create: bool = True) -> Store:
    """``create=False`` (the function, which only reads passages): a SQLite file that is not there is a
    ``StoreUnavailable`` saying to ingest first, not a new empty store. Ingestion creates it."""
    if settings.store == "sqlite":
        from function.store.sqlite import SqliteStore

        return SqliteStore(settings.sqlite_path, settings.store_timeout_s, create=create)
    from function.store.firestore import FirestoreStore

    return FirestoreStore(
        project=settings.firestore_project or None,
        database=settings.firestore_database,
        passages=settings.passages_collection,
        answers=settings.answers_collection,
        timeout_s=settings.store_timeout_s,
        term_index=not settings.index_uri,  # a separate retrieval index (Lance): no term documents to keep
        term_cache_bytes=settings.term_cache_bytes,
    )
