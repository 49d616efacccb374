"""``Ingestion``: the one way passages reach the store, a batch of documents at a time.

``add`` takes a document (``documents.DocumentUnit``) and queues it; ``flush``
writes the queue: it skips the unchanged documents, tokenises the passages of the
others with the artifact's tokenizer and replaces them in the store
(``upsert_many``, then the stale passages, then the document records). ``add``
flushes whenever the queue holds ``batch_size`` passages; whoever adds the last
document calls ``flush`` once more (``add_and_flush`` does both). ``delete``
removes documents. The command line (``cli``), benchmarks and tests all write
through here. With a separate retrieval index (``index``: ``function.retrieval.lance_index``), each
passage written to the store is written to it too, and each one deleted is deleted from it first;
``finish`` folds the run's rows into the index's search structures.
``tags`` (``--tag``) are given to every passage written; they are part of what a document's recorded hash
covers (``_digest``), so re-ingesting an unchanged document with other tags rewrites it.
With an ``encoder`` (stored cosines: ``QA_INDEX_ENCODER`` without a separate index), each passage is stored with its
sentence embedding; the encoder's identity is part of the hash too, so documents ingested without it (or with
another) are rewritten with embeddings on the next run.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterable

from function.ingest.documents import DocumentUnit
from function.ingest.json_input import Rejected
from function.ingest.progress import Counts
from function.ingest.sources import is_json, still_there


class Ingestion:
    """Ingest documents into a store, one batch of documents at a time.

    Replacing a changed document is ordered so that an interrupted run is repaired by the next one:

    1. its new passages are written (``upsert_many``: rewriting an id replaces it, index postings too),
       then their rows in the separate retrieval index, if there is one;
    2. the passages the store holds for its doc id (from its source) that are not among the new ones are
       deleted, with their postings: found by querying ``doc_id``, not from the old record, so passages
       left by an interrupted run are found as well; from the separate index first, so that a crash
       between the two leaves them in the store, where the next run finds them;
    3. its document record (content hash, source, passage ids) is written last.

    A crash before 3 leaves the old record (or none) with a hash that differs from the document's, so the
    next run redoes the document and step 2 removes whatever is extra; the new hash is only recorded once
    the passages match it, so a document is never skipped with stale passages. Deleting a document goes
    the other way: the record first, then its passages, so a crash between leaves passages without a
    record, which the next ``--delete`` (or re-ingestion) finds by doc id.

    Every passage write and deletion gives the store's corpus a new generation (``store.generation``), which
    keys the answer caches; with a separate index, written after the store, a second one follows that write,
    so that no answer computed between the two (new passages, the index's old rows) is served after it.
    """

    def __init__(self, store, tokenizer, batch_size: int = 256, counts: Counts | None = None, force: bool = False,
                 note=None, index=None, tags: Iterable[str] = (), encoder=None):
        self.store, self.tokenizer, self.index, self.encoder = store, tokenizer, index, encoder
        self.tags = tuple(sorted(set(tags)))
        self.batch_size, self.counts, self.force = batch_size, counts or Counts(), force
        self.note = note or (lambda message: print(message, file=sys.stderr, flush=True))
        self.failures: list[Rejected] = []
        # Added, not yet written: ``flush`` writes them (``add`` calls it at ``batch_size`` passages).
        self._awaiting_flush: list[DocumentUnit] = []
        self._passage_ids: dict[str, str] = {}  # passage id -> doc id, this run
        self._doc_sources: dict[str, str] = {}  # doc id -> source, this run

    def fail(self, where: str, reason: str, word: str = "rejected") -> None:
        """Count and report a file ("failed") or record ("rejected") that is not ingested."""
        self.failures.append(Rejected(where, reason))
        self.counts.failed += 1
        self.note(f"{word} {where}: {reason}")

    def add(self, unit: DocumentUnit) -> None:
        """Queue a document (its passages that are not another's), and flush once ``batch_size`` passages wait."""
        for r in unit.rejected:
            self.fail(r.where, r.reason)
        other = self._doc_sources.setdefault(unit.doc_id, unit.source)
        if other != unit.source and not is_json(unit.source):
            self.fail(unit.source, f"document id {unit.doc_id!r} also comes from {other}: ingest each folder "
                                   "in its own run, or rename one of the files")
            return
        pieces, taken = [], set()
        for piece in unit.pieces:
            owner = self._passage_ids.setdefault(piece.id, unit.doc_id)
            if owner != unit.doc_id or piece.id in taken:
                self.fail(piece.id, f"passage id {piece.id!r} appears twice in the input")
            else:
                taken.add(piece.id)
                pieces.append(piece)
        unit.pieces = pieces
        if not pieces:
            if not unit.rejected:
                self.fail(unit.source, f"document {unit.doc_id!r} has no passages")
            return
        self._awaiting_flush.append(unit)
        if sum(len(u.pieces) for u in self._awaiting_flush) >= self.batch_size:
            self.flush()

    def add_and_flush(self, units: Iterable[DocumentUnit]) -> None:
        """``add`` every document, then ``flush``: for a caller that holds all its documents at once."""
        for unit in units:
            self.add(unit)
        self.flush()

    def flush(self) -> None:
        """Write the documents added since the last flush, in the order the class describes."""
        from function.store.passage import DocumentRecord

        units, self._awaiting_flush = self._awaiting_flush, []
        changed = self._changed(units)
        if not changed:
            return
        passages = self._passages(changed)
        done = [u for u in changed if passages[u.doc_id]]  # one with no tokens at all keeps its old passages
        written = [p for ps in passages.values() for p in ps]
        if written:  # 1. the new passages
            self.store.upsert_many(written)
            if self.index is not None:
                self.index.write(written)
                self.store.new_generation()  # answers cached from the index's old rows: unreachable too
        stale = [pid for u in done for pid in self._stale_passages(u, {p.id for p in passages[u.doc_id]})]
        if stale:  # 2. what each document no longer has
            self._delete_passages(stale)
        # 3. the records, last
        self.store.put_documents(DocumentRecord(u.doc_id, u.source, self._digest(u),
                                                tuple(p.id for p in passages[u.doc_id])) for u in done)
        self.counts.documents += len(done)
        self.counts.passages += len(written)

    def _digest(self, unit: DocumentUnit) -> str:
        """The hash recorded for ``unit``: its own, or, with tags, that hash and the tags hashed together
        (documents ingested without tags keep the hash they were recorded with)."""
        extra = (*self.tags, *((f"encoder:{self.encoder.identity}",) if self.encoder is not None else ()))
        if not extra:
            return unit.sha256
        return hashlib.sha256("\x00".join((unit.sha256, *extra)).encode("utf-8", "surrogatepass")).hexdigest()

    def _changed(self, units: list[DocumentUnit]) -> list[DocumentUnit]:
        """The documents to write: all with ``force``, else those whose hash or source the store does not hold."""
        if not units:
            return []
        known = self.store.get_documents([u.doc_id for u in units])
        written = []
        for u in units:
            old = known.get(u.doc_id)
            if old and not self.force and old.sha256 == self._digest(u) and old.source == u.source:
                self.counts.skipped += 1
            else:
                written.append(u)
        # the stored owners of the passage ids JSON records name, for the documents to write only (an unchanged
        # file costs no reads)
        owners = self.store.get_many([p.id for u in written if is_json(u.source) for p in u.pieces])
        changed = []
        for u in written:
            old = known.get(u.doc_id)
            if old and old.source != u.source and not is_json(u.source) and still_there(old.source):
                self.fail(u.source, f"document id {u.doc_id!r} is stored from {old.source}, which is still there: "
                                    "two folders ingested in separate runs hold files of the same relative path; "
                                    "ingest the folder above both, or rename one (--delete the stored one first "
                                    "to replace it)", "failed")
            elif other := next((o for o in (owners.get(p.id) for p in u.pieces) if o is not None
                                and o.doc_id != u.doc_id and o.source != u.source and still_there(o.source)), None):
                self.fail(u.source, f"document {u.doc_id!r}: passage id {other.id!r} is stored for document "
                                    f"{other.doc_id!r} from {other.source}, which is still there: record ids must "
                                    "be unique across the files of a store", "failed")
            else:
                changed.append(u)
        return changed

    def _passages(self, units: list[DocumentUnit]) -> dict[str, list]:
        """Each document's passages, tokenised together (doc id -> ``Passage`` list); a piece without tokens fails."""
        from function.store.passage import Passage

        pieces = [(u, p) for u in units for p in u.pieces]
        encoded = self.tokenizer.encode_many([p.text for _, p in pieces])
        vectors, identity = [None] * len(pieces), ""
        if self.encoder is not None:  # stored cosines: what hybrid retrieval embeds (``hybrid.dense_text``)
            from function.retrieval.hybrid import dense_text

            vectors = self.encoder.embed([dense_text(p.title, p.text) for _, p in pieces])
            identity = self.encoder.identity
        passages: dict[str, list[Passage]] = {u.doc_id: [] for u in units}
        for (u, p), enc, vector in zip(pieces, encoded, vectors):
            if len(enc.ids) == 0:
                self.fail(p.id, f"passage {p.id!r} has no tokens")
                continue
            passages[u.doc_id].append(Passage.from_tokens(
                p.id, p.title, u.doc_id, p.text, enc.ids, enc.offsets, self.tokenizer.fingerprint,
                self.tokenizer.vocab_size, source=u.source, chunk=p.chunk, start=p.start, end=p.end,
                tags=self.tags, marks=p.marks, vector=vector, encoder=identity, lines=p.lines))
        return passages

    def _stale_passages(self, unit: DocumentUnit, keep: set[str]) -> list[str]:
        """The stored passages of ``unit``'s doc id that are not in ``keep`` and are its to replace.

        A JSON document may be spread over several files (records name their doc id): only the passages
        from this file are its to replace. A text document's passage ids come from its id, so it has one
        source: all of them are (the file moved, or a run was interrupted).
        """
        mine = (unit.source, "") if is_json(unit.source) else None
        return [pid for pid, source in self.store.passages_of(unit.doc_id).items()
                if pid not in keep and (mine is None or source in mine)]

    def _delete_passages(self, ids: list[str]) -> None:
        """From the separate index first, then from the store (a crash between leaves them findable)."""
        if self.index is not None:
            self.index.delete(ids)
        self.store.delete_many(ids)

    def finish(self) -> None:
        """After the run's last flush: the separate index folds in what the run wrote (nothing to do without one)."""
        if self.index is not None:
            self.index.optimize()

    def delete(self, doc_ids: Iterable[str], only_source: str | None = None) -> int:
        """Delete documents: their records, then their passages (from ``only_source``, if given); returns how many.

        With ``only_source``, a document whose record names another source (a JSON document whose other records
        come from another file) keeps its record and its other passages, and is not counted.
        """
        doc_ids = list(doc_ids)
        records = self.store.get_documents(doc_ids) if only_source is not None else {}
        whole = [d for d in doc_ids if d not in records or records[d].source == only_source]
        found = self.store.delete_documents(whole) if whole else 0
        deleted = 0
        for doc_id in doc_ids:
            ids = [pid for pid, source in self.store.passages_of(doc_id).items()
                   if only_source is None or source in (only_source, "")]
            if ids:
                self._delete_passages(ids)
            deleted += bool(ids) and doc_id in whole
        self.counts.deleted += max(found, deleted)
        return max(found, deleted)
