"""Writes the artifact folder the function serves: model, tokenizer, self-describing manifest.

``manifest.json`` lists every other file in the folder with its sha256 and
size; ``artifact_hash`` identifies the pair that decides answers (model and
tokenizer) and keys the function's answer cache.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from function.model.artifact import FORMAT_VERSION, MANIFEST, artifact_hash, load_manifest, sha256_file
from function.model.tokenizer import QATokenizer, tokenizer_fingerprint

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"


def describe_files(folder: Path) -> dict:
    return {
        p.name: {"sha256": sha256_file(p), "bytes": p.stat().st_size}
        for p in sorted(folder.iterdir())
        if p.is_file() and p.name != MANIFEST
    }


def write_artifact(out: Path, model_src: Path, tokenizer_json: str, name: str, sequence: dict,
                   extra: dict | None = None, keep: tuple[str, ...] = (), model_file: str = MODEL_FILE) -> dict:
    """Replace ``out`` with a fresh artifact; files named in ``keep`` (reports) are left in place.

    ``model_file``: ``model.ort`` for a model in ONNX Runtime's format (it loads by that extension).
    """
    out.mkdir(parents=True, exist_ok=True)
    for p in out.iterdir():
        if p.is_file() and p.name not in keep:
            p.unlink()
    shutil.copyfile(model_src, out / model_file)
    (out / TOKENIZER_FILE).write_text(tokenizer_json, encoding="utf-8")
    tok = QATokenizer(out / TOKENIZER_FILE)
    raw = json.loads(tokenizer_json)
    layout = tok.pair_layout()
    return update_manifest(out, {
        "format": FORMAT_VERSION,
        "name": name,
        "model_file": model_file,
        "tokenizer_file": TOKENIZER_FILE,
        "tokenizer_fingerprint": tokenizer_fingerprint(raw),
        "sequence": dict(sequence),
        # read from the tokenizer's post-processor, never assumed: <s> q </s></s> p </s> for RoBERTa
        "special_tokens": {"cls": layout["cls_id"], "sep": layout["sep_id"], "pad": layout["pad_id"],
                           "pair_seps": layout["pair_seps"]},
        "lowercase": tok.lowercase,
        "vocab_size": tok.vocab_size,
        **(extra or {}),
    })


def update_manifest(out: Path, manifest: dict) -> dict:
    """Re-describe the folder's files and write ``manifest.json``; returns it, validated."""
    files = describe_files(out)
    manifest = {**manifest, "files": files,
                "artifact_hash": artifact_hash(files, manifest["model_file"], manifest["tokenizer_file"])}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    load_manifest(out)  # the function must be able to read what we wrote
    return manifest
