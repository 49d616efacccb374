"""`make run`: ingest the sample corpus into the embedded store, serve the function, answer a question.

Starts functions-framework on localhost with the shipped artifact and the
SQLite store, asks one question over HTTP, prints the `curl` that asks it and
the reply, and keeps serving until Ctrl-C (``--once``: stop after the answer).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "samples" / "squad_sample.json"
QUESTION = {"question": "In what country is Normandy located?", "passage_ids": ["Normans-0000", "Normans-0001"]}


def wait_until_up(url: str, server: subprocess.Popen, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with code {server.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.1)
    raise SystemExit(f"the server did not answer {url} within {timeout_s:.0f} s")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--once", action="store_true", help="stop the server after answering")
    args = p.parse_args(argv)

    env = {**os.environ, "QA_STORE": "sqlite", "PYTHONUNBUFFERED": "1"}
    ingest = [sys.executable, "-m", "function.ingest", str(SAMPLE), "--quiet"]
    subprocess.run(ingest, cwd=REPO, env=env, check=True)

    url = f"http://127.0.0.1:{args.port}/"
    ff = Path(sys.executable).with_name("functions-framework")
    server = subprocess.Popen([str(ff), "--target", "answer", "--host", "127.0.0.1", "--port", str(args.port)],
                              cwd=REPO, env=env)
    try:
        wait_until_up(url, server)
        body = json.dumps(QUESTION)
        curl = f"curl -s -X POST {url} -H 'Content-Type: application/json' -d {shlex.quote(body)}"
        req = urllib.request.Request(url, data=body.encode(), headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as resp:
            reply = json.loads(resp.read())
        print("\nAsk it yourself:\n  " + curl + "\n", flush=True)
        print(json.dumps(reply, indent=2, ensure_ascii=False), flush=True)
        if args.once:
            return 0
        print(f"\nServing on {url} (GET / for health). Ctrl-C stops it.", flush=True)
        server.wait()
        return server.returncode or 0
    except KeyboardInterrupt:
        return 0
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()


if __name__ == "__main__":
    raise SystemExit(main())
