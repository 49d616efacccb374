"""An assembled image started as its container would be: its ``CMD`` served, its ingestion command run."""

from __future__ import annotations

import subprocess
from pathlib import Path

from harness.image.layout import Image
from harness.launch import FunctionServer
from harness.launch import ingest as run_ingest


def serve(image: Image, env: dict[str, str | None], log_path: Path | None = None) -> FunctionServer:
    """The image's ``CMD`` with its ``ENV`` (``env`` on top; ``None`` unsets a variable the image sets), not started."""
    return FunctionServer(env, log_path, command=image.command(), cwd=image.workdir, base_env=image.env())


def ingest(image: Image, inputs: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """The Cloud Run ingestion job's command, run with the image's python, code and environment."""
    return run_ingest(env, *inputs, "--quiet", base_env=image.env(), python=image.python(), cwd=image.workdir)
