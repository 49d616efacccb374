"""HTTP entry point for functions-framework (target ``answer``).

Routes: ``POST /`` answers a question; ``GET /`` (also ``/healthz``,
``/health``) describes the deployment without loading the model; ``GET /ready``
is 200 only once the model is loaded (a startup probe for ``QA_EAGER_LOAD=1``); ``GET /ui`` is the
question page (``function.http.ui``) when ``QA_UI=1``, else a 404. On Cloud Run,
paths ending in ``z`` are reserved by the front end, so use ``GET /`` there.

Importing this module loads nothing heavy: onnxruntime, tokenizers, numpy and
the Firestore client are imported on the first request (or at import when
``QA_EAGER_LOAD=1``). Every response but the page is JSON; every error is
``{"error": {"code", "status", "message"}}`` and never carries a stack trace.
"""

from __future__ import annotations

import json
import os
import threading
import time
import traceback

from function.config import ConfigError, Settings
from function.errors import MethodNotAllowed, NotFound, QAError, Unavailable
from function.logs import clip, log, trace_field
from function.service import background
from function.service.runtime import ImportClock, Runtime
from function.store import ops

_IMPORTED = ImportClock.now()
# numpy's OpenBLAS starts a thread per CPU it sees (the affinity mask, not a
# container's CPU quota) when numpy is imported, for matrix products this
# function never asks numpy for: the model runs in ONNX Runtime's own thread
# pool, sized to the quota (function.cpus), and numpy only slices and takes
# maxima. Turning the pool off saves those threads (and their start) on a host
# with many visible cores; its measured effect on a cold start is in
# docs/benchmarks.md ("What loads when"). Nothing imported above imports numpy;
# an explicit setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# The methods each path answers; any other method is a 405 with ``Allow``, any other path a 404.
_METHODS = {"/": ("GET", "HEAD", "POST"), "/ready": ("GET", "HEAD"),
            "/healthz": ("GET", "HEAD"), "/health": ("GET", "HEAD"), "/ui": ("GET", "HEAD")}
_JSON = {"Content-Type": "application/json", "Cache-Control": "no-store"}


class _App:
    """The process's runtime and service, created on first use."""

    def __init__(self, settings: Settings):
        from function.service.pipeline import QAService
        from function.service.trim import BurstTrim

        self.settings = settings
        self.runtime = Runtime(settings, clock=_IMPORTED, create_store=False)  # it never writes passages
        self.service = QAService(self.runtime)
        self.bursts = BurstTrim(settings.memory_trim)
        self._served = 0
        self._count_lock = threading.Lock()

    def first_request(self) -> bool:
        with self._count_lock:
            self._served += 1
            return self._served == 1


_app: _App | None = None
_app_lock = threading.Lock()


def get_app() -> _App:
    global _app
    if _app is None:
        with _app_lock:
            if _app is None:
                try:
                    settings = Settings.from_env()
                except ConfigError as e:
                    raise Unavailable(f"configuration error: {e}", retry_after_s=60) from None
                _app = _App(settings)
    return _app


def _respond(status: int, body: dict, headers: dict | None = None):
    """The response as an iterator, so that functions-framework sends it without reading the request body.

    functions-framework reads the whole request body into memory before it
    sends a response (its ``after_request`` hook ``read_request``), unless the
    response is streamed. A body refused with 413, or one a 404/405 never
    needed, must not be read: the client would wait for the upload to finish,
    and the memory and the thread would be held for as long as it lasts.
    gunicorn then drains what is left for keep-alive under its own bound (5 s)
    or closes the connection.
    """
    try:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate the caller sent, echoed in a message: \u-escape it
        data = json.dumps(body).encode("utf-8")
    return iter((data,)), status, {**_JSON, "Content-Length": str(len(data)), **(headers or {})}


def _health(app: _App) -> dict:
    s = app.settings
    manifest = app.runtime.manifest()
    if s.store == "sqlite":
        # a stat, not an open: a path that ingestion never wrote (a typo) shows here, before any question
        store = {"kind": "sqlite", "path": str(s.sqlite_path), "exists": s.sqlite_path.is_file()}
    else:
        store = {"kind": "firestore", "project": s.firestore_project or None,
                 "database": s.firestore_database, "collection": s.passages_collection,
                 "ops": ops.totals().as_dict(), "ops_in_flight": ops.in_flight()}
    return {
        "status": "ok",
        "model": manifest.summary(),
        "sequence": manifest.sequence,
        "model_loaded": app.runtime.model_loaded,
        "store": store,
        "answer_cache": s.cache,
        "cold_start_ms": app.runtime.cold_start,
        "memory_trims": app.bursts.trims,  # QA_MEMORY_TRIM: bursts of overlapping requests handed back so far
    }


def _ready(app: _App) -> dict:
    """200 once the model is loaded; 503 while it loads, or with the reason the load failed.

    For a startup probe with QA_EAGER_LOAD=1: Cloud Run routes no request to
    the instance before its model is loaded, and a revision whose artifact is
    broken never becomes ready (its traffic stays where it was).
    """
    if app.runtime.model_loaded:
        return {"ready": True, "model": app.runtime.manifest_summary(), "cold_start_ms": app.runtime.cold_start}
    if app.runtime.load_error:
        raise Unavailable(f"the model failed to load: {app.runtime.load_error}", retry_after_s=60)
    app.runtime.manifest()  # a manifest that cannot be read is a 503 naming it, not "loading"
    raise Unavailable("the model is loading", retry_after_s=1)


def _answer(app: _App, request) -> tuple[dict, dict, dict]:
    from function.http.parse import check_encoding, parse, read_body

    settings = app.settings
    check_encoding(request.headers.get("Content-Encoding"))
    body = read_body(request.stream, request.content_length, settings.max_body_bytes)
    manifest = app.runtime.manifest()
    req = parse(body, settings, manifest.sequence["max_answer_tokens"])
    cold = app.first_request()
    result = app.service.answer(req)
    timings = result.timings_ms
    server_timing = ", ".join(f"{k};dur={v}" for k, v in timings.items())
    payload = {**result.payload, "cache": result.cache, "cold_start": cold, "timings_ms": timings}
    log_fields = {"kind": req.kind, "cache": result.cache, "cold_start": cold, "timings_ms": timings,
                  "question": clip(req.question, settings.log_text_chars),
                  "passages": len(req.passage_ids) if req.passage_ids else 0,
                  "context_chars": len(req.context) if req.context else 0,
                  "retrieved": len(result.payload.get("retrieved", ())),
                  "answers": len(result.payload["answers"])}
    if "no_answer" in result.payload:
        log_fields["abstained"] = result.payload["no_answer"]["abstained"]
    return payload, {"Server-Timing": server_timing}, log_fields


def answer(request):
    """functions-framework HTTP target."""
    started = time.perf_counter()
    fields: dict = {}
    headers: dict = {}
    page = None  # GET /ui: the HTML page's bytes and headers
    app = None
    store_ops = ops.counting()  # Firestore reads/writes this request makes (its log line's store_ops)
    try:
        app = get_app()
        path = request.path.rstrip("/") or "/"
        allowed = _METHODS.get(path)
        if allowed is None:
            raise NotFound(f"no such path {clip(path, 100)!r}; POST / to ask, GET / for health")
        if request.method not in allowed:
            allow = ", ".join(allowed)
            raise MethodNotAllowed(f"{clip(request.method, 20)} is not allowed on {path}; use {allow}",
                                   headers={"Allow": allow})
        if request.method == "POST":
            app.bursts.start()
            try:
                body, headers, fields = _answer(app, request)
            finally:
                app.bursts.done()
            status = 200
        elif path == "/ready":
            body, status = _ready(app), 200
        elif path == "/ui":
            if not app.settings.ui:
                raise NotFound("the question page is off; set QA_UI=1 to serve it at /ui")
            from function.http.ui import page as ui_page

            body, status, page = None, 200, ui_page()
        else:
            body, status = _health(app), 200
    except QAError as e:
        body, status, headers = e.body(), e.http_status, e.headers
        fields = {"error": e.log_message[:500]}
    except Exception as e:  # noqa: BLE001 - the stack trace goes to the log, never the client
        log("ERROR", f"unhandled {type(e).__name__}", stack_trace=traceback.format_exc())
        body = {"error": {"code": 500, "status": "INTERNAL", "message": "internal error; see the logs"}}
        status, headers = 500, {}
    latency_ms = round((time.perf_counter() - started) * 1000, 2)
    project = app.settings.project if app else ""
    severity = "ERROR" if status >= 500 else "WARNING" if status >= 400 else "INFO"
    log(severity, f"{request.method} {clip(request.path, 100)} {status}",
        httpRequest={"requestMethod": request.method, "status": status, "latency": f"{latency_ms / 1000:.4f}s",
                     "requestSize": str(request.content_length or 0)},
        latency_ms=latency_ms, **fields,
        **({"store_ops": store_ops.as_dict()} if app and app.settings.store == "firestore" else {}),
        **(app.runtime.manifest_summary() if app else {}),
        **trace_field(request.headers.get("X-Cloud-Trace-Context"), project))
    if page is not None:
        return page[0], status, page[1]
    return _respond(status, body, headers)


def _warm_up_in_background() -> None:
    """Load the model on a thread of this process; requests that arrive meanwhile wait on its lock."""

    def run() -> None:
        runtime = get_app().runtime
        try:
            runtime.warm_up()
        except Exception as e:  # noqa: BLE001 - requests report the reason as a 503
            runtime.load_error = getattr(e, "message", None) or f"{type(e).__name__}: {e}"
            log("ERROR", f"eager load failed: {runtime.load_error}")

    background.start(run, name="eager-load")


def _schedule_eager_load() -> None:
    """With QA_EAGER_LOAD=1, load at start-up instead of on the first request.

    functions-framework imports this module in gunicorn's master and forks the
    worker afterwards. ONNX Runtime's and the tokenizer's thread pools do not
    survive fork(), so the load runs in the worker, right after it is forked
    (in a process that never forks, the first request loads as usual).
    """
    try:
        eager = get_app().settings.eager_load
    except QAError as e:
        log("ERROR", f"eager load failed: {e.message}")
        return
    if eager:
        os.register_at_fork(after_in_child=_warm_up_in_background)


_schedule_eager_load()
