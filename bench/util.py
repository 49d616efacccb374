"""Helpers more than one bench command uses; they import no other bench module, so nothing here can close a circle.

- ``batches``: an iterable in lists of ``size``, as ingestion writes them;
- ``folder_bytes``: a file's or a folder's size on disk;
- ``peak_rss_mb``: this process's peak resident memory;
- ``in_fresh_process``: call a module's function in a new interpreter (a cold process: nothing imported,
  opened or cached before it) and take back its JSON-able result.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from harness.paths import REPO


def batches(items, size: int):
    """``items`` in lists of ``size`` (the last one shorter)."""
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def folder_bytes(path: Path) -> int:
    """The size of a file, or of every file under a folder."""
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def peak_rss_mb() -> float:
    """This process's peak resident memory since it started (VmHWM). Not ``ru_maxrss``: Linux carries that across
    fork and exec, so a child started by a big parent reports the parent's size at the fork."""
    from harness.proctree import process_memory

    return process_memory(os.getpid())["peak_rss_kb"] / 1024


def in_fresh_process(module: str, function: str, *args):
    """``module.function(*args)`` in a new Python process started from the checkout; its result, which must be
    JSON-able (as must ``args``: a ``Path`` goes as its string, and the function takes it back with ``Path()``).
    The child prints the result as its last line of output; a failure raises ``CalledProcessError`` with the
    child's stderr."""
    call = json.dumps([str(a) if isinstance(a, Path) else a for a in args])
    code = (f"import json, sys\nfrom {module} import {function}\n"
            f"print(json.dumps({function}(*json.loads(sys.argv[1]))))\n")
    done = subprocess.run([sys.executable, "-c", code, call], cwd=REPO, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    return json.loads(done.stdout.strip().splitlines()[-1])
