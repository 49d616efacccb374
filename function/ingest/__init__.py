"""``python -m function.ingest``: turn documents into passages, tokenised once with the artifact's tokenizer.

    python -m function.ingest docs/                                     # a folder of .md/.txt/.html/.pdf files
    python -m function.ingest samples/squad_sample.json                 # SQuAD JSON, JSON Lines
    python -m function.ingest docs/ --include '*.md' --exclude 'drafts/*' --sync
    python -m function.ingest --delete guide/install.md
    QA_STORE=firestore python -m function.ingest gs://bucket/corpus/    # Firestore, from Cloud Storage

Inputs are files, folders and ``gs://`` prefixes (walked recursively for .json,
.jsonl, .txt, .md, .markdown, .html, .htm and .pdf files). A text, Markdown, HTML
or PDF file is one document, its id the path relative to the folder named
(``guide/install.md``), split into passages that fit the model; a JSON file
holds records that name their document (SQuAD: the article title). Every
passage keeps its document id, chunk index, title, source and character span.

Documents are the unit of change: an unchanged document (same content hash) is
skipped, a changed one replaces its passages, ``--delete DOC_ID`` removes one
and ``--sync`` removes the documents under the inputs that are no longer there.
A file that cannot be read is reported by name and the others are ingested;
the exit status is 1 if anything failed, or if nothing could be ingested.
As a Cloud Run job with N tasks, task i takes every N-th file (or document, for
fewer files than tasks) from ``CLOUD_RUN_TASK_INDEX`` / ``CLOUD_RUN_TASK_COUNT``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Iterable, Iterator

from function.config import ConfigError, Settings
from function.ingest.documents import DocumentUnit, Recipe, from_file
from function.ingest.progress import Counts, Progress
from function.ingest.sources import (
    Listing,
    Record,
    Rejected,
    is_json,
    list_inputs,
    parse_text,
    read_bytes,
    supported_suffixes,
)

# ``sources`` lists and reads the inputs; ``documents`` turns a file into documents; ``progress`` reports;
# this module tokenises and writes them; ``__main__`` runs ``main`` for ``python -m function.ingest``.


def _shard(env_name: str, default: int) -> int:
    try:
        return int(os.environ.get(env_name, default))
    except ValueError:
        return default


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m function.ingest", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="*", help="files, folders, gs:// objects or gs:// prefixes")
    p.add_argument("--include", action="append", default=[], metavar="GLOB",
                   help="only files whose path relative to the folder named matches (repeatable)")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="leave out files whose relative path matches (repeatable)")
    p.add_argument("--delete", action="append", default=[], metavar="DOC_ID",
                   help="delete this document and its passages (repeatable)")
    p.add_argument("--sync", action="store_true",
                   help="after ingesting, delete the documents under the inputs that were not found in them")
    p.add_argument("--force", action="store_true", help="rewrite unchanged documents too")
    p.add_argument("--store", choices=("sqlite", "firestore"), help="overrides QA_STORE")
    p.add_argument("--sqlite-path", help="overrides QA_SQLITE_PATH")
    p.add_argument("--collection", help="overrides QA_PASSAGES_COLLECTION")
    p.add_argument("--artifact", help="overrides QA_ARTIFACT_DIR (its tokenizer is used)")
    p.add_argument("--batch-size", type=int, default=256, help="passages tokenised and written together")
    p.add_argument("--task-index", type=int, default=_shard("CLOUD_RUN_TASK_INDEX", 0))
    p.add_argument("--task-count", type=int, default=_shard("CLOUD_RUN_TASK_COUNT", 1))
    p.add_argument("--quiet", action="store_true", help="no progress bar or lines (failures and totals still)")
    args = p.parse_args(argv)
    if not args.inputs and not args.delete:
        p.error("name the files, folders or gs:// prefixes to ingest (or --delete DOC_ID)")
    if args.sync and not args.inputs:
        p.error("--sync needs the inputs to sync with")
    return args


def _settings(args) -> Settings:
    settings = Settings.from_env()
    overrides = {}
    if args.store:
        overrides["store"] = args.store
    if args.sqlite_path:
        overrides["sqlite_path"] = type(settings.sqlite_path)(args.sqlite_path)
    if args.collection:
        overrides["passages_collection"] = args.collection
    if args.artifact:
        overrides["artifact_dir"] = type(settings.artifact_dir)(args.artifact)
    return dataclasses.replace(settings, **overrides)


def shard_records(inputs: list[str], index: int, count: int) -> Iterator[Record | Rejected]:
    """This task's JSON records: every ``count``-th file if there are several, else every ``count``-th record.

    Kept for callers of the JSON-only ingestion; ``Ingestion`` shards documents, not records.
    """
    files = list_inputs(inputs).files
    by_file = len(files) >= count > 1
    for i, f in enumerate(files):
        if by_file and i % count != index:
            continue
        try:
            text = read_bytes(f.source).decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            yield Rejected(f.source, f"cannot read: {e}")
            continue
        for n, rec in enumerate(parse_text(f.source, text)):
            if by_file or count == 1 or n % count == index:
                yield rec


def _batches(items: Iterable, size: int) -> Iterator[list]:
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def ingest(records: Iterable[Record | Rejected], store, tokenizer, max_chars: int, batch_size: int,
           progress=None) -> dict:
    """Tokenise and write passage records as they are (no document records: for benchmarks and tests);
    returns counts. Rejected and over-long records are reported, not written."""
    import time

    from function.store.records import Passage

    written, rejected, seen = 0, [], set()
    started = time.perf_counter()
    for batch in _batches(records, batch_size):
        good: list[Record] = []
        for rec in batch:
            if isinstance(rec, Rejected):
                rejected.append(rec)
            elif len(rec.text) > max_chars:
                rejected.append(Rejected(rec.id, f"passage {rec.id!r} has {len(rec.text)} characters, "
                                                 f"more than {max_chars}: split it into paragraphs"))
            elif rec.id in seen:
                rejected.append(Rejected(rec.id, f"passage id {rec.id!r} appears twice in the input"))
            else:
                seen.add(rec.id)
                good.append(rec)
        encoded = tokenizer.encode_many([r.text for r in good])
        passages = []
        for rec, enc in zip(good, encoded):
            if len(enc.ids) == 0:
                rejected.append(Rejected(rec.id, f"passage {rec.id!r} has no tokens"))
                continue
            passages.append(Passage.from_tokens(rec.id, rec.title, rec.doc_id, rec.text, enc.ids,
                                                enc.offsets, tokenizer.fingerprint, tokenizer.vocab_size))
        if passages:
            written += store.upsert_many(passages)
        if progress:
            rate = written / max(time.perf_counter() - started, 1e-9)
            progress(f"ingested {written} passages ({rate:.0f}/s), rejected {len(rejected)}")
    seconds = time.perf_counter() - started
    return {"written": written, "rejected": rejected, "seconds": seconds,
            "rate_per_s": written / seconds if seconds > 0 else 0.0}


@dataclasses.dataclass
class _Seen:
    """What this run found, for ``--sync``: the documents of each file it read, and the files that failed."""

    docs: dict[str, set[str]] = dataclasses.field(default_factory=dict)  # source -> doc ids in it
    failed: set[str] = dataclasses.field(default_factory=set)


class Ingestion:
    """Ingest documents into a store, one batch of documents at a time.

    Replacing a changed document is ordered so that an interrupted run is repaired by the next one:

    1. its new passages are written (``upsert_many``: rewriting an id replaces it, index postings too);
    2. the passages the store holds for its doc id (from its source) that are not among the new ones are
       deleted, with their postings: found by querying ``doc_id``, not from the old record, so passages
       left by an interrupted run are found as well;
    3. its document record (content hash, source, passage ids) is written last.

    A crash before 3 leaves the old record (or none) with a hash that differs from the document's, so the
    next run redoes the document and step 2 removes whatever is extra; the new hash is only recorded once
    the passages match it, so a document is never skipped with stale passages. Deleting a document goes
    the other way: the record first, then its passages, so a crash between leaves passages without a
    record, which the next ``--delete`` (or re-ingestion) finds by doc id.
    """

    def __init__(self, store, tokenizer, recipe: Recipe, batch_size: int, counts: Counts, force: bool = False,
                 note=None):
        self.store, self.tokenizer, self.recipe = store, tokenizer, recipe
        self.batch_size, self.counts, self.force = batch_size, counts, force
        self.note = note or (lambda message: print(message, file=sys.stderr, flush=True))
        self.failures: list[Rejected] = []
        self._pending: list[DocumentUnit] = []
        self._passage_ids: dict[str, str] = {}  # passage id -> doc id, this run
        self._doc_sources: dict[str, str] = {}  # doc id -> source, this run

    def fail(self, where: str, reason: str, word: str = "rejected") -> None:
        """Count and report a file ("failed") or record ("rejected") that is not ingested."""
        self.failures.append(Rejected(where, reason))
        self.counts.failed += 1
        self.note(f"{word} {where}: {reason}")

    def add(self, unit: DocumentUnit) -> None:
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
        self._pending.append(unit)
        if sum(len(u.pieces) for u in self._pending) >= self.batch_size:
            self.flush()

    def flush(self) -> None:
        from function.store.records import DocumentRecord, Passage

        units, self._pending = self._pending, []
        if not units:
            return
        known = self.store.get_documents([u.doc_id for u in units])
        changed = []
        for u in units:
            old = known.get(u.doc_id)
            if old and not self.force and old.sha256 == u.sha256 and old.source == u.source:
                self.counts.skipped += 1
            else:
                changed.append(u)
        if not changed:
            return
        pieces = [(u, p) for u in changed for p in u.pieces]
        encoded = self.tokenizer.encode_many([p.text for _, p in pieces])
        passages: dict[str, list[Passage]] = {u.doc_id: [] for u in changed}
        for (u, p), enc in zip(pieces, encoded):
            if len(enc.ids) == 0:
                self.fail(p.id, f"passage {p.id!r} has no tokens")
                continue
            passages[u.doc_id].append(Passage.from_tokens(
                p.id, p.title, u.doc_id, p.text, enc.ids, enc.offsets, self.tokenizer.fingerprint,
                self.tokenizer.vocab_size, source=u.source, chunk=p.chunk, start=p.start, end=p.end))
        written = [p for ps in passages.values() for p in ps]
        if written:  # 1. the new passages
            self.store.upsert_many(written)
        stale = []  # 2. what each document no longer has
        for u in (u for u in changed if passages[u.doc_id]):  # one with no tokens at all keeps its old ones
            keep = {p.id for p in passages[u.doc_id]}
            # A JSON document may be spread over several files (records name their doc id): only the
            # passages from this file are its to replace. A text document's passage ids come from its id,
            # so it has one source: all of them are (the file moved, or a run was interrupted).
            mine = (u.source, "") if is_json(u.source) else None
            stale += [pid for pid, source in self.store.passages_of(u.doc_id).items()
                      if pid not in keep and (mine is None or source in mine)]
        if stale:
            self.store.delete_many(stale)
        # 3. the records, last
        self.store.put_documents(DocumentRecord(u.doc_id, u.source, u.sha256, tuple(p.id for p in passages[u.doc_id]))
                                 for u in changed if passages[u.doc_id])
        self.counts.documents += sum(1 for u in changed if passages[u.doc_id])
        self.counts.passages += len(written)

    def delete(self, doc_ids: Iterable[str], only_source: str | None = None) -> int:
        """Delete documents: their records, then their passages (from ``only_source``, if given)."""
        doc_ids = list(doc_ids)
        found = self.store.delete_documents(doc_ids)
        deleted = 0
        for doc_id in doc_ids:
            ids = [pid for pid, source in self.store.passages_of(doc_id).items()
                   if only_source is None or source in (only_source, "")]
            if ids:
                self.store.delete_many(ids)
            deleted += bool(ids)
        self.counts.deleted += max(found, deleted)
        return max(found, deleted)


def _stale(store, listing: Listing, seen: _Seen) -> list[tuple[str, str]]:
    """(doc id, source) of the stored documents under the inputs that the inputs no longer hold.

    A document is stale if its source is under an input but was not listed (deleted, renamed, excluded),
    or if this run read its source and did not find it there. Sources that failed to read, and sources
    other tasks read, are left alone: every task can run this on its own shard.
    """
    listed = {f.source for f in listing.files}
    stale = {}
    for root in listing.roots:
        for record in store.documents_under(root):
            if not root.endswith("/") and record.source != root:
                continue
            if record.source in seen.failed:
                continue
            if record.source not in listed or (record.source in seen.docs
                                               and record.doc_id not in seen.docs[record.source]):
                stale[record.doc_id] = record.source
    return sorted(stale.items())


def run(args, settings: Settings, say) -> int:
    """The whole run with an open store; returns the exit status."""
    from function.model.artifact import load_manifest
    from function.model.tokenizer import QATokenizer
    from function.store import open_store

    manifest = load_manifest(settings.artifact_dir)
    tokenizer = QATokenizer(manifest.tokenizer_path)
    listing = list_inputs(args.inputs, args.include, args.exclude) if args.inputs else Listing([], [], [])
    if args.inputs and not listing.files:
        print(f"nothing to ingest: no file under {', '.join(args.inputs)} has a supported extension "
              f"({' '.join(supported_suffixes())})"
              + (" and matches --include/--exclude" if args.include or args.exclude else "")
              + (f"; {len(listing.unsupported)} other files were left out" if listing.unsupported else ""),
              file=sys.stderr)
        return 1
    store = open_store(settings)
    try:
        return _run(args, settings, say, manifest, tokenizer, listing, store)
    finally:
        store.close()


def _run(args, settings, say, manifest, tokenizer, listing: Listing, store) -> int:
    from function.ingest.split import budget_from_manifest

    try:
        max_tokens, overlap = budget_from_manifest(manifest)
    except ValueError as e:  # JSON records are not split: only documents need a budget (they then fail)
        say(f"note: {e}")
        max_tokens, overlap = 0, 0
    recipe = Recipe(tokenizer.fingerprint, max_tokens, overlap, settings.max_context_chars)
    counts = Counts()
    files = listing.files
    index, count = args.task_index, args.task_count
    by_file = len(files) >= count > 1
    mine = [f for i, f in enumerate(files) if not by_file or i % count == index]
    say(f"ingesting {len(mine)} files into {store.description} with tokenizer {tokenizer.fingerprint[:12]} "
        f"(task {index + 1} of {count}; passages of at most {max_tokens} tokens)")
    if listing.unsupported:
        say(f"left out {len(listing.unsupported)} files with unsupported extensions, e.g. {listing.unsupported[0]}")
    progress = Progress(len(mine), counts, quiet=args.quiet)
    job = Ingestion(store, tokenizer, recipe, args.batch_size, counts, args.force, note=progress.note)
    seen, found, n = _Seen(), 0, 0
    try:
        if args.delete:
            found_before = counts.deleted
            job.delete(args.delete)
            if counts.deleted - found_before < len(args.delete):
                progress.note(f"note: of {len(args.delete)} documents to delete, "
                              f"{counts.deleted - found_before} were in the store")
        for f in mine:
            try:
                units = list(from_file(f, read_bytes(f.source), tokenizer, recipe))
            except ModuleNotFoundError as e:  # every other document would fail the same way: stop here
                job.flush()
                print(f"cannot ingest {f.source}: the document formats need {e.name!r}, an ingestion "
                      "dependency (pip install -r requirements-ingest.txt)", file=sys.stderr)
                return 1
            except Exception as e:  # any file that cannot be read or extracted is reported, the rest go on
                seen.failed.add(f.source)
                job.fail(f.source, f"cannot read: {e}", "failed")
                progress.advance()
                continue
            seen.docs[f.source] = set()
            for unit in units:
                if isinstance(unit, Rejected):
                    job.fail(unit.where, unit.reason)
                    continue
                seen.docs[f.source].add(unit.doc_id)
                found += 1
                if by_file or count == 1 or n % count == index:
                    job.add(unit)
                n += 1
            progress.advance()
        job.flush()
        if args.sync:
            if found == 0:
                progress.note("--sync: nothing was found in the inputs, so nothing is deleted")
            else:
                stale = _stale(store, listing, seen)
                for doc_id, source in stale:
                    job.delete([doc_id], only_source=source)
                say(f"--sync: deleted {len(stale)} documents no longer in the inputs")
    finally:
        progress.close()
    total, documents = store.count(), store.document_count()
    print(f"ingest: {counts.summary()}; the store holds {total} passages of {documents} documents",
          file=sys.stderr)
    if mine and found == 0:
        print(f"nothing ingested: none of the {len(mine)} input files gave a document "
              f"(supported: {' '.join(supported_suffixes())})", file=sys.stderr)
        return 1
    return 1 if counts.failed else 0


def main(argv=None) -> int:
    args = parse_args(argv)
    if not 0 <= args.task_index < args.task_count:
        print(f"task index {args.task_index} is outside 0..{args.task_count - 1}", file=sys.stderr)
        return 2
    try:
        settings = _settings(args)
    except ConfigError as e:
        print(f"configuration error: {e}", file=sys.stderr)
        return 2

    from function.errors import QAError

    def say(message: str) -> None:
        if not args.quiet:
            print(message, file=sys.stderr, flush=True)

    try:
        return run(args, settings, say)
    except QAError as e:
        print(f"ingestion failed: {e.message}", file=sys.stderr)
        return 1
