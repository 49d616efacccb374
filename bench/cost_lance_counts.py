"""What ``python -m bench cost lance`` counts: the Lance index's Cloud Storage requests at ingestion and per
question (through ``bench.gcs_counter.CountingBucket``), and Firestore's term index on the emulator.

Each function returns plain dicts of counts (totals and per passage or per question);
``bench.cost_lance`` prices them and writes the record.
"""

from __future__ import annotations

import os
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from bench.gcs_counter import CountingBucket


def _per(total: dict, n: int) -> dict:
    """A ``CountingBucket.take()`` divided by ``n`` (per passage, per question)."""
    out = {k: round(total[k] / n, 4) for k in ("class_a", "class_b", "free", "bytes_read", "bytes_written")}
    for field in ("kinds", "where"):
        out[field] = {k: round(v / n, 4) for k, v in total[field].items()}
    return out


def _summed(takes: list[dict]) -> dict:
    total = {k: sum(t[k] for t in takes) for k in ("class_a", "class_b", "free", "bytes_read", "bytes_written")}
    for field in ("kinds", "where"):
        total[field] = {}
        for t in takes:
            for k, v in t[field].items():
                total[field][k] = total[field].get(k, 0) + v
        total[field] = dict(sorted(total[field].items()))
    return total


def lance_ingest(bucket: CountingBucket, uri: str, passages, batch: int = 256) -> dict:
    """Write ``passages`` (``.id``, ``.doc_id``, ``.title``, ``.text``) as ingestion does: an upsert of each
    batch's index rows, then ``optimize``; the operations of each step and per passage."""
    from function.retrieval.lance_index import LanceIndex, index_rows

    index = LanceIndex(uri, timeout_s=120.0, storage_options=bucket.storage_options)
    bucket.take()
    rows, chunk, started = 0, [], time.perf_counter()
    for p in passages:
        chunk.append(p)
        if len(chunk) == batch:
            rows += index.upsert(index_rows(chunk))
            chunk = []
    if chunk:
        rows += index.upsert(index_rows(chunk))
    upserts = bucket.take()
    index.optimize()
    finish = bucket.take()
    seconds = time.perf_counter() - started
    deltas = index._deltas()  # delta indices over ``terms``: a search reads each
    bucket.take()
    index.close()
    total = _summed([upserts, finish])
    stored = bucket.stored_bytes()  # with the versions of the last minute, which optimize's clean-up keeps
    # What stays once those are gone too (the next ingestion's clean-up): the table alone. Done on the folder
    # itself, not through the bucket: not counted.
    import lance

    lance.dataset(str(bucket.root / uri.split("/", 3)[3])).cleanup_old_versions(older_than=timedelta(0))
    return {"passages": rows, "batch": batch, "seconds": round(seconds, 1), "terms_index_deltas": deltas,
            "upserts": upserts, "optimize": finish,
            "per_passage": _per(total, rows), "stored_bytes_after_run": stored,
            "stored_bytes": bucket.stored_bytes()}


def lance_questions(bucket: CountingBucket, uri: str, questions: list[list[str]], cold: int, k: int = 5) -> dict:
    """The operations of a cold open (a new instance's open and first question), of a re-open (an instance
    whose last open is older than ``QA_INDEX_REFRESH_S``) and of warm questions on a table kept open."""
    from function.retrieval.lance_index import LanceIndex

    def index(refresh_s: float):
        return LanceIndex(uri, timeout_s=120.0, refresh_s=refresh_s, storage_options=bucket.storage_options)

    bucket.take()
    colds = []
    for terms in questions[:cold]:
        fresh = index(1e9)
        fresh.search(terms, k)
        colds.append(bucket.take())
        fresh.close()
    refreshing = index(0.0)  # every question finds its last look at the table too old
    refreshing.search(questions[-1], k)  # opened, its first question asked
    bucket.take()
    refreshes = []
    for terms in questions[:cold]:
        refreshing.search(terms, k)
        refreshes.append(bucket.take())
    # The same, with a new version to find each time: another writer's commit (uncounted) that changes
    # no rows, so that what is counted is the refresh (the new manifest) and the question. Other questions
    # than the last loop's, whose terms' postings this instance has read already.
    import lance

    writer = lance.dataset(uri, storage_options=bucket.storage_options)
    newer, second = [], (cold, 2 * cold) if len(questions) >= 2 * cold else (0, cold)
    for n, terms in enumerate(questions[second[0] : second[1]]):
        writer.update_config({"bench.cost.commit": str(n)})
        bucket.take()
        refreshing.search(terms, k)
        newer.append(bucket.take())
    refreshing.close()
    warm = index(1e9)
    warm.search(questions[-1], k)  # opened, its first question asked
    bucket.take()
    warm._current().io_stats_incremental()
    each = []
    for terms in questions:
        warm.search(terms, k)
        each.append(bucket.take())
    stats = warm._current().io_stats_incremental()
    warm.close()
    half = len(each) // 2
    return {"k": k, "cold": _per(_summed(colds), len(colds)), "cold_first": colds[0],
            "refresh": _per(_summed(refreshes), len(refreshes)),
            "refresh_new_version": _per(_summed(newer), len(newer)),
            # The warm table's answers to the same questions, asked in the same order after the same first
            # question (the same postings cached): what a refresh adds is the difference.
            "warm_as_refresh": _per(_summed(each[:cold]), len(each[:cold])),
            "warm_as_refresh_new_version": _per(_summed(each[second[0] : second[1]]), second[1] - second[0]),
            "warm": _per(_summed(each), len(each)), "warm_second_half": _per(_summed(each[half:]), len(each) - half),
            "warm_questions": len(each), "cold_questions": len(colds),
            "lance_io_stats_warm": {"read_iops": stats.read_iops, "read_bytes": stats.read_bytes,
                                    "counted_gets": sum(t["kinds"].get("get", 0) for t in each),
                                    "counted_bytes_read": sum(t["bytes_read"] for t in each)}}


def firestore_term_index(passages, questions: list[list[str]], k: int = 5, batch: int = 256) -> dict:
    """``FirestoreStore`` on the emulator: its operations per passage written (the term index's share apart)
    and its term index's reads per question; and per passage written without its term index (``QA_INDEX_URI``
    set: ``term_index=False``)."""
    from function.store import ops
    from function.store.firestore import FirestoreStore
    from function.store.records import Passage
    from harness.firestore import FirestoreEmulator, emulator_env

    with tempfile.TemporaryDirectory() as tmp:
        emulator = FirestoreEmulator(Path(tmp) / "emulator.log").start()
        saved = {k: os.environ.get(k) for k in ("FIRESTORE_EMULATOR_HOST", "GOOGLE_CLOUD_PROJECT")}
        try:
            os.environ.update({k: v for k, v in emulator_env(emulator).items() if k != "QA_STORE"})
            store = FirestoreStore(None, "(default)", "passages", "answers", 120.0)
            in_index = {"reads": 0, "writes": 0, "deletes": 0}
            update = store.index.update

            def counted_update(*args, **kwargs):
                before = ops.totals()
                try:
                    return update(*args, **kwargs)
                finally:
                    after = ops.totals()
                    for f in in_index:
                        in_index[f] += getattr(after, f) - getattr(before, f)

            store.index.update = counted_update
            before = ops.totals()

            def write(store, chunk):
                store.upsert_many([Passage.from_tokens(p.id, p.title, p.doc_id, p.text, [1], [[0, 1]],
                                                       "stand-in", 2) for p in chunk])
                return len(chunk)

            def write_all(store) -> int:
                written, chunk = 0, []
                for p in passages:
                    chunk.append(p)
                    if len(chunk) == batch:
                        written += write(store, chunk)
                        chunk = []
                if chunk:
                    written += write(store, chunk)
                return written

            written = write_all(store)
            after = ops.totals()
            asked = ops.totals()
            for terms in questions:
                store.search(terms, k)
            done = ops.totals()
            store.close()
            plain = FirestoreStore(None, "(default)", "passages_plain", "answers", 120.0, term_index=False)
            plain_before = ops.totals()
            write_all(plain)
            plain_after = ops.totals()
            plain.close()
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            emulator.stop()
    n, q = max(written, 1), max(len(questions), 1)
    return {"passages": written, "batch": batch, "questions": len(questions),
            "per_passage": {"reads": round((after.reads - before.reads) / n, 4),
                            "writes": round((after.writes - before.writes) / n, 4),
                            "deletes": round((after.deletes - before.deletes) / n, 4)},
            "per_passage_term_index": {f: round(v / n, 4) for f, v in in_index.items()},
            "per_passage_without_term_index": {f: round((getattr(plain_after, f) - getattr(plain_before, f)) / n, 4)
                                               for f in ("reads", "writes", "deletes")},
            "per_question": {"reads": round((done.reads - asked.reads) / q, 4)}}
