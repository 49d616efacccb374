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
import random
import shlex
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench import machine
from bench.harness import client
from bench.harness.launch import FunctionServer, ingest
from bench.harness.stats import latency_summary

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "samples" / "squad_sample.json"
KINDS = ("context", "passage", "retrieval")


def sample_questions(path: Path = SAMPLE) -> list[dict]:
    """(question, paragraph text, passage id) of every question in a SQuAD file, ids as ingestion makes them."""
    from function.ingest.sources import parse_text

    records = {r.id: r for r in parse_text(str(path), path.read_text(encoding="utf-8")) if hasattr(r, "text")}
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    out = []
    for article in data:
        for p, paragraph in enumerate(article["paragraphs"]):
            pid = f"{article['title'].replace('/', '_')}-{p:04d}"
            assert records[pid].text == paragraph["context"], pid
            out += [{"question": qa["question"], "context": paragraph["context"], "passage_id": pid}
                    for qa in paragraph["qas"]]
    return out


def payload(kind: str, q: dict) -> dict:
    if kind == "context":
        return {"question": q["question"], "context": q["context"]}
    if kind == "passage":
        return {"question": q["question"], "passage_ids": [q["passage_id"]]}
    return {"question": q["question"]}


def run_clients(url: str, questions: list[dict], clients: int, seconds: float, seed: int = 0,
                kinds: tuple[str, ...] = KINDS) -> list[dict]:
    """Each client sends ``kinds`` in turn with random questions until the time is up; every reply is kept."""
    deadline = time.perf_counter() + seconds
    results: list[dict] = []
    lock = threading.Lock()

    def one_client(i: int) -> None:
        rng = random.Random(seed + i)
        n = i
        while time.perf_counter() < deadline:
            kind = kinds[n % len(kinds)]
            n += 1
            t = time.perf_counter()
            try:
                r = client.post(url, payload(kind, rng.choice(questions)), timeout_s=30)
                row = {"kind": kind, "status": r.status, "ms": r.ms, "cache": r.body.get("cache"),
                       "error": None if r.status == 200 else json.dumps(r.body)[:300]}
            except OSError as e:
                row = {"kind": kind, "status": 0, "ms": (time.perf_counter() - t) * 1000,
                       "cache": None, "error": f"{type(e).__name__}: {e}"}
            with lock:
                results.append(row)

    threads = [threading.Thread(target=one_client, args=(i,), name=f"load-{i}") for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


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
        # Batch shapes make RSS swing from second to second (by 50-90 MB with retrieval batches):
        # growth compares the medians of the last and the middle thirds of the run, so that one
        # transient peak is not taken for a leak, while a leak shifts every later sample up.
        "growth_after_warm_up_mb": round(statistics.median(last) - statistics.median(middle), 1) if last else None,
        "peak_growth_after_warm_up_mb": round(max(last) - max(middle), 1) if last else None,
        "first_errors": [r["error"] for r in failed[:5]],
    }


def one_phase(cache: bool, artifact: Path, emulator_env: dict, questions: list[dict], args) -> dict:
    env = {**emulator_env, "QA_ARTIFACT_DIR": str(artifact),
           "QA_CACHE": "1" if cache else "0", "WORKERS": "1", "THREADS": "8", "MALLOC_ARENA_MAX": "2"}
    with FunctionServer(env, source=REPO / "main.py").start(120) as server:
        for kind in KINDS:  # warm-up: load the model, open the store, touch every path once
            client.checked(client.post(server.url, payload(kind, questions[0]), timeout_s=120))
        warm = run_clients(server.url, questions, args.clients, args.warmup_s, seed=1000)
        memory: list[dict] = []
        stop = threading.Event()
        sampler = threading.Thread(target=sample_memory, args=(server, stop, 1.0, memory), daemon=True)
        sampler.start()
        rows = run_clients(server.url, questions, args.clients, args.seconds)
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
             "retrieval p50 | RSS start / middle / end / max (MB) | growth after warm-up, median / peak (MB) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, p in result["phases"].items():
        lat, kinds, rss = p["latency_ms"] or {}, p["by_kind"], p["rss_mb"]

        def p50(kind: str, kinds: dict = kinds) -> str:
            return f"{kinds[kind]['latency_ms']['p50']:.1f}" if kinds[kind]["latency_ms"] else "n/a"

        lines.append(f"| {name} | {p['requests']} | {p['errors']} | {p['requests_per_s']} | {lat.get('p50', 0):.1f} | "
                     f"{lat.get('p99', 0):.1f} | {p50('context')} | {p50('passage')} | {p50('retrieval')} | "
                     f"{rss['start']} / {rss['middle']} / {rss['end']} / {rss['max']} | "
                     f"{p['growth_after_warm_up_mb']} / {p.get('peak_growth_after_warm_up_mb')} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    from bench.harness.firestore import FirestoreEmulator, emulator_env

    p = argparse.ArgumentParser(prog="python -m bench load", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifact", type=Path, default=REPO / "artifact")
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--seconds", type=float, default=60.0, help="per phase (cache on, cache off)")
    p.add_argument("--warmup-s", type=float, default=5.0)
    p.add_argument("--growth-mb", type=float, default=10.0, help="allowed memory growth after warm-up")
    p.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    args = p.parse_args(argv)

    questions = sample_questions()
    with tempfile.TemporaryDirectory() as tmp:
        emulator = FirestoreEmulator(Path(tmp) / "emulator.log").start()
        try:
            env = emulator_env(emulator)
            ingest(env, str(SAMPLE), "--quiet", "--artifact", str(args.artifact), check=True)
            phases = {"on": one_phase(True, args.artifact, env, questions, args),
                      "off": one_phase(False, args.artifact, env, questions, args)}
        finally:
            emulator.stop()
    result = {"command": "python -m bench load " + shlex.join(argv if argv is not None else sys.argv[1:]),
              "artifact": str(args.artifact), "clients": args.clients, "seconds": args.seconds,
              "machine": machine.describe(),
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
