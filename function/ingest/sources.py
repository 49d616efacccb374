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
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field


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
    # folders under a folder named that could not be listed (their documents are neither read nor deleted), each
    # with why; files there that are not regular files (a FIFO would block the read for ever, a socket or device);
    # and the page sources a Sphinx HTML build keeps beside its pages (_sources/*.rst.txt: the same text again,
    # without what Sphinx's directives made of it); and the links to folders found there (ending in '/'), which are
    # not followed (``list_inputs``)
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    special: list[str] = field(default_factory=list)
    sphinx_sources: list[str] = field(default_factory=list)
    symlinked: list[str] = field(default_factory=list)
    # links to a file that the walk finds by its own path too (or by another link first): the same document twice
    linked_copies: list[str] = field(default_factory=list)

    def kept_unread(self, source: str) -> bool:
        """Whether ``source`` lies under a folder that could not be listed: ``--sync`` must leave it alone."""
        return any(source.startswith(folder) for folder, _ in self.unreadable)


# A folder that holds one of these is the output of Sphinx's HTML builder; its _sources/ folder holds a copy of
# every page's source (``html_copy_source``, on by default) for the "Show Source" link.
_SPHINX_BUILD_MARKS = ("searchindex.js", "objects.inv")


def _sphinx_copies(rels: set[str]) -> set[str]:
    """The '/'-separated folders (relative, ending in '/', or '' for the top) whose _sources/ are a Sphinx build's."""
    return {rel[: len(rel) - len(mark)] for rel in rels for mark in _SPHINX_BUILD_MARKS
            if rel == mark or rel.endswith("/" + mark)}


def _selected(rel: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    if include and not any(fnmatch.fnmatchcase(rel, g) for g in include):
        return False
    return not any(fnmatch.fnmatchcase(rel, g) for g in exclude)


def list_inputs(uris: Sequence[str], include: Sequence[str] = (), exclude: Sequence[str] = ()) -> Listing:
    """The files behind ``uris``: files, local folders, ``gs://bucket/object`` or ``gs://bucket/prefix/``.

    Folders and prefixes are walked recursively (hidden files and folders, named ``.*``, are left out) for
    supported extensions; a file named by itself is always taken (an unsupported one fails by name when it
    is read). The globs are matched (``fnmatch``, case-sensitive; ``*`` also matches '/') against the path
    relative to the folder or prefix. Sorted, without duplicates. Left out of a walk, and listed for the run to
    say so: a folder that cannot be listed, a file that is not a regular file, a Sphinx HTML build's
    ``_sources/`` copies of its pages, and a link to a folder. Such a link is not followed: one to a folder beside it
    (``latest -> v2.1``) would store every document of it twice, under two ids, one to a folder above it would loop,
    one elsewhere would take in files the folder named does not hold; naming it (or its target) ingests it. A link
    to a file is read as the file, unless the walk finds that file too (by its own path, or by a link before it):
    then it is left out and listed, as the same document stored twice under two ids would answer twice.
    """
    suffixes = supported_suffixes()
    files: dict[str, InputFile] = {}
    roots: list[str] = []
    unsupported: list[str] = []
    unreadable: list[tuple[str, str]] = []
    special: list[str] = []
    sphinx_sources: list[str] = []
    symlinked: list[str] = []
    linked_copies: list[str] = []

    def take(source: str, rel: str, root: str, walked: bool) -> None:
        if not _selected(rel, include, exclude):
            return
        if walked and not rel.lower().endswith(suffixes):
            unsupported.append(source)
            return
        files.setdefault(source, InputFile(source, rel, root))

    def walked(source: str, rel: str, root: str, copies: set[str]) -> None:
        """``take`` for a file found by walking, unless it is a Sphinx build's copy of a page's source."""
        if any(rel.startswith(folder + "_sources/") for folder in copies):
            if _selected(rel, include, exclude):
                sphinx_sources.append(source)
            return
        take(source, rel, root, True)

    for uri in uris:
        if uri.startswith("gs://"):
            bucket, path = _gs_parts(uri)
            if path and not path.endswith("/"):
                roots.append(uri)
                take(uri, path.rsplit("/", 1)[-1], uri, False)
                continue
            root = f"gs://{bucket}/{path}"
            roots.append(root)
            found = [blob.name[len(path):] for blob in _gcs_client().list_blobs(bucket, prefix=path)
                     if not blob.name.endswith("/")]
            found = [rel for rel in found if not any(part.startswith(".") for part in rel.split("/"))]
            copies = _sphinx_copies(set(found))
            for rel in found:
                walked(f"gs://{bucket}/{path}{rel}", rel, root, copies)
        elif os.path.isdir(uri):
            root = os.path.join(os.path.abspath(uri), "")
            roots.append(root)
            found = []

            def unlisted(error: OSError) -> None:  # os.walk would skip such a folder without a word
                unreadable.append((os.path.join(error.filename, ""), error.strerror or str(error)))

            for folder, dirs, names in os.walk(root, onerror=unlisted):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                links = [d for d in dirs if os.path.islink(os.path.join(folder, d))]  # os.walk skips them silently
                symlinked.extend(os.path.join(folder, d, "") for d in links)
                dirs[:] = [d for d in dirs if d not in links]
                for name in names:
                    if not name.startswith("."):
                        path = os.path.join(folder, name)
                        try:
                            regular = stat.S_ISREG(os.stat(path).st_mode)
                        except OSError:  # a dangling link, a file gone since: reading it fails by name
                            regular = True
                        if not regular:
                            special.append(path)
                            continue
                        found.append((path, os.path.relpath(path, root).replace(os.sep, "/")))
            targets = {os.path.realpath(path) for path, _ in found if not os.path.islink(path)}
            for path, _ in sorted(found):
                if os.path.islink(path):
                    target = os.path.realpath(path)
                    if target in targets:
                        linked_copies.append(path)
                    targets.add(target)
            copied = set(linked_copies)
            found = [(path, rel) for path, rel in found if path not in copied]
            copies = _sphinx_copies({rel for _, rel in found})
            for path, rel in found:
                walked(path, rel, root, copies)
        else:
            path = os.path.abspath(uri)
            roots.append(path)
            take(path, os.path.basename(path), path, False)
    return Listing(sorted(files.values(), key=lambda f: f.source), roots, sorted(unsupported), sorted(unreadable),
                   sorted(special), sorted(sphinx_sources), sorted(symlinked), sorted(linked_copies))


def _gs_parts(uri: str) -> tuple[str, str]:
    """``gs://bucket/path`` -> (bucket, path)."""
    bucket, _, path = uri[5:].partition("/")
    return bucket, path


def still_there(uri: str) -> bool:
    """Whether the file a stored document came from is still there (another run's input, not a moved one)."""
    if uri.startswith("gs://"):
        bucket, path = _gs_parts(uri)
        return bool(path) and _gcs_client().bucket(bucket).blob(path).exists()
    return os.path.exists(uri)


def read_bytes(uri: str) -> bytes:
    if uri.startswith("gs://"):
        bucket, path = _gs_parts(uri)
        return _gcs_client().bucket(bucket).blob(path).download_as_bytes()
    with open(uri, "rb", opener=_regular_only) as f:
        return f.read()


def _regular_only(path: str, flags: int) -> int:
    """Open ``path`` without blocking, and only if it is a regular file: a FIFO named by itself would wait for a
    writer for ever, a device could be read for ever."""
    fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"not a regular file (a FIFO, socket or device): {path}")
    return fd
