"""``python -m bench all``: every measurement the README cites for an artifact, one after the other.

Run it on a quiet machine (about an hour on the 2-core sandbox). Each step
is a ``python -m bench`` command with its output in its own log
(``--logs``, default logs/measure/NAME.log), so a session stopped part way
keeps what finished; a failed step does not stop the rest, and the exit code
is 1 when any failed. Results go where each command writes them
(records/bench/ for serving, retrieval, cost, load and throughput;
records/bench/no_answer/ for out-of-corpus).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def steps(artifact: str) -> dict[str, list[str]]:
    a = ["--artifact", artifact]
    return {  # in the order a session that may stop part way wants them
        "out-of-corpus": ["out-of-corpus", *a, "--sample"],
        "serving": ["serving", *a, "--runs", "10"],
        "serving-lazy": ["serving", *a, "--runs", "10", "--load", "lazy", "--contenders", "ours", "pipeline",
                         "--requests", "20", "--warmup", "2", "--clients", "1", "--throughput-requests", "10",
                         "--no-firestore", "--out", "build/bench-lazy"],
        "memory-steps": ["memory", *a],
        "retrieval": ["retrieval", *a, "--firestore"],
        "cost": ["cost", *a, "--questions", "40", "--busy-seconds", "15"],
        "load": ["load", *a, "--clients", "8", "--seconds", "120"],
        "throughput": ["throughput", *a, "--modes", "serial", "batch", "parallel", "adaptive", "--cpus", "1", "2",
                       "--clients", "1", "2", "4", "8", "--lengths", "128", "384", "--seconds", "4", "--rounds", "2"],
        "image-size": ["image", *a, "size"],
        "image-profile": ["image", *a, "profile", "--threads", "1", "--requests", "200", "--concurrency", "8", "16"],
        "image-startup": ["image", *a, "startup", "--runs", "11"],
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench all", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifact", default="artifact")
    p.add_argument("--logs", type=Path, default=REPO / "logs" / "measure")
    p.add_argument("--only", nargs="+", metavar="STEP", help=f"run these steps only ({', '.join(steps('A'))})")
    args = p.parse_args(argv)
    chosen = {k: v for k, v in steps(args.artifact).items() if not args.only or k in args.only}
    args.logs.mkdir(parents=True, exist_ok=True)
    failed = []
    for name, command in chosen.items():
        cmd = [sys.executable, "-m", "bench", *command]
        print(f"{time.strftime('%H:%M:%S', time.gmtime())} {name}: {' '.join(cmd[1:])}", flush=True)
        with open(args.logs / f"{name}.log", "wb") as log:
            if subprocess.run(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT).returncode != 0:
                print(f"{name} failed: see {args.logs / name}.log", file=sys.stderr, flush=True)
                failed.append(name)
    print(f"{time.strftime('%H:%M:%S', time.gmtime())} done", flush=True)
    if failed:
        print(f"failed: {' '.join(failed)}", file=sys.stderr)
        return 1
    return 0
