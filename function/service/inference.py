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
  are oversubscribed only while a wide run and narrow ones overlap. Costs a
  second session (the weights twice).

``Inference.run`` returns the logits and the time the request waited before
its run started (``queue``, its own stage in the reply's timings).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from function.config import Settings

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
    def __init__(self, settings: Settings, cpus: int):
        self.mode = settings.inference_mode
        self.runs_at_a_time = settings.model_runs(cpus)
        self.threads = settings.run_threads(cpus)
        self.sessions = self.runs_at_a_time if self.mode == "pool" else 1
        self.slots = threading.BoundedSemaphore(self.runs_at_a_time)
        self._settings = settings
        self._batcher: MicroBatcher | None = None
        self._lock = threading.Lock()
        self._narrow = None  # adaptive: the 1-thread session for runs beside another
        self._active = 0  # adaptive: runs in progress
        self.wide_runs = self.narrow_runs = 0

    def describe(self) -> dict:
        return {"mode": self.mode, "runs_at_a_time": self.runs_at_a_time, "threads_per_run": self.threads,
                "sessions": self.sessions + (self.mode == "adaptive" and self.runs_at_a_time > 1)}

    def prepare(self, model: Model) -> dict:
        """What a mode needs beyond the model's own session (adaptive: the 1-thread one); its timings."""
        if self.mode != "adaptive" or self.runs_at_a_time == 1:  # one run at a time: always the wide one
            return {}
        from function.model.onnx_model import OnnxQAModel

        t0 = time.perf_counter()
        self._narrow = OnnxQAModel(model.manifest.model_path, 1, optimized=model.manifest.graph_optimized)
        return {"narrow_model_ms": round((time.perf_counter() - t0) * 1000, 1)}

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
                start, end = model.infer(batch)
            else:
                start, end = self._adaptive(model, batch)
        return Ran(start, end, queue_ms)

    def _adaptive(self, model: Model, batch: Batch) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            alone = self._active == 0 or self._narrow is None
            self._active += 1
            if alone:
                self.wide_runs += 1
            else:
                self.narrow_runs += 1
        try:
            return (model.infer if alone else self._narrow)(batch)
        finally:
            with self._lock:
                self._active -= 1
