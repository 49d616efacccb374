"""Micro-batching: requests that arrive while a model run is in progress go into the next run together.

Each request hands its own ``Batch`` (all its windows) to ``MicroBatcher.run``
and blocks. There is no worker thread: a request that finds no run in
progress becomes the *leader*, takes the waiting requests (its own among
them, oldest first), runs the model once on their windows stacked into one
batch (``concat_batches``), hands each request its own rows of the logits
and wakes them. A request whose windows did not fit waits for the next
leader, which may be itself.

- Bounded batch: at most ``max_windows`` windows per run; the oldest waiting
  request is always taken, so a request with more windows than that runs
  alone, and none waits forever.
- Similar lengths together: a run is padded to its widest window, so a
  request is only added when its width is within ``width_ratio`` of the
  oldest request's; the others wait for a run of their own width.
- Bounded wait: with ``wait_ms`` > 0 the leader waits up to that long for
  more requests before it runs (less if the batch fills up); with 0 it takes
  only the requests already waiting, so a lone request starts at once.
- Errors: an exception in the run reaches every request of that run (each
  re-raises it) and none of the later runs.
- Timings: ``Outcome.queue_ms`` is the time from ``run`` to the start of the
  request's model run (the wait behind other runs, and the bounded wait);
  ``run_ms`` the model run itself; ``batch_windows`` / ``batch_requests`` the
  size of the run it went into.

Requests of different questions stack fine: each keeps its own rows and its
own ``Batch`` (``context_start`` depends on the question's length), and only
the sequence axis is padded, with the pad token and a zero attention mask,
as ``build_batch`` pads windows shorter than a request's longest. With a
float model a request's logits on its own positions are those of a run of
its own, up to rounding (tests/test_batcher.py). Not so with an int8 model
quantised dynamically, as the shipped one is (``DynamicQuantizeLinear``,
``DynamicQuantizeMatMul``): the activations' scale is computed over the whole
run, so a request's logits depend on the requests batched with it. The 208
sample questions, batched 8 at a time, moved by up to 2.1 in a logit and 27
of them got another best answer than alone: a reason, besides its small gain
on CPUs (docs/benchmarks.md#throughput-under-concurrency), that ``batch`` is
not the default.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from function.model.windows import Batch

Logits = tuple[np.ndarray, np.ndarray]


def concat_batches(batches: Sequence[Batch], pad_id: int) -> tuple[Batch, list[slice]]:
    """The windows of every batch stacked in one, padded on the sequence axis to the widest; each batch's rows.

    The result's ``passage_index``, ``token_start`` and ``context_len`` are
    the stacked rows' own, and its ``context_start`` is the first batch's: it
    is a model input only; decode each request with its own ``Batch`` and its
    rows of the logits cut to its own width (``split_logits``).
    """
    if not batches:
        raise ValueError("no batches to stack")
    width = max(b.input_ids.shape[1] for b in batches)
    rows = sum(len(b) for b in batches)

    def stacked(name: str, fill: int) -> np.ndarray:
        out = np.full((rows, width), fill, dtype=np.int64)
        r = 0
        for b in batches:
            part = getattr(b, name)
            out[r : r + len(b), : part.shape[1]] = part
            r += len(b)
        return out

    slices, r = [], 0
    for b in batches:
        slices.append(slice(r, r + len(b)))
        r += len(b)
    return Batch(
        input_ids=stacked("input_ids", pad_id),
        attention_mask=stacked("attention_mask", 0),
        token_type_ids=stacked("token_type_ids", 0),
        passage_index=np.concatenate([b.passage_index for b in batches]),
        token_start=np.concatenate([b.token_start for b in batches]),
        context_len=np.concatenate([b.context_len for b in batches]),
        context_start=batches[0].context_start,
    ), slices


def split_logits(start: np.ndarray, end: np.ndarray, batches: Sequence[Batch],
                 slices: Sequence[slice]) -> list[Logits]:
    """Each batch's own rows of a stacked run's logits, cut to its own width (copies: nothing shared)."""
    out = []
    for b, rows in zip(batches, slices, strict=True):
        w = b.input_ids.shape[1]
        out.append((start[rows, :w].copy(), end[rows, :w].copy()))
    return out


@dataclass
class Outcome:
    """One request's part of a run."""

    start_logits: np.ndarray
    end_logits: np.ndarray
    queue_ms: float
    run_ms: float
    batch_windows: int
    batch_requests: int


@dataclass
class _Job:
    batch: Batch
    submitted: float = field(default_factory=time.perf_counter)
    done: bool = False
    started: float = 0.0
    logits: Logits | None = None
    error: BaseException | None = None
    run_ms: float = 0.0
    batch_windows: int = 0
    batch_requests: int = 0

    @property
    def width(self) -> int:
        return int(self.batch.input_ids.shape[1])


class MicroBatcher:
    """``run(batch)`` -> this request's logits from a model run shared with the requests waiting with it."""

    def __init__(self, infer: Callable[[Batch], Logits], pad_id: int, max_windows: int = 64,
                 wait_ms: float = 0.0, width_ratio: float = 1.5):
        if max_windows < 1 or wait_ms < 0 or width_ratio < 1:
            raise ValueError("max_windows must be >= 1, wait_ms >= 0 and width_ratio >= 1")
        self.infer = infer
        self.pad_id = pad_id
        self.max_windows = max_windows
        self.wait_s = wait_ms / 1000
        self.width_ratio = width_ratio
        self._cond = threading.Condition()
        self._waiting: list[_Job] = []
        self._busy = False
        self.runs = 0  # model runs so far (for tests and benchmarks)

    def run(self, batch: Batch) -> Outcome:
        job = _Job(batch)
        with self._cond:
            self._waiting.append(job)
            self._cond.notify_all()  # a leader in its bounded wait may want it
            while True:
                while self._busy and not job.done:
                    self._cond.wait()
                if job.done:
                    break
                self._busy = True  # this request leads the next run
                try:
                    self._lead()
                finally:
                    self._busy = False
                    self._cond.notify_all()
        if job.error is not None:
            raise job.error
        start, end = job.logits
        return Outcome(start, end, round((job.started - job.submitted) * 1000, 3), job.run_ms,
                       job.batch_windows, job.batch_requests)

    def _windows(self, jobs: list[_Job]) -> int:
        return sum(len(j.batch) for j in jobs)

    def _take(self) -> list[_Job]:
        """The oldest waiting request and those after it of a similar width, while they fit (lock held)."""
        head = self._waiting[0]
        low, high = head.width / self.width_ratio, head.width * self.width_ratio
        taken, windows = [head], len(head.batch)
        for j in self._waiting[1:]:
            if low <= j.width <= high and windows + len(j.batch) <= self.max_windows:
                taken.append(j)
                windows += len(j.batch)
        return taken

    def _lead(self) -> None:
        """Collect (bounded wait), then run once outside the lock and hand out the results (lock held)."""
        if self.wait_s > 0:
            deadline = time.perf_counter() + self.wait_s
            while self._windows(self._take()) < self.max_windows:
                left = deadline - time.perf_counter()
                if left <= 0:
                    break
                self._cond.wait(left)
        jobs = self._take()
        taken = {id(j) for j in jobs}
        self._waiting = [j for j in self._waiting if id(j) not in taken]
        batches = [j.batch for j in jobs]
        self._cond.release()
        t0 = time.perf_counter()
        try:
            try:
                if len(batches) == 1:
                    start, end = self.infer(batches[0])
                    parts = [(start, end)]
                else:
                    stacked, slices = concat_batches(batches, self.pad_id)
                    start, end = self.infer(stacked)
                    parts = split_logits(start, end, batches, slices)
                error = None
            except Exception as e:  # noqa: BLE001 - handed to every request of this run
                parts, error = [None] * len(jobs), e
            run_ms = round((time.perf_counter() - t0) * 1000, 3)
        finally:
            self._cond.acquire()
        self.runs += 1
        windows = self._windows(jobs)
        for j, logits in zip(jobs, parts, strict=True):
            j.started, j.run_ms, j.logits, j.error = t0, run_ms, logits, error
            j.batch_windows, j.batch_requests, j.done = windows, len(jobs), True
