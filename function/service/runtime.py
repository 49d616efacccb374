"""Per-process state, created on first use behind a lock: the model (``function.model.load``), the store.

functions-framework serves one process with several threads, so the first
requests of a cold instance may arrive together; the lock makes exactly one
of them load while the others wait. The store client is set up on a second
thread while the model loads, so its import and set-up cost overlaps the
session creation instead of adding to it.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from function.config import Settings
from function.cpus import available_cpus
from function.errors import ArtifactError
from function.logs import log
from function.model.artifact import Manifest, load_manifest
from function.model.load import Model, load_model
from function.service import background
from function.service.inference import Inference

if TYPE_CHECKING:
    from function.retrieval.encoder import SentenceEncoder
    from function.retrieval.searcher import Searcher
    from function.store.base import Store

_UNSET = object()  # ``Runtime._encoder`` before stored cosines were decided


def process_age_ms() -> float | None:
    """Milliseconds since this process started (Linux /proc), None elsewhere."""
    try:
        with open("/proc/self/stat") as f:
            start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            uptime_s = float(f.read().split()[0])
        return round((uptime_s - start_ticks / os.sysconf("SC_CLK_TCK")) * 1000, 1)
    except (OSError, ValueError, IndexError):
        return None


@dataclass(frozen=True)
class ImportClock:
    """When the function module was imported, on a clock that survives fork.

    functions-framework imports the module in gunicorn's master process and
    then forks the worker, so the worker's own start time says nothing about
    how long ago the server started; CLOCK_MONOTONIC is system-wide.
    """

    process_age_ms: float | None  # age of the importing (master) process at import
    monotonic_s: float

    @classmethod
    def now(cls) -> ImportClock:
        return cls(process_age_ms(), time.monotonic())

    def since_process_start_ms(self) -> float | None:
        if self.process_age_ms is None:
            return None
        return round(self.process_age_ms + (time.monotonic() - self.monotonic_s) * 1000, 1)


_WARM_UP_ID = "connection-warm-up"  # any id: reading a missing document is enough


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 1)


class Runtime:
    """``create_store=False`` (the HTTP function, the evaluation command): a SQLite store that does not exist is
    a 503 saying to ingest first, for the requests that read it, until ingestion makes it; True (in-process
    benchmarks and tests that ingest through ``store()``): it is created empty, as ingestion creates it."""

    def __init__(self, settings: Settings, clock: ImportClock | None = None, create_store: bool = True):
        self.settings = settings
        self.clock = clock or ImportClock.now()
        self.create_store = create_store
        self._lock = threading.Lock()
        self._manifest: Manifest | None = None
        self._model: Model | None = None
        self._store: Store | None = None
        self._index = None  # the separate retrieval index, opened by the first question asked alone
        self._encoder = _UNSET  # stored cosines' sentence encoder (``passage_encoder``), decided on first use
        self._encoder_lock = threading.Lock()  # not ``_lock``: warm_up holds that while the model loads
        self.cold_start: dict | None = None
        self.load_error: str | None = None  # why the last eager load failed (for GET /ready)
        self.inference = Inference(settings, available_cpus())  # QA_INFERENCE_MODE: how runs share the CPUs

    # Cheap: the health endpoint uses this, never the model.
    def manifest(self) -> Manifest:
        if self._manifest is None:
            self._manifest = load_manifest(self.settings.artifact_dir)
        return self._manifest

    def manifest_summary(self) -> dict:
        """Name and hash for log lines; empty until the manifest has been read."""
        return self._manifest.summary() if self._manifest is not None else {}

    @property
    def model_loaded(self) -> bool:
        return self._model is not None

    def model(self) -> Model:
        if self._model is None:
            self.warm_up()
        return self._model

    def store(self) -> Store:
        if self._store is None:
            with self._lock:
                if self._store is None:
                    self._store = self._open_store()
        return self._store

    def searcher(self) -> Searcher:
        """What questions asked alone are searched in: the separate index (``QA_INDEX_URI``), else the one the
        store keeps beside its passages."""
        if self.settings.index_uri:
            if self._index is None:
                with self._lock:
                    if self._index is None:
                        from function.retrieval import open_index

                        self._index = open_index(self.settings)
            return self._index
        return self.store().index

    def passage_encoder(self) -> SentenceEncoder | None:
        """Stored cosines (``QA_INDEX_ENCODER`` without ``QA_INDEX_URI``): the sentence encoder that embedded the
        passages at ingestion and embeds the questions asked alone; None otherwise (a hybrid index embeds its own)."""
        if self._encoder is _UNSET:  # decided once (``retrieval.stored_encoder``), then read without the lock
            with self._encoder_lock:
                if self._encoder is _UNSET:
                    from function.retrieval import stored_encoder

                    self._encoder = stored_encoder(self.settings)
        return self._encoder

    def question_encoder(self) -> SentenceEncoder | None:
        """The sentence encoder that embeds a question asked alone: stored cosines' (``passage_encoder``) or the hybrid
        index's; None with BM25 alone."""
        return self.passage_encoder() or getattr(self._index, "encoder", None)

    def corpus_changed(self) -> None:
        """An ingestion changed the passages (``cache.CorpusGeneration``): the separate retrieval index, if
        open, looks for its newest version on its next search, not up to ``QA_INDEX_REFRESH_S`` later."""
        index = self._index
        if index is not None:
            index.corpus_changed()

    def _open_store(self) -> Store:
        from function.store import open_store

        return open_store(self.settings, create=self.create_store)

    @staticmethod
    def _warm_connection(store: Store) -> None:
        """One cheap read, so the first request does not pay for the channel and the auth token.

        Runs after the store client exists, on the set-up thread; the model load
        does not wait for it, so a slow or unreachable store delays nothing else.
        """
        t0 = time.perf_counter()
        try:
            store.get_many([_WARM_UP_ID])
            log("INFO", "store connection warmed", store_connect_ms=_ms(t0))
        except Exception as e:  # noqa: BLE001 - requests that need the store report it
            log("WARNING", f"store not reachable at start-up: {e}", store_connect_ms=_ms(t0))

    @staticmethod
    def _warm(step, done: str, failed: str, timing: str) -> None:
        """One start-up ``step`` off the request path, logged with its time (``timing``); if it fails, the
        questions that need it report it again."""
        t0 = time.perf_counter()
        try:
            step()
            log("INFO", done, **{timing: _ms(t0)})
        except Exception as e:  # noqa: BLE001 - questions asked alone report it
            log("WARNING", f"{failed}: {e}", **{timing: _ms(t0)})

    def _warm_index(self) -> None:
        """Import the separate retrieval index's engine and open its table, after the store's warm-up."""
        self._warm(lambda: self.searcher().warm(), "retrieval index opened", "retrieval index not readable at start-up",
                   "index_open_ms")

    def _warm_encoder(self) -> None:
        """Load stored cosines' sentence encoder at start-up: the first question alone does not pay for it."""
        self._warm(lambda: self.passage_encoder().load(), "sentence encoder loaded",
                   "sentence encoder not loadable at start-up", "encoder_load_ms")

    def warm_up(self) -> dict | None:
        """Load everything once; returns the cold-start timings (None if already loaded)."""
        with self._lock:
            if self._model is not None:
                return None
            started = time.perf_counter()
            store_result: dict = {}
            created = threading.Event()

            def set_up_store() -> None:
                t0 = time.perf_counter()
                store: Store | None = None
                try:
                    store = self._store or self._open_store()
                    self._store = store
                except Exception as e:  # noqa: BLE001 - reported, retried on next use
                    store_result["error"] = f"{type(e).__name__}: {e}"
                store_result["store_ms"] = _ms(t0)
                created.set()
                if store is not None:
                    self._warm_connection(store)
                if self.settings.index_uri and self.settings.eager_load:  # at worker start: no request waits
                    self._warm_index()
                elif self.passage_encoder() is not None:  # beside the model's load, not after it
                    self._warm_encoder()

            background.start(set_up_store, name="store-setup")
            try:
                model, timings = load_model(self.manifest(), self.inference.threads, self.inference.sessions)
            except ArtifactError as e:
                self.load_error = e.message  # for GET /ready, after a lazy load failed too
                raise
            finally:
                created.wait()
            self._model = model
            self.load_error = None
            timings["store_ms"] = store_result["store_ms"]
            if "error" in store_result:
                timings["store_error"] = store_result["error"]
            timings["load_ms"] = _ms(started)
            timings["import_ms"] = self.clock.process_age_ms
            # Lazy mode: includes the wait for the first request.
            timings["since_process_start_ms"] = self.clock.since_process_start_ms()
            self.cold_start = timings
            log("INFO", "cold start", cold_start_ms=timings, eager=self.settings.eager_load,
                inference=self.inference.describe(),
                **self.manifest_summary())
            return timings
