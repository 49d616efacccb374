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
import tempfile
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


LISTING = ".listing"  # in a corpus folder: what it was built from (hidden: ingestion leaves it out)


def corpus(docset: dict, cache: Path = CACHE, say=lambda m: None) -> tuple[Path, list[str]]:
    """The set's corpus folder and its files' ids, sorted: the files the set selects from its fetched packages,
    under ``<set>/corpus/<package name>/...``. The folder is kept while its listing (each file's id, source and
    size) is what the set selects now; otherwise it is built in a folder of its own and moved into place by
    renames, so that runs sharing a cache neither copy it each time nor delete it under one another."""
    chosen: list[tuple[str, Path]] = []
    for package in docset["source"]["packages"]:
        unpacked = fetch(docset["source"]["kind"], package["name"], package["version"], cache, say)
        picked = selected(package, unpacked)
        if not picked:
            raise FetchError(f"set {docset['set']}: package {package['name']} {package['version']} has no file "
                             f"matching its include/exclude under {package['root']!r}")
        chosen += [(f"{package['name']}/{rel}", path) for rel, path in picked]
    chosen.sort()
    listing = "".join(f"{fid}\t{path}\t{path.stat().st_size}\n" for fid, path in chosen)
    folder = cache / docset["set"] / "corpus"
    files = [fid for fid, _ in chosen]
    if _listing(folder) == listing:
        return folder, files
    folder.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix="corpus-", dir=folder.parent))
    try:
        for fid, path in chosen:
            target = fresh / fid
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                shutil.copyfile(path, target)
            except OSError as e:
                raise FetchError(f"set {docset['set']}: cannot copy {path}: {e}") from e
        (fresh / LISTING).write_text(listing)
        stale = fresh.with_name(fresh.name + "-stale")
        try:
            folder.rename(stale)  # an older corpus out of the way (another run may have moved it already)
        except FileNotFoundError:
            pass
        try:
            fresh.rename(folder)
        except OSError:  # another run put its own in place meanwhile: the same selection, or it says so below
            if _listing(folder) != listing:
                raise FetchError(f"set {docset['set']}: {folder} is being rebuilt by another run from another "
                                 "selection; run again when it is done") from None
        shutil.rmtree(stale, ignore_errors=True)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    return folder, files


def _listing(folder: Path) -> str | None:
    try:
        return (folder / LISTING).read_text()
    except OSError:
        return None
