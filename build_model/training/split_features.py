"""Training features, targets and served windows in the split model's layout (``build_model.training.split``).

The function's window is ``[CLS] q [SEP] p [SEP]``: where the passage starts
depends on the question's length. A split model stores a passage's lower-layer
states once, so the passage segment ``p [SEP]`` must be the same tokens at the
same positions whatever the question. The question segment ``[CLS] q [SEP]``
is therefore padded to a fixed ``Q = max_query_tokens + 1 + pair_seps`` tokens
(66 for BERT's 64-token questions) and the passage follows at position Q::

    window:        [CLS] q [SEP] p [SEP]            positions 0 .. cs-1 | cs ..
    concatenated:  [CLS] q [SEP] pad ... p [SEP]    positions 0 .. cs-1 | pad | Q ..

A window position ``i < cs`` (``cs``: the window's ``context_start``) keeps its
index; ``i >= cs`` moves to ``Q + (i - cs)``. [CLS] stays at 0, so labels,
teacher logits and decoded spans move with their tokens, and nothing lands on
the padding (its teacher logit is ``NO_MASS``).

Training features keep the shape ``build_model.training.loop`` reads
(``input_ids``, ``context_start``, ``start``, ``end``, ``gold``), with the
concatenated ids as ``input_ids`` and Q as ``context_start``. The loop's
``collate`` gives every position of a feature attention, so the question's
padding is written as ``QUESTION_PAD`` (-1, no token has that id) and the
model adapter (``build_model.training.split_loop``) masks it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from build_model.training.align import NO_MASS
from build_model.training.features import Feature

QUESTION_PAD = -1  # a position of the fixed-length question segment that holds no token


def question_segment(max_query_tokens: int, pair_seps: int = 1) -> int:
    """Q: tokens of the fixed-length question segment, ``[CLS] q [SEP]`` (``pair_seps`` separators)."""
    return max_query_tokens + 1 + pair_seps


def to_split_positions(positions: np.ndarray | int, context_start: int, segment: int):
    """Window positions -> concatenated positions (``segment``: Q)."""
    positions = np.asarray(positions)
    return np.where(positions < context_start, positions, positions - context_start + segment)


def to_window_positions(positions: np.ndarray | int, context_start: int, segment: int):
    """Concatenated positions -> window positions; -1 for the question's padding."""
    positions = np.asarray(positions)
    return np.where(positions < context_start, positions,
                    np.where(positions < segment, -1, positions - segment + context_start))


def _check(context_start: int, segment: int) -> None:
    if context_start > segment:
        raise ValueError(f"a question segment of {context_start} tokens does not fit in Q = {segment}")


def split_logits(logits: np.ndarray, context_start: int, segment: int) -> np.ndarray:
    """One window's logits (one per window position) on the concatenated positions; the padding gets
    ``NO_MASS``, so a distribution over them is the window's, moved with its tokens."""
    _check(context_start, segment)
    pad = np.full(segment - context_start, NO_MASS, dtype=logits.dtype)
    return np.concatenate([logits[:context_start], pad, logits[context_start:]])


def window_logits(logits: np.ndarray, context_start: int, segment: int) -> np.ndarray:
    """Concatenated logits ``[..., Q + P]`` back on the window's positions ``[..., cs + P]``."""
    return np.concatenate([logits[..., :context_start], logits[..., segment:]], axis=-1)


@dataclass
class SplitFeature:
    """A training feature in the concatenated layout; ``build_model.training.loop`` trains on it as it is."""

    input_ids: np.ndarray  # [Q + P] int64: [CLS] q [SEP], QUESTION_PAD up to Q, then p [SEP]
    context_start: int  # Q: where the passage segment starts
    question_len: int  # tokens of [CLS] q [SEP] (the window's context_start)
    start: int  # answer start on the concatenated positions, 0 = [CLS]
    end: int
    question_index: int
    paragraph_id: str
    gold: bool

    @property
    def context_len(self) -> int:
        return len(self.input_ids) - self.context_start - 1


def to_split_feature(feature: Feature, segment: int) -> SplitFeature:
    cs = feature.context_start
    _check(cs, segment)
    ids = np.concatenate([feature.input_ids[:cs], np.full(segment - cs, QUESTION_PAD),
                          feature.input_ids[cs:]]).astype(np.int64)
    start, end = (int(to_split_positions(p, cs, segment)) for p in (feature.start, feature.end))
    return SplitFeature(ids, segment, cs, start, end, feature.question_index, feature.paragraph_id, feature.gold)


def split_targets(features: list[Feature], logits: list, segment: int) -> list:
    """Teacher logits (start, end per feature, or None: no teacher target) on the concatenated positions."""
    return [None if t is None else tuple(split_logits(x, f.context_start, segment) for x in t)
            for f, t in zip(features, logits)]


def split_rows(input_ids: np.ndarray, attention_mask: np.ndarray, context_start: int, segment: int,
               pad_id: int) -> dict[str, np.ndarray]:
    """A batch of windows (the function's ``Batch`` arrays, one ``context_start``) as the split model's
    inputs: question ids and mask ``[W, Q]``, passage ids and mask ``[W, T - cs]``."""
    _check(context_start, segment)
    rows = input_ids.shape[0]
    question_ids = np.full((rows, segment), pad_id, dtype=np.int64)
    question_mask = np.zeros((rows, segment), dtype=np.int64)
    question_ids[:, :context_start] = input_ids[:, :context_start]
    question_mask[:, :context_start] = attention_mask[:, :context_start]
    return {"question_ids": question_ids, "question_mask": question_mask,
            "passage_ids": input_ids[:, context_start:].astype(np.int64),
            "passage_mask": attention_mask[:, context_start:].astype(np.int64)}
