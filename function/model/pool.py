"""Several ONNX Runtime sessions of one model, each run by one request at a time (``QA_INFERENCE_MODE=pool``).

One session already accepts concurrent ``run`` calls (``parallel`` mode); a
pool gives each concurrent run a session of its own instead, so runs share
no session state, at the price of one copy of the weights per session
(ONNX Runtime shares nothing between sessions).
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Sequence

import numpy as np

from function.model.windows import Batch


class SessionPool:
    """Callable like one session: ``pool(batch)`` runs it on a free session, waiting for one if none is."""

    def __init__(self, sessions: Sequence[Callable[[Batch], tuple[np.ndarray, np.ndarray]]]):
        if not sessions:
            raise ValueError("a pool needs at least one session")
        self.sessions = list(sessions)
        self._free: queue.SimpleQueue = queue.SimpleQueue()
        for s in self.sessions:
            self._free.put(s)

    @property
    def input_names(self) -> list[str]:
        return self.sessions[0].input_names

    def __len__(self) -> int:
        return len(self.sessions)

    def __call__(self, batch: Batch) -> tuple[np.ndarray, np.ndarray]:
        session = self._free.get()
        try:
            return session(batch)
        finally:
            self._free.put(session)
