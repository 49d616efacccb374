"""The artifact check: a missing, truncated or tampered file is named, never served."""

import json
import shutil
from pathlib import Path

import pytest

from function.errors import ArtifactError
from function.model.artifact import load_manifest, verify
from function.model.load import load_model
from function.model.tokenizer import QATokenizer


@pytest.fixture
def artifact(tiny_artifact, tmp_path):
    folder = tmp_path / "artifact"
    shutil.copytree(tiny_artifact.folder, folder)
    return folder


def test_the_tiny_artifact_verifies_and_loads(artifact):
    manifest = load_manifest(artifact)
    verify(manifest)
    model, timings = load_model(manifest, threads=1)
    assert model.tokenizer.fingerprint == manifest.tokenizer_fingerprint
    assert QATokenizer(manifest.tokenizer_path).fingerprint == manifest.tokenizer_fingerprint  # computed afresh
    assert set(timings) == {"verify_ms", "tokenizer_ms", "model_ms"}


@pytest.mark.parametrize("damage, words", [
    (lambda f: (f / "model.onnx").unlink(), "model.onnx is missing"),
    (lambda f: (f / "model.onnx").write_bytes((f / "model.onnx").read_bytes()[:1000]), "bytes, the manifest says"),
    (lambda f: (f / "tokenizer.json").write_text(
        (f / "tokenizer.json").read_text().replace('"[UNK]"', '"[UNKNOWN]"', 1)),
     "tokenizer.json has"),
])
def test_damaged_files_are_named_with_the_expected_hash(artifact, damage, words):
    manifest = load_manifest(artifact)
    damage(artifact)
    with pytest.raises(ArtifactError, match=words) as info:
        verify(manifest)
    assert info.value.http_status == 503
    damaged = info.value.details["file"].rsplit("/", 1)[1]
    assert info.value.details["expected_sha256"] == manifest.raw["files"][damaged]["sha256"]


def test_a_flipped_byte_of_the_same_size_is_caught(artifact):
    manifest = load_manifest(artifact)
    data = bytearray((artifact / "model.onnx").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (artifact / "model.onnx").write_bytes(bytes(data))
    with pytest.raises(ArtifactError, match="model.onnx has sha256"):
        verify(manifest)


@pytest.mark.parametrize("write, words", [
    (None, "manifest.json is missing"),
    ("{not json", "not a readable JSON manifest"),
    ('{"name": "x"}', "lacks"),
])
def test_a_bad_manifest_is_reported(artifact, write, words):
    path = artifact / "manifest.json"
    if write is None:
        path.unlink()
    else:
        path.write_text(write)
    with pytest.raises(ArtifactError, match=words):
        load_manifest(artifact)


def test_an_edited_manifest_hash_is_caught(artifact):
    path = artifact / "manifest.json"
    raw = json.loads(path.read_text())
    raw["artifact_hash"] = "0" * 64
    path.write_text(json.dumps(raw))
    with pytest.raises(ArtifactError, match="artifact_hash does not match"):
        verify(load_manifest(artifact))


@pytest.mark.parametrize("seps", [3, "2", True])
def test_a_pair_layout_the_function_cannot_build_is_named(artifact, seps):
    path = artifact / "manifest.json"
    raw = json.loads(path.read_text())
    assert raw["special_tokens"]["pair_seps"] == 1  # written by the build, read from the tokenizer
    raw["special_tokens"]["pair_seps"] = seps
    path.write_text(json.dumps(raw))
    with pytest.raises(ArtifactError, match="pair_seps other than 1 or 2"):
        load_manifest(artifact)


def test_a_manifest_without_a_pair_layout_reads_as_bert(artifact):
    from function.model.load import window_spec

    path = artifact / "manifest.json"
    raw = json.loads(path.read_text())
    del raw["special_tokens"]["pair_seps"]  # manifests written before the layout was recorded
    path.write_text(json.dumps(raw))
    assert window_spec(load_manifest(artifact)).pair_seps == 1


def test_an_artifact_not_found_from_a_relative_path_names_the_working_directory_and_the_setting(
        tmp_path, monkeypatch):
    """Ingestion run outside the repository looked for artifact/ there and said only that it was missing."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ArtifactError) as caught:
        load_manifest(Path("artifact"))
    assert str(tmp_path) in caught.value.message and "QA_ARTIFACT_DIR" in caught.value.message
