"""Ingestion progress: a bar on a terminal, plain periodic lines in logs and CI, and the final counts.

The bar is ``tqdm``'s (MPL-2.0/MIT; in requirements-ingest.txt). It is drawn only
when stderr is a terminal: a Cloud Run job's or CI's log would otherwise fill with
carriage-return redraws, so there a plain line is printed at most every
``interval_s`` seconds instead. tqdm is imported only for the bar, so ingestion
runs without it (the serving image, which the ingestion job may use, lacks it).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import TextIO


@dataclass
class Counts:
    documents: int = 0  # new or changed documents written
    passages: int = 0  # passages written
    skipped: int = 0  # unchanged documents, not rewritten
    deleted: int = 0  # documents deleted (--delete, --sync)
    failed: int = 0  # files or records that could not be ingested
    started: float = field(default_factory=time.perf_counter)

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started

    @property
    def rate(self) -> float:
        return self.passages / max(self.seconds, 1e-9)

    def summary(self) -> str:
        return (f"{self.documents} documents written ({self.passages} passages), {self.skipped} unchanged "
                f"skipped, {self.deleted} deleted, {self.failed} failed; {self.seconds:.1f} s, "
                f"{self.rate:.0f} passages/s")


class Progress:
    """Reports files done out of ``total`` with the running counts; ``note`` prints a line between updates."""

    def __init__(self, total: int, counts: Counts, quiet: bool = False, stream: TextIO | None = None,
                 interval_s: float = 10.0, bar: bool | None = None):
        self.total, self.counts, self.quiet = total, counts, quiet
        self.stream = stream or sys.stderr
        self.interval_s = interval_s
        self.done = 0
        self._last = time.monotonic()
        self._bar = None
        if bar is None:
            bar = not quiet and hasattr(self.stream, "isatty") and self.stream.isatty()
        if bar:
            try:
                from tqdm import tqdm
            except ImportError:  # the serving image: plain lines
                tqdm = None
            if tqdm is not None:
                self._bar = tqdm(total=total, unit="file", file=self.stream, dynamic_ncols=True, leave=False)

    def note(self, message: str) -> None:
        """A line that is always shown (failures), above the bar if there is one."""
        if self._bar is not None:
            self._bar.write(message, file=self.stream)
        else:
            print(message, file=self.stream, flush=True)

    def advance(self, files: int = 1) -> None:
        self.done += files
        c = self.counts
        if self._bar is not None:
            self._bar.set_postfix_str(f"{c.documents} docs, {c.passages} passages, {c.skipped} skipped, "
                                      f"{c.failed} failed", refresh=False)
            self._bar.update(files)
        elif not self.quiet and time.monotonic() - self._last >= self.interval_s:
            self._last = time.monotonic()
            print(f"progress: {self.done}/{self.total} files; {c.summary()}", file=self.stream, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
