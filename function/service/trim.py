"""Memory back to the system once a burst of concurrent requests is over.

Each model run's activations are malloc'd and freed (ONNX Runtime's own arena is off), and glibc keeps what
concurrent runs freed in their threads' malloc arenas: after a burst of overlapping requests the process holds
about 100-150 MB more than it needs alone (docs/benchmarks.md, "Against the ONNX-pipeline peer"). Making glibc
hand every free back (``MALLOC_TRIM_THRESHOLD_``, ``MALLOC_MMAP_THRESHOLD_``) halves requests/s; one
``malloc_trim(0)`` when the burst is over costs about 10 ms of one core, off the request path, and the next run
refaults its buffers once (docs/benchmarks.md, "Against the ONNX-pipeline peer").

``BurstTrim`` counts the answer requests in flight: when the count falls back to zero after requests overlapped,
and no request starts within ``delay_s``, it trims, on a timer thread. Requests one at a time never trigger it
(their run reuses the same buffers), so sporadic questions pay nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

DELAY_S = 0.5


def malloc_trim() -> bool:
    """glibc's ``malloc_trim(0)``; False, and nothing done, where the C library has none (musl, macOS). Loaded on
    first use, on the timer's thread: nothing of it is on the cold start's path."""
    import ctypes

    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return False
    trim.argtypes = [ctypes.c_size_t]
    trim(0)
    return True


def _timer(delay_s: float, fn: Callable[[], None]) -> None:
    t = threading.Timer(delay_s, fn)
    t.daemon = True
    t.name = "memory-trim"
    t.start()


class BurstTrim:
    """``start``/``done`` around each answer request; ``trim`` (glibc's; never when not ``enabled``) runs ``delay_s``
    after the last request of a burst ends, unless another has started since. ``schedule(delay_s, fn)`` runs
    ``fn`` later (a timer thread; tests pass their own)."""

    def __init__(self, enabled: bool = True, trim: Callable[[], object] = malloc_trim, delay_s: float = DELAY_S,
                 schedule: Callable[[float, Callable[[], None]], None] = _timer):
        self._trim = trim if enabled else None
        self._delay_s = delay_s
        self._schedule = schedule
        self._lock = threading.Lock()
        self._in_flight = 0
        self._overlapped = False  # requests ran at once since the last trim
        self._started = 0  # requests started, so that a timer knows whether one came in meanwhile
        self._pending = False  # a timer is waiting: one at a time, however often the count touches zero
        self.trims = 0

    def start(self) -> None:
        with self._lock:
            if self._in_flight:
                self._overlapped = True
            self._in_flight += 1
            self._started += 1

    def done(self) -> None:
        with self._lock:
            self._in_flight -= 1
            due = self._trim is not None and self._in_flight == 0 and self._overlapped and not self._pending
            if due:
                self._pending = True
            started = self._started
        if due:
            self._schedule(self._delay_s, lambda: self._fire(started))

    def _fire(self, started: int) -> None:
        with self._lock:
            if self._in_flight:  # a request is under way: its end schedules the next timer
                self._pending = False
                return
            if self._started != started:  # requests came and went meanwhile: wait a quiet delay after them
                started = self._started
                again = True
            else:
                self._pending = self._overlapped = again = False
                self.trims += 1
        if again:
            self._schedule(self._delay_s, lambda: self._fire(started))
        else:
            self._trim()
