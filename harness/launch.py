"""One way to start the function under test or measurement: a server process on a loopback port.

``FunctionServer`` runs functions-framework (or any command that serves on
``$PORT``, such as the assembled image's ``CMD``) in its own process group,
with an environment built on top of this process's (or a given) one, its
output in a log file, optionally restricted to ``cpus`` CPUs (``taskset -c``:
the server and every thread it starts, a model of an instance with that many
vCPUs; ``function.cpus`` sizes the thread pools from the same mask);
``start()`` returns once the port accepts a connection and records how long
that took from process start (the cold-start profiler's "to listening").
``stop()`` ends the whole group (gunicorn's master and its worker). The same
launcher serves the tests, the benchmarks' contenders, the image's
measurements and ``make run``, so every one of them starts, listens and stops
in the same way.

``ingest`` runs the function's ingestion command the same way (an
environment on top of a base one, from the repository root or another
folder, with another interpreter for the image's).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness.client import get
from harness.paths import REPO
from harness.proctree import tree_memory


def free_port() -> int:
    """A TCP port nothing listens on now (on loopback); whoever binds it first gets it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tool(name: str) -> str | None:
    """A command from this interpreter's bin folder (``make test`` does not activate the venv), else PATH."""
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else shutil.which(name)


def cpu_list(n: int) -> str:
    """The first ``n`` CPUs this process may use, as ``taskset -c`` takes them (``0,1``)."""
    allowed = sorted(os.sched_getaffinity(0))
    if not 1 <= n <= len(allowed):
        raise ValueError(f"{n} CPUs asked for: this process may use {len(allowed)}")
    return ",".join(map(str, allowed[:n]))


def compose_env(env: dict | None = None, base: dict | None = None) -> dict[str, str]:
    """``env`` on top of ``base`` (default: this process's environment); a ``None`` value unsets a variable."""
    out = dict(os.environ if base is None else base)
    for key, value in (env or {}).items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = str(value)
    return out


def json_lines(text: str) -> list[dict]:
    """The JSON object lines in a server's output (gunicorn's own lines and broken JSON are skipped)."""
    out = []
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                out.append(record)
    return out


def cold_start_lines(text: str) -> list[dict]:
    """The function's ``cold start`` log lines in a server's output."""
    return [r for r in json_lines(text) if r.get("message") == "cold start"]


def listening(port: int, timeout_s: float = 0.2) -> bool:
    """Whether something on this machine accepts connections on ``port``."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=timeout_s).close()
        return True
    except OSError:
        return False


def stop_group(proc: subprocess.Popen, timeout_s: float = 10.0, group: bool = True) -> None:
    """SIGTERM, then SIGKILL after ``timeout_s``: to the process group of a process started with
    ``start_new_session=True`` (everything it spawned), or with ``group=False`` to the process alone."""
    if proc.poll() is not None:
        return

    def send(sig: int) -> None:
        try:
            if group:
                os.killpg(proc.pid, sig)
            else:
                proc.send_signal(sig)
        except ProcessLookupError:
            pass

    send(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        send(signal.SIGKILL)
        proc.wait()


class FunctionServer:
    """A server process on a free loopback port; a context manager, so that it is always stopped.

    ``env`` goes on top of ``base_env`` (default: this process's environment;
    ``None`` values unset). The port is a free one unless ``port`` is given.
    The default command is the test environment's ``functions-framework
    --target TARGET [--source SOURCE]`` bound to 127.0.0.1; a given
    ``command`` (the image's) finds its port in ``$PORT``. With ``cpus`` the
    command runs under ``taskset -c`` on the first that many CPUs this process may use.
    The output goes to ``log_path`` (appended), else to a temporary file that
    ``close()`` removes, or with ``echo`` to this process's terminal: the
    server then stays in this process's session, so that Ctrl-C and a closed
    terminal reach it too (``make run``); otherwise it gets a session of its
    own, whose whole process group ``stop()`` ends.
    """

    def __init__(self, env: dict | None = None, log_path: Path | None = None, *, source: Path | None = None,
                 target: str = "answer", command: list[str] | None = None, cwd: Path = REPO,
                 base_env: dict | None = None, port: int | None = None, echo: bool = False,
                 cpus: int | None = None):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.cwd = cwd
        if command is None:
            command = [tool("functions-framework") or "functions-framework", "--target", target,
                       "--host", "127.0.0.1", "--port", str(self.port)]
            if source is not None:
                command += ["--source", str(source)]
        if cpus is not None:
            command = ["taskset", "-c", cpu_list(cpus), *command]
        self.command = command
        self.env = compose_env({"PYTHONUNBUFFERED": "1", **(env or {}), "PORT": str(self.port)}, base_env)
        self.echo = echo
        self._temporary_log = log_path is None and not echo
        if self._temporary_log:
            with tempfile.NamedTemporaryFile(prefix="server-", suffix=".log", delete=False) as f:
                log_path = Path(f.name)
        self.log_path = log_path
        self.proc: subprocess.Popen | None = None
        self.started = 0.0  # time.perf_counter() at process start
        self.listening_s: float | None = None  # from process start until the port accepted

    def start(self, timeout_s: float = 60.0, poll_s: float = 0.005) -> FunctionServer:
        """Start the process and wait until its port accepts a connection (stopped again on failure)."""
        out = None
        if not self.echo:
            out = open(self.log_path, "ab")
        try:
            self.started = time.perf_counter()
            self.proc = subprocess.Popen(self.command, cwd=self.cwd, env=self.env, stdout=out,
                                         stderr=None if out is None else subprocess.STDOUT,
                                         start_new_session=not self.echo)
        finally:
            if out is not None:
                out.close()  # the child holds its own descriptor
        deadline = self.started + timeout_s
        while True:
            if self.proc.poll() is not None:
                self._fail(f"the server exited with code {self.proc.returncode} ({' '.join(self.command[:3])})")
            if listening(self.port):
                self.listening_s = time.perf_counter() - self.started
                return self
            if time.perf_counter() > deadline:
                self._fail(f"the server did not listen on {self.url} in {timeout_s:.0f} s")
            time.sleep(poll_s)

    def _fail(self, why: str) -> None:
        text = self.output()[-3000:]
        self.close()
        raise RuntimeError(f"{why}:\n{text}")

    def health(self, timeout_s: float = 60.0) -> dict:
        """``GET /`` (the function's health reply), retried until the server answers it."""
        deadline = time.monotonic() + timeout_s
        while True:
            if self.proc is None or self.proc.poll() is not None:
                raise RuntimeError(f"the server is not running:\n{self.output()[-3000:]}")
            try:
                reply = get(self.url, timeout_s=max(1.0, deadline - time.monotonic()))
                if reply.status == 200:
                    return reply.body
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.url} did not answer in {timeout_s:.0f} s")
            time.sleep(0.05)

    def memory(self) -> dict:
        """Resident memory of the process tree (``harness.proctree``)."""
        return tree_memory(self.proc.pid)

    def output(self) -> str:
        if self.echo or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")

    def logs(self) -> list[dict]:
        """The JSON lines the function wrote."""
        return json_lines(self.output())

    def cold_start(self) -> dict:
        """The function's ``cold start`` log line (empty when it wrote none)."""
        lines = cold_start_lines(self.output())
        return lines[0] if lines else {}

    def stop(self, timeout_s: float = 10.0) -> None:
        """SIGTERM to its process group (the process alone with ``echo``), SIGKILL after ``timeout_s``.

        The output stays readable until ``close()``."""
        proc, self.proc = self.proc, None
        if proc is not None:
            stop_group(proc, timeout_s, group=not self.echo)

    def close(self) -> None:
        """Stop it and remove a temporary log."""
        self.stop()
        if self._temporary_log:
            self.log_path.unlink(missing_ok=True)

    def __enter__(self) -> FunctionServer:
        return self if self.proc is not None else self.start()

    def __exit__(self, *exc) -> None:
        self.close()


def ingest(env: dict, *args: str, base_env: dict | None = None, python: Path | str | None = None,
           cwd: Path = REPO, check: bool = False, timeout_s: float = 600.0) -> subprocess.CompletedProcess:
    """``python -m function.ingest ARGS`` with ``env`` on top of ``base_env``; ``check``: raise on failure."""
    done = subprocess.run([str(python or sys.executable), "-m", "function.ingest", *args], cwd=cwd,
                          env=compose_env(env, base_env), capture_output=True, text=True, timeout=timeout_s)
    if check and done.returncode != 0:
        raise RuntimeError(f"ingestion failed (exit {done.returncode}): {done.stderr[-3000:]}")
    return done
