"""HTTP client side of the tests and benchmarks: one request, a sequential run, the one concurrent-client loop.

A fresh loopback connection per request (as a front end without keep-alive
would make; it costs a fraction of a millisecond here). Latency is measured
at the client, from before the request is sent to after the reply is read;
the server's own ``timings_ms`` (fetch, inference, ...) are kept beside it.
"""

from __future__ import annotations

import http.client
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass
class Reply:
    status: int
    body: dict
    ms: float  # client-side latency


def post(url: str, payload: dict, timeout_s: float = 120.0) -> Reply:
    return request("POST", url, json.dumps(payload).encode(), timeout_s)


def get(url: str, timeout_s: float = 10.0) -> Reply:
    return request("GET", url, None, timeout_s)


def request(method: str, url: str, data: bytes | None, timeout_s: float) -> Reply:
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


@dataclass
class Sent:
    """One request of a concurrent run: what the caller tagged it with, and its reply or why there was none."""

    tag: str
    status: int  # 0: no reply (the connection failed)
    ms: float  # client-side latency; without a reply, the time until the failure
    body: dict
    error: str | None  # None for a 200; else "HTTP <status>" or the connection failure

    @property
    def ok(self) -> bool:
        return self.status == 200


PayloadSource = Callable[[int], Iterator[tuple[str, dict]]]


def concurrent(url: str, payload: dict | PayloadSource, clients: int, requests: int | None = None, *,
               seconds: float | None = None, timeout_s: float = 120.0) -> dict:
    """``clients`` threads, each sending a request as soon as its previous one is answered: ``requests``
    in all, or as many as they can for ``seconds``.

    ``payload`` is the request every client sends, or a function of the client's
    number giving the (tag, payload) pairs that client sends in turn. Returns the
    wall time, every request (``sent``, in the order they finished), the latencies
    of the 200 replies and the error of each other request.
    """
    if (requests is None) == (seconds is None):
        raise ValueError("give requests or seconds")
    source: PayloadSource = (lambda _: itertools.repeat(("", payload))) if isinstance(payload, dict) else payload
    lock = threading.Lock()
    left = [requests]
    deadline = time.perf_counter() + (seconds or 0.0)
    sent: list[Sent] = []

    def client(i: int) -> None:
        payloads = source(i)
        while True:
            if seconds is not None:
                if time.perf_counter() >= deadline:
                    return
            else:
                with lock:
                    if left[0] == 0:
                        return
                    left[0] -= 1
            tag, body = next(payloads)
            t = time.perf_counter()
            try:
                r = post(url, body, timeout_s)
                one = Sent(tag, r.status, r.ms, r.body, None if r.status == 200 else f"HTTP {r.status}")
            except OSError as e:
                one = Sent(tag, 0, (time.perf_counter() - t) * 1000, {}, f"{type(e).__name__}: {e}")
            with lock:
                sent.append(one)

    threads = [threading.Thread(target=client, args=(i,), name=f"client-{i}") for i in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"seconds": time.perf_counter() - t0, "sent": sent,
            "latencies_ms": [s.ms for s in sent if s.ok], "errors": [s.error for s in sent if not s.ok]}
