"""Span bias: how retrieval and reading are combined when a question is asked without passage ids.

(Not the hybrid index's mix of two rankings, ``hybrid``: this is what the reader adds to each retrieved
passage's spans, whichever index retrieved them.)

The retrieved passages go through one model run, and their spans are ranked by

    start logit + end logit + BM25_WEIGHT * the passage's BM25 score

(raw logits, as in BERTserini, Yang et al. 2019), with ``score`` the softmax of
that sum over every candidate span of the run. Ranking the spans by the
reader's probabilities alone (each window normalised over [CLS] and its own
tokens, as for ``passage_ids``) lets a passage that does not hold the answer
win: a SQuAD-trained reader has rarely seen a window without the answer, so it
is confident in every passage. Raw logits keep the reader's confidence
comparable across windows, and the passage's BM25 score adds the retriever's
evidence that the passage holds the answer, which the reader alone does not weigh.

BM25_WEIGHT is chosen on train questions, never on dev, by scoring the answers
from the top 5 passages for several weights. It is kept from one artifact to
the next unless such a re-run on train questions shows a clear gain, so that
dev F1 stays an unbiased figure. The F1 of each weight, for each artifact
measured, and the command that scores them are in docs/retrieval.md ("Ranking
the answers of several passages").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

BM25_WEIGHT = 1.0


def passage_bias(bm25_scores: Sequence[float], weight: float = BM25_WEIGHT) -> np.ndarray:
    """The per-passage term added to its spans' logits (see ``function.model.decode.best_spans``)."""
    return weight * np.asarray(bm25_scores, dtype=np.float64)
