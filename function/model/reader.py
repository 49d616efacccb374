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


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """``text[start:end]`` without leading or trailing white space (start == end when nothing is left).

    A byte-level BPE token (RoBERTa) carries the space before its word (``Ġworld``), and a
    SentencePiece one may be the word separator alone (``▁``): their offsets can include white
    space that an answer must not start or end with.
    """
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def answers_from_logits(
    start_logits: np.ndarray,
    end_logits: np.ndarray,
    batch: Batch,
    passages: Sequence[PassageTokens],
    top_k: int = 1,
    max_answer_tokens: int = 30,
    passage_bias: np.ndarray | None = None,
    texts: Sequence[str] | None = None,
) -> list[Answer]:
    """Best spans mapped to character offsets in their passage's text (``passage_bias``: see
    ``function.model.decode``).

    With the passages' ``texts``, offsets are trimmed of white space (``trim``) and a span of
    white space only is dropped, so ``texts[p][start:end]`` is always a clean answer.
    """
    # a few spare candidates stand in for spans of white space only
    spare = 0 if texts is None else 2
    spans = best_spans(start_logits, end_logits, batch, top_k + spare, max_answer_tokens, passage_bias)
    out: list[Answer] = []
    for s in spans:
        if len(out) == top_k:
            break
        offsets = passages[s.passage].offsets
        start, end = int(offsets[s.token_start, 0]), int(offsets[s.token_end, 1])
        if texts is not None:
            start, end = trim(texts[s.passage], start, end)
            if start == end or any((a.passage, a.start, a.end) == (s.passage, start, end) for a in out):
                continue  # white space only, or the same text as a better span once trimmed
        out.append(Answer(s.passage, start, end, s.score))
    return out
