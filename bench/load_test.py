"""Bounded load test: concurrent clients for a fixed time against the real function on Firestore.

    python -m bench load --artifact artifact --clients 8 --seconds 60

One functions-framework process serves the artifact (as the image runs it: one
gunicorn worker, 8 threads) with the official Firestore emulator as its store,
holding the sample corpus. ``--clients`` threads send a mix of requests for
``--seconds``: a question with its paragraph as ``context``, with its
``passage_ids``, and with neither (retrieval), in turn. It runs twice, answer
cache on and then off (a new process each time), after a short warm-up, and
records every reply's status and client-side latency and the server's
resident memory every second. It stops by itself and only uses loopback.

Pass criteria (exit 1 otherwise): no failed request; memory after warm-up
does not keep growing (the median of the last third of the run's samples is
within ``--growth-mb`` of the median of the middle third; the peaks are
reported too).
Writes ``load.json`` and ``load.md`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench import machine
from bench.questions import KINDS, mix, payload, sample_questions
from bench.stats import latency_summary
from harness import client
from harness.launch import FunctionServer, ingest
from harness.paths import ARTIFACT, MAIN, REPO, SAMPLE


def send_mix(url: str, questions: list[dict], clients: int, seconds: float, seed: int = 0) -> list[dict]:
    """Each client sends the request kinds in turn with random questions until the time is up; every reply is kept."""
    run = client.concurrent(url, mix(questions, KINDS, seed), clients, seconds=seconds, timeout_s=30)
    return [{"kind": s.tag, "status": s.status, "ms": s.ms, "cache": s.body.get("cache"),
             "error": None if s.ok else json.dumps(s.body)[:300] if s.status else s.error} for s in run["sent"]]


def sample_memory(server: FunctionServer, stop: threading.Event, every_s: float, out: list[dict]) -> None:
    t0 = time.perf_counter()
    while not stop.is_set():
        out.append({"s": round(time.perf_counter() - t0, 1), **server.memory()})
        stop.wait(every_s)


def summarise(rows: list[dict], memory: list[dict], seconds: float) -> dict:
    ok = [r for r in rows if r["status"] == 200]
    failed = [r for r in rows if r["status"] != 200]
    third = max(1, len(memory) // 3)
    rss = [m["rss_mb"] for m in memory]
    middle, last = (rss[third:-third] or rss[third:], rss[-third:]) if len(rss) >= 3 else ([], [])
    return {
        "requests": len(rows), "errors": len(failed), "requests_per_s": round(len(rows) / seconds, 1),
        "latency_ms": latency_summary(r["ms"] for r in ok),
        "by_kind": {k: {"requests": sum(r["kind"] == k for r in rows),
                        "errors": sum(r["kind"] == k and r["status"] != 200 for r in rows),
                        "latency_ms": latency_summary(r["ms"] for r in ok if r["kind"] == k)} for k in KINDS},
        "cache_hits": sum(r["cache"] == "hit" for r in ok),
        "rss_mb": {"start": rss[0] if rss else None, "middle": rss[len(rss) // 2] if rss else None,
                   "end": rss[-1] if rss else None, "max": max(rss, default=None)},
        # The worker's own high-water mark (VmHWM) at the end: the true peak, which one-per-second samples
        # can miss (two runs of one configuration differed by 57 MB in their sampled maximum).
        "worker_peak_rss_mb": memory[-1].get("largest_peak_rss_mb") if memory else None,
        # Batch shapes make RSS swing from second to second (by 50-90 MB with retrieval batches):
        # growth compares the medians of the last and the middle thirds of the run, so that one
        # transient peak is not taken for a leak, while a leak shifts every later sample up.
        "growth_after_warm_up_mb": round(statistics.median(last) - statistics.median(middle), 1) if last else None,
        "peak_growth_after_warm_up_mb": round(max(last) - max(middle), 1) if last else None,
        "first_errors": [r["error"] for r in failed[:5]],
    }


def one_phase(cache: bool, artifact: Path, emulator_env: dict, questions: list[dict], args) -> dict:
    env = {**emulator_env, "QA_ARTIFACT_DIR": str(artifact),
           "QA_CACHE": "1" if cache else "0", "WORKERS": "1", "THREADS": "8", "MALLOC_ARENA_MAX": "2",
           **dict(args.env)}
    with FunctionServer(env, source=MAIN).start(120) as server:
        for kind in KINDS:  # warm-up: load the model, open the store, touch every path once
            client.checked(client.post(server.url, payload(kind, questions[0]), timeout_s=120))
        warm = send_mix(server.url, questions, args.clients, args.warmup_s, seed=1000)
        memory: list[dict] = []
        stop = threading.Event()
        sampler = threading.Thread(target=sample_memory, args=(server, stop, 1.0, memory), daemon=True)
        sampler.start()
        rows = send_mix(server.url, questions, args.clients, args.seconds)
        stop.set()
        sampler.join()
        memory.append({"s": args.seconds, **server.memory()})
        result = summarise(rows, memory, args.seconds)
        result["warm_up"] = {"requests": len(warm), "errors": sum(r["status"] != 200 for r in warm)}
        result["memory_samples"] = memory
        return result


def markdown(result: dict) -> str:
    m = result["machine"]
    lines = [f"Load test: {result['clients']} clients for {result['seconds']:.0f} s per phase, "
             f"Firestore emulator, artifact `{result['artifact']}`; {m['cpu']}, "
             f"{m['available_cpus']} CPUs"
             f"{'' if m['quiet'] else ', NOT quiet: ' + ', '.join(m['competing_processes'])}.", "",
             f"Reproduce: `{result['command']}`", "",
             "| answer cache | requests | errors | req/s | p50 (ms) | p99 (ms) | context p50 | passage p50 | "
             "retrieval p50 | RSS start / middle / end / max (MB) | worker peak, VmHWM (MB) | "
             "growth after warm-up, median / peak (MB) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, p in result["phases"].items():
        lat, kinds, rss = p["latency_ms"] or {}, p["by_kind"], p["rss_mb"]

        def p50(kind: str, kinds: dict = kinds) -> str:
            return f"{kinds[kind]['latency_ms']['p50']:.1f}" if kinds[kind]["latency_ms"] else "n/a"

        lines.append(f"| {name} | {p['requests']} | {p['errors']} | {p['requests_per_s']} | {lat.get('p50', 0):.1f} | "
                     f"{lat.get('p99', 0):.1f} | {p50('context')} | {p50('passage')} | {p50('retrieval')} | "
                     f"{rss['start']} / {rss['middle']} / {rss['end']} / {rss['max']} | "
                     f"{p.get('worker_peak_rss_mb')} | "
                     f"{p['growth_after_warm_up_mb']} / {p.get('peak_growth_after_warm_up_mb')} |")
    return "\n".join(lines) + "\n"


def env_pair(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name, value


def main(argv=None) -> int:
    from harness.firestore import running_emulator

    p = argparse.ArgumentParser(prog="python -m bench load", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifact", type=Path, default=ARTIFACT)
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--seconds", type=float, default=60.0, help="per phase (cache on, cache off)")
    p.add_argument("--warmup-s", type=float, default=5.0)
    p.add_argument("--growth-mb", type=float, default=10.0, help="allowed memory growth after warm-up")
    p.add_argument("--out", type=Path, default=REPO / "records" / "bench")
    p.add_argument("--env", type=env_pair, action="append", default=[], metavar="NAME=VALUE",
                   help="set in the function's environment on top of the image's (repeatable), e.g. an allocator "
                        "setting to compare")
    args = p.parse_args(argv)

    questions = sample_questions()
    with tempfile.TemporaryDirectory() as tmp, running_emulator(Path(tmp) / "emulator.log") as env:
        ingest(env, str(SAMPLE), "--quiet", "--artifact", str(args.artifact), check=True)
        phases = {"on": one_phase(True, args.artifact, env, questions, args),
                  "off": one_phase(False, args.artifact, env, questions, args)}
    result = {"command": "python -m bench load " + shlex.join(argv if argv is not None else sys.argv[1:]),
              "artifact": str(args.artifact), "clients": args.clients, "seconds": args.seconds,
              "env": dict(args.env), "machine": machine.describe(),
              "phases": phases}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "load.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "load.md").write_text(markdown(result))
    print(markdown(result))
    failed = [n for n, ph in phases.items() if ph["errors"] or ph["warm_up"]["errors"]
              or (ph["growth_after_warm_up_mb"] or 0) > args.growth_mb]
    if failed:
        print(f"FAILED: phase(s) {', '.join(failed)}: errors or memory growth; see {args.out / 'load.json'}",
              file=sys.stderr)
        return 1
    return 0
