"""Billable Firestore operations, counted where the store makes them (the cost model reads them).

Firestore (Standard edition) bills per document: a read for every document a
``get_all`` asks for (this project asks only for documents it expects to
exist; a missing one is counted too, as an upper bound) or a query returns (at
least one per query), a read per 1,000 index entries of a ``count()``, a write
per document set, a delete per document deleted. ``FirestoreStore`` and its
``TermIndex`` call ``add`` at each call; two tallies receive it:

- the request's own (``counting()`` starts one per request: the request log
  line's ``store_ops``), for what the request's thread does;
- the process's running totals (``totals()``), for everything, including the
  shared answer cache's write, which runs on a thread of its own after the
  reply (the cost benchmark reads these around a batch of one kind of request: docs/cost.md).

Work that runs after the reply (``in_background``) is counted while it runs
(``in_flight``), so that a reader of the totals knows when they are final.
"""

from __future__ import annotations

import contextvars
import math
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass


@dataclass
class Ops:
    reads: int = 0
    writes: int = 0
    deletes: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


_request: contextvars.ContextVar[Ops | None] = contextvars.ContextVar("store_ops", default=None)
_totals = Ops()
_lock = threading.Lock()
_in_flight = 0


def counting() -> Ops:
    """A new tally for this request (this thread's context); what the store does from here on adds to it."""
    ops = Ops()
    _request.set(ops)
    return ops


def add(reads: int = 0, writes: int = 0, deletes: int = 0) -> None:
    ops = _request.get()
    with _lock:
        for tally in (_totals, ops) if ops is not None else (_totals,):
            tally.reads += reads
            tally.writes += writes
            tally.deletes += deletes


def count_reads(index_entries: int) -> int:
    """Reads billed for a ``count()`` aggregation over ``index_entries`` entries: one per 1,000, at least one."""
    return max(1, math.ceil(index_entries / 1000))


def totals() -> Ops:
    """The process's operations so far (a copy)."""
    with _lock:
        return Ops(_totals.reads, _totals.writes, _totals.deletes)


def in_background() -> Callable[[], None]:
    """Counts a piece of store work that will run on a thread of its own, after the reply, from now until the
    function returned is called (once, when the work ends, failed or not)."""
    global _in_flight
    with _lock:
        _in_flight += 1

    def finished() -> None:
        global _in_flight
        with _lock:
            _in_flight -= 1

    return finished


def in_flight() -> int:
    """How many pieces of background store work are running: the totals are final when it is 0."""
    with _lock:
        return _in_flight
