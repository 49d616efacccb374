"""Input files, local or in Cloud Storage: which there are (``list_inputs``) and their bytes (``read_bytes``).

``list_inputs`` turns what the user named (files, folders, ``gs://`` objects and
prefixes) into ``InputFile``s: folders and prefixes are walked recursively and
keep the files whose extension is supported (JSON formats here, document formats
in ``extract.SUFFIXES``) and that pass the ``--include``/``--exclude`` globs.
Each file knows its path relative to what was named, which becomes a document's
id, and its ``source`` (absolute path or URI), which answers carry and which
``--sync`` compares with the store.

What is in a file is ``documents``' business (``json_input`` for the JSON formats,
``extract`` and ``split`` for the others).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Sequence
from dataclasses import dataclass


def _gcs_client():
    from google.cloud import storage

    if os.environ.get("STORAGE_EMULATOR_HOST"):
        from google.auth.credentials import AnonymousCredentials

        return storage.Client(project=os.environ.get("GOOGLE_CLOUD_PROJECT", "local"),
                              credentials=AnonymousCredentials())
    return storage.Client()


JSON_SUFFIXES = (".json", ".jsonl")


def document_suffixes() -> tuple[str, ...]:
    from function.ingest.extract import SUFFIXES

    return tuple(SUFFIXES)


def supported_suffixes() -> tuple[str, ...]:
    return JSON_SUFFIXES + document_suffixes()


def is_json(name: str) -> bool:
    return name.lower().endswith(JSON_SUFFIXES)


@dataclass(frozen=True)
class InputFile:
    source: str  # absolute local path or gs:// URI: where to read it, and what answers point to
    rel: str  # path relative to the folder or prefix named ('/'-separated), or the file name: a document id
    root: str  # the folder or prefix it was found under (ending in '/'), or the file itself


@dataclass(frozen=True)
class Listing:
    files: list[InputFile]
    roots: list[str]  # what was named, as sources: folders and prefixes end with '/'
    unsupported: list[str]  # files under a folder or prefix skipped for their extension


def _selected(rel: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    if include and not any(fnmatch.fnmatchcase(rel, g) for g in include):
        return False
    return not any(fnmatch.fnmatchcase(rel, g) for g in exclude)


def list_inputs(uris: Sequence[str], include: Sequence[str] = (), exclude: Sequence[str] = ()) -> Listing:
    """The files behind ``uris``: files, local folders, ``gs://bucket/object`` or ``gs://bucket/prefix/``.

    Folders and prefixes are walked recursively (hidden files and folders, named ``.*``, are left out) for
    supported extensions; a file named by itself is always taken (an unsupported one fails by name when it
    is read). The globs are matched (``fnmatch``, case-sensitive; ``*`` also matches '/') against the path
    relative to the folder or prefix. Sorted, without duplicates.
    """
    suffixes = supported_suffixes()
    files: dict[str, InputFile] = {}
    roots: list[str] = []
    unsupported: list[str] = []

    def take(source: str, rel: str, root: str, walked: bool) -> None:
        if not _selected(rel, include, exclude):
            return
        if walked and not rel.lower().endswith(suffixes):
            unsupported.append(source)
            return
        files.setdefault(source, InputFile(source, rel, root))

    for uri in uris:
        if uri.startswith("gs://"):
            bucket, _, path = uri[5:].partition("/")
            if path and not path.endswith("/"):
                roots.append(uri)
                take(uri, path.rsplit("/", 1)[-1], uri, False)
                continue
            root = f"gs://{bucket}/{path}"
            roots.append(root)
            for blob in _gcs_client().list_blobs(bucket, prefix=path):
                rel = blob.name[len(path):]
                if blob.name.endswith("/") or any(part.startswith(".") for part in rel.split("/")):
                    continue
                take(f"gs://{bucket}/{blob.name}", rel, root, True)
        elif os.path.isdir(uri):
            root = os.path.join(os.path.abspath(uri), "")
            roots.append(root)
            for folder, dirs, names in os.walk(root):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in names:
                    if not name.startswith("."):
                        path = os.path.join(folder, name)
                        take(path, os.path.relpath(path, root).replace(os.sep, "/"), root, True)
        else:
            path = os.path.abspath(uri)
            roots.append(path)
            take(path, os.path.basename(path), path, False)
    return Listing(sorted(files.values(), key=lambda f: f.source), roots, sorted(unsupported))


def read_bytes(uri: str) -> bytes:
    if uri.startswith("gs://"):
        bucket, _, path = uri[5:].partition("/")
        return _gcs_client().bucket(bucket).blob(path).download_as_bytes()
    with open(uri, "rb") as f:
        return f.read()
