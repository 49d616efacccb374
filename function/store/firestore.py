"""Firestore (native mode) store: one document per passage, the shared answer cache beside it.

A passage document::

    text, title, doc_id        strings
    source, chunk, start, end  where it comes from (passage.Passage; absent on older documents)
    tags                       array of strings (``--tag``; absent on older documents: no tags)
    marks                      bytes: inline code spans (passage.Passage.marks; absent where none)
    lines                      bytes: code blocks' lines (passage.Passage.lines; absent where none)
    embedding, encoder         bytes and string: the passage's sentence embedding and the encoder that made it
                               (passage.Passage.embedding; absent where none)
    token_ids, offsets         bytes (packed, see passage.py), never arrays of integers
    token_dtype, n_tokens      how to unpack them
    tokenizer                  sha256 fingerprint of the tokenizer that made them
    updated                    server timestamp

    bm25_terms, bm25_length    what the retrieval index holds about it (retrieval/firestore_terms.py)

Reads fetch documents by id (``get_all``, one round trip for up to 50 ids); no
query touches ``text``, ``token_ids`` or ``offsets``, so the set-up script
exempts those fields from indexing and nothing here depends on them being
indexed. Every call has a deadline and no retries: a store that does not
answer in time gives a 503 the client can retry, not a hung request.

After a call fails for want of a connection (UNAVAILABLE, DEADLINE_EXCEEDED),
the client's gRPC channel is dropped (at most once per ``RECONNECT_EVERY_S``)
and the next call dials a new one. The old channel would wait out gRPC's
reconnect backoff, which grows with every failed attempt up to 120 s: with the
emulator down for 45 s, the same process kept answering 503 for 21 s after it
was back. With a new channel, requests are answered again within about
``RECONNECT_EVERY_S`` + the call deadline (QA_STORE_TIMEOUT_S) of the store's
return, as long as requests keep coming (measured: 1.5 s with a 1 s deadline).

Ingested documents (``function.ingest``) have one record each in ``<passages>_documents``
(doc_id, source, sha256, passage_ids as NUL-joined bytes, updated), keyed by
``ids.document_key``; a document's passages are found by querying ``doc_id``
(the automatic single-field index), its records by a range on ``source``.

The corpus generation is one document, ``<passages>_meta/corpus`` (``generation``: a random
token), set again in every batch that writes or deletes passages (one more write per batch): an
instance that reads the new token after the batch is committed also reads the new passages, and
cached answers are keyed by it (``function.service.cache.CorpusGeneration``).

The BM25 index for questions without passage ids lives in ``<passages>_terms``
(``function.retrieval.firestore_terms``, held as ``store.index``): writes and
deletes first rewrite the postings of the terms involved, then write the
passages together with the corpus totals. A filtered question (``documents``,
``source_prefix``, ``tags``) queries the passages' ``doc_id``, ``source`` and
``tags`` fields (their automatic single-field indexes), see ``TermIndex``.
With a separate retrieval index (``QA_INDEX_URI``: ``open_store`` passes
``term_index=False``) none of this is done: passages are written without their
``bm25_*`` fields, nothing in ``<passages>_terms`` is read or written (about 21.6
reads and 21.6 writes a passage saved at ingestion: docs/cost.md, "The Lance
index on Cloud Storage"), and ``store.index`` is None. Postings written before are left as they were,
so going back to this index means deleting ``<passages>_terms`` and re-ingesting
with ``--force``.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
import uuid
from collections.abc import Iterable

from function.errors import StoreUnavailable
from function.retrieval.bm25 import PassageTerms
from function.retrieval.firestore_terms import TermIndex
from function.store import ops
from function.store.ids import document_key
from function.store.passage import DocumentRecord, Passage

_FIELDS = ("title", "doc_id", "text", "token_ids", "token_dtype", "offsets", "n_tokens", "tokenizer")
_PLACE_FIELDS = ("source", "chunk", "start", "end")  # passage.Passage's defaults when absent
_EXTRA_FIELDS = ("tags", "marks", "embedding", "encoder", "lines")  # absent where there are none
_INDEX_FIELDS = ("bm25_terms", "bm25_length")
_BATCH_BYTES = 4 * 1024 * 1024  # per commit; Firestore takes at most 10 MiB
_BATCH_DOCS = 400
RECONNECT_EVERY_S = 1.0  # at most one new gRPC channel per second while calls keep failing


def _sources_under(collection, prefix: str):
    """The query of ``collection``'s documents whose ``source`` starts with ``prefix`` (a range on its index)."""
    from google.cloud.firestore_v1.base_query import FieldFilter

    return collection.where(filter=FieldFilter("source", ">=", prefix)).where(
        filter=FieldFilter("source", "<", prefix + "\U0010ffff"))


def _unavailable(what: str, error: Exception) -> StoreUnavailable:
    kind = type(error).__name__
    return StoreUnavailable(f"Firestore did not answer ({what}: {kind}); retry shortly")


class FirestoreStore:
    def __init__(self, project: str | None, database: str, passages: str, answers: str,
                 timeout_s: float = 3.0, term_index: bool = True, term_cache_bytes: int = 0):
        from google.api_core import exceptions as gexc
        from google.cloud import firestore

        self._firestore = firestore
        self._errors = (gexc.GoogleAPIError, TimeoutError, ConnectionError)
        self._connection_errors = (gexc.ServiceUnavailable, gexc.DeadlineExceeded, TimeoutError, ConnectionError)
        self._reconnect_lock = threading.Lock()
        self._reconnected_at = float("-inf")
        from google.auth.exceptions import GoogleAuthError

        try:
            self.client = firestore.Client(project=project, database=database)
        except GoogleAuthError as e:  # no credentials here: a 503 (or the CLI's one line) that says so, not a 500
            raise StoreUnavailable(
                f"cannot reach Firestore: no Google Cloud credentials ({type(e).__name__}: {e}); on Cloud Run the "
                "service account gives them, elsewhere run `gcloud auth application-default login`, or set "
                "FIRESTORE_EMULATOR_HOST for the emulator") from None
        self.passages = self.client.collection(passages)
        self.answers = self.client.collection(answers)
        self.timeout_s = timeout_s
        self.documents = self.client.collection(f"{passages}_documents")
        self.meta = self.client.collection(f"{passages}_meta").document("corpus")
        self.description = f"firestore:{self.client.project}/{database}/{passages}"
        # None: retrieval has an index of its own (QA_INDEX_URI), this one is neither written nor read
        self.index = TermIndex(self.client, f"{passages}_terms", timeout_s, f"{self.description}_terms",
                               self._errors, self._failed, passages=self.passages,
                               cache_bytes=term_cache_bytes) if term_index else None

    def _failed(self, what: str, error: Exception) -> StoreUnavailable:
        """The 503 for a failed call; a connection failure also drops the channel (see the module docstring)."""
        if isinstance(error, self._connection_errors):
            with self._reconnect_lock:
                now = time.monotonic()
                if now - self._reconnected_at >= RECONNECT_EVERY_S:
                    self._reconnected_at = now
                    # google-cloud-firestore (pinned) builds its GAPIC client, channel included, on the
                    # next call when this is None. Calls in flight keep the old channel until they end;
                    # it is closed when the last reference to it goes.
                    self.client._firestore_api_internal = None
                    self.client._transport = None
        return _unavailable(what, error)

    def get_many(self, ids: list[str]) -> dict[str, Passage]:
        refs = [self.passages.document(i) for i in ids]
        try:
            snaps = list(self.client.get_all(refs, field_paths=_FIELDS + _PLACE_FIELDS + _EXTRA_FIELDS, retry=None,
                                             timeout=self.timeout_s))
        except self._errors as e:
            raise self._failed("get passages", e) from None
        ops.add(reads=len(refs))
        found = {}
        for snap in snaps:
            if snap.exists:
                d = snap.to_dict()
                found[snap.id] = Passage(snap.id, *(d[f] for f in _FIELDS),
                                         **{f: d[f] for f in _PLACE_FIELDS if f in d}, tags=tuple(d.get("tags", ())),
                                         marks=d.get("marks") or b"", embedding=d.get("embedding") or b"",
                                         encoder=d.get("encoder") or "", lines=d.get("lines") or b"")
        return found

    def _indexed(self, ids: list[str]) -> tuple[set[str], dict[str, tuple[list[str], int]]]:
        """(ids that exist, id -> (terms, length) of those the index holds)."""
        refs = [self.passages.document(i) for i in dict.fromkeys(ids)]
        exist, indexed = set(), {}
        for c in range(0, len(refs), 300):
            ops.add(reads=len(refs[c : c + 300]))
            for snap in self.client.get_all(refs[c : c + 300], field_paths=_INDEX_FIELDS, retry=None,
                                            timeout=self.timeout_s):
                if snap.exists:
                    exist.add(snap.id)
                    d = snap.to_dict()
                    if "bm25_terms" in d:
                        terms = d["bm25_terms"].decode("utf-8").split("\x00") if d["bm25_terms"] else []
                        indexed[snap.id] = (terms, int(d["bm25_length"]))
        return exist, indexed

    def _commit_in_batches(self, writes, old: dict[str, tuple[list[str], int]]) -> None:
        """Apply (id, fields or None to delete, their analysis) with the corpus totals' change, in batches."""
        batch, size, docs, deletes, n, length = self.client.batch(), 0, 0, 0, 0, 0

        def flush() -> None:
            nonlocal batch, size, docs, deletes, n, length
            if docs:
                totals = self.index is not None and bool(n or length)
                if totals:
                    self.index.corpus_change(batch, n, length)
                batch.set(self.meta, self._new_generation())
                batch.commit(timeout=max(self.timeout_s, 60))
                ops.add(writes=docs - deletes + totals + 1, deletes=deletes)
            batch, size, docs, deletes, n, length = self.client.batch(), 0, 0, 0, 0, 0

        for pid, data, analysed in writes:
            ref = self.passages.document(pid)
            if data is None:
                batch.delete(ref)
                deletes += 1
            else:
                batch.set(ref, data)
            previous = old.get(pid)
            n += (analysed is not None) - (previous is not None)
            length += (analysed.length if analysed else 0) - (previous[1] if previous else 0)
            docs += 1
            size += sum(len(v) for v in data.values() if isinstance(v, (bytes, str))) if data else 0
            if docs >= _BATCH_DOCS or size >= _BATCH_BYTES:
                flush()
        flush()

    def upsert_many(self, passages: Iterable[Passage]) -> int:
        """Index the passages' terms, then write them (see the module docstring); re-writing replaces.
        Without the term index: the passage documents alone, one write each and no read."""
        given = list(passages)
        by_id = {p.id: p for p in given}  # one write per id: the last one given
        indexing = self.index is not None
        analysed = {pid: PassageTerms.of(p.title, p.text) for pid, p in by_id.items()} if indexing else {}

        def writes():
            for pid, p in by_id.items():
                data = {f: getattr(p, f) for f in _FIELDS + _PLACE_FIELDS}
                data["tags"] = list(p.tags)
                if p.marks:
                    data["marks"] = p.marks
                if p.lines:
                    data["lines"] = p.lines
                if p.embedding:
                    data["embedding"], data["encoder"] = p.embedding, p.encoder
                if indexing:
                    data["bm25_terms"] = "\x00".join(analysed[pid].frequencies()).encode("utf-8")
                    data["bm25_length"] = analysed[pid].length
                data["updated"] = self._firestore.SERVER_TIMESTAMP
                yield pid, data, analysed.get(pid)

        try:
            old = {}
            if indexing:
                _exist, old = self._indexed(list(by_id))
                self.index.update({pid: terms for pid, (terms, _) in old.items()}, analysed)
            self._commit_in_batches(writes(), old)
        except self._errors as e:
            raise self._failed("write passages", e) from None
        return len(given)

    def delete_many(self, ids: list[str]) -> int:
        try:
            exist, old = self._indexed(ids)
            if self.index is not None:
                self.index.update({pid: terms for pid, (terms, _) in old.items()}, {})
            self._commit_in_batches(((pid, None, None) for pid in exist), old)
        except self._errors as e:
            raise self._failed("delete passages", e) from None
        return len(exist)

    def _count(self, collection, what: str) -> int:
        """Documents in ``collection`` or a query of it (an aggregation query: a read per 1,000 index entries)."""
        try:
            result = collection.count().get(timeout=self.timeout_s)
        except self._errors as e:
            raise self._failed(what, e) from None
        n = int(result[0][0].value)
        ops.add(reads=ops.count_reads(n))
        return n

    def count(self) -> int:
        return self._count(self.passages, "count")

    def _new_generation(self) -> dict:
        return {"generation": uuid.uuid4().hex, "updated": self._firestore.SERVER_TIMESTAMP}

    def generation(self) -> str:
        """The corpus generation: a random token written in the batch of every passage write and deletion
        ("" where none was ever written). One read."""
        try:
            snap = self.meta.get(field_paths=["generation"], retry=None, timeout=self.timeout_s)
        except self._errors as e:
            raise self._failed("get the corpus generation", e) from None
        ops.add(reads=1)
        return (snap.to_dict() or {}).get("generation", "") if snap.exists else ""

    def new_generation(self) -> None:
        """A new corpus generation with no passage written (after writing a separate retrieval index)."""
        try:
            self.meta.set(self._new_generation(), retry=None, timeout=max(self.timeout_s, 60))
        except self._errors as e:
            raise self._failed("write the corpus generation", e) from None
        ops.add(writes=1)

    # -- documents (function.ingest) ------------------------------------------

    def passages_of(self, doc_id: str) -> dict[str, str]:
        """Passage id -> source of every stored passage whose ``doc_id`` is ``doc_id``."""
        from google.cloud.firestore_v1.base_query import FieldFilter

        query = self.passages.where(filter=FieldFilter("doc_id", "==", doc_id)).select(["source"])
        try:
            found = {snap.id: (snap.to_dict() or {}).get("source", "")
                     for snap in query.stream(retry=None, timeout=max(self.timeout_s, 60))}
        except self._errors as e:
            raise self._failed("find a document's passages", e) from None
        ops.add(reads=max(1, len(found)))  # a query is billed one read even when it finds nothing
        return found

    @staticmethod
    def _document(d: dict) -> DocumentRecord:
        ids = d["passage_ids"].decode("utf-8").split("\x00") if d.get("passage_ids") else []
        updated = d.get("updated")
        return DocumentRecord(d["doc_id"], d["source"], d["sha256"], tuple(ids),
                              updated.timestamp() if hasattr(updated, "timestamp") else 0.0)

    def get_documents(self, doc_ids: list[str]) -> dict[str, DocumentRecord]:
        refs = [self.documents.document(document_key(i)) for i in dict.fromkeys(doc_ids)]
        found: dict[str, DocumentRecord] = {}
        try:
            for c in range(0, len(refs), 300):
                ops.add(reads=len(refs[c : c + 300]))
                for snap in self.client.get_all(refs[c : c + 300], retry=None, timeout=self.timeout_s):
                    if snap.exists:
                        record = self._document(snap.to_dict())
                        found[record.doc_id] = record
        except self._errors as e:
            raise self._failed("get documents", e) from None
        return found

    def passage_sources_under(self, prefix: str) -> set[tuple[str, str]]:
        """(doc id, source) of the stored passages whose source starts with ``prefix``: one query, every passage
        under it read (two fields), so ``shard.stale`` asks only where JSON files are involved."""
        query = _sources_under(self.passages, prefix).select(["doc_id", "source"])
        try:
            found = [snap.to_dict() or {} for snap in query.stream(retry=None, timeout=max(self.timeout_s, 60))]
        except self._errors as e:
            raise self._failed("list passages' sources", e) from None
        ops.add(reads=max(1, len(found)))
        return {(d.get("doc_id", ""), d.get("source", "")) for d in found if d.get("source", "").startswith(prefix)}

    def passage_count_under(self, prefix: str) -> int:
        """An aggregation query (a read per 1,000 passages), not the passages themselves."""
        return self._count(_sources_under(self.passages, prefix), "count passages")

    def documents_under(self, prefix: str) -> list[DocumentRecord]:
        """The documents whose source starts with ``prefix`` ("" for all)."""
        query = _sources_under(self.documents, prefix) if prefix else self.documents
        try:
            records = [self._document(snap.to_dict())
                       for snap in query.stream(retry=None, timeout=max(self.timeout_s, 60))]
        except self._errors as e:
            raise self._failed("list documents", e) from None
        ops.add(reads=max(1, len(records)))
        return sorted((r for r in records if r.source.startswith(prefix)), key=lambda r: r.doc_id)

    def put_documents(self, records: Iterable[DocumentRecord]) -> None:
        try:
            batch, n = self.client.batch(), 0
            for r in records:
                batch.set(self.documents.document(document_key(r.doc_id)), {
                    "doc_id": r.doc_id, "source": r.source, "sha256": r.sha256,
                    "passage_ids": "\x00".join(r.passage_ids).encode("utf-8"),
                    "updated": self._firestore.SERVER_TIMESTAMP})
                n += 1
                if n % _BATCH_DOCS == 0:
                    batch.commit(timeout=max(self.timeout_s, 60))
                    ops.add(writes=_BATCH_DOCS)
                    batch = self.client.batch()
            if n % _BATCH_DOCS:
                batch.commit(timeout=max(self.timeout_s, 60))
                ops.add(writes=n % _BATCH_DOCS)
        except self._errors as e:
            raise self._failed("write documents", e) from None

    def delete_documents(self, doc_ids: list[str]) -> int:
        existing = self.get_documents(doc_ids)
        try:
            for c in range(0, len(existing), _BATCH_DOCS):
                batch = self.client.batch()
                chunk = list(existing)[c : c + _BATCH_DOCS]
                for doc_id in chunk:
                    batch.delete(self.documents.document(document_key(doc_id)))
                batch.commit(timeout=max(self.timeout_s, 60))
                ops.add(deletes=len(chunk))
        except self._errors as e:
            raise self._failed("delete documents", e) from None
        return len(existing)

    def document_count(self) -> int:
        return self._count(self.documents, "count documents")

    def get_answer(self, key: str) -> dict | None:
        try:
            snap = self.answers.document(key).get(retry=None, timeout=self.timeout_s)
        except self._errors as e:
            raise self._failed("get cached answer", e) from None
        ops.add(reads=1)
        if not snap.exists:
            return None
        d = snap.to_dict()
        # The TTL policy deletes expired documents within a day, not at once.
        if d["expires_at"] <= dt.datetime.now(dt.UTC):
            return None
        return json.loads(d["payload"])

    def put_answer(self, key: str, payload: dict, expires_at: float) -> None:
        data = {
            "payload": json.dumps(payload),
            "expires_at": dt.datetime.fromtimestamp(expires_at, dt.UTC),
        }
        try:
            self.answers.document(key).set(data, retry=None, timeout=self.timeout_s)
        except self._errors as e:
            raise self._failed("cache answer", e) from None
        ops.add(writes=1)

    def close(self) -> None:
        self.client.close()
