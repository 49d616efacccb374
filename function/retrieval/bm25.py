"""BM25 exactly as SQLite FTS5's ``bm25()`` computes it, for the stores that score in Python.

For a question with distinct terms t and a passage with ``length`` index terms
(title and text together)::

    score = sum over t of  idf(t) * (f * (K1 + 1)) / (f + K1 * (1 - B + B * length / avgdl))
    f      = TITLE_WEIGHT * tf_title(t) + TEXT_WEIGHT * tf_text(t)
    idf(t) = ln((N - df + 0.5) / (df + 0.5)), or 1e-6 where that is not positive
    avgdl  = total length of all passages / N

K1 and B are FTS5's (fixed in its C code); the column weights are the ones the
SQLite store passes to ``bm25()``. Sums run over the terms in question order,
as FTS5 sums over its phrases, so both stores give the same scores.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

K1 = 1.2
B = 0.75
TITLE_WEIGHT = 1.0
TEXT_WEIGHT = 1.0


@dataclass(frozen=True)
class Hit:
    passage_id: str
    score: float  # the passage's BM25 score (a dense hit of ``LanceIndex.nearest``: its cosine)
    cosine: float | None = None  # hybrid retrieval: the question's cosine to the passage (``hybrid.HybridIndex``)


@dataclass(frozen=True)
class PassageTerms:
    """What the index holds about one passage: its analysed title and text."""

    title: tuple[str, ...]
    text: tuple[str, ...]

    @classmethod
    def of(cls, title: str, text: str) -> PassageTerms:
        from function.retrieval.terms import terms

        return cls(tuple(terms(title)), tuple(terms(text)))

    @property
    def length(self) -> int:
        return len(self.title) + len(self.text)

    def frequencies(self) -> dict[str, tuple[int, int]]:
        """term -> (frequency in the title, frequency in the text)."""
        in_title, in_text = Counter(self.title), Counter(self.text)
        return {t: (in_title[t], in_text[t]) for t in in_title.keys() | in_text.keys()}


def idf(n_passages: int, df: int) -> float:
    value = math.log((n_passages - df + 0.5) / (df + 0.5))
    return value if value > 0.0 else 1e-6


def term_scores(idf_t: float, avgdl: float, lengths, tf_title, tf_text):
    """One term's contribution to each passage holding it (numpy arrays in, array out)."""
    f = tf_title * TITLE_WEIGHT + tf_text * TEXT_WEIGHT
    return idf_t * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * lengths / avgdl)))


def best(scores: dict[str, float], k: int) -> list[Hit]:
    """The ``k`` best passages, highest score first, ties by passage id (as the SQLite store orders)."""
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]
    return [Hit(pid, score) for pid, score in ranked]
