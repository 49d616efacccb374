"""The official Firestore emulator on a free loopback port, for tests and measurements."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from harness.launch import free_port, listening, stop_group

EMULATOR_PROJECT = "demo-qa-test"


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

    def start(self, timeout_s: float = 60.0, attempts: int = 3) -> FirestoreEmulator:
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
            proc, self.proc = self.proc, None
            stop_group(proc)
            if not self._port_closes():
                try:  # what is left of the group (Java) after SIGTERM
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self._port_closes()

    def _port_closes(self, timeout_s: float = 10.0) -> bool:
        """gcloud's wrapper, the group's leader, can exit while its Java child still holds the port and
        answers requests: True once connections to the port are refused."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not listening(self.port, timeout_s=0.5):
                return True
            time.sleep(0.05)
        return False


def emulator_env(emulator: FirestoreEmulator) -> dict:
    """The environment that points the function (and its ingestion) at the emulator."""
    return {"FIRESTORE_EMULATOR_HOST": emulator.host, "GOOGLE_CLOUD_PROJECT": EMULATOR_PROJECT,
            "QA_STORE": "firestore"}


@contextlib.contextmanager
def running_emulator(log_path: Path, timeout_s: float = 60.0, in_process: bool = False) -> Iterator[dict]:
    """A Firestore emulator for the ``with`` block, stopped after it; yields ``emulator_env``, the environment
    that points the function (a server, an ingestion) at it. ``in_process``: also set it in this process's
    ``os.environ`` for the block (a service opened in this process reads it there), and put back what was there."""
    emulator = FirestoreEmulator(log_path).start(timeout_s=timeout_s)
    env = emulator_env(emulator)
    saved = {name: os.environ.get(name) for name in env} if in_process else {}
    os.environ.update(env if in_process else {})
    try:
        yield env
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        emulator.stop()
