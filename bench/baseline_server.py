"""functions-framework target serving transformers' QA pipeline, shaped like our function (the baselines).

    PYTHONPATH=. BENCH_PYTORCH_MODEL=build/distil/model QA_SQLITE_PATH=... \
        functions-framework --source bench/baseline_server.py --target answer

serves it on PyTorch; with ``BENCH_BACKEND=onnxruntime`` (and no
``BENCH_PYTORCH_MODEL``) it runs the artifact's own graph (``QA_ARTIFACT_DIR``)
in an ONNX Runtime session inside the same pipeline steps, as Optimum's
``ORTModelForQuestionAnswering`` users do (``bench.baseline_qa.load_onnx``).

Same request (``{"question", "context"}`` or ``{"question", "passage_ids"}``,
optional ``top_k`` and ``max_answer_tokens``), same reply shape (``answers``,
``cold_start``, ``timings_ms``), passages resolved from the same SQLite store,
sequence settings from the same artifact manifest (``QA_ARTIFACT_DIR``), and
the same serving habits as ours: nothing heavy at import, the model loaded on
the first request behind a lock while the store opens on a second thread (or,
with ``QA_EAGER_LOAD=1``, on a thread of the gunicorn worker as soon as it is
forked, like ours), one model run at a time, ``QA_THREADS`` intra-op threads,
one JSON log line per request and one ``cold start`` line with the load
breakdown.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

from function.config import parse_flag  # stdlib only
from function.service.runtime import ImportClock  # stdlib only; the clock must start at import
from harness.paths import ARTIFACT  # stdlib only

_IMPORTED = ImportClock.now()
_lock = threading.Lock()
_run_lock = threading.Lock()
_state: dict = {}
_served = [0]
_EAGER = parse_flag("QA_EAGER_LOAD", os.environ.get("QA_EAGER_LOAD", "0"))


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 1)


def _log(message: str, **fields) -> None:
    print(json.dumps({"severity": "INFO", "message": message, **fields}), flush=True)


def _artifact() -> Path:
    return Path(os.environ.get("QA_ARTIFACT_DIR", ARTIFACT))


def _sequence() -> dict:
    return json.loads((_artifact() / "manifest.json").read_text())["sequence"]


def _load() -> dict:
    with _lock:
        if _state:
            return _state
        from bench import baseline_qa

        started = time.perf_counter()
        # numpy before the store's thread starts: the store's modules and the model's (onnxruntime) both import it,
        # and two threads importing numpy at once can fail ("cannot load module more than once per process")
        import numpy  # noqa: F401

        store: dict = {}

        def open_store() -> None:
            t0 = time.perf_counter()
            from function.store.sqlite import SqliteStore

            store["store"] = SqliteStore(Path(os.environ["QA_SQLITE_PATH"]))
            store["store_ms"] = _ms(t0)

        opener = threading.Thread(target=open_store, name="store-setup")
        opener.start()
        sequence = _sequence()
        threads = int(os.environ.get("QA_THREADS") or 2)
        if os.environ.get("BENCH_BACKEND", "pytorch") == "onnxruntime":
            qa, timings = baseline_qa.load_onnx(str(_artifact()), sequence, threads)
        else:
            qa, timings = baseline_qa.load(os.environ["BENCH_PYTORCH_MODEL"], sequence, threads)
        opener.join()
        timings.update(store_ms=store["store_ms"], load_ms=_ms(started), import_ms=_IMPORTED.process_age_ms,
                       since_process_start_ms=_IMPORTED.since_process_start_ms())
        _log("cold start", cold_start_ms=timings, kind=qa.kind, eager=_EAGER)
        _state.update(qa=qa, store=store["store"], kind=qa.kind, sequence=sequence)
        return _state


def _respond(status: int, body: dict):
    return json.dumps(body, ensure_ascii=False), status, {"Content-Type": "application/json"}


def answer(request):
    """functions-framework HTTP target."""
    started = time.perf_counter()
    if request.method != "POST":
        return _respond(200, {"status": "ok", "model_loaded": bool(_state)})
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or not isinstance(body.get("question"), str):
        return _respond(400, {"error": {"code": 400, "message": "send {question, context | passage_ids}"}})
    state = _load()
    with _lock:
        _served[0] += 1
        cold = _served[0] == 1
    timings: dict = {}
    t0 = time.perf_counter()
    if isinstance(body.get("context"), str):
        texts, meta = [body["context"]], [{}]
    else:
        ids = list(body.get("passage_ids") or [])
        found = state["store"].get_many(ids)
        unknown = [i for i in ids if i not in found]
        if unknown or not ids:
            return _respond(404, {"error": {"code": 404, "message": f"unknown passage ids: {unknown}"}})
        texts = [found[i].text for i in ids]
        meta = [{"passage_id": i, "title": found[i].title} for i in ids]
        timings["fetch"] = _ms(t0)
    top_k, max_len = int(body.get("top_k", 1)), int(body.get("max_answer_tokens",
                                                                state["sequence"]["max_answer_tokens"]))
    answers = []
    with _run_lock:
        for text, m in zip(texts, meta):
            step: dict = {}
            answers += [{**a, **m} for a in state["qa"](body["question"], text, top_k, max_len, step)]
            for k, v in step.items():
                timings[k] = round(timings.get(k, 0.0) + v, 2)
    answers = sorted(answers, key=lambda a: -a["score"])[:top_k]
    timings["total"] = _ms(started)
    _log("POST / 200", timings_ms=timings, cold_start=cold)
    return _respond(200, {"answers": answers, "model": {"name": state["kind"]}, "cold_start": cold,
                          "timings_ms": timings})


if _EAGER:  # as function.http.main does it: after fork, in the worker (the model's thread pools do not survive fork)
    os.register_at_fork(after_in_child=lambda: threading.Thread(target=_load, name="eager-load", daemon=True).start())
