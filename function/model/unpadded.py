"""A request's windows run each at its own length, not as one batch padded to the longest.

``build_batch`` pads every window of a request to its longest, so a question
asked alone about five passages of 60 to 300 tokens pays for five windows of
300, and attention grows with the square of the padded length. Here each
window goes through the model as a batch of one, cut to its own width
(``window_batches``), and the logits are put back in the request's ``Batch``
layout (``gather``), so decoding is unchanged.

How they share the CPUs (``run_unpadded``'s ``mapper``): one after another
on the caller's session, or, for a request that runs alone, across the cores,
one window per core on a one-thread session, longest first, where that
finishes sooner (``spreads``; ``function.service.inference`` decides).
docs/benchmarks.md#windows-without-padding has the measurements that chose
this over one padded run and over windows grouped by length.

With a float model the logits are those of the padded run up to rounding
(attention masks the padding). With an int8 model quantised dynamically, as
the shipped one is, the activations' scale is computed over each run, so a
window's logits move slightly with what it runs beside: alone, a window's
answer no longer depends on the other passages' lengths.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import numpy as np

from function.model.windows import Batch

Logits = tuple[np.ndarray, np.ndarray]
Mapper = Callable[[Callable[[Batch], Logits], Iterable[Batch]], Iterator[Logits]]


def window_width(batch: Batch, w: int) -> int:
    """Sequence positions window ``w`` fills: [CLS], the question, the separators, its passage tokens, [SEP]."""
    return batch.context_start + int(batch.context_len[w]) + 1


def window_batches(batch: Batch) -> list[Batch]:
    """One ``Batch`` per window, in the batch's order, each cut to its own width (views, no copies)."""
    out = []
    for w in range(len(batch)):
        width, rows = window_width(batch, w), slice(w, w + 1)
        out.append(Batch(batch.input_ids[rows, :width], batch.attention_mask[rows, :width],
                         batch.token_type_ids[rows, :width], batch.passage_index[rows], batch.token_start[rows],
                         batch.context_len[rows], batch.context_start))
    return out


def gather(batch: Batch, parts: list[Logits]) -> Logits:
    """Each window's logits (``parts``, in window order) in ``batch``'s padded layout.

    Positions past a window's own width are -inf: the padded run's logits there
    are never read either (decoding masks by ``context_len``).
    """
    shape = batch.input_ids.shape
    start, end = np.full(shape, -np.inf, dtype=np.float32), np.full(shape, -np.inf, dtype=np.float32)
    for w, (s, e) in enumerate(parts):
        width = s.shape[1]
        start[w, :width], end[w, :width] = s[0], e[0]
    return start, end


def longest_first(batch: Batch) -> list[int]:
    """Window indices, longest first: handed to several workers in this order, the longest do not end up last."""
    return [int(w) for w in np.argsort(-batch.context_len, kind="stable")]


def spreads(batch: Batch, workers: int, speedup: float) -> bool:
    """Whether ``workers`` one-thread runs, one window each, longest first, finish before the windows run one
    after another with ``workers`` intra-op threads, which is ``speedup`` times as fast as one thread.

    A window's cost is taken as its width (the linear layers dominate up to 384 tokens), and the workers'
    finish as that of the greedy schedule the executor follows: each takes the next window when it is free.
    """
    if workers < 2 or len(batch) < 2:
        return False
    widths = [window_width(batch, w) for w in longest_first(batch)]
    loads = [0] * workers
    for width in widths:
        loads[loads.index(min(loads))] += width
    return max(loads) < sum(widths) / speedup


def run_unpadded(infer: Callable[[Batch], Logits], batch: Batch, mapper: Mapper = map) -> Logits:
    """``infer`` on each window alone, longest first, through ``mapper`` (the builtin ``map``: one after
    another; an executor's: concurrently); the logits in ``batch``'s layout, as one padded run gives them."""
    if len(batch) == 1 and batch.input_ids.shape[1] == window_width(batch, 0):  # nothing to take away
        return infer(batch)
    windows = window_batches(batch)
    order = longest_first(batch)
    parts: list[Logits | None] = [None] * len(batch)
    for w, out in zip(order, mapper(infer, [windows[w] for w in order]), strict=True):
        parts[w] = out
    return gather(batch, parts)
