"""The teacher's view of each student window, and where its positions land on the student's tokens.

A teacher with its own tokenizer or pair layout (MPNet: ``<s> q </s></s> p </s>``
and ids shifted by 4 from BERT's) cannot be fed the student's windows. For each
student window the teacher gets its own window over the same characters of the
passage, and its start/end distributions are carried back by character offsets:
a student token takes the start logit of the teacher token that starts at the
same character and the end logit of the one that ends at the same character.
The classifier position ([CLS] / ``<s>``, "no answer here") maps to the
teacher's; question and separator positions, and the rare passage token with
no counterpart, take no mass (the student learns to put none there).

For a teacher with the student's own tokenizer this is the identity on the
passage, so one path serves every teacher.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from build_model.squad import SquadSplit, encode_paragraphs
from build_model.training.features import Feature
from function.model.tokenizer import Encoded, QATokenizer

NO_MASS = -1e4  # logit of a position the teacher gives no probability


@dataclass(frozen=True)
class TeacherWindow:
    input_ids: np.ndarray  # [n] the teacher's ids, special tokens included, no padding
    context_start: int  # teacher position of the first passage token
    start_map: np.ndarray  # [len(student window)] teacher position whose start logit it takes, or -1
    end_map: np.ndarray  # [len(student window)] the same for end logits


def align_offsets(student: np.ndarray, teacher: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each student token (``[n, 2]`` character offsets), the teacher token that starts at
    the same character, and the one that ends at the same character; -1 where there is none."""
    first = {int(a): i for i, a in reversed(list(enumerate(teacher[:, 0])))}
    last = {int(b): i for i, b in enumerate(teacher[:, 1])}
    starts = np.asarray([first.get(int(a), -1) for a in student[:, 0]], dtype=np.int64)
    ends = np.asarray([last.get(int(b), -1) for b in student[:, 1]], dtype=np.int64)
    return starts, ends


def teacher_window(feature: Feature, student_passage: Encoded, teacher_passage: Encoded,
                   question_ids: np.ndarray, layout: dict) -> TeacherWindow:
    """The teacher's window over the characters of ``feature``'s passage tokens."""
    s_off = student_passage.offsets[feature.token_start : feature.token_start + feature.context_len]
    lo, hi = int(s_off[0, 0]), int(s_off[-1, 1])
    t_off = teacher_passage.offsets
    inside = np.flatnonzero((t_off[:, 0] >= lo) & (t_off[:, 1] <= hi))
    a, b = (int(inside[0]), int(inside[-1]) + 1) if inside.size else (0, 0)
    context_start = 1 + len(question_ids) + layout["pair_seps"]
    ids = np.concatenate([[layout["cls_id"]], question_ids, [layout["sep_id"]] * layout["pair_seps"],
                          teacher_passage.ids[a:b], [layout["sep_id"]]]).astype(np.int64)
    starts, ends = align_offsets(s_off, t_off[a:b])
    n = len(feature.input_ids)
    start_map = np.full(n, -1, dtype=np.int64)
    end_map = np.full(n, -1, dtype=np.int64)
    start_map[0] = end_map[0] = 0
    where = slice(feature.context_start, feature.context_start + feature.context_len)
    start_map[where] = np.where(starts >= 0, starts + context_start, -1)
    end_map[where] = np.where(ends >= 0, ends + context_start, -1)
    return TeacherWindow(ids, context_start, start_map, end_map)


def teacher_windows(features: list[Feature], split: SquadSplit, student_tok: QATokenizer,
                    teacher_tok: QATokenizer, max_query_tokens: int) -> list[TeacherWindow]:
    """One teacher window per student feature (features from ``build_model.training.features``)."""
    layout = teacher_tok.pair_layout()
    student_passages = encode_paragraphs(student_tok, split)
    teacher_passages = (student_passages if teacher_tok.fingerprint == student_tok.fingerprint
                        else encode_paragraphs(teacher_tok, split))
    question_index = sorted({f.question_index for f in features})
    encoded = teacher_tok.encode_many([split.questions[i].question for i in question_index])
    questions = {i: e.ids[:max_query_tokens] for i, e in zip(question_index, encoded)}
    return [teacher_window(f, student_passages[f.paragraph_id], teacher_passages[f.paragraph_id],
                           questions[f.question_index], layout) for f in features]


def carry_back(start: np.ndarray, end: np.ndarray, window: TeacherWindow) -> tuple[np.ndarray, np.ndarray]:
    """The teacher's logits of one window (over its positions) on the student window's positions."""
    s = np.where(window.start_map >= 0, start[np.maximum(window.start_map, 0)], NO_MASS)
    e = np.where(window.end_map >= 0, end[np.maximum(window.end_map, 0)], NO_MASS)
    return s.astype(np.float32), e.astype(np.float32)
