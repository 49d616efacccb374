"""What every retrieval index gives the function: ``Searcher``.

Four indexes implement it: the SQLite store's FTS5 table (``fts5.Fts5Index``),
Firestore's term documents (``firestore_terms.TermIndex``), a Lance table apart
from the store (``lance_index.LanceIndex``), and that table with dense vectors
(``hybrid.HybridIndex``). The first two live beside the passages, in the same
file or database, because the store writes a passage and its index entries in
one transaction or batch; the store opens them and holds the one it keeps as
``store.index``. The last two are opened by ``function.retrieval.open_index``
when ``QA_INDEX_URI`` is set. ``Runtime.searcher`` picks the one that answers.

``search_question`` is what a question asked alone goes through: the BM25
indexes search its analysed terms (this class's own ``search_question``), the
hybrid index embeds the question as well and mixes the two rankings.

Both take ``where`` (``filters.PassageFilter``): only passages within it are
ranked, inside the search, so the ``k`` returned are the best ``k`` that match
(fewer only when fewer match), never what is left of the best ``k`` overall.
"""

from __future__ import annotations

from typing import Protocol

from function.retrieval.bm25 import Hit
from function.retrieval.filters import PassageFilter


class Searcher(Protocol):
    description: str  # e.g. "sqlite:/path/passages.sqlite", "lance:gs://bucket/index.lance"

    def search(self, terms: list[str], k: int, where: PassageFilter | None = None) -> list[Hit]:
        """The ``k`` passages with the best BM25 score (``function.retrieval.bm25``) for any of the distinct
        index ``terms``, best first, ties by passage id; only passages holding a term, and within ``where``."""
        ...

    def search_question(self, question: str, terms: list[str], k: int,
                        where: PassageFilter | None = None) -> list[Hit]:
        """The ``k`` passages to read for ``question`` (``terms``: its analysed terms), best first, within
        ``where``: by BM25 alone unless the index also ranks by the question's meaning (``HybridIndex``)."""
        return self.search(terms, k, where)

    def document_holds(self, terms: list[str], doc_id: str, passage_id: str) -> bool:
        """Whether a stored passage of document ``doc_id`` (``passage_id``: the one of them a question read) holds
        any of ``terms``: a search within that document (``pipeline.DocumentNames`` asks it for a name the question
        gives). Firestore's ``TermIndex`` answers from the terms' postings instead, without a query."""
        return bool(self.search(terms, 1, PassageFilter(documents=(doc_id,))))

    def at(self, generation: str | None) -> Searcher:
        """This index as of the store's corpus generation ``generation`` (None: not known): an index that keeps
        what it reads in memory (Firestore's ``TermIndex``) keeps and looks it up under that generation, so
        nothing read before an ingestion is used after it; the others answer as they are."""
        return self

    def corpus_changed(self) -> None:
        """The store's corpus generation changed: an index that keeps a view of itself (Lance) looks for its
        newest version on its next search. The indexes written with the passages have nothing to do."""

    def warm(self) -> None:
        """Open what the first question would otherwise open (at start-up, on a background thread)."""
