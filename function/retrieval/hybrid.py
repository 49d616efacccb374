"""Hybrid retrieval: BM25 and dense vectors in one Lance table, their scores mixed.

A question's analysed terms search the inverted index (BM25) and its sentence
embedding (``encoder``: one more model run, a few milliseconds) searches the
table's vector column (cosine), each for its first ``depth`` passages. Each
passage in either list gets two scores on a 0-1 scale: its BM25 score over the
question's best, and its cosine scaled between the nearest list's last (0)
and first (1); the best ``k`` by

    fused(p) = ALPHA * bm25(p) / max bm25 + (1 - ALPHA) * (cos(p) - min cos) / (max cos - min cos)

are read, ties by id. A passage only the vectors found gets its BM25 score
from a full-text search restricted to those passages (0 if it shares no term
with the question); a passage only BM25 found is not among the ``depth``
nearest, so its scaled cosine is 0 (a bound: its stored vector is not read).
Scaling the cosines per question makes the mix indifferent to the scale Lance
reports them on, which depends on whether the approximate index answered
alone (``LanceIndex.nearest``); reading them exactly instead (Lance's refine
step) costs 12-15 reads more a question and ~8 ms at 10^5 rows for no better
recall.

ALPHA = 0.65 was chosen on 1,500 train.json questions (their paragraphs are
among the distractors) and told on the dev questions, which chose nothing:
recall@5 / @1 0.914 / 0.742 at 10^5 passages and 0.945 / 0.768 at 10^4, against
0.905 / 0.699 and 0.928 / 0.721 for reciprocal-rank fusion (Cormack et al. 2009;
ranks alone, k 60), which this module used before (docs/retrieval.md, "Mixing
scores, not ranks", has the study and the commit that holds its code). Ranks
throw away how far apart two scores are; the mix keeps it, so a passage that
both searches like outranks one that shares a word with the question and little else.

What the reader adds to its spans' logits is each passage's BM25 score
(``span_bias.passage_bias``, chosen for BM25): ``Hit.score`` of a fused hit is its
BM25 score; and its cosine (``Hit.cosine``: as the vector search reported it, or for
a passage only BM25 found the lowest of that list, a bound on its own), which
``span_bias`` weighs too.

A filtered question (``filters.PassageFilter``) is filtered inside both
searches (Lance's prefilter, ``LanceIndex``): each ranking holds the best
``depth`` passages within the filter, so the fusion only ever sees those.

``HybridIndex`` is what the function opens with ``QA_INDEX_ENCODER`` set (beside
``QA_INDEX_URI``): ingestion embeds each passage and writes its vector with its
terms; a question asked alone is searched both ways and fused. Off by default:
``docs/retrieval.md`` has what it measured and what it costs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from function.retrieval.bm25 import Hit
from function.retrieval.filters import PassageFilter
from function.retrieval.searcher import Searcher

ALPHA = 0.65  # BM25's share of the fused score (chosen on train questions: docs/retrieval.md)
DEPTH = 20  # passages taken from each ranking into the fusion


def dense_text(title: str, text: str) -> str:
    """What a passage is embedded as: its title, then its text (BM25 indexes both too)."""
    return f"{title}. {text}" if title else text


def mixed_scores(bm25: dict[str, float], cosine: dict[str, float], alpha: float = ALPHA) -> list[tuple[str, float]]:
    """Every passage in ``bm25`` (the candidates: 0 for one sharing no term) with ``alpha`` * its BM25 score
    over the best one + (1 - ``alpha``) * its cosine scaled between the lowest (0) and the highest (1) in
    ``cosine`` (all 1 if they are equal; a candidate missing there: 0), best first, ties by id."""
    best = max(bm25.values(), default=0.0) or 1.0
    low, high = min(cosine.values(), default=0.0), max(cosine.values(), default=0.0)

    def scaled(p: str) -> float:
        if p not in cosine:
            return 0.0
        return (cosine[p] - low) / (high - low) if high > low else 1.0  # one cosine (or all equal): the nearest

    fused = {p: alpha * score / best + (1 - alpha) * scaled(p) for p, score in bm25.items()}
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))


@dataclass(frozen=True)
class Rankings:
    """One question's two rankings (a dense hit's score: its cosine), and the time its embedding took."""

    bm25: list[Hit]
    dense: list[Hit]
    embed_ms: float = 0.0


class HybridIndex(Searcher):
    """A ``LanceIndex`` with dense vectors and the ``SentenceEncoder`` that makes them, as the function uses it:
    ``write`` (ingestion), ``delete``, ``optimize``, ``search`` (BM25 alone, for callers without the question),
    ``search_question`` (both rankings fused), ``warm``, ``close``; ``rankings`` and ``fuse`` are its two
    steps, apart so that a benchmark can time and score each ranking (``exact``: read every vector)."""

    def __init__(self, index, encoder, depth: int = DEPTH, exact: bool = False, alpha: float = ALPHA):
        if index.dim != encoder.dim:
            raise ValueError(f"the index holds {index.dim}-dimensional vectors, the encoder makes {encoder.dim}")
        self.index, self.encoder, self.depth, self.exact, self.alpha = index, encoder, depth, exact, alpha

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

    def check_writable(self) -> None:
        self.index.check_writable()

    def delete(self, ids: list[str]) -> None:
        self.index.delete(ids)

    def optimize(self) -> None:
        self.index.optimize()

    def corpus_changed(self) -> None:
        self.index.corpus_changed()

    def search(self, terms: list[str], k: int, where: PassageFilter | None = None) -> list[Hit]:
        return self.index.search(terms, k, where)

    def rankings(self, question: str, terms: list[str], depth: int | None = None,
                 where: PassageFilter | None = None) -> Rankings:
        """Both rankings of ``question``, ``depth`` passages each, within ``where``."""
        depth = depth or self.depth
        bm25 = self.index.search(terms, depth, where) if terms else []
        t0 = time.perf_counter()
        vector = self.encoder.embed_one(question)  # kept: the reader ranks its answers' sentences by it too
        embed_ms = (time.perf_counter() - t0) * 1000
        return Rankings(bm25, self.index.nearest(vector, depth, exact=self.exact, where=where), embed_ms)

    def fuse(self, terms: list[str], rankings: Rankings, k: int) -> list[Hit]:
        """The best ``k`` by the mixed score, each with its BM25 score (see the module docstring)."""
        bm25 = {h.passage_id: h.score for h in rankings.bm25}
        missing = tuple(h.passage_id for h in rankings.dense if h.passage_id not in bm25)
        if missing and terms:
            bm25.update((h.passage_id, h.score) for h in self.index.search(terms, len(missing), among=missing))
        candidates = dict.fromkeys([*(h.passage_id for h in rankings.bm25), *missing])
        cosines = {h.passage_id: h.score for h in rankings.dense}
        mixed = mixed_scores({pid: bm25.get(pid, 0.0) for pid in candidates}, cosines, self.alpha)[:k]
        lowest = min(cosines.values(), default=None)  # a passage only BM25 found: at most the list's last
        return [Hit(pid, bm25.get(pid, 0.0), cosines.get(pid, lowest)) for pid, _ in mixed]

    def search_question(self, question: str, terms: list[str], k: int,
                        where: PassageFilter | None = None) -> list[Hit]:
        """The ``k`` passages to read for ``question`` (``terms``: its analysed terms), best mixed score first,
        within ``where``; each ranking is at least ``k`` deep, so that ``k`` come back when ``k`` match."""
        return self.fuse(terms, self.rankings(question, terms, max(self.depth, k), where), k)

    def warm(self) -> None:
        """The encoder's session and the table, at start-up: the first question alone pays for neither."""
        self.encoder.load()
        self.index.warm()

    def close(self) -> None:
        self.index.close()
