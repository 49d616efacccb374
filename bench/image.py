"""``python -m bench image``: the serving image's size, start-up and serving, without a container engine.

The image's final stage is laid out on disk as the Dockerfile builds it
(``harness.image``) and served by its own ``CMD``, environment and virtual
environment, started by the harness's launcher like every other server.

    python -m bench image size       # the image's own layers (venv + code + artifact)
    python -m bench image startup    # cold start with and without byte-compiled code
    python -m bench image profile    # memory, cold start and latency of the served model

Each command takes ``--artifact DIR`` (default: artifact/) and ``--work DIR``
(a scratch folder it replaces, default: build/image).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import time
from pathlib import Path

from bench.stats import percentile
from harness.client import checked, concurrent, post
from harness.image import BUILD_ONLY, Image, assemble, ingest, serve, sizes
from harness.paths import ARTIFACT, REPO, SAMPLE


def _assembled(args) -> Image:
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    artifact = Path(args.artifact)
    if not (artifact / "manifest.json").is_file():
        raise SystemExit(f"{artifact} is not an artifact folder (no manifest.json); pass --artifact")
    return assemble(work / "image", {"artifact/": artifact}, target=args.target)


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def cmd_size(args) -> int:
    image = _assembled(args)
    s = sizes(image)
    print(json.dumps(s))
    print(f"venv {_mb(s['venv'])} + artifact {_mb(s['artifact'])} + code {_mb(s['code'])} "
          f"= {_mb(s['total'])} on disk, {_mb(s['total_gzip'])} as gzip'd layers")
    bad = [p for p in image.installed() if p in BUILD_ONLY]
    print("build-only packages in the image:", bad or "none")
    return 1 if bad else 0


def _first_answer_ms(image: Image, env: dict[str, str]) -> tuple[float, float]:
    """(ms from process start to the server answering ``GET /``, ms to the first answer) for one cold start."""
    question = {"question": "In what country is Normandy located?",
                "context": "The Normans gave their name to Normandy, a region in France."}
    with serve(image, env).start() as server:
        server.health()
        up = (time.perf_counter() - server.started) * 1000
        checked(post(server.url, question))
        return up, (time.perf_counter() - server.started) * 1000


def _toggle_pycache(folder: Path, on: bool) -> None:
    """Hide (rename) or restore the __pycache__ folders under ``folder``."""
    old, new = ("__pycache__.off", "__pycache__") if on else ("__pycache__", "__pycache__.off")
    for p in sorted(folder.rglob(old)):
        p.rename(p.with_name(new))


def cmd_startup(args) -> int:
    """Cold start as built vs without byte-compiled code; variants interleaved to spread machine noise."""
    image = _assembled(args)
    env = {"QA_STORE": "sqlite", "QA_SQLITE_PATH": str(Path(args.work) / "db.sqlite"), "QA_EAGER_LOAD": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    code, venv = image.workdir, image.venv
    variants = {  # the folders whose .pyc files are hidden
        "as built (all .pyc)": [],
        "function/ not compiled": [code],
        "venv + function/ not compiled": [code, venv],
    }
    runs: dict[str, list] = {name: [] for name in variants}
    _first_answer_ms(image, env)  # warm the page cache: measure CPU work, not disk reads
    for _ in range(args.runs):
        for name, hidden in variants.items():
            for folder in hidden:
                _toggle_pycache(folder, False)
            try:
                runs[name].append(_first_answer_ms(image, env))
            finally:
                for folder in hidden:
                    _toggle_pycache(folder, True)
    results = {}
    for name, values in runs.items():
        results[name] = {"listening_ms": round(statistics.median(r[0] for r in values)),
                         "first_answer_ms": round(statistics.median(r[1] for r in values))}
        print(f"{name:28s} listening {results[name]['listening_ms']:5d} ms, "
              f"first answer {results[name]['first_answer_ms']:5d} ms (median of {args.runs})", flush=True)
    sources = [(p.read_text(encoding="utf-8"), str(p)) for p in sorted((code / "function").rglob("*.py"))]
    times = []
    for _ in range(20):
        t = time.perf_counter()
        for text, name in sources:
            compile(text, name, "exec")
        times.append(time.perf_counter() - t)
    compile_ms = round(statistics.median(times) * 1000, 1)
    print(f"compiling all {len(sources)} function/ modules takes {compile_ms} ms (median of 20): "
          f"the most that compiling them at build time can save per cold start")
    print(json.dumps({"results": results, "function_compile_ms": compile_ms, "load_average": os.getloadavg()}))
    return 0


def _ask(url: str, question: str, passage_id: str) -> tuple[float, dict]:
    reply = checked(post(url, {"question": question, "passage_ids": [passage_id]}))
    return reply.ms, reply.body


def _load(url: str, questions: list[tuple[str, str]], clients: int) -> dict:
    """``clients`` callers asking the questions back to back, each once: throughput and latency percentiles."""
    asked = iter([("", {"question": q, "passage_ids": [pid]}) for q, pid in questions])  # shared by the clients
    run = concurrent(url, lambda _: asked, clients, requests=len(questions))
    ms = [s.ms for s in run["sent"]]
    return {"ok": len(run["latencies_ms"]), "requests_per_s": round(len(ms) / run["seconds"], 1),
            **{f"p{q}_ms": round(percentile(ms, q), 1) for q in (50, 90, 99)}}


def cmd_profile(args) -> int:
    """Serve the model from the assembled image as on Cloud Run and measure it."""
    from bench.questions import sample_questions

    image = _assembled(args)
    env = {"QA_STORE": "sqlite", "QA_SQLITE_PATH": str(Path(args.work) / "db.sqlite"), "QA_EAGER_LOAD": "1",
           "QA_THREADS": str(args.threads), "QA_CACHE": "0"}
    env.update((kv.split("=", 1) + [None])[:2] for kv in args.env)  # NAME alone: unset it
    done = ingest(image, [str(SAMPLE)], {k: v for k, v in env.items() if v is not None})
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    questions = [(q["question"], q["passage_id"]) for q in sample_questions(SAMPLE)][:args.requests]
    with serve(image, env).start(120) as server:
        health = server.health(120)
        listening_ms = (time.perf_counter() - server.started) * 1000
        while not health.get("model_loaded"):  # QA_EAGER_LOAD: the worker loads in the background
            if time.perf_counter() - server.started > 120:
                raise TimeoutError("the model did not load within 120 s")
            time.sleep(0.02)
            health = server.health()
        loaded_ms = (time.perf_counter() - server.started) * 1000
        rss_loaded = server.memory()["rss_mb"]
        asked = [_ask(server.url, question, pid) for question, pid in questions]
        under_load = {clients: _load(server.url, questions, clients) for clients in args.concurrency}
        rss_after = server.memory()["rss_mb"]

    client = [ms for ms, _ in asked]
    inference = [body["timings_ms"]["inference"] for _, body in asked]
    result = {
        "artifact": health["model"], "threads": args.threads, "requests": len(questions),
        "cold_start_ms": health.get("cold_start_ms"), "listening_after_ms": round(listening_ms),
        "model_loaded_after_ms": round(loaded_ms),
        "rss_mb_after_load": rss_loaded, "rss_mb_after_requests": rss_after,
        "request_ms_p50": round(percentile(client, 50), 1), "request_ms_p90": round(percentile(client, 90), 1),
        "inference_ms_p50": round(percentile(inference, 50), 1),
        "inference_ms_p90": round(percentile(inference, 90), 1),
        "concurrent_clients": under_load,
        "cpu_count": os.cpu_count(), "load_average": os.getloadavg(),
    }
    print(json.dumps(result, indent=2))
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench image", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--work", default=str(REPO / "build" / "image"), help="scratch folder (replaced)")
    p.add_argument("--artifact", default=str(ARTIFACT), help="artifact folder (default: artifact/)")
    p.add_argument("--target", default=None, help="the Dockerfile stage (default: the last, the serving image; "
                                                 "runtime-lance: with the Lance retrieval index)")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("size", help="assemble the image and print its own layers' size")
    st = sub.add_parser("startup", help="median cold start: as built vs without .pyc files")
    st.add_argument("--runs", type=int, default=5)
    pr = sub.add_parser("profile", help="memory, cold start and latency of the served model")
    pr.add_argument("--threads", type=int, default=1, help="QA_THREADS: the vCPUs of the instance")
    pr.add_argument("--requests", type=int, default=100, help="sample questions asked, one at a time")
    pr.add_argument("--concurrency", type=int, nargs="*", default=[8],
                    help="then ask them again with this many concurrent clients")
    pr.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="extra environment of the server; NAME alone unsets NAME")
    args = p.parse_args(argv)
    commands = {"size": cmd_size, "startup": cmd_startup, "profile": cmd_profile}
    return commands[args.command](args)
