"""``python -m function.ingest``: turn documents into passages, tokenised once with the artifact's tokenizer.

    python -m function.ingest docs/                                     # a folder of .md/.txt/.html/.pdf files
    python -m function.ingest samples/squad_sample.json                 # SQuAD JSON, JSON Lines
    python -m function.ingest docs/ --include '*.md' --exclude 'drafts/*' --sync
    python -m function.ingest --delete guide/install.md
    python -m function.ingest product-a/ --tag product-a --tag v2      # questions may filter on the tags
    QA_STORE=firestore python -m function.ingest gs://bucket/corpus/    # Firestore, from Cloud Storage

Inputs are files, folders and ``gs://`` prefixes (walked recursively for .json,
.jsonl, .txt, .md, .markdown, .mdx, .rst, .adoc, .asciidoc, .html, .htm, .pdf and .ipynb files). A text, Markdown,
MDX, reStructuredText, AsciiDoc, HTML, PDF or notebook file is one document, its id the path relative to the folder
named (``guide/install.md``), split into passages that fit the model; a JSON file
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

from function.config import ConfigError, Settings
from function.ingest.documents import Recipe
from function.ingest.ingestion import Ingestion
from function.ingest.progress import Counts, Progress
from function.ingest.shard import MissingDependency, Shard, read_files, stale
from function.ingest.sources import Listing, list_inputs, supported_suffixes

# This module reads the arguments and settings, opens the tokenizer and the store, and reports; ``shard``
# reads this task's files into the job (``ingestion.Ingestion``), which writes them; ``__main__`` runs ``main``.


def _at_least(low: int):
    """An argparse ``type``: a whole number of at least ``low`` (a batch of 0 passages, a task count of -1 mean
    nothing, and were taken without a word)."""

    def whole(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if n < low:
            raise argparse.ArgumentTypeError(f"must be at least {low} (got {n})")
        return n

    return whole


# --task-index and --task-count default to what Cloud Run sets for each task of a job, else to their least value
_TASK_ENV = (("task_index", "CLOUD_RUN_TASK_INDEX", 0), ("task_count", "CLOUD_RUN_TASK_COUNT", 1))


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
    p.add_argument("--tag", action="append", default=[], metavar="NAME",
                   help="give every passage of the documents ingested this tag (repeatable); a question asked alone "
                        "may name tags (\"tags\": [...]) to search only passages with one of them. A document "
                        "ingested again with other tags is rewritten with them")
    p.add_argument("--store", choices=("sqlite", "firestore"), help="overrides QA_STORE")
    p.add_argument("--sqlite-path", help="overrides QA_SQLITE_PATH")
    p.add_argument("--collection", help="overrides QA_PASSAGES_COLLECTION")
    p.add_argument("--artifact", help="overrides QA_ARTIFACT_DIR (its tokenizer is used)")
    p.add_argument("--batch-size", type=_at_least(1), default=256, help="passages tokenised and written together")
    p.add_argument("--task-index", type=_at_least(0), help="this task's index, from 0 (default CLOUD_RUN_TASK_INDEX "
                                                           "or 0)")
    p.add_argument("--task-count", type=_at_least(1), help="the number of tasks (default CLOUD_RUN_TASK_COUNT or 1)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or lines (failures and totals still)")
    args = p.parse_args(argv)
    for name, env_name, low in _TASK_ENV:
        if getattr(args, name) is None:
            raw = os.environ.get(env_name)
            try:
                setattr(args, name, _at_least(low)(raw) if raw is not None else low)
            except argparse.ArgumentTypeError as e:
                p.error(f"{env_name}={raw!r}: {e}")
    if not args.inputs and not args.delete:
        p.error("name the files, folders or gs:// prefixes to ingest (or --delete DOC_ID)")
    if args.sync and not args.inputs:
        p.error("--sync needs the inputs to sync with")
    bad = [t for t in args.tag if not t.strip() or "\x00" in t or not t.isprintable()]
    if bad:
        p.error(f"--tag {bad[0][:60]!r}: a tag is a non-empty name of printable characters")
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
              + (f"; {len(listing.unsupported)} other files were left out" if listing.unsupported else "")
              + (f"; {_folder_links(len(listing.symlinked))} not followed, e.g. "
                 f"{listing.symlinked[0]} (name a folder to ingest it)" if listing.symlinked else ""),
              file=sys.stderr)
        return 1
    store = open_store(settings)
    try:
        return _run(args, settings, say, manifest, tokenizer, listing, store)
    finally:
        store.close()


def _recipe(manifest, tokenizer, settings: Settings, say) -> Recipe:
    from function.ingest.split import budget_from_manifest

    try:
        max_tokens, overlap = budget_from_manifest(manifest)
    except ValueError as e:  # JSON records are not split: only documents need a budget (they then fail)
        say(f"note: {e}")
        max_tokens, overlap = 0, 0
    return Recipe(tokenizer.fingerprint, max_tokens, overlap, settings.max_context_chars)


def _counted(n: int, noun: str) -> str:
    """ "1 page", "2 pages"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _folder_links(n: int) -> str:
    """ "1 link to a folder", "2 links to folders"."""
    return f"{_counted(n, 'link')} to {'a folder' if n == 1 else 'folders'}"


def _run(args, settings, say, manifest, tokenizer, listing: Listing, store) -> int:
    recipe = _recipe(manifest, tokenizer, settings, say)
    counts = Counts()
    shard = Shard.of(args.task_index, args.task_count, len(listing.files))
    mine = shard.files(listing.files)
    say(f"ingesting {len(mine)} files into {store.description} with tokenizer {tokenizer.fingerprint[:12]} "
        f"(task {shard.index + 1} of {shard.count}; passages of at most {recipe.max_tokens} tokens)")
    special = len(listing.special)
    for left, what in (  # what a walk left out, each kind said once with an example
            (listing.unsupported, f"{len(listing.unsupported)} files with unsupported extensions"),
            (listing.sphinx_sources, f"{_counted(len(listing.sphinx_sources), 'page source')} a Sphinx HTML build "
                                     "keeps beside its pages (_sources/: the same text as the pages)"),
            (listing.special, f"{_counted(special, 'file')} that {'is' if special == 1 else 'are'} not a regular file "
                              "(a FIFO, socket or device)"),
            (listing.symlinked, f"{_folder_links(len(listing.symlinked))}, not followed (a link to a folder beside it "
                                "would store its documents twice; name a folder to ingest it)"),
            (listing.linked_copies, f"{_counted(len(listing.linked_copies), 'link')} to a file the folder holds "
                                    "already (the same document twice)")):
        if left:
            say(f"left out {what}, e.g. {left[0]}")
    progress = Progress(len(mine), counts, quiet=args.quiet)
    from function.retrieval import open_index

    index = open_index(settings)
    if index is not None:
        say(f"and their terms into the retrieval index {index.description}")
        index.check_writable()  # a table made by another encoder (or none) is refused before the store is written
    from function.retrieval import stored_encoder

    encoder = stored_encoder(settings)
    if encoder is not None:
        say(f"and each passage's embedding by the sentence encoder {settings.index_encoder} (QA_INDEX_ENCODER "
            "without QA_INDEX_URI: stored cosines)")
    job = Ingestion(store, tokenizer, args.batch_size, counts, args.force, note=progress.note, index=index,
                    tags=args.tag, encoder=encoder)
    for folder, why in listing.unreadable:  # every task says so: each one's --sync leaves the folder alone
        job.fail(folder, f"cannot list this folder ({why}): its files are not read, and its documents in the "
                         "store are kept", "failed")
    try:
        if args.delete:
            found_before = counts.deleted
            job.delete(args.delete)
            if counts.deleted - found_before < len(args.delete):
                progress.note(f"note: of {len(args.delete)} documents to delete, "
                              f"{counts.deleted - found_before} were in the store")
        try:
            seen = read_files(job, mine, shard, tokenizer, recipe, progress)
        except MissingDependency as e:
            job.flush()
            print(e, file=sys.stderr)
            return 1
        job.flush()
        if seen.generated:
            say(f"left out {_counted(len(seen.generated), 'page')} a documentation generator made for navigation "
                f"(indexes, search, source listings, redirects, error pages) or a site's build left beside them "
                f"(bundled scripts' license notices), e.g. {seen.generated[0]}")
        if seen.not_passages:
            n = len(seen.not_passages)
            say(f"left out {_counted(n, 'JSON file')} that hold{'s' if n == 1 else ''} no passages (a site's search "
                f"index, a package.json), e.g. {seen.not_passages[0]}")
        if args.sync:
            if seen.found == 0:
                progress.note("--sync: nothing was found in the inputs, so nothing is deleted")
            else:
                gone = stale(store, listing, seen)
                whole = sum(job.delete([doc_id], only_source=source) for doc_id, source in gone)
                parts = (f", and the passages of {_counted(len(gone) - whole, 'document')} from files no longer "
                         "there (records of one document in several JSON files)" if len(gone) > whole else "")
                say(f"--sync: deleted {whole} documents no longer in the inputs{parts}")
        job.finish()
    finally:
        progress.close()
    total, documents = store.count(), store.document_count()
    held = "" if index is None else f"; the retrieval index {index.description} holds {index.count()} rows"
    n, j, u = (len(seen.generated), len(seen.not_passages), len(seen.unread)) if mine else (0, 0, 0)
    left = (f", {_counted(n, 'navigation page')} left out" if n else "") + (
        f", {_counted(j, 'JSON file')} without passages left out" if j else "") + (
        f", {_counted(u, 'JSON file')} with record fields not read (noted above)" if u else "")
    print(f"ingest: {counts.summary()}{left}; the store holds {total} passages of {documents} documents{held}",
          file=sys.stderr)
    if mine and seen.found == 0:
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
    too_long = [t for t in args.tag if len(t) > settings.max_filter_chars]
    if too_long:  # a question could not name it
        print(f"--tag {too_long[0][:60]!r}...: longer than QA_MAX_FILTER_CHARS ({settings.max_filter_chars})",
              file=sys.stderr)
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
    except KeyboardInterrupt:  # a document whose record was not written yet is written again by the next run
        print("\ningestion interrupted: the documents written so far are kept; run the same command again to "
              "finish (documents already written are skipped as unchanged)", file=sys.stderr)
        return 130
