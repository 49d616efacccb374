"""How retrieval and reading are combined when a question is asked without passage ids.

The retrieved passages go through one model run, and their spans are ranked by

    start logit + end logit + BM25_WEIGHT * the passage's BM25 score

(raw logits, as in BERTserini, Yang et al. 2019), with ``score`` the softmax of
that sum over every candidate span of the run. Ranking the spans by the
reader's probabilities alone (each window normalised over [CLS] and its own
tokens, as for ``passage_ids``) lets a passage that does not hold the answer
win: a SQuAD-trained reader has rarely seen a window without the answer, so it
is confident in every passage.

Measured with the shipped artifact by ``python -m bench.retrieval`` (F1 of the
answers from the top 5 passages, on 1,000 train.json questions, which chose the
weight, and on the 1,227 dev.json questions; with the gold paragraph given
instead, dev F1 is 52.41; bench/results/retrieval.md):

    ranking                                  train F1   dev F1
    the reader's probabilities alone (before)  26.70     23.24
    raw logits + 0.5 x BM25                    52.54     42.93
    raw logits + 0.8 x BM25                    53.34     43.60
    raw logits + 1.0 x BM25 (shipped)          53.47     43.62
    raw logits + 1.25 x BM25                   53.39     42.93
    raw logits + 1.5 x BM25                    53.37     42.72
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

BM25_WEIGHT = 1.0


def passage_bias(bm25_scores: Sequence[float], weight: float = BM25_WEIGHT) -> np.ndarray:
    """The per-passage term added to its spans' logits (see ``function.decode.best_spans``)."""
    return weight * np.asarray(bm25_scores, dtype=np.float64)
