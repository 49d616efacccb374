"""Unanswerable training pairs: each question with paragraphs of *other* articles that BM25 ranks high.

A question asked alone reads the passages that BM25 ranks first. When the corpus
cannot answer it, those passages are about something else, yet share its words,
and a model trained on SQuAD v1.1 (every question answerable in its paragraph)
finds a confident span in them. SQuAD 2.0 teaches abstention with unanswerable
questions whose target is [CLS]; here the unanswerable examples are built from
the training set itself: a question paired with a paragraph of another article
(it cannot hold the answer, which is about this article), chosen among the
ones BM25 ranks first for it, so the model sees exactly the near misses that
retrieval serves it. A paragraph that happens to contain a gold answer text is
skipped. Scores are ``function.retrieval.bm25``'s, over the same index terms
(``function.retrieval.terms``) the function searches with.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from build_model.squad import SquadSplit
from function.retrieval.bm25 import PassageTerms, best, idf, term_scores
from function.retrieval.terms import MAX_QUERY_TERMS, terms


class ParagraphIndex:
    """BM25 over a split's paragraphs (title and text), or over those of ``ids``, in memory."""

    def __init__(self, split: SquadSplit, ids: list[str] | None = None):
        self.ids = list(split.paragraphs) if ids is None else list(ids)
        docs = [PassageTerms.of(split.paragraphs[i].title, split.paragraphs[i].context) for i in self.ids]
        self.lengths = np.asarray([d.length for d in docs], dtype=np.float64)
        self.avgdl = float(self.lengths.mean()) if docs else 1.0
        postings: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
        for row, doc in enumerate(docs):
            for term, (in_title, in_text) in doc.frequencies().items():
                postings[term].append((row, in_title, in_text))
        self.postings = {t: np.asarray(rows, dtype=np.int64) for t, rows in postings.items()}

    def search(self, question: str, k: int) -> list[str]:
        """Paragraph ids of the ``k`` best BM25 scores for ``question``, best first."""
        scores: dict[str, float] = defaultdict(float)
        seen: set[str] = set()
        for term in terms(question):
            if term in seen or term not in self.postings:
                continue
            seen.add(term)
            if len(seen) > MAX_QUERY_TERMS:
                break
            rows = self.postings[term]
            contrib = term_scores(idf(len(self.ids), len(rows)), self.avgdl, self.lengths[rows[:, 0]],
                                  rows[:, 1], rows[:, 2])
            for r, s in zip(rows[:, 0], contrib):
                scores[self.ids[r]] += float(s)
        return [h.passage_id for h in best(scores, k)]


def unanswerable_pairs(split: SquadSplit, k: int, seed: int, pool: int = 5,
                       depth: int = 100) -> list[tuple[int, str]]:
    """(question index, paragraph id) pairs: per question, ``k`` paragraphs of other articles drawn (seeded)
    from the ``pool`` that BM25 ranks first among them (within its ``depth`` best paragraphs, its own
    article's included), none containing one of its gold answers."""
    if k <= 0:
        return []
    index = ParagraphIndex(split)
    rng = np.random.default_rng(seed)
    pairs: list[tuple[int, str]] = []
    for i, q in enumerate(split.questions):
        article = split.article_of(q.paragraph_id)
        ranked = index.search(q.question, depth)
        pairs.extend((i, pid) for pid in _draw(rng, split, q.answers, k, pool, (
            pid for pid in ranked if split.article_of(pid) != article)))
    return pairs


def _draw(rng: np.random.Generator, split: SquadSplit, answers, k: int, pool: int, ranked) -> list[str]:
    """``k`` paragraph ids drawn (seeded, in ranked order) from the first ``pool`` of ``ranked`` that contain
    none of ``answers``."""
    candidates = [pid for pid in ranked if not any(a in split.paragraphs[pid].context for a in answers)]
    candidates = candidates[: max(pool, k)]
    if not candidates:
        return []
    picked = rng.choice(len(candidates), size=min(k, len(candidates)), replace=False)
    return [candidates[j] for j in sorted(picked)]


def package_of(title: str) -> str:
    """The documentation package a passage's title names first (``build_model.docdata``: "package/path")."""
    return title.split("/", 1)[0]


def distractor_pairs(split: SquadSplit, questions: list[int], k: int, seed: int, pool: int = 5,
                     depth: int = 50) -> list[tuple[int, str]]:
    """(question index, paragraph id) pairs: per answerable question of ``questions``, ``k`` other paragraphs of
    its own package drawn (seeded) from the ``pool`` that BM25 ranks first among the package's paragraphs, none
    containing one of its answers: the passages such a question reads beside its own when asked alone."""
    if k <= 0:
        return []
    by_package: dict[str, list[str]] = defaultdict(list)
    for pid, p in split.paragraphs.items():
        by_package[package_of(p.title)].append(pid)
    indexes: dict[str, ParagraphIndex] = {}
    rng = np.random.default_rng(seed)
    pairs: list[tuple[int, str]] = []
    for i in questions:
        q = split.questions[i]
        if not q.answers:
            continue
        package = package_of(split.paragraphs[q.paragraph_id].title)
        if package not in indexes:
            indexes[package] = ParagraphIndex(split, by_package[package])
        ranked = indexes[package].search(q.question, depth)
        pairs.extend((i, pid) for pid in _draw(rng, split, q.answers, k, pool,
                                               (pid for pid in ranked if pid != q.paragraph_id)))
    return pairs
