"""`make run`: ingest the sample corpus into the embedded store, serve the function, answer a question.

Starts functions-framework on localhost with the shipped artifact (or
``QA_ARTIFACT_DIR``) and the SQLite store (``QA_SQLITE_PATH``, default
``.data/passages.sqlite``) through the harness's launcher, as the tests and
benchmarks start it; asks one question over HTTP, prints the `curl` that asks
it and the reply, and keeps serving until Ctrl-C (``--once``: stop after the answer).

    python -m scripts.serve_local [--port 8080] [--once]     (from the repository root)
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
from pathlib import Path

from harness.client import checked, post
from harness.launch import FunctionServer, ingest
from harness.paths import ARTIFACT, SAMPLE, SQLITE

QUESTION = {"question": "In what country is Normandy located?", "passage_ids": ["Normans-0000", "Normans-0001"]}


def _exit_on(signum: int, frame) -> None:
    raise SystemExit(128 + signum)  # so that the server is stopped on the way out


def settings(environ=os.environ) -> dict[str, str]:
    """The function's artifact and store, set explicitly: the caller's ``QA_ARTIFACT_DIR`` and
    ``QA_SQLITE_PATH`` when given (made absolute), else the shipped artifact and ``.data/``."""
    return {"QA_STORE": "sqlite",
            "QA_ARTIFACT_DIR": str(Path(environ.get("QA_ARTIFACT_DIR") or ARTIFACT).resolve()),
            "QA_SQLITE_PATH": str(Path(environ.get("QA_SQLITE_PATH") or SQLITE).resolve())}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m scripts.serve_local", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--once", action="store_true", help="stop the server after answering")
    args = p.parse_args(argv)

    for sig in (signal.SIGTERM, signal.SIGHUP):  # kill, or the terminal closed
        signal.signal(sig, _exit_on)
    env = settings()
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
    raise SystemExit(main())
