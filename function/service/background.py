"""Work a request or the warm-up starts beside itself, finished before the process exits.

Such work runs in daemon threads (a hung connection must not keep a stopping instance alive for ever), and a daemon
thread still inside native code when the interpreter finalises takes the process down: opening the Lance index or
loading an ONNX Runtime session as it exits aborted it ("FATAL: exception not rethrown", SIGABRT, once in 190 exits
on a loaded machine), and a shared-cache write still under way was lost. An ``atexit`` hook, which runs before
daemon threads are stopped, waits for the work still running, ``EXIT_WAIT_S`` at most in all.
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Callable

EXIT_WAIT_S = 30.0

_live: set[threading.Thread] = set()
_lock = threading.Lock()


def start(target: Callable[..., object], *args, name: str) -> threading.Thread:
    """Run ``target(*args)`` in a daemon thread that the process waits for at exit."""

    def run() -> None:
        try:
            target(*args)
        finally:
            with _lock:
                _live.discard(threading.current_thread())

    thread = threading.Thread(target=run, name=name, daemon=True)
    with _lock:
        _live.add(thread)
    thread.start()
    return thread


@atexit.register
def finish(wait_s: float | None = None) -> None:
    """Wait for the work still running (``EXIT_WAIT_S`` in all, or ``wait_s``)."""
    deadline = time.monotonic() + (EXIT_WAIT_S if wait_s is None else wait_s)
    with _lock:
        running = list(_live)
    for thread in running:
        thread.join(max(0.0, deadline - time.monotonic()))
