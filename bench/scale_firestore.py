"""The Firestore term index (``function/store/firestore_terms.py``) as a backend of ``python -m bench scale``.

Passages go through ``FirestoreStore.upsert_many`` (the store's own write path:
each batch reads the term documents it touches and rewrites them in
transactions, then writes the passage documents), on the official Firestore
emulator (``harness.firestore``: started here on a free port unless
``FIRESTORE_EMULATOR_HOST`` names one). Besides rows per second it counts what
Firestore would bill and carry:

- operations: reads, writes and deletes, as ``function.store.ops`` counts them
  for the cost model;
- bytes written: the size of every Commit request's writes (the serialised
  protocol buffers the client sends: passages, term documents, totals), summed
  by wrapping the client's ``commit``; a transaction retried after a conflict
  counts each attempt, as Firestore bills each;
- the index's size: every ``<passages>_terms`` document read back after the
  build, sized by Firestore's documented storage formula (document name, field
  names and values, 32 bytes per document; the built-in single-field index
  entries Firestore adds on top are not counted).

The emulator is a local Java process: its times are not Firestore's, but how
they grow with the corpus (the rows per second of each tenth) is the term
index's own: a batch rewrites the whole posting list of every term it touches.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

COLLECTION = "passages"
DOCUMENT_OVERHEAD = 32  # bytes per document in Firestore's storage-size formula
NAME_OVERHEAD = 16  # bytes added to a document name's size


@contextlib.contextmanager
def emulator(log_dir: Path) -> Iterator[dict]:
    """The environment that points the Firestore client at an emulator: one started here, or the one named."""
    from harness.firestore import FirestoreEmulator, emulator_env

    if os.environ.get("FIRESTORE_EMULATOR_HOST"):
        yield {"FIRESTORE_EMULATOR_HOST": os.environ["FIRESTORE_EMULATOR_HOST"],
               "GOOGLE_CLOUD_PROJECT": os.environ.get("GOOGLE_CLOUD_PROJECT", "demo-qa-test")}
        return
    log_dir.mkdir(parents=True, exist_ok=True)
    started = FirestoreEmulator(log_dir / "firestore-emulator.log").start(timeout_s=120)
    env = {k: v for k, v in emulator_env(started).items() if k != "QA_STORE"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield env
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        started.stop()


def open_store(timeout_s: float = 60.0):
    """The store on the emulator the environment names, with its term index (the default deployment)."""
    from function.store.firestore import FirestoreStore

    return FirestoreStore(os.environ.get("GOOGLE_CLOUD_PROJECT"), "(default)", COLLECTION, "answers",
                          timeout_s=timeout_s, term_index=True)


def clear() -> None:
    """Delete every document of the emulator's database (its own reset endpoint): one corpus at a time."""
    import urllib.request

    host, project = os.environ["FIRESTORE_EMULATOR_HOST"], os.environ.get("GOOGLE_CLOUD_PROJECT", "demo-qa-test")
    url = f"http://{host}/emulator/v1/projects/{project}/databases/(default)/documents"
    urllib.request.urlopen(urllib.request.Request(url, method="DELETE"), timeout=60).read()


class CommitBytes:
    """Counts Commit requests and the bytes of their writes, for as long as it is entered."""

    def __init__(self):
        self.commits = 0
        self.bytes = 0

    def __enter__(self) -> CommitBytes:
        from google.cloud.firestore_v1.services.firestore.client import FirestoreClient
        from google.cloud.firestore_v1.types import CommitRequest

        self._class, self._original = FirestoreClient, FirestoreClient.commit
        original, counter = self._original, self

        def commit(client, request=None, **kwargs):
            message = request if isinstance(request, CommitRequest) else CommitRequest(request)
            counter.commits += 1
            counter.bytes += sum(type(w).pb(w).ByteSize() for w in message.writes)
            return original(client, request=request, **kwargs)

        FirestoreClient.commit = commit
        return self

    def __exit__(self, *exc) -> None:
        self._class.commit = self._original


def value_bytes(value) -> int:
    """A field value's size in Firestore's storage formula."""
    if isinstance(value, str):
        return len(value.encode("utf-8")) + 1
    if isinstance(value, bytes):
        return len(value)
    if isinstance(value, bool) or value is None:
        return 1
    if isinstance(value, (int, float)):
        return 8
    if isinstance(value, dict):
        return sum(len(k.encode("utf-8")) + 1 + value_bytes(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return sum(value_bytes(v) for v in value)
    return 8  # timestamps and the rest of the fixed-size types


def document_bytes(collection: str, doc_id: str, fields: dict) -> int:
    """Firestore's storage size of a top-level document (name + fields + 32)."""
    name = len(collection.encode("utf-8")) + 1 + len(doc_id.encode("utf-8")) + 1 + NAME_OVERHEAD
    return name + value_bytes(fields) + DOCUMENT_OVERHEAD


def index_size(store) -> dict:
    """How many term documents the index holds and their storage size."""
    collection = store.index.terms
    count, size = 0, 0
    for snap in collection.stream():
        count += 1
        size += document_bytes(collection.id, snap.id, snap.to_dict())
    return {"term_documents": count, "bytes": size}
