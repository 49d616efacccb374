"""Real local services for integration tests: the Firestore emulator and a functions-framework server."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop_group(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """Stop a process started with ``start_new_session=True`` and everything it spawned."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=timeout)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


class FirestoreEmulator:
    """``gcloud emulators firestore start`` on a free loopback port (Java; starts in a few seconds).

    ``rules`` loads a security-rules file; without it the emulator allows every request.
    Ready means the emulator itself answers ``GET /`` with 200 "Ok": an error page from
    whatever else holds the port does not count. If the port was taken between choosing it
    and Java binding it, the emulator exits and is started again on another port.
    """

    def __init__(self, log_path: Path, rules: Path | None = None):
        self.log_path = log_path
        self.rules = rules
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 60.0, attempts: int = 3) -> "FirestoreEmulator":
        for _ in range(attempts):
            if self._start_once(timeout_s):
                return self
            self.port = free_port()
        raise RuntimeError(f"Firestore emulator exited {attempts} times; see {self.log_path}")

    def _start_once(self, timeout_s: float) -> bool:
        """True once ready, False if the emulator exited (a lost port race); raises on a timeout."""
        cmd = ["gcloud", "emulators", "firestore", "start", f"--host-port={self.host}", "--quiet"]
        if self.rules is not None:
            cmd.append(f"--rules={self.rules}")
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.proc = None
                return False
            try:
                with urllib.request.urlopen(f"http://{self.host}/", timeout=1) as r:
                    if r.status == 200 and r.read().strip() == b"Ok":
                        return True
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"Firestore emulator did not start in {timeout_s:.0f} s; see {self.log_path}")

    def reset(self) -> None:
        """Delete every document (the emulator's own reset endpoint)."""
        req = urllib.request.Request(
            f"http://{self.host}/emulator/v1/projects/{EMULATOR_PROJECT}/databases/(default)/documents",
            method="DELETE")
        urllib.request.urlopen(req, timeout=10).read()

    def stop(self) -> None:
        if self.proc is not None:
            _stop_group(self.proc)
            self.proc = None


EMULATOR_PROJECT = "demo-qa-test"


def emulator_env(emulator: FirestoreEmulator) -> dict:
    return {"FIRESTORE_EMULATOR_HOST": emulator.host, "GOOGLE_CLOUD_PROJECT": EMULATOR_PROJECT,
            "QA_STORE": "firestore"}


@dataclass
class FunctionServer:
    """``functions-framework --target answer`` in its own process, on a free port."""

    env: dict
    log_path: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self, timeout_s: float = 60.0) -> "FunctionServer":
        ff = Path(sys.executable).with_name("functions-framework")
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [str(ff), "--target", "answer", "--host", "127.0.0.1", "--port", str(self.port)],
            cwd=REPO, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"functions-framework exited; see {self.log_path}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"functions-framework did not listen in {timeout_s:.0f} s")

    def logs(self) -> list[dict]:
        """The JSON lines the function wrote to stdout."""
        self.log.flush()
        lines = []
        for line in self.log_path.read_text(errors="replace").splitlines():
            if line.startswith("{"):
                try:
                    lines.append(json.loads(line))
                except ValueError:
                    pass
        return lines

    def stop(self) -> None:
        if self.proc is not None:
            _stop_group(self.proc)
            self.proc = None
            self.log.close()


def ingest(env: dict, *args: str) -> subprocess.CompletedProcess:
    """Run ``python -m function.ingest`` with ``env`` on top of this process's environment."""
    return subprocess.run([sys.executable, "-m", "function.ingest", *args], cwd=REPO,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=300)
