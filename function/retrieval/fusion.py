"""How retrieval and reading are combined when a question is asked without passage ids.

The retrieved passages go through one model run, and their spans are ranked by

    start logit + end logit + BM25_WEIGHT * the passage's BM25 score

(raw logits, as in BERTserini, Yang et al. 2019), with ``score`` the softmax of
that sum over every candidate span of the run. Ranking the spans by the
reader's probabilities alone (each window normalised over [CLS] and its own
tokens, as for ``passage_ids``) lets a passage that does not hold the answer
win: a SQuAD-trained reader has rarely seen a window without the answer, so it
is confident in every passage.

Measured by ``python -m bench.retrieval`` (F1 of the answers from the top 5
passages, on 1,000 train.json questions, which choose the weight, and on the
1,227 dev.json questions; bench/results/retrieval.md). The weight was chosen
with the previous artifact (713d57c930d9, gold-paragraph dev F1 52.41); with
the shipped one (9ae7c804910c, gold-paragraph dev F1 60.59) 0.8 scores 0.3
train F1 above 1.0; 1.0 was kept for a difference that small (not re-chosen):

    ranking                           713d57c930d9        9ae7c804910c
                                    train F1  dev F1    train F1  dev F1
    the reader's probabilities alone  26.70    23.24     47.27    33.53
    raw logits + 0.5 x BM25           52.54    42.93     68.56    51.94
    raw logits + 0.8 x BM25           53.34    43.60     69.24    52.58
    raw logits + 1.0 x BM25 (shipped) 53.47    43.62     68.92    52.30
    raw logits + 1.25 x BM25          53.39    42.93     69.05    52.01
    raw logits + 1.5 x BM25           53.37    42.72     68.76    51.44
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

BM25_WEIGHT = 1.0


def passage_bias(bm25_scores: Sequence[float], weight: float = BM25_WEIGHT) -> np.ndarray:
    """The per-passage term added to its spans' logits (see ``function.decode.best_spans``)."""
    return weight * np.asarray(bm25_scores, dtype=np.float64)
