"""Cold-start profiler: a fresh function process per run, timed from process start to the first answer.

Each run starts functions-framework serving the contender (by default our
function with the artifact, answer cache off) on a loopback port, waits until
the port accepts, sends one question, and records: time to listening, time to
the first answer, the function's own ``cold start`` log line (import,
tokenizer, model, store set-up) and the first inference from the reply, and
the peak resident memory of the process tree (the kernel's per-process
high-water mark, VmHWM, summed over the tree; see ``harness.proctree``).
Reports min / median / max over N runs.

    python -m bench cold-start --runs 10 --json /tmp/cold_start.json
    python -m bench cold-start --runs 15 --variant OPENBLAS_NUM_THREADS=2   # A/B of a setting

(``python -m bench serving`` runs this for every contender, with the other benchmarks.)
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from bench import stats
from bench.contenders import Contender
from harness.client import checked, post
from harness.paths import ARTIFACT

SEGMENTS = ("interpreter + module import", "server start", "worker boot + routing", "lazy imports + other load",
            "artifact check + tokenizer + model load", "first inference", "rest of first request")
# Reported beside the segments: each part's own duration.
LOAD_PARTS = {"verify artifact": "verify_ms", "tokenizer load": "tokenizer_ms", "model load": "model_ms"}


def one_run(contender: Contender, base_env: dict, question: dict, timeout_s: float = 300.0) -> dict:
    with contender.server(base_env).start(timeout_s) as server:
        listening = server.listening_s
        reply = checked(post(server.url, question, timeout_s))  # sent as soon as the port accepts
        first_answer = time.perf_counter() - server.started
        memory = server.memory()
        server.stop()
        cold_line = server.cold_start()
    answers = reply.body.get("answers") or []
    return {"listening_ms": round(listening * 1000, 1), "first_answer_ms": round(first_answer * 1000, 1),
            "answer": answers[0]["text"] if answers else None, "server_timings_ms": reply.body.get("timings_ms", {}),
            "cold_start_ms": cold_line.get("cold_start_ms", {}), "eager_load": cold_line.get("eager"), **memory}


def breakdown(run: dict) -> dict[str, float]:
    """A run's time to the first answer, split into consecutive segments that add up to it (ms).

    gunicorn's master binds the port before it forks the worker, so the port
    accepts before the worker can serve: the first request waits in the
    backlog while the worker boots ("worker boot + routing", up to the start
    of the model load, which the ``cold start`` line dates from process start).
    The artifact check, the tokenizer load and the model load count once: their
    sum when they ran one after the other, the load's own time when they ran
    at the same time (their sum then exceeds it).
    """
    cold, server = run.get("cold_start_ms") or {}, run.get("server_timings_ms") or {}
    listening, first = run["listening_ms"], run["first_answer_ms"]
    imported = min(cold.get("import_ms") or 0.0, listening)
    load = cold.get("load_ms") or 0.0
    load_end = cold.get("since_process_start_ms")
    load_start = listening if load_end is None else min(max(listening, load_end - load), first)
    files_and_model = min(sum(cold.get(key) or 0.0 for key in LOAD_PARTS.values()), load)
    inference = server.get("inference") or server.get("pipeline") or 0.0
    parts = {"interpreter + module import": imported, "server start": listening - imported,
             "worker boot + routing": load_start - listening,
             "lazy imports + other load": load - files_and_model,
             "artifact check + tokenizer + model load": files_and_model,
             "first inference": inference,
             "rest of first request": max(0.0, first - load_start - load - inference)}
    return {k: round(parts[k], 1) for k in SEGMENTS}


def summarise(runs: list[dict]) -> dict:
    keys = ["listening_ms", "first_answer_ms", "peak_rss_mb", "largest_peak_rss_mb", "rss_mb", "pss_mb"]
    out = {k: stats.spread(r.get(k) for r in runs) for k in keys}
    cold_keys = sorted({k for r in runs for k, v in r["cold_start_ms"].items() if isinstance(v, (int, float))})
    out["cold_start_ms"] = {k: stats.spread(r["cold_start_ms"].get(k) for r in runs) for k in cold_keys}
    out["first_inference_ms"] = stats.spread(breakdown(r)["first inference"] for r in runs)
    out["breakdown_median_ms"] = {k: stats.spread(breakdown(r)[k] for r in runs)["median"] for k in SEGMENTS}
    return out


def profile(cases: dict[str, tuple[Contender, dict]], question: dict, runs: int, log=print) -> dict:
    """``runs`` cold starts of each case (a contender and its environment), interleaved.

    Run 1 of every case, then run 2 of every case in the reverse order, and so
    on: a slow spell of the machine hits every case, and no case always runs
    first (right after the previous server exited) or last.
    """
    results: dict[str, list] = {name: [] for name in cases}
    for i in range(runs):
        order = list(cases) if i % 2 == 0 else list(reversed(cases))
        for name in order:
            contender, env = cases[name]
            results[name].append(one_run(contender, env, question))
            log(f"  cold start {name} {i + 1}/{runs}: first answer "
                f"{results[name][-1]['first_answer_ms']:.0f} ms, peak RSS {results[name][-1]['peak_rss_mb']:.0f} MB")
    return {name: {"runs": r, "summary": summarise(r)} for name, r in results.items() if r}


def with_variant(envs: dict[str, dict], variant: list[str]) -> dict[str, dict]:
    """``envs`` and, beside each, a copy with the ``KEY=VALUE`` settings of ``variant`` applied."""
    changes = {}
    for item in variant:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--variant takes KEY=VALUE settings, got {item!r}")
        changes[key] = value
    label = " ".join(f"{k}={v}" for k, v in changes.items())
    out = {}
    for name, env in envs.items():
        out[name] = env
        if changes:
            out[f"{name} {label}"] = {**env, **changes}
    return out


def main(argv=None) -> int:
    from bench import passages
    from bench.contenders import LOADS, base_env, ingest, ours

    p = argparse.ArgumentParser(prog="python -m bench cold-start", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--artifact", type=Path, default=ARTIFACT)
    p.add_argument("--json", type=Path, help="write the runs and the summary here")
    p.add_argument("--load", choices=LOADS, nargs="+", default=["eager"],
                   help="load the model as soon as the worker starts (eager: QA_EAGER_LOAD=1, as deployed) or on "
                        "the first request (lazy); both: interleaved runs of each")
    p.add_argument("--variant", nargs="+", default=[], metavar="KEY=VALUE",
                   help="also run with these environment variables changed, interleaved with the runs "
                        "without them (an A/B of a setting)")
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        envs = {load: base_env(Path(tmp) / "passages.sqlite", load=load) for load in dict.fromkeys(args.load)}
        try:
            envs = with_variant(envs, args.variant)
        except ValueError as e:
            p.error(str(e))
        ingest(next(iter(envs.values())), args.artifact, Path(tmp), [384])
        question = {"question": passages.QUESTION, "passage_ids": ["bench-w384"]}
        contender = ours(args.artifact.resolve())
        result = profile({name: (contender, env) for name, env in envs.items()}, question, args.runs)
    for name, r in result.items():
        first = r["summary"]["first_answer_ms"]
        print(f"{name}: first answer median {first['median']:.0f} ms (min {first['min']:.0f}, max {first['max']:.0f}) "
              f"of {first['n']}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0
