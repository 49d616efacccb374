"""How a request's model run shares the CPUs with the others' (``QA_INFERENCE_MODE``).

- ``serial``: one run at a time (``QA_INFERENCE_CONCURRENCY``
  slots, 1 unless set) with every CPU as ONNX Runtime intra-op threads.
- ``batch``: requests waiting for the model go into one run together
  (``function.service.batcher``).
- ``parallel``: as many runs at a time as CPUs, each on 1 intra-op thread,
  all on one session (ONNX Runtime's ``run`` is thread-safe; the weights are
  held once).
- ``pool``: as ``parallel``, with a session per run (``function.model.pool``).
- ``adaptive`` (the default): a request that finds no other run in progress runs as in
  ``serial`` (the session with every CPU), so a lone request is as fast as
  today; one that arrives while others run goes on a second session with 1
  intra-op thread, as in ``parallel`` (up to one run per CPU in all). The CPUs
  are oversubscribed only while a wide run and narrow ones overlap. The second
  session (the weights twice, about 25-37 MB) is loaded in the background the
  first time a run beside another wants it; until then such runs go on the
  wide session, as they always do with ``QA_SECOND_SESSION=0`` (its ``run`` is
  thread-safe; concurrent runs share its intra-op threads). An instance that
  never serves two requests at once never loads it.

Whatever the mode, a request's windows run each at its own length, not padded
to its longest (``function.model.unpadded``): one after another on the
session its run was given. With ``QA_SPREAD_WINDOWS=1``, a request that runs
alone in ``adaptive`` mode spreads its windows over the cores, one per core,
each on the wide session, where ``unpadded.spreads`` predicts that finishes
sooner; off by default: measured quietly on one session, one after another
with every CPU was faster (docs/benchmarks.md#windows-without-padding; the
earlier measurements that chose spreading ran beside a training job, where
more threads win a larger share of the CPUs). ``batch`` mode still stacks whole
requests into one padded run. ``padded=True`` runs each request's windows as
one padded batch instead, as before: for measuring against it.

``Inference.run`` returns the logits and the time the request waited before
its run started (``queue``, its own stage in the reply's timings).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from function.config import Settings
from function.service import background

# One window on n intra-op threads is taken to run about n times this as fast as on one: what ``unpadded.spreads``
# weighs a spread against. Measured quietly on 2 CPUs: 1.84-1.91x for 128-384 tokens (0.92-0.95), but spreading a
# lone question's 5 windows over the wide session beat running them one after another by more than that predicts
# (49.8 against 65.7 ms p50, docs/benchmarks.md#one-session-or-two) beside a training job, so the lower value,
# which spreads more often, stays for QA_SPREAD_WINDOWS=1 (off by default: quietly, on one session, one after
# another was faster).
INTRA_OP_EFFICIENCY = 0.85

if TYPE_CHECKING:
    import numpy as np

    from function.model.load import Model
    from function.model.windows import Batch
    from function.service.batcher import MicroBatcher


@dataclass
class Ran:
    start_logits: np.ndarray
    end_logits: np.ndarray
    queue_ms: float  # waiting for a slot, or for the run the request went into


class Inference:
    def __init__(self, settings: Settings, cpus: int, padded: bool = False):
        self.mode = settings.inference_mode
        self.padded = padded  # each request's windows as one padded run (as before unpadded runs)
        self.spread_lone = settings.spread_windows  # adaptive: a lone request's windows across the cores
        self.runs_at_a_time = settings.model_runs(cpus)
        self.threads = settings.run_threads(cpus)
        self.sessions = self.runs_at_a_time if self.mode == "pool" else 1
        self.slots = threading.BoundedSemaphore(self.runs_at_a_time)
        self._settings = settings
        self._batcher: MicroBatcher | None = None
        self._lock = threading.Lock()
        self._narrow = None  # adaptive: the 1-thread session for runs beside another, once loaded (``_beside``)
        self._narrow_started = False  # adaptive: its background load began
        self.narrow_load_ms: float | None = None
        self._active = 0  # adaptive: runs in progress
        self._spread: ThreadPoolExecutor | None = None  # adaptive: a lone request's windows, one per core
        self.wide_runs = self.narrow_runs = self.spread_runs = 0

    def describe(self) -> dict:
        return {"mode": self.mode, "runs_at_a_time": self.runs_at_a_time, "threads_per_run": self.threads,
                "sessions": self.sessions + (self.narrow_load_ms is not None),
                "windows": "padded" if self.padded else "unpadded"}

    def _spreads(self, batch: Batch) -> bool:
        """Whether a lone request's windows go across the cores (``QA_SPREAD_WINDOWS``, where predicted sooner)."""
        from function.model.unpadded import spreads

        return self.spread_lone and spreads(batch, self.threads, max(1.0, self.threads * INTRA_OP_EFFICIENCY))

    def _second_session(self) -> bool:
        return self.mode == "adaptive" and self.runs_at_a_time > 1 and self._settings.second_session

    def _beside(self, model: Model):
        """The session for a run beside another (call with ``_lock`` held): the 1-thread one once loaded, its load
        started in the background the first time it is wanted; the model's own until then, or always with
        ``QA_SECOND_SESSION=0``."""
        if self._narrow is None and not self._narrow_started and self._second_session():
            self._narrow_started = True
            background.start(self._load_narrow, model, name="second-session")
        return self._narrow if self._narrow is not None else model.infer

    def _load_narrow(self, model: Model) -> None:
        from function.logs import log
        from function.model.onnx_model import OnnxQAModel

        t0 = time.perf_counter()
        try:
            narrow = OnnxQAModel(model.manifest.model_path, 1, optimized=model.manifest.graph_optimized)
        except Exception as e:  # noqa: BLE001 - onnxruntime raises its own types; the wide session serves on
            log("WARNING", "second session not loaded: runs beside another stay on the model's own session",
                error=f"{type(e).__name__}: {str(e)[:300]}")
            return
        self.narrow_load_ms = round((time.perf_counter() - t0) * 1000, 1)
        self._narrow = narrow
        log("INFO", "second session loaded", narrow_model_ms=self.narrow_load_ms)

    def batcher(self, model: Model) -> MicroBatcher:
        if self._batcher is None:
            with self._lock:
                if self._batcher is None:
                    from function.service.batcher import MicroBatcher

                    s = self._settings
                    self._batcher = MicroBatcher(model.infer, model.spec.pad_id, s.batch_max_windows,
                                                 s.batch_wait_ms)
        return self._batcher

    def run(self, model: Model, batch: Batch) -> Ran:
        if self.mode == "batch":
            out = self.batcher(model).run(batch)
            return Ran(out.start_logits, out.end_logits, out.queue_ms)
        t0 = time.perf_counter()
        with self.slots:
            queue_ms = (time.perf_counter() - t0) * 1000
            if self.mode != "adaptive":
                start, end = self._windows(model.infer, batch)
            else:
                start, end = self._adaptive(model, batch)
        return Ran(start, end, queue_ms)

    def run_first(self, model: Model, batch: Batch, first: int,
                  settles: Callable[[np.ndarray, np.ndarray], bool]) -> tuple[Ran, bool]:
        """The cascade's run (``function.service.cascade``): the logits of the first ``first`` windows (the
        first passage's) and True where ``settles`` says that they settle the question, else every window's
        and False.

        A lone request whose windows spread over the cores (``adaptive``, ``QA_SPREAD_WINDOWS``) runs the others
        beside the first passage's from the start, the first passage's first, and drops those not yet begun once
        they settle it: a question the first passage does not settle then waits no longer than without the
        cascade (the window under way on another core when it stops is finished, unread). Otherwise the first
        passage's windows run, then the others' if need be.
        """
        if self.mode == "adaptive" and not self.padded and self.runs_at_a_time > 1:
            t0 = time.perf_counter()
            with self.slots:
                queue_ms = (time.perf_counter() - t0) * 1000
                with self._lock:
                    spread = self._active == 0 and self._spreads(batch)
                    if spread:
                        self._active += 1
                        self.spread_runs += 1
                if spread:
                    try:
                        return self._spread_first(model, batch, first, settles, queue_ms)
                    finally:
                        with self._lock:
                            self._active -= 1
        ran = self.run(model, batch.rows(slice(0, first)))
        if settles(ran.start_logits, ran.end_logits):
            return ran, True
        import numpy as np

        rest = self.run(model, batch.rows(slice(first, None)))
        return Ran(np.concatenate([ran.start_logits, rest.start_logits]),
                   np.concatenate([ran.end_logits, rest.end_logits]), ran.queue_ms + rest.queue_ms), False

    def _spread_first(self, model: Model, batch: Batch, first: int,
                      settles: Callable[[np.ndarray, np.ndarray], bool], queue_ms: float) -> tuple[Ran, bool]:
        """``run_first`` for a lone request spread over the cores: every window submitted, the first ``first``
        first (each group longest first), the rest cancelled where the first ones settle the question."""
        from function.model.unpadded import gather, longest_first, window_batches

        pool = self._pool()
        windows, order = window_batches(batch), longest_first(batch)
        futures = {w: pool.submit(model.infer, windows[w])
                   for w in [w for w in order if w < first] + [w for w in order if w >= first]}
        start, end = gather(batch.rows(slice(0, first)), [futures[w].result() for w in range(first)])
        if settles(start, end):
            for f in futures.values():
                f.cancel()
            return Ran(start, end, queue_ms), True
        start, end = gather(batch, [futures[w].result() for w in range(len(batch))])
        return Ran(start, end, queue_ms), False

    def _pool(self) -> ThreadPoolExecutor:
        """The workers a lone request's windows spread over: one per intra-op thread of its wide run."""
        if self._spread is None:
            with self._lock:
                if self._spread is None:
                    self._spread = ThreadPoolExecutor(self.threads, thread_name_prefix="window")
        return self._spread

    def _windows(self, infer, batch: Batch) -> tuple[np.ndarray, np.ndarray]:
        """The request's windows on ``infer``: one after another at their own lengths, or one padded run."""
        if self.padded:
            return infer(batch)
        from function.model.unpadded import run_unpadded

        return run_unpadded(infer, batch)

    def _adaptive(self, model: Model, batch: Batch) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            alone = self._active == 0 or self.runs_at_a_time == 1
            spread = alone and not self.padded and self.runs_at_a_time > 1 and self._spreads(batch)
            infer = model.infer if alone else self._beside(model)
            self._active += 1
            if spread:
                self.spread_runs += 1
            elif alone:
                self.wide_runs += 1
            else:
                self.narrow_runs += 1
        try:
            if spread:
                return self._spread_windows(model, batch)
            return self._windows(infer, batch)
        finally:
            with self._lock:
                self._active -= 1

    def _spread_windows(self, model: Model, batch: Batch) -> tuple[np.ndarray, np.ndarray]:
        """A lone request's windows across the cores its wide run would use: a worker per intra-op thread of that
        run, each running its window on the wide session (concurrent runs share its threads)."""
        from function.model.unpadded import run_unpadded

        return run_unpadded(model.infer, batch, self._pool().map)
