"""``python -m bench throughput``: requests/s and latency of the inference modes side by side, in one run.

    python -m bench throughput --cpus 1 2 --clients 1 2 4 8 --lengths 128 384 --seconds 5 --rounds 2

For each CPU count (``taskset -c``: the server and every thread it starts may
use only that many CPUs, as a model of a Cloud Run instance with more or
fewer vCPUs; ``function.cpus`` sizes the thread pools from the same mask),
one functions-framework process per mode (``QA_INFERENCE_MODE``; gunicorn
with 1 worker and 8 threads as the image runs it, answer cache off, model
loaded at start) serves the question of ``bench.passages`` with its passage
as ``context``, cut to fill one window of each ``--lengths`` tokens. The cells
(passage length x clients x mode) are measured for ``--seconds`` each,
interleaved: every round visits every length and client count and, within
it, the modes one after the other (in a rotated order), so that a change in
the machine's load reaches all modes alike. ``--clients`` threads of this
process each send a request as soon as their previous one is answered.

Reported per cell: requests/s, p50/p99 client latency, the server's median
``queue`` and ``inference`` (``timings_ms``); per mode, the process tree's
peak resident memory. The ratios to ``serial`` (today's) in the same run are
the figures to read: absolute ones depend on the machine's load, which is
recorded. Writes ``throughput.json`` and ``throughput.md`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import tempfile
from pathlib import Path

from bench import machine
from bench.stats import latency_summary
from harness import client
from harness.launch import FunctionServer
from harness.paths import ARTIFACT, MAIN, REPO

MODES = ("serial", "batch", "parallel", "adaptive")
# adaptive mode with QA_SECOND_SESSION set either way (plain ``adaptive``: its default)
VARIANTS = {"adaptive-one-session": {"QA_INFERENCE_MODE": "adaptive", "QA_SECOND_SESSION": "0"},
            "adaptive-two-sessions": {"QA_INFERENCE_MODE": "adaptive", "QA_SECOND_SESSION": "1"}}


def make_payloads(artifact: Path, lengths: list[int]) -> list[dict]:
    from bench.passages import QUESTION, article_text, make_passages
    from function.model.artifact import load_manifest
    from function.model.tokenizer import QATokenizer

    tokenizer = QATokenizer(load_manifest(artifact).tokenizer_path)
    made = make_passages(tokenizer, QUESTION, article_text(), lengths)
    return [{"window_tokens": p["window_tokens"], "payload": {"question": QUESTION, "context": p["text"]}}
            for p in made]


def server(mode: str, cpus: int, artifact: Path, db: Path, extra: dict) -> FunctionServer:
    env = {"QA_ARTIFACT_DIR": str(artifact), "QA_CACHE": "0", "QA_EAGER_LOAD": "1", "QA_STORE": "sqlite",
           "QA_SQLITE_PATH": str(db), "QA_INFERENCE_MODE": mode, "WORKERS": "1", "THREADS": "8",
           "MALLOC_ARENA_MAX": "2", "PYTHONPATH": None, **VARIANTS.get(mode, {}), **extra}
    return FunctionServer(env, source=MAIN, cpus=cpus)


def median_stage(sent: list[client.Sent], stage: str) -> float | None:
    """The median of a stage's time in the server's ``timings_ms`` over the answered requests."""
    values = [r.body["timings_ms"][stage] for r in sent if r.ok and stage in r.body.get("timings_ms", {})]
    return round(statistics.median(values), 2) if values else None


def measure(args, payloads: list[dict], log=print) -> dict:
    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        for cpus in args.cpus:
            servers = {m: server(m, cpus, args.artifact, Path(tmp) / f"{m}-{cpus}.sqlite",
                                 dict(kv.split("=", 1) for kv in args.env)) for m in args.modes}
            try:
                for s in servers.values():
                    s.start(180)
                for s in servers.values():
                    s.health(180)
                    for p in payloads:  # warm up: the model loaded, every width seen
                        for _ in range(3):
                            client.checked(client.post(s.url, p["payload"], timeout_s=120))
                memory = {m: s.memory()["rss_mb"] for m, s in servers.items()}
                peak = dict(memory)
                cells: dict = {}
                for r in range(args.rounds):
                    for p in payloads:
                        for clients in args.clients:
                            order = list(args.modes)
                            shift = (r + clients) % len(order)
                            for mode in order[shift:] + order[:shift]:
                                run = client.concurrent(servers[mode].url, p["payload"], clients,
                                                        seconds=args.seconds, timeout_s=60)
                                peak[mode] = max(peak[mode], servers[mode].memory()["rss_mb"])
                                cell = cells.setdefault(f"{p['window_tokens']}/{clients}/{mode}",
                                                        {"seconds": 0.0, "rows": []})
                                cell["seconds"] += run["seconds"]
                                cell["rows"] += run["sent"]
                    log(f"  {cpus} CPU(s): round {r + 1}/{args.rounds} done; load {os.getloadavg()[0]:.2f}")
                table = []
                for key, cell in cells.items():
                    window, clients, mode = key.split("/")
                    ok = [x for x in cell["rows"] if x.ok]
                    table.append({"window_tokens": int(window), "clients": int(clients), "mode": mode,
                                  "requests": len(cell["rows"]), "errors": len(cell["rows"]) - len(ok),
                                  "error_examples": sorted({x.error for x in cell["rows"] if x.error})[:3],
                                  "requests_per_s": round(len(ok) / cell["seconds"], 2),
                                  "latency_ms": latency_summary(x.ms for x in ok),
                                  "server_queue_p50_ms": median_stage(ok, "queue"),
                                  "server_inference_p50_ms": median_stage(ok, "inference")})
                results[str(cpus)] = {"cells": table, "rss_mb_loaded": memory, "rss_mb_peak": peak,
                                      "load_average_after": [round(x, 2) for x in os.getloadavg()]}
            finally:
                for s in servers.values():
                    s.close()
    return results


def markdown(result: dict) -> str:
    m = result["machine"]
    noisy = not m["quiet"] or (m["load_average_at_start"] or [0])[0] > 0.5
    lines = []
    if noisy:
        lines += [f"**Not a reference run**: load average {m['load_average_at_start']} at the start"
                  f"{', ' + '; '.join(m['competing_processes']) if m['competing_processes'] else ''}. "
                  "Absolute figures are noisy; the ratios to `serial` within one CPU count, measured "
                  "interleaved, are what this run says.", ""]
    lines += [f"Inference modes side by side: {m['cpu']}, {m['logical_cpus']} logical CPUs; "
              f"{result['seconds']:g} s per cell x {result['rounds']} interleaved rounds; answer cache off; "
              "the passage as `context`.", "", f"Reproduce: `{result['command']}`", ""]
    for cpus, r in result["results"].items():
        lines += [f"### {cpus} CPU(s) (`taskset`), load average after: {r['load_average_after']}", "",
                  "| window | clients | mode | req/s | x serial | p50 (ms) | p99 (ms) | server queue p50 | "
                  "server inference p50 | errors |", "|---|---|---|---|---|---|---|---|---|---|"]
        base = {(c["window_tokens"], c["clients"]): c["requests_per_s"] for c in r["cells"] if c["mode"] == "serial"}
        for c in sorted(r["cells"], key=lambda c: (c["window_tokens"], c["clients"], result["modes"].index(c["mode"]))):
            lat = c["latency_ms"] or {}
            b = base.get((c["window_tokens"], c["clients"]))
            ratio = f"{c['requests_per_s'] / b:.2f}" if b else "n/a"
            lines.append(f"| {c['window_tokens']} | {c['clients']} | {c['mode']} | {c['requests_per_s']} | {ratio} | "
                         f"{lat.get('p50', 0):.1f} | {lat.get('p99', 0):.1f} | {c['server_queue_p50_ms']} | "
                         f"{c['server_inference_p50_ms']} | {c['errors']} |")
        lines += ["", "| mode | RSS loaded (MB) | RSS peak (MB) |", "|---|---|---|"]
        lines += [f"| {mode} | {r['rss_mb_loaded'][mode]} | {r['rss_mb_peak'][mode]} |" for mode in result["modes"]]
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench throughput", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifact", type=Path, default=ARTIFACT)
    p.add_argument("--modes", nargs="+", default=list(MODES), choices=(*MODES, "pool", *VARIANTS))
    p.add_argument("--cpus", type=int, nargs="+", default=[1, 2], help="CPUs the server may use (taskset)")
    p.add_argument("--clients", type=int, nargs="+", default=[1, 2, 4, 8])
    p.add_argument("--lengths", type=int, nargs="+", default=[128, 384], help="window lengths (tokens)")
    p.add_argument("--seconds", type=float, default=5.0, help="per cell and round")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--env", nargs="*", default=[], metavar="KEY=VALUE", help="more server variables, every mode")
    p.add_argument("--out", type=Path, default=REPO / "records" / "bench")
    args = p.parse_args(argv)
    allowed = len(os.sched_getaffinity(0))
    if not all(1 <= n <= allowed for n in args.cpus):
        p.error(f"--cpus {' '.join(map(str, args.cpus))}: this process may use {allowed} CPUs")

    described = machine.describe()
    payloads = make_payloads(args.artifact, args.lengths)
    results = measure(args, payloads)
    result = {"command": "python -m bench throughput " + shlex.join(argv if argv is not None else sys.argv[1:]),
              "artifact": str(args.artifact), "modes": args.modes, "seconds": args.seconds, "rounds": args.rounds,
              "machine": described, "results": results}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "throughput.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "throughput.md").write_text(markdown(result))
    print(markdown(result))
    return 1 if any(c["errors"] for r in results.values() for c in r["cells"]) else 0
