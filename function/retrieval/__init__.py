"""Lexical retrieval (BM25) for questions asked without passage ids.

``terms`` turns text into index terms (shared by both stores, at ingestion and
at question time); ``bm25`` holds the ranking formula and its constants. The
stores keep the index next to the passages: SQLite in an FTS5 table ranked by
its built-in ``bm25()``, Firestore in one document per term (see
``function/store/firestore_terms.py``), scored with the same formula here.
With ``QA_INDEX_URI`` the index is a Lance table apart from the store instead
(``lance_index``), shared by every instance; ``open_index`` opens it, and
imports nothing of it before then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from function.config import Settings
    from function.retrieval.lance_index import LanceIndex


def open_index(settings: Settings) -> LanceIndex | None:
    """The separate retrieval index the configuration names, or None (the store's own index)."""
    if not settings.index_uri:
        return None
    from function.retrieval.lance_index import LanceIndex

    return LanceIndex(settings.index_uri, settings.store_timeout_s, settings.index_refresh_s)

