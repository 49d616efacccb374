"""``python -m function.ingest``: tokenise passages once, with the artifact's tokenizer, and store them.

    python -m function.ingest samples/squad_sample.json                 # embedded SQLite store
    QA_STORE=firestore python -m function.ingest gs://bucket/corpus/    # Firestore, from Cloud Storage

Idempotent: a passage's document id comes from the input (``id``, or
``<title>-<paragraph>`` for SQuAD files), so running it again rewrites the same
documents. Malformed records are reported by name and skipped; the good ones
are written. As a Cloud Run job with N tasks, task i takes every N-th file (or
record, for a single file) from ``CLOUD_RUN_TASK_INDEX`` / ``CLOUD_RUN_TASK_COUNT``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from collections.abc import Iterable, Iterator

from function.config import ConfigError, Settings
from function.ingest.sources import Record, Rejected, list_inputs, parse_text, read_text

# ``sources`` reads the inputs into records; this module tokenises and writes them;
# ``__main__`` runs ``main`` for ``python -m function.ingest``.


def _shard(env_name: str, default: int) -> int:
    try:
        return int(os.environ.get(env_name, default))
    except ValueError:
        return default


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m function.ingest", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", help="SQuAD .json or .jsonl files, folders, gs:// objects or gs:// prefixes")
    p.add_argument("--store", choices=("sqlite", "firestore"), help="overrides QA_STORE")
    p.add_argument("--sqlite-path", help="overrides QA_SQLITE_PATH")
    p.add_argument("--collection", help="overrides QA_PASSAGES_COLLECTION")
    p.add_argument("--artifact", help="overrides QA_ARTIFACT_DIR (its tokenizer is used)")
    p.add_argument("--batch-size", type=int, default=256, help="passages tokenised and written together")
    p.add_argument("--task-index", type=int, default=_shard("CLOUD_RUN_TASK_INDEX", 0))
    p.add_argument("--task-count", type=int, default=_shard("CLOUD_RUN_TASK_COUNT", 1))
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    return p.parse_args(argv)


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
    """This task's records: every ``count``-th file if there are several, else every ``count``-th record."""
    files = [f for uri in inputs for f in list_inputs(uri)]
    by_file = len(files) >= count > 1
    for i, name in enumerate(files):
        if by_file and i % count != index:
            continue
        try:
            text = read_text(name)
        except (OSError, UnicodeDecodeError) as e:
            yield Rejected(name, f"cannot read: {e}")
            continue
        for n, rec in enumerate(parse_text(name, text)):
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
    """Tokenise and write; returns counts. Rejected and over-long records are reported, not written."""
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
    from function.model.artifact import load_manifest
    from function.model.tokenizer import QATokenizer
    from function.store import open_store

    def say(message: str) -> None:
        if not args.quiet:
            print(message, file=sys.stderr, flush=True)

    try:
        manifest = load_manifest(settings.artifact_dir)
        tokenizer = QATokenizer(manifest.tokenizer_path)
        store = open_store(settings)
        records = shard_records(args.inputs, args.task_index, args.task_count)
        say(f"ingesting into {store.description} with tokenizer {tokenizer.fingerprint[:12]} "
            f"(task {args.task_index + 1} of {args.task_count})")
        result = ingest(records, store, tokenizer, settings.max_context_chars, args.batch_size, say)
        total = store.count()
        store.close()
    except QAError as e:
        print(f"ingestion failed: {e.message}", file=sys.stderr)
        return 1
    for r in result["rejected"]:
        print(f"rejected {r.where}: {r.reason}", file=sys.stderr)
    print(f"wrote {result['written']} passages in {result['seconds']:.1f} s "
          f"({result['rate_per_s']:.0f}/s); rejected {len(result['rejected'])}; "
          f"the store now holds {total} passages", file=sys.stderr)
    return 1 if result["rejected"] else 0

