"""Warm latency and throughput of the contenders, each served by one long-lived server process.

Warm latency: after the first request (which loads the model) and
``warmup`` more per passage, ``requests`` questions one at a time against
each benchmark passage (one window of about 128, 256, 384 tokens), by
passage id, so that every request reads its passage from the store (the
passage cache is off); client-side latency and the server's own stage
timings (``fetch`` is the store round trip) are kept per request. With
several contenders (``measure_all``) their servers run side by side and
take turns in blocks of ``BLOCK`` requests, the order rotating from one
block to the next, so that a slow spell of the machine hits them all alike
(a contender measured after another met another machine: 20% apart between
runs here). Not request by request: a server's intra-op threads spin for a
while after its run, which helps its own next request and slows another
process's (interleaved request by request, ours ran 1.6x slower right after
the ONNX-pipeline peer than alone); each block starts after a pause and
``SETTLE`` unrecorded requests (a lone contender's blocks too). Throughput is measured one
contender at a time.

Throughput: ``requests`` questions shared by 1, 2, 4, 8 concurrent clients
against the longest passage; requests per second, the latency tail, and the
process tree's memory before and after the whole series.
"""

from __future__ import annotations

import contextlib
import time

from bench import stats
from bench.contenders import Contender
from harness.client import checked, concurrent, post

REST_S = 2.0  # after a throughput series, before "memory at rest" is read


def _question(passage: dict) -> dict:
    from bench.passages import QUESTION

    return {"question": QUESTION, "passage_ids": [passage["id"]]}


def _summary(p: dict, samples: list[dict]) -> dict:
    stages = sorted({k for s in samples for k in s["server"]})
    return {"window_tokens": p["window_tokens"], "passage_tokens": p["passage_tokens"],
            "client_ms": stats.latency_summary(s["ms"] for s in samples),
            "server_ms": {k: stats.latency_summary(s["server"].get(k) for s in samples) for k in stages},
            "samples_ms": [round(s["ms"], 3) for s in samples]}


BLOCK, SETTLE, PAUSE_S = 25, 2, 0.1


def interleaved_latency(urls: dict[str, str], passages: list[dict], requests: int, warmup: int) -> dict:
    """``latency`` of every contender (name -> URL) at once: per passage, blocks of ``BLOCK`` recorded requests,
    each contender's block in turn, the order rotated from one round of blocks to the next; each block after a
    pause and ``SETTLE`` unrecorded requests (module text). Returns name -> ``latency``'s result."""
    names = list(urls)
    out: dict = {name: {} for name in names}
    for p in passages:
        payload = _question(p)
        for name in names:
            for _ in range(warmup):
                checked(post(urls[name], payload))
        samples: dict = {name: [] for name in names}
        for b, first in enumerate(range(0, requests, BLOCK)):
            for name in names[b % len(names):] + names[: b % len(names)]:
                time.sleep(PAUSE_S)
                for _ in range(SETTLE):
                    checked(post(urls[name], payload))
                for _ in range(min(BLOCK, requests - first)):
                    r = checked(post(urls[name], payload))
                    samples[name].append({"ms": r.ms, "server": r.body.get("timings_ms", {})})
        for name in names:
            out[name][p["id"]] = _summary(p, samples[name])
    return out


def throughput(url: str, passage: dict, clients: list[int], requests: int) -> list[dict]:
    levels = []
    for n in clients:
        run = concurrent(url, _question(passage), n, requests)
        ok = len(run["latencies_ms"])
        levels.append({"clients": n, "requests": requests, "ok": ok, "errors": len(run["errors"]),
                       "error_examples": sorted(set(run["errors"]))[:3], "seconds": round(run["seconds"], 3),
                       "requests_per_s": round(ok / run["seconds"], 2) if run["seconds"] > 0 else None,
                       "latency_ms": stats.latency_summary(run["latencies_ms"])})
    return levels


def measure_all(chosen: list[Contender], base_env: dict, passages: list[dict], requests: int, warmup: int,
                clients: list[int], throughput_requests: int, log=print) -> list[dict]:
    """``measure`` for every contender, warm latency interleaved across them (module text)."""
    with contextlib.ExitStack() as stack:
        servers = {c.name: stack.enter_context(c.server(base_env).start(300)) for c in chosen}
        results = {}
        for name, server in servers.items():
            first = checked(post(server.url, _question(passages[-1])))
            results[name] = {"contender": name, "first_answer": (first.body.get("answers") or [{}])[0].get("text"),
                             "memory_loaded": server.memory()}
        log(f"  warm latency, {', '.join(servers)} in turn: {requests} requests x {len(passages)} passages")
        lat = interleaved_latency({n: s.url for n, s in servers.items()}, passages, requests, warmup)
        for name, server in servers.items():
            results[name]["latency"] = lat[name]
            if clients and throughput_requests:
                log(f"  throughput {name}: {throughput_requests} requests at {clients} clients")
                results[name]["memory_before_throughput"] = server.memory()
                results[name]["throughput"] = throughput(server.url, passages[-1], clients, throughput_requests)
                results[name]["memory_after_throughput"] = server.memory()
                time.sleep(REST_S)  # what an instance holds once the burst is over (our QA_MEMORY_TRIM acts then)
                results[name]["memory_at_rest_after_throughput"] = server.memory()
            else:
                results[name]["memory_after_latency"] = server.memory()
    return [results[c.name] for c in chosen]


def measure(contender: Contender, base_env: dict, passages: list[dict], requests: int, warmup: int,
            clients: list[int], throughput_requests: int, log=print) -> dict:
    """``measure_all`` of one contender."""
    return measure_all([contender], base_env, passages, requests, warmup, clients, throughput_requests, log)[0]
