"""Caches: a thread-safe LRU bounded by entries and/or bytes, and the two-tier answer cache."""

from __future__ import annotations

import hashlib
import json
import threading
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import TYPE_CHECKING

from function.service import background
from function.store import ops

if TYPE_CHECKING:
    from function.store.base import AnswerStore


class LRU:
    """Least-recently-used map bounded by ``max_entries`` and/or ``max_bytes``."""

    def __init__(self, max_entries: int | None = None, max_bytes: int | None = None,
                 sizeof: Callable[[object], int] = lambda v: 0):
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._sizeof = sizeof
        self._data: OrderedDict[Hashable, tuple[object, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.bytes = 0

    def get(self, key: Hashable):
        with self._lock:
            item = self._data.get(key)
            if item is None:
                return None
            self._data.move_to_end(key)
            return item[0]

    def put(self, key: Hashable, value: object) -> None:
        size = self._sizeof(value)
        if self.max_bytes is not None and size > self.max_bytes:
            return  # would evict everything else and still not fit
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            self._data[key] = (value, size)
            self.bytes += size
            while self._data and (
                (self.max_entries is not None and len(self._data) > self.max_entries)
                or (self.max_bytes is not None and self.bytes > self.max_bytes)
            ):
                _, (_, evicted) = self._data.popitem(last=False)
                self.bytes -= evicted

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.bytes = 0


def normalize_question(question: str, lowercase: bool) -> str:
    """NFC, collapsed white space and, for an uncased model, lower case: same model input, same key."""
    text = " ".join(unicodedata.normalize("NFC", question).split())
    return text.lower() if lowercase else text


# The reply's shape: bumped when a reply gains or changes fields (2: no_answer, document_id, source; 3: each
# answer's snippet), so that answers cached in the shared tier by an older revision are not served with the old shape.
REPLY_VERSION = 3
# How answers are chosen and cut from the model's scores (``function.model.reader``) and which passages a question
# alone reads: bumped when the same model and store can give another answer (2: ranked by the question's words in
# their sentence, a dotted name or shell command whole, a term without its description, a file question's path; 3: an
# answer that is the question's own words gives way; 4: a returned call whole, and no retrieved passage that repeats a
# better-ranked one's text; 5: an answer within its table cell; 6: a question's names held by a passage as words, and
# every passage read at once where another holds more of them; 7: a question that asks to choose answers with an
# alternative its passage writes, and reads every passage at once; 8: a question for a kind of name lifts the name
# whose words it writes; 9: a name's word that says its kind leaves its words; 10: a question alone's answers ranked
# by their sentences' meaning too; 11: that only in passages of one paragraph of prose; 12: and only in the choice of
# passage; 13: the default rules of 2026-12-05, and a choice's or a return question's answer from the passage read
# that gives one; 14: the four entry rules of 2026-12-06 (16fc201 named this bump but did not make it); 15: a
# default question's subject written as a name is not its answer, a name cut at its inner underscore whole; 16: a
# member without the owner the question names, a kind of name is no file's name; 17: a how question's way lifted;
# 18: what is called is not what is passed to it; 19: a type word in what an entry question says is not asked; 20:
# the kind asked is a compound's last noun; 21: a return question's other wordings, a sentinel no default; 22: no
# stray closing bracket, no quote or bracket alone; 23: the passage chosen by the answer most spans agree on; 24: the
# code lift's own size within one passage; 25: a return question searched by its field label too; 26: a return
# question's span under its entry's "Returns:" label first; 27: a parameter's type from its numpydoc line; 28: a
# return question's passage chosen by its entry's Returns section; 29: a parameter's type from Sphinx's field list
# line too; 30: a passage titled with the "Returns" label it starts under read as under it; 31: a parameter,
# option or member question's passage chosen by the entry it names; 32: a default question's too; 33: the cascade
# reads on where another passage is the entry named; 34: a definition's weight 6; 35: 48 candidate spans ranked,
# not 16; 36: a how question's way the colon of its purpose introduces; 37: every prompt ingestion knows read before
# that way; 38: a declaration's name, not its keywords; 39: nor a typed declaration's type; 40: a declaration's line an
# API entry; 41: Sphinx's "property" and "awaitable" declaration keywords; 42: C's and C++'s; 43: a name, its
# parameters and an arrow, and a parameter under it; 44: a question's "maps:find" asks what "find" returns; 45: what a
# signature returns, under it, is not the function; 46: YARD's "#name(...) ⇒ Type"; 47: "Mock#expects" and "⇒" read
# for a return value; 48: QDoc's C++ members, "bool QTimer::isActive() const"; 49: a declaration described after a
# blank line an API entry), so that a deploy does not serve answers an older revision cached in the shared tier.
DECODING_VERSION = 49


def answer_key(artifact_hash: str, question: str, source: dict, params: dict) -> str:
    """sha256 of everything that decides the answer (the decoding's version, ``DECODING_VERSION``, too) and of the
    reply's shape (``REPLY_VERSION``).

    ``source`` is ``{"passage_ids": sorted ids}`` or ``{"context_sha256": ...}``.
    """
    blob = json.dumps({"a": artifact_hash, "q": question, "s": source, "p": params, "v": REPLY_VERSION,
                       "d": DECODING_VERSION},
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


class CorpusGeneration:
    """The store's corpus generation (``PassageStore.generation``) as this instance last read it.

    The answer cache's keys for stored passages include it, and the passage cache's keys too: the store
    replaces it in the same transaction or batch as every passage write and deletion, so an ingestion that
    changes passages makes whatever was cached before it unreachable, in this process and in the shared
    tier, on every instance. Reading it is a store round trip (a Firestore read), so a value is used for
    ``max_age_s`` after its read began: an instance serves answers cached before an ingestion for at most
    ``max_age_s`` after the ingestion's write is committed; with 0 every request reads it. While a value is
    read, the requests that need a fresh one wait for that read rather than start their own, and share its
    outcome: a store that fails fails them all at once, not one after the other. ``on_change`` runs when a
    read finds a value other than the last one, before any request is given the new value.
    """

    def __init__(self, read: Callable[[], str], max_age_s: float, on_change: Callable[[], None] = lambda: None,
                 clock: Callable[[], float] = time.monotonic):
        self._read, self.max_age_s, self._on_change, self._clock = read, max_age_s, on_change, clock
        self._lock = threading.Lock()
        self._value: str | None = None
        self._read_at = float("-inf")
        self._reading: Future | None = None

    def current(self) -> str:
        """The generation: the one in hand while it is younger than ``max_age_s``, else read now."""
        with self._lock:
            if self._value is not None and self._clock() - self._read_at < self.max_age_s:
                return self._value
            reading, leads = self._reading, self._reading is None or self.max_age_s <= 0
            if leads:
                reading = Future()
                if self.max_age_s > 0:
                    self._reading = reading
        if not leads:
            return reading.result()
        started = self._clock()
        try:
            value = self._read()
            with self._lock:
                if self._value is not None and value != self._value:
                    self._on_change()
                if started >= self._read_at:  # a read begun later may have finished first
                    self._value, self._read_at = value, started
            reading.set_result(value)
        except BaseException as e:
            reading.set_exception(e)
            raise
        finally:
            with self._lock:
                if self._reading is reading:
                    self._reading = None
        return value


class AnswerCache:
    """In-process LRU first, then the store's shared cache (Firestore ``answers``) if given.

    Shared-tier failures never fail a request: a read error is a miss, and
    writes happen on a background thread. After a failure the shared tier is
    left alone for ``SHARED_PAUSE_S``: while the store hangs, a request with a
    ``context`` would otherwise wait out the store's deadline on every cache read.
    """

    SHARED_PAUSE_S = 5.0

    def __init__(self, entries: int, ttl_s: int, shared: AnswerStore | None = None,
                 on_error: Callable[[str], None] | None = None):
        self.local = LRU(max_entries=entries)
        self.ttl_s = ttl_s
        self.shared = shared
        self._on_error = on_error or (lambda message: None)
        self._shared_paused_until = float("-inf")

    def _shared_up(self) -> bool:
        return self.shared is not None and time.monotonic() >= self._shared_paused_until

    def _shared_failed(self, what: str, error: Exception) -> None:
        self._shared_paused_until = time.monotonic() + self.SHARED_PAUSE_S
        self._on_error(f"shared answer cache {what} failed: {error}; not used for {self.SHARED_PAUSE_S:.0f} s")

    def get(self, key: str, shared: bool = True) -> tuple[dict | None, str | None]:
        """(payload, tier) where tier is "local", "shared" or None on a miss; ``shared``: also ask the shared tier."""
        hit = self.local.get(key)
        if hit is not None:
            return hit, "local"
        if shared and self._shared_up():
            try:
                hit = self.shared.get_answer(key)
            except Exception as e:  # noqa: BLE001 - a cache must not fail the request
                self._shared_failed("read", e)
                hit = None
            if hit is not None:
                self.local.put(key, hit)
                return hit, "shared"
        return None, None

    def put(self, key: str, payload: dict, shared: bool = True) -> None:
        self.local.put(key, payload)
        if shared and self._shared_up():
            finished = ops.in_background()  # counted before the thread starts: no reader of the totals sees a gap
            background.start(self._put_shared, key, payload, finished, name="shared-cache-write")

    def _put_shared(self, key: str, payload: dict, finished: Callable[[], None]) -> None:
        try:
            self.shared.put_answer(key, payload, time.time() + self.ttl_s)
        except Exception as e:  # noqa: BLE001
            self._shared_failed("write", e)
        finally:
            finished()
