"""Hybrid retrieval: BM25 and dense vectors in one Lance table, fused by reciprocal-rank fusion.

A question's analysed terms search the inverted index (BM25) and its sentence
embedding (``encoder``: one more model run, a few milliseconds) searches the
table's vector column (cosine); each ranking's first ``depth`` passages are
fused by reciprocal rank (Cormack, Clarke and Buettcher, SIGIR 2009):

    fused(p) = sum over the rankings that hold p of 1 / (RRF_K + rank of p)   (rank from 1)

and the best ``k`` by that sum are read, ties by id. RRF needs no calibration
between BM25 scores (unbounded, depending on the corpus) and cosines; K = 60 is
the paper's, not tuned here.

What the reader adds to its spans' logits stays each passage's BM25 score
(``fusion.passage_bias``, chosen for BM25): ``Hit.score`` of a fused hit is its
BM25 score, from a second full-text search restricted to the fused passages
that BM25's top ``depth`` did not hold (0 for a passage sharing no term with
the question). So the reader ranks spans as it does without vectors; only which
passages it reads changes.

``HybridIndex`` is what the function opens with ``QA_INDEX_ENCODER`` set (beside
``QA_INDEX_URI``): ingestion embeds each passage and writes its vector with its
terms; a question asked alone is searched both ways and fused. Off by default:
``docs/retrieval.md`` has what it measured (end-to-end F1 +1.2 at 10^5 passages,
-0.5 at 10^4) and what it costs.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from function.retrieval.bm25 import Hit

RRF_K = 60
DEPTH = 20  # passages taken from each ranking into the fusion


def dense_text(title: str, text: str) -> str:
    """What a passage is embedded as: its title, then its text (BM25 indexes both too)."""
    return f"{title}. {text}" if title else text


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k_rrf: int = RRF_K) -> list[tuple[str, float]]:
    """Ids with their fused scores, best first, ties by id."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, pid in enumerate(ranking, 1):
            fused[pid] = fused.get(pid, 0.0) + 1.0 / (k_rrf + rank)
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))


@dataclass(frozen=True)
class Rankings:
    """One question's two rankings, and the time its embedding took."""

    bm25: list[Hit]
    dense: list[Hit]
    embed_ms: float


class HybridSearcher:
    """BM25 + dense search over a ``LanceIndex`` opened with ``dim``, and a ``SentenceEncoder``."""

    def __init__(self, index, encoder, depth: int = DEPTH, exact: bool = False):
        self.index, self.encoder, self.depth, self.exact = index, encoder, depth, exact

    def rankings(self, question: str, terms: list[str], depth: int | None = None) -> Rankings:
        depth = depth or self.depth
        bm25 = self.index.search(terms, depth) if terms else []
        t0 = time.perf_counter()
        vector = self.encoder.embed([question])[0]
        embed_ms = (time.perf_counter() - t0) * 1000
        return Rankings(bm25, self.index.nearest(vector, depth, exact=self.exact), embed_ms)

    def fuse(self, terms: list[str], rankings: Rankings, k: int) -> list[Hit]:
        """The best ``k`` by RRF, each with its BM25 score (see the module docstring)."""
        fused = reciprocal_rank_fusion([[h.passage_id for h in rankings.bm25],
                                        [h.passage_id for h in rankings.dense]])[:k]
        bm25 = {h.passage_id: h.score for h in rankings.bm25}
        missing = tuple(pid for pid, _ in fused if pid not in bm25)
        if missing and terms:
            bm25.update((h.passage_id, h.score) for h in self.index.search(terms, len(missing), among=missing))
        return [Hit(pid, bm25.get(pid, 0.0)) for pid, _ in fused]

    def search(self, question: str, terms: list[str], k: int) -> list[Hit]:
        """The ``k`` passages to read for ``question`` (``terms``: its analysed terms), best fused rank first."""
        return self.fuse(terms, self.rankings(question, terms), k)


class HybridIndex:
    """A ``LanceIndex`` with dense vectors and the ``SentenceEncoder`` that makes them, as the function uses it:
    ``write`` (ingestion), ``delete``, ``optimize``, ``search`` (BM25 alone, for callers without the question),
    ``search_question`` (both rankings fused), ``warm``, ``close``."""

    def __init__(self, index, encoder, depth: int = DEPTH):
        if index.dim != encoder.dim:
            raise ValueError(f"the index holds {index.dim}-dimensional vectors, the encoder makes {encoder.dim}")
        self.index, self.encoder = index, encoder
        self.searcher = HybridSearcher(index, encoder, depth)

    @property
    def description(self) -> str:
        return f"{self.index.description} with {self.encoder.dim}-dimensional vectors ({self.encoder.folder.name})"

    def count(self) -> int:
        return self.index.count()

    def write(self, passages) -> int:
        from function.retrieval.lance_index import index_rows

        passages = list(passages)
        vectors = self.encoder.embed([dense_text(p.title, p.text) for p in passages])
        return self.index.upsert(index_rows(passages), vectors)

    def delete(self, ids: list[str]) -> None:
        self.index.delete(ids)

    def optimize(self) -> None:
        self.index.optimize()

    def search(self, terms: list[str], k: int) -> list[Hit]:
        return self.index.search(terms, k)

    def search_question(self, question: str, terms: list[str], k: int) -> list[Hit]:
        return self.searcher.search(question, terms, k)

    def warm(self) -> None:
        """The encoder's session and the table, at start-up: the first question alone pays for neither."""
        self.encoder.load()
        self.index.warm()

    def close(self) -> None:
        self.index.close()
