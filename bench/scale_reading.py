"""End-to-end dev F1 for ``python -m bench scale``: the dev questions asked alone, read by the function's model.

At the sizes ``--f1-sizes`` names, the corpus is written into a *reading
store*: SQLite, through ``function.ingest``'s ``Ingestion`` (``bench.in_process.
ingest_into``), so its passages carry the artifact's tokens, as in a deployment
(each passage its own document: a synthetic distractor belongs to no article).
Then every dev question is asked without passage ids through ``QAService``, the
code behind ``POST /``, and scored by ``bench.retrieval.read_all``, the
function ``python -m bench retrieval`` scores its questions asked alone with
(top 5 passages, never abstaining; its gold-paragraph answers come with them:
the reader's own ceiling, the same at every corpus size). What changes from one
row to the next is only the retrieval step:

- ``sqlite``: the reading store's own FTS5 index;
- ``lance``: ``QA_INDEX_URI`` set to the Lance backend's table (the same ids);
- ``hybrid``: the Lance table with vectors, fused as the function fuses them
  (``QA_INDEX_ENCODER`` set: ``bench.scale_hybrid.hybrid_env``).

Firestore's term index ranks as FTS5 does (the same BM25, ``tests/test_retrieval_index.py``;
``scale.md`` gives the share of questions whose top 5 are identical), so it is not read again.
"""

from __future__ import annotations

from pathlib import Path

STORE_TIMEOUT_S = "60"  # a loaded 2-core machine: no 503 for a slow search


def reading_env(artifact: Path, store: Path, threads: int, index_uri: str = "") -> dict:
    return {"QA_ARTIFACT_DIR": str(artifact), "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(store), "QA_CACHE": "0",
            "QA_THREADS": str(threads), "QA_STORE_TIMEOUT_S": STORE_TIMEOUT_S, "QA_INDEX_URI": index_uri,
            "QA_INDEX_REFRESH_S": "1000000"}


def build_store(passages, artifact: Path, store: Path, threads: int) -> dict:
    """The reading store: every passage tokenised and written as ingestion writes it; how long it took."""
    from bench.in_process import ingest_into, open_service
    from function.ingest.json_input import Record

    service = open_service(reading_env(artifact, store, threads))
    records = [Record(p.id, p.title, p.id, p.text) for p in passages]
    seconds = ingest_into(service, records)
    service.rt.store().close()
    return {"passages": len(records), "ingest_s": round(seconds, 1), "bytes": store.stat().st_size}


def dev_questions(data: Path, every: int = 1) -> list[dict]:
    """The dev questions as ``bench.retrieval.read_all`` takes them (id, question, gold, answers)."""
    from bench.in_process import load_squad

    return load_squad(data)[1]["dev"][:: max(1, every)]
