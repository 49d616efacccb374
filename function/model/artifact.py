"""The model artifact: a folder described by ``manifest.json``.

Reading the manifest is cheap (one small JSON file) and is all the health
endpoint does. ``verify`` checks every file's size and sha256 against the
manifest before the model is loaded, so a missing, truncated or tampered file
is reported by name instead of producing wrong answers.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from function.errors import ArtifactError

MANIFEST = "manifest.json"
FORMAT_VERSION = 1


def files_hash(files: dict) -> str:
    """sha256 of the canonical JSON of some files' names, sizes and hashes."""
    canonical = json.dumps(files, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def artifact_hash(files: dict, model_file: str, tokenizer_file: str) -> str:
    """The artifact's identity: the hash of the two files that decide its answers."""
    return files_hash({name: files[name] for name in (model_file, tokenizer_file)})


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class Manifest:
    folder: Path
    raw: dict

    @property
    def name(self) -> str:
        return self.raw["name"]

    @property
    def artifact_hash(self) -> str:
        return self.raw["artifact_hash"]

    @property
    def model_path(self) -> Path:
        return self.folder / self.raw["model_file"]

    @property
    def tokenizer_path(self) -> Path:
        return self.folder / self.raw["tokenizer_file"]

    @property
    def tokenizer_fingerprint(self) -> str:
        return self.raw["tokenizer_fingerprint"]

    @property
    def graph_optimized(self) -> bool:
        """Whether the build stage already optimised the ONNX graph (then only cheap passes run at load)."""
        return bool(self.raw.get("onnx", {}).get("optimized"))

    @property
    def sequence(self) -> dict:
        """max_seq_len, stride, max_query_tokens, max_answer_tokens."""
        return self.raw["sequence"]

    @property
    def special_tokens(self) -> dict:
        """Ids of cls, sep and pad."""
        return self.raw["special_tokens"]

    @property
    def lowercase(self) -> bool:
        return bool(self.raw.get("lowercase", False))

    @property
    def pair_seps(self) -> int:
        """Separators between question and passage: 1 (BERT), 2 (RoBERTa, MPNet); 1 in older manifests."""
        return int(self.special_tokens.get("pair_seps", 1))

    @property
    def no_answer(self) -> dict | None:
        """Abstention settings chosen at build time, or None when the model does not abstain.

        ``{"supported": bool, "threshold": float, ...}``: the reply says "no answer" when the
        best null score minus the best span score (raw start + end logits) exceeds ``threshold``.
        """
        value = self.raw.get("no_answer")
        return value if isinstance(value, dict) and value.get("supported") else None

    def summary(self) -> dict:
        return {"name": self.name, "artifact_hash": self.artifact_hash}


_REQUIRED = ("name", "model_file", "tokenizer_file", "tokenizer_fingerprint", "sequence",
             "special_tokens", "files", "artifact_hash")


def load_manifest(folder: Path) -> Manifest:
    path = Path(folder) / MANIFEST
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        where = "" if path.is_absolute() else f" (from the working directory {Path.cwd()})"
        raise ArtifactError(f"model artifact not found: {path} is missing{where}; QA_ARTIFACT_DIR names the "
                            "artifact's folder (the repository's artifact/)", {"file": str(path)}) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ArtifactError(f"{path} is not a readable JSON manifest ({type(e).__name__})",
                            {"file": str(path)}) from None
    missing = [k for k in _REQUIRED if k not in raw] if isinstance(raw, dict) else list(_REQUIRED)
    if missing:
        raise ArtifactError(f"{path} lacks {', '.join(missing)}", {"file": str(path)})
    if raw.get("format") != FORMAT_VERSION:
        raise ArtifactError(f"{path} has format {raw.get('format')!r}; this function reads format "
                            f"{FORMAT_VERSION}", {"file": str(path)})
    problem = _shape_problem(raw)
    if problem:
        raise ArtifactError(f"{path} {problem}", {"file": str(path)})
    return Manifest(Path(folder), raw)


def _shape_problem(raw: dict) -> str | None:
    """What is wrong with the values the function reads from a manifest, or None.

    Checked when the manifest is read, so that an edited or damaged manifest is a
    503 naming it, not a KeyError deep in a request.
    """
    def is_int(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    for key in ("name", "model_file", "tokenizer_file", "tokenizer_fingerprint", "artifact_hash"):
        if not isinstance(raw[key], str) or not raw[key]:
            return f"has no usable {key}"
    for key, names in (("sequence", ("max_seq_len", "stride", "max_query_tokens", "max_answer_tokens")),
                       ("special_tokens", ("cls", "sep", "pad"))):
        if not isinstance(raw[key], dict) or not all(is_int(raw[key].get(n)) for n in names):
            return f"lacks integer {key} {', '.join(names)}"
    seps = raw["special_tokens"].get("pair_seps", 1)
    if not is_int(seps) or seps not in (1, 2):
        return "has special_tokens.pair_seps other than 1 or 2 (separators between question and passage)"
    if not isinstance(raw["files"], dict):
        return "has no files table"
    for name in (raw["model_file"], raw["tokenizer_file"]):
        entry = raw["files"].get(name)
        if entry is None:
            return f"does not list {name}"
        if not isinstance(entry, dict) or not is_int(entry.get("bytes")) or not isinstance(entry.get("sha256"), str):
            return f"lacks the size and sha256 of {name}"
    return None


def verify(manifest: Manifest) -> None:
    """The model and tokenizer files exist with the recorded size and sha256; the artifact hash matches.

    (The report files listed beside them do not affect answers and are not read here.)
    """
    files = manifest.raw["files"]
    runtime_files = (manifest.raw["model_file"], manifest.raw["tokenizer_file"])
    for name in runtime_files:
        if name not in files:
            raise ArtifactError(f"manifest.json does not list {name}", {"file": name})
    for name in runtime_files:
        entry = files[name]
        path = manifest.folder / name
        expected = entry["sha256"]
        details = {"file": str(path), "expected_sha256": expected}
        if not path.is_file():
            raise ArtifactError(f"artifact file {path} is missing (expected sha256 {expected})", details)
        size = path.stat().st_size
        if size != entry["bytes"]:
            raise ArtifactError(f"artifact file {path} has {size} bytes, the manifest says "
                                f"{entry['bytes']} (expected sha256 {expected})", details)
        actual = sha256_file(path)
        if actual != expected:
            raise ArtifactError(f"artifact file {path} has sha256 {actual}, the manifest says "
                                f"{expected}", details)
    if artifact_hash(files, *runtime_files) != manifest.artifact_hash:
        raise ArtifactError("manifest.json's artifact_hash does not match its files",
                            {"file": str(manifest.folder / MANIFEST)})
