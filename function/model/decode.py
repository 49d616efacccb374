"""Span decoding: start/end logits of a batch of windows -> the best answer spans.

Scores are probabilities that compare across windows and passages: in each
window, the start and end logits are normalised (softmax) over the [CLS]
position and that window's passage tokens only. The model was trained to put
its mass on [CLS] in windows that do not hold the answer, so a span from such a
window gets a low probability, and ``p_start * p_end`` of different windows,
and of different passages, can be ranked against each other.

A span must start and end on passage tokens of one window, with
``start <= end < start + max_answer_tokens``, and, given each token's
paragraph (``blocks``), within one paragraph: an answer never runs across a
blank line ("1.2.6 or later:\n\n- https://..."). The same passage span found in
two overlapping windows is reported once, with its higher score.

Passages found by retrieval (``passage_bias``, one value per passage: the
retrieval score times a weight) are ranked differently: a span's score is its
raw start + end logits plus its passage's bias, turned into a probability by a
softmax over every candidate span of the batch. The per-window normalisation
above ranks spans from passages the model has never seen the answer in too
high (a SQuAD model rarely meets a window without the answer in training);
the raw logits plus the retrieval score rank them better, and less ``null_weight``
times each window's own [CLS] score (its start + end logits at [CLS]): a model
trained with unanswerable pairs raises it in a window that does not hold the
answer (``function/retrieval/span_bias.py`` has the measurements).

Whether the passages hold an answer at all is a separate score
(``null_score``): in each window, the [CLS] score against the window's own best
span, in raw logits, as SQuAD 2.0 models are decoded; the window surest of a
span decides. The build stage chooses the threshold on it
(``build_model/evaluation/squad2.py``, ``docs/no_answer.md``). Where the
request abstains, spans are read only from the windows whose own margin is at
or below the threshold (``best_spans``' ``windows``): a passage that says "not
here" does not supply the answer.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from function.model.windows import Batch

_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")
_CELL = re.compile(r" \| ")


@dataclass(frozen=True)
class Span:
    passage: int  # index into the passages of the batch
    token_start: int  # first passage token (index into the passage's tokens)
    token_end: int  # last passage token, inclusive
    score: float  # in [0, 1]: p_start * p_end, or with passage_bias a softmax over the spans


def _context_logits(logits: np.ndarray, batch: Batch) -> np.ndarray:
    """The passage part of each window's logits as they are, -inf padded."""
    rows, _ = logits.shape
    width = int(batch.context_len.max())
    valid = np.arange(width)[None, :] < batch.context_len[:, None]
    ctx = np.full((rows, width), -np.inf, dtype=np.float64)
    cs = batch.context_start
    ctx[valid] = logits[:, cs : cs + width].astype(np.float64)[valid]
    return ctx


def _context_log_probs(logits: np.ndarray, batch: Batch) -> np.ndarray:
    """Log-softmax over [CLS] + passage tokens; returns the passage part, -inf padded."""
    ctx = _context_logits(logits, batch)
    cls = logits[:, 0].astype(np.float64)
    top = np.maximum(ctx.max(axis=1), cls)
    norm = top + np.log(np.exp(cls - top) + np.exp(ctx - top[:, None]).sum(axis=1))
    return ctx - norm[:, None]


def paragraphs(text: str, offsets: np.ndarray) -> np.ndarray:
    """Each token's block in ``text``: how many blank lines (ingestion joins a document's blocks with one,
    ``function.ingest.extract.normalise_block``) and table cell boundaries (``cell_breaks``) come before it. A span
    never runs across two blocks."""
    breaks = sorted([m.start() for m in _BLANK_LINE.finditer(text)] + cell_breaks(text))
    return np.searchsorted(np.asarray(breaks, dtype=np.int64), np.asarray(offsets)[:, 0], side="right") \
        if len(offsets) else np.zeros(0, dtype=np.int64)


def in_block(block: np.ndarray | None, start: int, end: int) -> bool:
    """Whether ``start``-``end`` lies within one of a passage's code-block lines (``block``, ``Passage.lines``: (start,
    end) each; None: the passage has none)."""
    return block is not None and any(a <= start and end <= z for a, z in block)


def cell_breaks(text: str) -> list[int]:
    """Where a table row's cells meet: the " | " separators of each line extraction wrote for a table's row ("cell |
    cell"), a line holding " | " where the line before or after it does too, or that holds it twice or more. A lone
    " | " (a union type in a signature, "-> dict | None"; a pipeline in a line of code) is not a row's."""
    if " | " not in text:
        return []
    lines = text.split("\n")
    held = [" | " in line for line in lines]
    out, at = [], 0
    for i, line in enumerate(lines):
        if held[i] and (line.count(" | ") >= 2 or (i and held[i - 1]) or (i + 1 < len(lines) and held[i + 1])):
            out.extend(at + m.start() for m in _CELL.finditer(line))
        at += len(line) + 1
    return out


def _window_blocks(blocks: list[np.ndarray], batch: Batch, width: int) -> np.ndarray:
    """``blocks`` laid out as ``_context_logits``: [windows, width], each window's own tokens' paragraphs."""
    out = np.full((len(batch), width), -1, dtype=np.int64)
    for w in range(len(batch)):
        s, n = int(batch.token_start[w]), int(batch.context_len[w])
        out[w, :n] = blocks[int(batch.passage_index[w])][s : s + n]
    return out


def _shifted(a: np.ndarray, depth: int, fill) -> np.ndarray:
    """``out[w, d, i] = a[w, i + d]`` for ``d < depth`` (``fill`` past the row's end): a view, not a copy."""
    rows, width = a.shape
    padded = np.concatenate([a, np.full((rows, depth - 1), fill, dtype=a.dtype)], axis=1)
    row, col = padded.strides
    return np.lib.stride_tricks.as_strided(padded, (rows, depth, width), (row, col, col), writeable=False)


def _band(ls: np.ndarray, le: np.ndarray, depth: int) -> np.ndarray:
    """``band[w, d, i] = ls[w, i] + le[w, i + d]``: every span of length ``d + 1`` (-inf past the window's
    end), in one array operation rather than one per length."""
    return ls[:, None, :] + _shifted(le, depth, -np.inf)


def best_spans(
    start_logits: np.ndarray,
    end_logits: np.ndarray,
    batch: Batch,
    top_k: int = 1,
    max_answer_tokens: int = 30,
    passage_bias: np.ndarray | None = None,
    windows: np.ndarray | None = None,
    null_weight: float = 0.0,
    blocks: list[np.ndarray] | None = None,
    per_passage: int = 0,
) -> list[Span]:
    """The ``top_k`` highest-scoring distinct passage spans, best first, and with ``per_passage`` each passage's best
    ``per_passage`` spans among them too (so a passage the batch's best leave out still has its say where the spans
    are ranked again, ``reader.answers_from_logits``); ``windows`` (one bool per
    window) keeps the spans of the windows marked True only; ``null_weight`` (with ``passage_bias``
    only): each window's spans less that times its [CLS] score; ``blocks`` (one array per passage: each
    token's paragraph number, ``paragraphs``): spans within one paragraph only."""
    if top_k < 1 or max_answer_tokens < 1:
        raise ValueError("top_k and max_answer_tokens must be >= 1")
    if passage_bias is None:
        ls = _context_log_probs(np.asarray(start_logits), batch)
        le = _context_log_probs(np.asarray(end_logits), batch)
    else:
        bias = np.asarray(passage_bias, dtype=np.float64)[batch.passage_index]
        if null_weight:  # each window's [CLS] score: column 0 only, not a float64 copy of every logit
            null = np.asarray(start_logits)[:, 0].astype(np.float64) + np.asarray(end_logits)[:, 0]
            bias = bias - null_weight * null
        ls = _context_logits(np.asarray(start_logits), batch) + bias[:, None]
        le = _context_logits(np.asarray(end_logits), batch)
    if windows is not None:
        ls = np.where(np.asarray(windows, dtype=bool)[:, None], ls, -np.inf)
    rows, width = ls.shape
    depth = min(max_answer_tokens, width)
    para = None if blocks is None else _window_blocks(blocks, batch, width)

    band = _band(ls, le, depth)
    if para is not None:  # a span's two ends in different paragraphs
        band[para[:, None, :] != _shifted(para, depth, -2)] = -np.inf

    flat = band.reshape(-1)
    finite = int(np.isfinite(flat).sum())
    if passage_bias is not None and finite:  # softmax over every candidate span of the batch
        top = flat.max()
        flat = flat - (top + np.log(np.exp(flat - top).sum()))
    # Overlapping windows repeat a span at most a few times: take enough
    # candidates that ``top_k`` distinct spans survive de-duplication.
    n_windows_per_span = max(1, int(np.bincount(batch.passage_index).max()))
    want = min(finite, top_k * (n_windows_per_span + 1) + 16)
    if want == 0:
        return []
    cand = np.sort(np.argpartition(-flat, want - 1)[:want])
    cand = cand[np.argsort(-flat[cand], kind="stable")]  # equal scores (int8 logits tie): the earlier, shorter span

    passage, first = np.asarray(batch.passage_index).tolist(), np.asarray(batch.token_start).tolist()
    spans: list[Span] = []
    seen: set[tuple[int, int, int]] = set()

    def take(cand: np.ndarray, room: int) -> None:
        """``cand``'s first ``room`` distinct spans into ``spans``, those not there already."""
        ws, ds, iss = np.unravel_index(cand, band.shape)  # one call for every candidate, then plain ints
        mine: set[tuple[int, int, int]] = set()
        for w, d, i, s in zip(ws.tolist(), ds.tolist(), iss.tolist(), np.exp(flat[cand]).tolist(), strict=True):
            p, start = passage[w], first[w] + i
            key = (p, start, start + d)
            if key in mine:
                continue
            mine.add(key)
            if key not in seen:
                seen.add(key)
                spans.append(Span(p, start, start + d, s))
            if len(mine) == room:
                break

    take(cand, top_k)
    if per_passage:  # and each passage's best ``per_passage`` spans, where the batch's best left them out
        cells = band[0].size
        owner = np.asarray(batch.passage_index)
        for p in np.unique(owner):
            rows = np.flatnonzero(owner == p)
            own = (rows[:, None] * cells + np.arange(cells)[None, :]).reshape(-1)
            own = own[np.isfinite(flat[own])]
            k = min(len(own), per_passage * (n_windows_per_span + 1))
            if k:
                best = own[np.argpartition(-flat[own], k - 1)[:k]]
                take(best[np.argsort(-flat[best], kind="stable")], per_passage)
        spans.sort(key=lambda s: -s.score)
    return spans


@dataclass(frozen=True)
class NullScore:
    """The "no answer" evidence of one model run, in raw start + end logits (SQuAD 2.0 practice).

    Each window weighs its own [CLS] score (start + end logit at position 0)
    against its own best allowed span (the constraints of ``best_spans``, without
    any retrieval bias: the threshold is chosen on these raw scores at build
    time). The window whose span beats its [CLS] by the most decides: ``null``
    and ``span`` are that window's, ``margin = null - span``, and the model
    abstains where it exceeds the manifest's threshold. So passages that do not
    hold the answer do not make the model abstain on one that does, and a span
    counts only against the [CLS] score of the window it was read in: a question
    asked alone is answered on what some passage says, not on how the passages'
    spans compare with each other.
    """

    null: float
    span: float

    @property
    def margin(self) -> float:
        return self.null - self.span


def window_margins(start_logits: np.ndarray, end_logits: np.ndarray, batch: Batch,
                   max_answer_tokens: int = 30) -> tuple[np.ndarray, np.ndarray]:
    """Per window: its [CLS] score and its best allowed span score (-inf where it has no span)."""
    if max_answer_tokens < 1:
        raise ValueError("max_answer_tokens must be >= 1")
    start, end = np.asarray(start_logits), np.asarray(end_logits)
    null = start[:, 0].astype(np.float64) + end[:, 0].astype(np.float64)
    ls, le = _context_logits(start, batch), _context_logits(end, batch)
    best = _band(ls, le, min(max_answer_tokens, ls.shape[1])).max(axis=(1, 2))  # spans as in ``best_spans``
    return null, best


def null_score(start_logits: np.ndarray, end_logits: np.ndarray, batch: Batch,
               max_answer_tokens: int = 30) -> NullScore:
    """The deciding window's null score against its best span score (``NullScore``); ``span`` is -inf
    when no window has a span."""
    return deciding_window(*window_margins(start_logits, end_logits, batch, max_answer_tokens))


def deciding_window(null: np.ndarray, span: np.ndarray) -> NullScore:
    """Of ``window_margins``' scores, the window whose span beats its [CLS] score by the most (the lowest
    [CLS] score when no window has a span)."""
    if not np.isfinite(span).any():
        w = int(np.argmin(null))
    else:
        w = int(np.argmin(null - span))  # -inf spans give +inf margins, never the minimum
    return NullScore(float(null[w]), float(span[w]))


def no_answer_probability(margin: float, threshold: float) -> float:
    """``sigmoid(margin - threshold)``: above 0.5 exactly where the model abstains (margin > threshold).

    ``exp(margin)`` is the model's odds of [CLS] against its best span; the
    threshold shifts those odds by the prior chosen on the dev set, so 0.5 is the
    decision boundary. It ranks questions by how sure the model is that the
    passages hold no answer; it is not calibrated.
    """
    x = margin - threshold
    if x >= 0:  # the two forms keep math.exp from overflowing
        return 1.0 / (1.0 + math.exp(-x))
    return math.exp(x) / (1.0 + math.exp(x))
