"""Stand-ins for cloud command-line tools (gcloud, docker, pip, ...) in the infra and pipeline tests.

``fake_tool`` writes an executable that records every call and answers the
calls it was told about; ``calls`` reads what was recorded.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

_FAKE = r"""
import json, sys
spec = json.load(open(SPEC))
args = sys.argv[1:]
with open(spec["log"], "a") as f:
    f.write(json.dumps([NAME] + args) + "\n")
for r in spec["responses"]:
    if args[:len(r["prefix"])] == r["prefix"] and all(a in args for a in r.get("with", [])):
        sys.stdout.write(r.get("stdout", ""))
        sys.exit(r.get("rc", 0))
sys.stderr.write(f"fake {NAME}: unexpected call: {args}\n")
sys.exit(99)
"""


def fake_tool(bin_dir: Path, name: str, log: Path, responses: list[dict] = ()) -> Path:
    """An executable ``name`` that records its arguments (one JSON list per line in ``log``).

    It answers a call whose arguments start with a response's ``prefix`` (and
    contain its ``with`` items) with that response's ``stdout`` and ``rc``; any
    other call exits 99, so a command that should not run fails loudly.
    """
    bin_dir.mkdir(parents=True, exist_ok=True)
    spec = bin_dir / f".{name}.json"
    spec.write_text(json.dumps({"log": str(log), "responses": list(responses)}))
    script = bin_dir / name
    script.write_text(f"#!{sys.executable}\nSPEC = {str(spec)!r}\nNAME = {name!r}\n{_FAKE}")
    script.chmod(0o755)
    return script


def calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
