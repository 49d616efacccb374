"""HTTP client side of the tests and benchmarks: one request, a sequential latency run, a concurrent throughput run.

A fresh loopback connection per request (as a front end without keep-alive
would make; it costs a fraction of a millisecond here). Latency is measured
at the client, from before the request is sent to after the reply is read;
the server's own ``timings_ms`` (fetch, inference, ...) are kept beside it.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass
class Reply:
    status: int
    body: dict
    ms: float  # client-side latency


def post(url: str, payload: dict, timeout_s: float = 120.0) -> Reply:
    return _request("POST", url, json.dumps(payload).encode(), timeout_s)


def get(url: str, timeout_s: float = 10.0) -> Reply:
    return _request("GET", url, None, timeout_s)


def _request(method: str, url: str, data: bytes | None, timeout_s: float) -> Reply:
    """One request on a fresh connection; any HTTP status is a reply, a connection failure raises OSError."""
    parts = urlsplit(url)
    headers = {"Content-Type": "application/json"} if data is not None else {}
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout_s)
    try:
        conn.request(method, parts.path or "/", body=data, headers=headers)
        resp = conn.getresponse()
        raw = resp.read()
    finally:
        conn.close()
    ms = (time.perf_counter() - t0) * 1000
    try:
        body = json.loads(raw)
    except ValueError:
        body = {"error": {"message": raw[:200].decode(errors="replace")}}
    return Reply(resp.status, body, ms)


def checked(reply: Reply) -> Reply:
    if reply.status != 200:
        raise RuntimeError(f"HTTP {reply.status}: {json.dumps(reply.body)[:500]}")
    return reply


def sequential(url: str, payload: dict, requests: int, warmup: int) -> list[dict]:
    """``warmup`` unrecorded requests, then ``requests`` recorded ones, one at a time."""
    for _ in range(warmup):
        checked(post(url, payload))
    samples = []
    for _ in range(requests):
        r = checked(post(url, payload))
        samples.append({"ms": r.ms, "server": r.body.get("timings_ms", {})})
    return samples


def concurrent(url: str, payload: dict, clients: int, requests: int) -> dict:
    """``clients`` threads share ``requests`` requests; returns wall time, latencies and failures."""
    lock = threading.Lock()
    left = [requests]
    latencies: list[float] = []
    errors: list[str] = []

    def client() -> None:
        while True:
            with lock:
                if left[0] == 0:
                    return
                left[0] -= 1
            try:
                r = post(url, payload)
                ok = r.status == 200
            except OSError as e:
                ok, r = False, None
                err = f"{type(e).__name__}: {e}"
            with lock:
                if ok:
                    latencies.append(r.ms)
                else:
                    errors.append(err if r is None else f"HTTP {r.status}")

    threads = [threading.Thread(target=client, name=f"client-{i}") for i in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"seconds": time.perf_counter() - t0, "latencies_ms": latencies, "errors": errors}
