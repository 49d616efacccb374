"""How retrieval and reading are combined when a question is asked without passage ids.

The retrieved passages go through one model run, and their spans are ranked by

    start logit + end logit + BM25_WEIGHT * the passage's BM25 score

(raw logits, as in BERTserini, Yang et al. 2019), with ``score`` the softmax of
that sum over every candidate span of the run. Ranking the spans by the
reader's probabilities alone (each window normalised over [CLS] and its own
tokens, as for ``passage_ids``) lets a passage that does not hold the answer
win: a SQuAD-trained reader has rarely seen a window without the answer, so it
is confident in every passage.

Measured with the shipped artifact (F1 on 1,000 train.json questions, used to
choose, and on the 1,227 dev.json questions; 5 passages read; the gold
paragraph given instead: dev F1 52.41), by ``python -m bench.retrieval``
(bench/results/retrieval.md has the run this table comes from).

    ranking                                       train F1   dev F1
    reader probabilities only (before)              27.3      23.3
    reader probabilities + prior softmax(0.75 BM25) 52.5      42.0
    raw logits + 0.8 BM25                           53.1      43.3
    raw logits + 1.0 BM25 (shipped)                 53.3      43.6
    raw logits + 1.25 BM25                          53.4      43.1
    top passage only                                51.1      41.1

Train F1 is flat from 1.0 to 1.5 (within 0.2 F1 on 1,000 questions): 1.0, the
plain sum, was taken.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

BM25_WEIGHT: float | None = 1.0  # None: the reader's probabilities alone (for the benchmark's comparison)


def passage_bias(bm25_scores: Sequence[float]) -> np.ndarray | None:
    """The per-passage term added to its spans' logits (see ``function.decode.best_spans``)."""
    if BM25_WEIGHT is None:
        return None
    return BM25_WEIGHT * np.asarray(bm25_scores, dtype=np.float64)
