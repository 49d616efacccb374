"""The harness's own parts: the concurrent-client loop, and running a server on fewer CPUs."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from harness.client import concurrent
from harness.launch import FunctionServer, cpu_list
from harness.paths import MAIN


@contextlib.contextmanager
def answering(status_of=lambda n: 200):
    """A loopback HTTP server that keeps every JSON body posted to it and answers the n-th with ``status_of(n)``."""
    seen = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's naming
            seen.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            body = b'{"answers": []}'
            self.send_response(status_of(len(seen)))
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/", seen
    finally:
        server.shutdown()


def test_concurrent_sends_exactly_the_bounded_number_of_requests():
    with answering(lambda n: 200 if n % 5 else 503) as (url, seen):
        run = concurrent(url, {"question": "q"}, clients=3, requests=20)
    assert len(seen) == 20 and all(s == {"question": "q"} for s in seen)
    assert len(run["latencies_ms"]) == 16 and run["errors"] == ["HTTP 503"] * 4


def test_a_timed_run_sends_each_clients_own_payloads_until_the_time_is_up():
    def payloads(client: int):
        n = 0
        while True:
            n += 1
            yield f"client-{client}", {"client": client, "n": n}

    with answering() as (url, seen):
        run = concurrent(url, payloads, clients=2, seconds=0.3)
    assert run["seconds"] >= 0.3 and not run["errors"] and len(run["sent"]) == len(seen) > 2
    assert {s.tag for s in run["sent"]} == {"client-0", "client-1"}
    for client in (0, 1):  # each client sent its own payloads, in order
        ns = [p["n"] for p in seen if p["client"] == client]
        assert ns == list(range(1, len(ns) + 1))
    with pytest.raises(ValueError):
        concurrent(url, {}, clients=1)  # neither requests nor seconds


def test_cpus_run_the_server_under_taskset_on_the_first_allowed_cpus():
    allowed = sorted(os.sched_getaffinity(0))
    assert cpu_list(1) == str(allowed[0])
    assert cpu_list(len(allowed)) == ",".join(map(str, allowed))
    for n in (0, len(allowed) + 1):
        with pytest.raises(ValueError, match="CPUs"):
            cpu_list(n)
    restricted, free = FunctionServer({}, source=MAIN, cpus=1), FunctionServer({}, source=MAIN)
    try:
        assert restricted.command[:3] == ["taskset", "-c", str(allowed[0])]
        assert restricted.command[restricted.command.index("--port") + 1] == str(restricted.port)
        assert restricted.command[3] == free.command[0] != "taskset"  # the same functions-framework, unrestricted
    finally:
        restricted.close()
        free.close()


def test_running_emulator_stops_it_and_puts_the_environment_back(monkeypatch, tmp_path):
    """The one way bench starts an emulator around a run: stopped however the block ends, and with
    ``in_process`` its variables set in os.environ for the block only."""
    from harness import firestore

    events = []

    class FakeEmulator:
        host = "127.0.0.1:9999"

        def __init__(self, log_path, rules=None):
            events.append(("made", log_path))

        def start(self, timeout_s=60.0):
            events.append(("start", timeout_s))
            return self

        def stop(self):
            events.append(("stop",))

    monkeypatch.setattr(firestore, "FirestoreEmulator", FakeEmulator)
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "mine")
    monkeypatch.delenv("FIRESTORE_EMULATOR_HOST", raising=False)
    with pytest.raises(RuntimeError), firestore.running_emulator(tmp_path / "e.log", 5, in_process=True) as env:
        assert env["FIRESTORE_EMULATOR_HOST"] == "127.0.0.1:9999" == os.environ["FIRESTORE_EMULATOR_HOST"]
        assert os.environ["GOOGLE_CLOUD_PROJECT"] == firestore.EMULATOR_PROJECT
        raise RuntimeError("the run failed")
    assert events == [("made", tmp_path / "e.log"), ("start", 5), ("stop",)]
    assert "FIRESTORE_EMULATOR_HOST" not in os.environ and os.environ["GOOGLE_CLOUD_PROJECT"] == "mine"
    with firestore.running_emulator(tmp_path / "e.log") as env:  # not in_process: os.environ untouched
        assert env["QA_STORE"] == "firestore" and "FIRESTORE_EMULATOR_HOST" not in os.environ
