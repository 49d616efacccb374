"""SQuAD pre-processing for training: question + passage windows with answer positions.

Windows come from ``function.model.windows`` (the layout the function serves), so the
model is trained on exactly the inputs it sees in production. A window that
does not contain the whole answer points both positions at [CLS] (index 0).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from build_model.squad import SquadSplit, encode_paragraphs
from function.model.tokenizer import Encoded, QATokenizer
from function.model.windows import WindowSpec, build_batch


@dataclass
class Feature:
    input_ids: np.ndarray  # [T] int32, no padding
    context_start: int  # sequence position of the first passage token
    start: int  # answer start position in the sequence, 0 = [CLS]
    end: int
    question_index: int  # which question of the split it came from
    paragraph_id: str  # the passage in this window (may differ from the question's own)
    gold: bool  # labels are real (the question's own paragraph), not a [CLS] stand-in
    token_start: int = 0  # index in the passage's tokens of the window's first passage token

    @property
    def context_len(self) -> int:
        """Passage tokens in the window (between the separators)."""
        return len(self.input_ids) - self.context_start - 1


def answer_token_span(offsets: np.ndarray, char_start: int, char_end: int) -> tuple[int, int]:
    """First and last passage token that overlap the answer's characters."""
    overlaps = (offsets[:, 0] < char_end) & (offsets[:, 1] > char_start)
    hits = np.flatnonzero(overlaps)
    if hits.size == 0:
        raise ValueError(f"no token covers characters {char_start}..{char_end}")
    return int(hits[0]), int(hits[-1])


def _question_ids(tok: QATokenizer, questions: list[str], limit: int) -> list[np.ndarray]:
    return [e.ids[:limit] for e in tok.encode_many(questions)]


def _windows(q_ids: np.ndarray, passage: Encoded, spec: WindowSpec):
    batch = build_batch(q_ids, [passage.ids], spec)
    for w in range(len(batch)):
        n = int(batch.attention_mask[w].sum())
        yield batch.input_ids[w, :n].astype(np.int32), batch, w


def build_features(
    tok: QATokenizer,
    split: SquadSplit,
    spec: WindowSpec,
    pairs: Iterable[tuple[int, str]] | None = None,
    unanswerable: bool = False,
) -> list[Feature]:
    """Features for (question index, paragraph id) pairs; default: each question with its own paragraph.

    A question paired with another paragraph of its article has no gold
    answer there: its windows point at [CLS] (distillation uses the teacher's
    soft targets for them, not these labels). ``unanswerable``: the pairs are
    known not to hold the answer (``build_model.training.negatives``), so their
    [CLS] labels are real (``gold``) and they are trained on them.
    """
    paragraphs = encode_paragraphs(tok, split)
    if pairs is None:
        pairs = [(i, q.paragraph_id) for i, q in enumerate(split.questions)]
    pairs = list(pairs)
    q_ids = _question_ids(tok, [split.questions[i].question for i, _ in pairs], spec.max_query_tokens)

    features: list[Feature] = []
    for (qi, pid), qids in zip(pairs, q_ids):
        q = split.questions[qi]
        passage = paragraphs[pid]
        span = None
        if pid == q.paragraph_id and q.answers:
            span = answer_token_span(passage.offsets, q.answer_start, q.answer_start + len(q.answer_text))
        for ids, batch, w in _windows(qids, passage, spec):
            start = end = 0
            if span is not None:
                first = int(batch.token_start[w])
                last = first + int(batch.context_len[w]) - 1
                if first <= span[0] and span[1] <= last:
                    start = batch.context_start + span[0] - first
                    end = batch.context_start + span[1] - first
            features.append(Feature(ids, batch.context_start, start, end, qi, pid, unanswerable or span is not None,
                                    int(batch.token_start[w])))
    return features


def collate_inputs(windows, pad_id: int) -> dict[str, np.ndarray]:
    """Model inputs of a batch of windows (anything with ``input_ids`` and ``context_start``),
    padded to the longest."""
    width = max(len(f.input_ids) for f in windows)
    n = len(windows)
    input_ids = np.full((n, width), pad_id, dtype=np.int64)
    attention_mask = np.zeros((n, width), dtype=np.int64)
    token_type_ids = np.zeros((n, width), dtype=np.int64)
    for r, f in enumerate(windows):
        t = len(f.input_ids)
        input_ids[r, :t] = f.input_ids
        attention_mask[r, :t] = 1
        token_type_ids[r, f.context_start : t] = 1
    return {"input_ids": input_ids, "attention_mask": attention_mask, "token_type_ids": token_type_ids}


def collate(features: list[Feature], pad_id: int) -> dict[str, np.ndarray]:
    """Pad a batch of features to its longest sequence; with their answer positions."""
    return {
        **collate_inputs(features, pad_id),
        "start_positions": np.asarray([f.start for f in features], dtype=np.int64),
        "end_positions": np.asarray([f.end for f in features], dtype=np.int64),
    }
