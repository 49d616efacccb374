"""Warm latency and throughput of one contender, served by one long-lived server process.

Warm latency: after the first request (which loads the model) and
``warmup`` more per passage, ``requests`` questions one at a time against
each benchmark passage (one window of about 128, 256, 384 tokens), by
passage id, so that every request reads its passage from the store (the
passage cache is off); client-side latency and the server's own stage
timings (``fetch`` is the store round trip) are kept per request.

Throughput: ``requests`` questions shared by 1, 2, 4, 8 concurrent clients
against the longest passage; requests per second, the latency tail, and the
process tree's memory before and after the whole series.
"""

from __future__ import annotations

from bench import stats
from bench.contenders import Contender
from harness.client import checked, concurrent, post, sequential


def _question(passage: dict) -> dict:
    from bench.passages import QUESTION

    return {"question": QUESTION, "passage_ids": [passage["id"]]}


def latency(url: str, passages: list[dict], requests: int, warmup: int) -> dict:
    out = {}
    for p in passages:
        samples = sequential(url, _question(p), requests, warmup)
        stages = sorted({k for s in samples for k in s["server"]})
        out[p["id"]] = {"window_tokens": p["window_tokens"], "passage_tokens": p["passage_tokens"],
                        "client_ms": stats.latency_summary(s["ms"] for s in samples),
                        "server_ms": {k: stats.latency_summary(s["server"].get(k) for s in samples) for k in stages},
                        "samples_ms": [round(s["ms"], 3) for s in samples]}
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


def measure(contender: Contender, base_env: dict, passages: list[dict], requests: int, warmup: int,
            clients: list[int], throughput_requests: int, log=print) -> dict:
    with contender.server(base_env).start(300) as server:
        first = checked(post(server.url, _question(passages[-1])))
        result = {"contender": contender.name, "first_answer": (first.body.get("answers") or [{}])[0].get("text"),
                  "memory_loaded": server.memory()}
        log(f"  warm latency {contender.name}: {requests} requests x {len(passages)} passages")
        result["latency"] = latency(server.url, passages, requests, warmup)
        if clients and throughput_requests:
            log(f"  throughput {contender.name}: {throughput_requests} requests at {clients} clients")
            result["memory_before_throughput"] = server.memory()
            result["throughput"] = throughput(server.url, passages[-1], clients, throughput_requests)
            result["memory_after_throughput"] = server.memory()
        else:
            result["memory_after_latency"] = server.memory()
    return result
