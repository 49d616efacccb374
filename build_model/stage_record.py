"""Stage bookkeeping: each stage records a hash of its inputs and is skipped when they match.

A stage's inputs are the configuration sections it reads and the hashes of the
files it reads (data, the upstream stage's output). ``stage.json`` in the
stage's folder is written last, so a stage interrupted part way is never
mistaken for a finished one.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from function.model.artifact import sha256_file


def file_sha256(path: str | Path) -> str:
    """A file's sha256, hex (``function.model.artifact.sha256_file``: the artifact's own hashes are the same)."""
    return sha256_file(Path(path))


def source_fingerprint(model: str) -> str:
    """sha256 over a local model folder's weight and config files, or the hub id itself."""
    folder = Path(model)
    if not folder.is_dir():
        return f"hub:{model}"
    h = hashlib.sha256()
    for p in sorted(folder.iterdir()):
        if p.suffix in (".safetensors", ".bin", ".json", ".onnx") and p.is_file():
            h.update(p.name.encode())
            h.update(file_sha256(p).encode())
    return h.hexdigest()


def inputs_hash(inputs: dict) -> str:
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()


def load_record(stage_dir: Path) -> dict | None:
    path = stage_dir / "stage.json"
    if not path.exists():
        return None
    return json.loads(path.read_text())


def fresh_record(stage_dir: Path, inputs: dict) -> dict | None:
    """The stage's record if it finished with these exact inputs, else None."""
    record = load_record(stage_dir)
    if record and record.get("inputs_hash") == inputs_hash(inputs):
        return record
    return None


def save_record(stage_dir: Path, inputs: dict, result: dict) -> dict:
    record = {"inputs": inputs, "inputs_hash": inputs_hash(inputs), **result}
    stage_dir.mkdir(parents=True, exist_ok=True)
    tmp = stage_dir / "stage.json.tmp"
    tmp.write_text(json.dumps(record, indent=2, sort_keys=True))
    tmp.replace(stage_dir / "stage.json")
    return record


def fresh_checkpoint(out: Path, key: str, force: bool) -> None:
    """Training resumes from ``checkpoint.pt``; only a checkpoint of this very run may be resumed."""
    marker = out / "checkpoint.inputs"
    if force or not marker.is_file() or marker.read_text() != key:
        (out / "checkpoint.pt").unlink(missing_ok=True)
        (out / "train.log.jsonl").unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    marker.write_text(key)


def clear_checkpoint(out: Path) -> None:
    (out / "checkpoint.pt").unlink(missing_ok=True)
    (out / "checkpoint.inputs").unlink(missing_ok=True)
