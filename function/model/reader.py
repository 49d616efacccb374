"""Question + tokenised passages -> answers with character offsets.

The function and the build stage's evaluation both read through these two
calls, with the model run in between by whoever holds it (an ONNX Runtime
session here, a PyTorch model in the build stage).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from function.model.decode import best_spans
from function.model.windows import Batch, WindowSpec, build_batch


@dataclass(frozen=True)
class PassageTokens:
    ids: np.ndarray  # [n] token ids
    offsets: np.ndarray  # [n, 2] character offsets into the passage text


@dataclass(frozen=True)
class Answer:
    passage: int  # index into the passages given to ``prepare``
    start: int  # character offsets into that passage's text
    end: int
    score: float


def prepare(question_ids: Sequence[int], passages: Sequence[PassageTokens], spec: WindowSpec) -> Batch:
    """All windows of all passages as one batch (one model call)."""
    return build_batch(question_ids, [p.ids for p in passages], spec)


def answers_from_logits(
    start_logits: np.ndarray,
    end_logits: np.ndarray,
    batch: Batch,
    passages: Sequence[PassageTokens],
    top_k: int = 1,
    max_answer_tokens: int = 30,
    passage_bias: np.ndarray | None = None,
) -> list[Answer]:
    """Best spans mapped to character offsets in their passage's text (``passage_bias``: see
    ``function.model.decode``)."""
    spans = best_spans(start_logits, end_logits, batch, top_k, max_answer_tokens, passage_bias)
    out = []
    for s in spans:
        offsets = passages[s.passage].offsets
        out.append(Answer(s.passage, int(offsets[s.token_start, 0]), int(offsets[s.token_end, 1]), s.score))
    return out
