"""Retrieval for questions without passage ids: every index behind one protocol, ``searcher.Searcher``.

``terms`` turns text into index terms (the same at ingestion and at question
time, for every index); ``bm25`` holds the ranking formula and its constants.
The stores keep an index next to their passages, written in the same
transaction or batch: SQLite an FTS5 table ranked by its built-in ``bm25()``
(``fts5``), Firestore one document per term (``firestore_terms``), scored with
the same formula. With ``QA_INDEX_URI`` the index is a Lance table apart from
the store instead (``lance_index``), shared by every instance; ``open_index``
opens it, and imports nothing of it before then. With ``QA_INDEX_ENCODER`` as
well, its rows carry sentence embeddings and questions asked alone are searched
both ways (``hybrid``, ``encoder``). With ``QA_INDEX_ENCODER`` alone (stored
cosines, ``stored_encoder``), the store's own index retrieves and each passage
is stored with its embedding, for the question's cosine to the passages read.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from function.config import Settings
    from function.retrieval.encoder import SentenceEncoder
    from function.retrieval.hybrid import HybridIndex
    from function.retrieval.lance_index import LanceIndex


def open_index(settings: Settings) -> LanceIndex | HybridIndex | None:
    """The separate retrieval index the configuration names, or None (the store's own index)."""
    if not settings.index_uri:
        return None
    from function.retrieval.lance_index import LanceIndex

    if not settings.index_encoder:
        return LanceIndex(settings.index_uri, settings.store_timeout_s, settings.index_refresh_s)
    from function.retrieval.encoder import SentenceEncoder
    from function.retrieval.hybrid import HybridIndex

    encoder = SentenceEncoder(Path(settings.index_encoder), settings.threads)
    index = LanceIndex(settings.index_uri, settings.store_timeout_s, settings.index_refresh_s, dim=encoder.dim,
                       encoder=encoder.identity)
    return HybridIndex(index, encoder)


def stored_encoder(settings: Settings) -> SentenceEncoder | None:
    """Stored cosines' sentence encoder (``QA_INDEX_ENCODER`` without ``QA_INDEX_URI``: ingestion stores each
    passage's embedding beside it), not loaded yet; None otherwise."""
    if not settings.index_encoder or settings.index_uri:
        return None
    from function.retrieval.encoder import SentenceEncoder

    return SentenceEncoder(Path(settings.index_encoder), settings.threads)
