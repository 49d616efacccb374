"""`make run`: ingest the sample corpus into the embedded store, serve the function, answer a question.

Starts functions-framework on localhost with the shipped artifact and the
SQLite store (the harness's launcher, as the tests and benchmarks start it),
asks one question over HTTP, prints the `curl` that asks it and the reply,
and keeps serving until Ctrl-C (``--once``: stop after the answer).

    python -m scripts.serve_local [--port 8080] [--once]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "samples" / "squad_sample.json"
QUESTION = {"question": "In what country is Normandy located?", "passage_ids": ["Normans-0000", "Normans-0001"]}


def _exit_on(signum: int, frame) -> None:
    raise SystemExit(128 + signum)  # so that the server is stopped on the way out


def main(argv=None) -> int:
    from bench.harness.client import checked, post
    from bench.harness.launch import FunctionServer, ingest

    p = argparse.ArgumentParser(prog="python -m scripts.serve_local", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--once", action="store_true", help="stop the server after answering")
    args = p.parse_args(argv)

    for sig in (signal.SIGTERM, signal.SIGHUP):  # kill, or the terminal closed
        signal.signal(sig, _exit_on)
    env = {"QA_STORE": "sqlite"}
    ingest(env, str(SAMPLE), "--quiet", check=True)
    server = FunctionServer(env, port=args.port, echo=True)  # its log lines on this terminal
    try:
        server.start()
        server.health()
        curl = (f"curl -s -X POST {server.url} -H 'Content-Type: application/json' "
                f"-d {shlex.quote(json.dumps(QUESTION))}")
        reply = checked(post(server.url, QUESTION, timeout_s=60))
        print("\nAsk it yourself:\n  " + curl + "\n", flush=True)
        print(json.dumps(reply.body, indent=2, ensure_ascii=False), flush=True)
        if args.once:
            return 0
        print(f"\nServing on {server.url} (GET / for health). Ctrl-C stops it.", flush=True)
        return server.proc.wait() or 0
    except KeyboardInterrupt:
        return 0
    except RuntimeError as e:
        raise SystemExit(str(e)) from None
    finally:
        server.close()


if __name__ == "__main__":
    if not __package__:  # run by path (make run): run as a module from the repository root instead
        os.chdir(REPO)
        os.execv(sys.executable, [sys.executable, "-m", "scripts.serve_local", *sys.argv[1:]])
    raise SystemExit(main())
