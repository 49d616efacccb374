"""One task's share of the inputs: which files and documents it takes, reading them into the job, ``--sync``.

As a Cloud Run job with N tasks, task i takes every N-th file, or, for fewer
files than tasks, every N-th document of them all (``Shard``): a document is
written by one task only. ``read_files`` reads the task's files into an
``Ingestion`` (``ingestion``) and returns what it found (``Seen``); ``stale`` then
names the stored documents that ``--sync`` deletes, judged on that task's
findings only, so every task can sync its own share.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from function.ingest.documents import Recipe, from_file
from function.ingest.extract import NotDocumentation
from function.ingest.ingestion import Ingestion
from function.ingest.json_input import NoPassages, Rejected, Unread
from function.ingest.progress import Progress
from function.ingest.sources import InputFile, Listing, is_json, read_bytes


@dataclass(frozen=True)
class Shard:
    """Task ``index`` of ``count``: every ``count``-th file (``by_file``), else every ``count``-th document."""

    index: int = 0
    count: int = 1
    by_file: bool = False

    @classmethod
    def of(cls, index: int, count: int, files: int) -> Shard:
        """Shard by file when there are at least as many files as tasks."""
        return cls(index, count, files >= count > 1)

    def files(self, files: list[InputFile]) -> list[InputFile]:
        return [f for i, f in enumerate(files) if not self.by_file or i % self.count == self.index]

    def takes_document(self, n: int) -> bool:
        """Whether the ``n``-th document found in the task's files (counted from 0) is this task's to write."""
        return self.by_file or n % self.count == self.index


@dataclass
class Seen:
    """What a task found, for ``--sync``: the documents of each file it read, and the files that failed."""

    docs: dict[str, set[str]] = field(default_factory=dict)  # source -> doc ids in it
    failed: set[str] = field(default_factory=set)
    found: int = 0  # documents found in all (taken by this task or not)
    generated: list[str] = field(default_factory=list)  # why each generated navigation page was left out
    not_passages: list[str] = field(default_factory=list)  # JSON files that hold no passages (a site's search index)
    unread: list[str] = field(default_factory=list)  # JSON files whose records hold fields that are not read


class MissingDependency(Exception):
    """A document format's library is not installed: every other document would fail the same way."""


def read_files(job: Ingestion, files: list[InputFile], shard: Shard, tokenizer, recipe: Recipe,
               progress: Progress) -> Seen:
    """Read ``files`` into ``job``, adding the documents ``shard`` takes; the caller flushes the job after.

    A file that cannot be read or extracted is reported (``job.fail``) and the others go on.
    """
    seen = Seen()
    for f in files:
        try:
            units = list(from_file(f, read_bytes(f.source), tokenizer, recipe))
        except ModuleNotFoundError as e:
            raise MissingDependency(f"cannot ingest {f.source}: the document formats need {e.name!r}, an "
                                    "ingestion dependency (pip install -r requirements-ingest.txt)") from e
        except (NotDocumentation, NoPassages) as e:  # a generator's index, search or source page, a JSON file of
            seen.docs[f.source] = set()  # something else: read, no document in it (--sync removes an older run's)
            (seen.generated if isinstance(e, NotDocumentation) else seen.not_passages).append(str(e))
            progress.advance()
            continue
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
            if isinstance(unit, Unread):  # said as it is read, as a rejected record is: a misspelt field may be one
                seen.unread.append(unit.where)
                progress.note(f"note: {unit.message}")
                continue
            seen.docs[f.source].add(unit.doc_id)
            if shard.takes_document(seen.found):
                job.add(unit)
            seen.found += 1
        progress.advance()
    return seen


def stale(store, listing: Listing, seen: Seen) -> list[tuple[str, str]]:
    """(doc id, source) of the stored documents under the inputs that the inputs no longer hold.

    A document is stale if its source is under an input but was not listed (deleted, renamed, excluded),
    or if this run read its source and did not find it there. Sources that failed to read, and sources
    other tasks read, are left alone: every task can run this on its own shard; so are those under a folder
    that could not be listed.

    A JSON document can come from several files (its records name it: a ``doc_id``, or, without one, a ``title``
    that files share) and its record names the last file written only: where JSON files are involved, the stored
    passages' own sources are judged too (``passage_sources_under``), so the part of a document from a deleted file
    goes with it and the rest stays. A folder that no longer holds a JSON file can still hold the passages of a JSON
    document recorded from another folder: more passages under it than its records hold (one count) says so.
    """
    listed = {f.source for f in listing.files}

    def gone(source: str, doc_id: str) -> bool:
        if source in seen.failed or listing.kept_unread(source):
            return False
        return source not in listed or (source in seen.docs and doc_id not in seen.docs[source])

    found = set()
    for root in listing.roots:
        records = [r for r in store.documents_under(root) if root.endswith("/") or r.source == root]
        found.update((r.doc_id, r.source) for r in records if gone(r.source, r.doc_id))
        if (any(is_json(f.source) for f in listing.files) or any(is_json(r.source) for r in records)
                or root.endswith("/") and store.passage_count_under(root) > sum(len(r.passage_ids) for r in records)):
            found.update((doc_id, source) for doc_id, source in store.passage_sources_under(root)
                         if is_json(source) and (root.endswith("/") or source == root) and gone(source, doc_id))
    return sorted(found)
