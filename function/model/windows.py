"""Model input layout: one question against one or more pre-tokenised passages.

This module is the single definition of how a question and a passage become
model inputs. The build stage imports it for training features and for
evaluation, so the EM/F1 it reports is measured on exactly the inputs the
function feeds the model.

Layout of one window (BERT pair encoding, ``pair_seps = 1``)::

    [CLS] question [SEP] passage[s : s + n] [SEP]
    type:  0 ... 0 0     1 ...           1  1

RoBERTa and MPNet put two separators between the pair (``pair_seps = 2``)::

    <s> question </s> </s> passage[s : s + n] </s>

A passage longer than one window is split into windows of at most
``max_seq_len - len(question) - 2 - pair_seps`` passage tokens that overlap by
``stride`` tokens (the Hugging Face ``doc_stride`` convention).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class WindowSpec:
    """Sequence settings; all of them come from the artifact's manifest."""

    max_seq_len: int
    stride: int
    max_query_tokens: int
    cls_id: int
    sep_id: int
    pad_id: int
    pair_seps: int = 1  # separators between question and passage: 1 (BERT), 2 (RoBERTa, MPNet)

    @property
    def special_tokens(self) -> int:
        """Special tokens in one window: [CLS], the separators between the pair, the last one."""
        return 2 + self.pair_seps

    def passage_budget(self, n_question: int) -> int:
        """Passage tokens that fit in one window next to an ``n_question``-token question."""
        budget = self.max_seq_len - n_question - self.special_tokens
        if budget <= self.stride:
            raise ValueError(
                f"a {n_question}-token question leaves {budget} passage tokens per window, "
                f"not more than the stride ({self.stride})"
            )
        return budget


def window_starts(n_tokens: int, budget: int, stride: int) -> list[int]:
    """First passage token of each window; consecutive windows overlap by ``stride``."""
    starts = [0]
    while starts[-1] + budget < n_tokens:
        starts.append(starts[-1] + budget - stride)
    return starts


@dataclass
class Batch:
    """All windows of all passages for one question, padded to the longest window.

    ``context_start`` is the sequence position of a window's first passage token
    (the same for every window: ``len(question) + 1 + pair_seps``); ``token_start[w]`` is the
    index of that token in passage ``passage_index[w]``; ``context_len[w]`` is the
    number of passage tokens in window ``w``.
    """

    input_ids: np.ndarray  # [W, T] int64
    attention_mask: np.ndarray  # [W, T] int64
    token_type_ids: np.ndarray  # [W, T] int64
    passage_index: np.ndarray  # [W] int64
    token_start: np.ndarray  # [W] int64
    context_len: np.ndarray  # [W] int64
    context_start: int

    def __len__(self) -> int:
        return int(self.input_ids.shape[0])

    def rows(self, part: slice | np.ndarray) -> Batch:
        """The windows ``part`` (a slice: views, no copies; or window indices) as a batch of their own."""
        return Batch(self.input_ids[part], self.attention_mask[part], self.token_type_ids[part],
                     self.passage_index[part], self.token_start[part], self.context_len[part], self.context_start)


def build_batch(
    question_ids: Sequence[int], passages: Sequence[np.ndarray], spec: WindowSpec
) -> Batch:
    """Windows for every passage, in passage order, in one dynamically padded batch."""
    n_q = len(question_ids)
    if n_q > spec.max_query_tokens:
        raise ValueError(f"question has {n_q} tokens, more than {spec.max_query_tokens}")
    budget = spec.passage_budget(n_q)
    context_start = n_q + 1 + spec.pair_seps

    plan: list[tuple[int, int, int]] = []  # (passage, first token, length)
    for p, ids in enumerate(passages):
        n = len(ids)
        for s in window_starts(n, budget, spec.stride):
            plan.append((p, s, min(budget, n - s)))
    if not plan:
        raise ValueError("no passages to build windows from")

    width = context_start + max(length for _, _, length in plan) + 1
    rows = len(plan)
    input_ids = np.full((rows, width), spec.pad_id, dtype=np.int64)
    attention_mask = np.zeros((rows, width), dtype=np.int64)
    token_type_ids = np.zeros((rows, width), dtype=np.int64)

    input_ids[:, 0] = spec.cls_id
    input_ids[:, 1 : n_q + 1] = np.asarray(question_ids, dtype=np.int64)
    input_ids[:, n_q + 1 : context_start] = spec.sep_id
    for w, (p, s, length) in enumerate(plan):
        end = context_start + length
        input_ids[w, context_start:end] = passages[p][s : s + length]
        input_ids[w, end] = spec.sep_id
        attention_mask[w, : end + 1] = 1
        token_type_ids[w, context_start : end + 1] = 1

    plan_arr = np.asarray(plan, dtype=np.int64)
    return Batch(
        input_ids=input_ids,
        attention_mask=attention_mask,
        token_type_ids=token_type_ids,
        passage_index=plan_arr[:, 0],
        token_start=plan_arr[:, 1],
        context_len=plan_arr[:, 2],
        context_start=context_start,
    )
