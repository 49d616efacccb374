"""One functions-framework server process on a loopback port, timed from the moment it is started.

The same launcher serves our function (``main.py``) and the alternatives
(``bench/alt_pipeline.py``), so every contender starts, listens and is asked
in exactly the same way.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.proctree import tree_memory

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass(frozen=True)
class Contender:
    """What to serve: a functions-framework source file and the environment it runs with."""

    name: str
    label: str
    source: Path
    env: dict = field(default_factory=dict)
    target: str = "answer"


def cold_start_lines(text: str) -> list[dict]:
    """The ``cold start`` JSON log lines in a server's output (other lines are ignored)."""
    out = []
    for line in text.splitlines():
        if line.startswith("{") and '"cold start"' in line:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record.get("message") == "cold start":
                out.append(record)
    return out


class Server:
    """A running server; use as a context manager so that it is always stopped."""

    def __init__(self, contender: Contender, base_env: dict):
        self.contender = contender
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.env = {**base_env, **contender.env}
        self._log = tempfile.TemporaryFile()
        self.proc: subprocess.Popen | None = None
        self.started = 0.0

    def start(self) -> "Server":
        ff = Path(sys.executable).with_name("functions-framework")
        cmd = [str(ff), "--source", str(self.contender.source), "--target", self.contender.target,
               "--host", "127.0.0.1", "--port", str(self.port)]
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(cmd, cwd=REPO, env=self.env, stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        return self

    def wait_listening(self, timeout_s: float = 120.0, poll_s: float = 0.005) -> float:
        """Seconds from start until the port accepts a connection."""
        deadline = self.started + timeout_s
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.contender.name}: the server exited with code {self.proc.returncode}:\n"
                                   f"{self.output()[-3000:]}")
            if time.perf_counter() > deadline:
                raise RuntimeError(f"{self.contender.name}: the server did not listen in {timeout_s:.0f} s")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return time.perf_counter() - self.started
            except OSError:
                time.sleep(poll_s)

    def memory(self) -> dict:
        return tree_memory(self.proc.pid)

    def output(self) -> str:
        self._log.flush()
        self._log.seek(0)
        return self._log.read().decode(errors="replace")

    def cold_start(self) -> dict:
        """The server's ``cold start`` log line (empty when it wrote none)."""
        lines = cold_start_lines(self.output())
        return lines[0] if lines else {}

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        except ProcessLookupError:
            pass

    def __enter__(self) -> "Server":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
        self._log.close()
