"""Firestore (native mode) store: one document per passage, the shared answer cache beside it.

A passage document::

    text, title, doc_id        strings
    token_ids, offsets         bytes (packed, see records.py), never arrays of integers
    token_dtype, n_tokens      how to unpack them
    tokenizer                  sha256 fingerprint of the tokenizer that made them
    updated                    server timestamp

Reads fetch documents by id (``get_all``, one round trip for up to 50 ids); no
query touches ``text``, ``token_ids`` or ``offsets``, so the set-up script
exempts those fields from indexing and nothing here depends on them being
indexed. Every call has a deadline and no retries: a store that does not
answer in time gives a 503 the client can retry, not a hung request.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Iterable

from function.errors import StoreUnavailable
from function.store.records import Passage

_FIELDS = ("title", "doc_id", "text", "token_ids", "token_dtype", "offsets", "n_tokens", "tokenizer")


def _unavailable(what: str, error: Exception) -> StoreUnavailable:
    kind = type(error).__name__
    return StoreUnavailable(f"Firestore did not answer ({what}: {kind}); retry shortly")


class FirestoreStore:
    def __init__(self, project: str | None, database: str, passages: str, answers: str,
                 timeout_s: float = 3.0):
        from google.api_core import exceptions as gexc
        from google.cloud import firestore

        self._firestore = firestore
        self._errors = (gexc.GoogleAPIError, TimeoutError, ConnectionError)
        self.client = firestore.Client(project=project, database=database)
        self.passages = self.client.collection(passages)
        self.answers = self.client.collection(answers)
        self.timeout_s = timeout_s
        self.description = f"firestore:{self.client.project}/{database}/{passages}"

    def get_many(self, ids: list[str]) -> dict[str, Passage]:
        refs = [self.passages.document(i) for i in ids]
        try:
            snaps = list(self.client.get_all(refs, retry=None, timeout=self.timeout_s))
        except self._errors as e:
            raise _unavailable("get passages", e) from None
        found = {}
        for snap in snaps:
            if snap.exists:
                d = snap.to_dict()
                found[snap.id] = Passage(snap.id, *(d[f] for f in _FIELDS))
        return found

    def upsert_many(self, passages: Iterable[Passage]) -> int:
        """Bulk write (BulkWriter); raises if any write fails after the writer's own retries."""
        failures: list[str] = []

        def on_error(error) -> bool:
            if error.attempts >= 5:
                failures.append(f"{error.operation.reference.id}: {error.message}")
                return False
            return True

        writer = self.client.bulk_writer()
        writer.on_write_error(on_error)
        n = 0
        try:
            for p in passages:
                data = {f: getattr(p, f) for f in _FIELDS}
                data["updated"] = self._firestore.SERVER_TIMESTAMP
                writer.set(self.passages.document(p.id), data)
                n += 1
            writer.close()
        except self._errors as e:
            raise _unavailable("bulk write", e) from None
        if failures:
            raise StoreUnavailable(f"{len(failures)} passage writes failed: {'; '.join(failures[:5])}")
        return n

    def delete_many(self, ids: list[str]) -> int:
        existing = self.get_many(ids)
        writer = self.client.bulk_writer()
        for pid in existing:
            writer.delete(self.passages.document(pid))
        writer.close()
        return len(existing)

    def count(self) -> int:
        try:
            result = self.passages.count().get(timeout=self.timeout_s)
        except self._errors as e:
            raise _unavailable("count", e) from None
        return int(result[0][0].value)

    def get_answer(self, key: str) -> dict | None:
        try:
            snap = self.answers.document(key).get(retry=None, timeout=self.timeout_s)
        except self._errors as e:
            raise _unavailable("get cached answer", e) from None
        if not snap.exists:
            return None
        d = snap.to_dict()
        # The TTL policy deletes expired documents within a day, not at once.
        if d["expires_at"] <= dt.datetime.now(dt.timezone.utc):
            return None
        return json.loads(d["payload"])

    def put_answer(self, key: str, payload: dict, expires_at: float) -> None:
        data = {
            "payload": json.dumps(payload),
            "expires_at": dt.datetime.fromtimestamp(expires_at, dt.timezone.utc),
        }
        try:
            self.answers.document(key).set(data, retry=None, timeout=self.timeout_s)
        except self._errors as e:
            raise _unavailable("cache answer", e) from None

    def close(self) -> None:
        self.client.close()
