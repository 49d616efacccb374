"""A service over an embedded store of a few records, for tests that ask it questions alone."""

from __future__ import annotations

from pathlib import Path

from bench.in_process import ingest_into, open_service


def records_service(artifact: Path, folder: Path, records: list):
    """A service with ``artifact`` over a new SQLite store in ``folder`` holding ``records``; no answer cache, serial
    runs on one thread (the same logits whichever run a window is in)."""
    env = {"QA_ARTIFACT_DIR": str(artifact), "QA_CACHE": "0", "QA_STORE": "sqlite",
           "QA_SQLITE_PATH": str(folder / "p.sqlite"), "QA_INFERENCE_MODE": "serial", "QA_THREADS": "1"}
    service = open_service(env)
    ingest_into(service, records)
    return service


def read_ids(service, question: str, *ids: str, k: int = 2) -> list[str]:
    """The ids of the passages ``service`` reads for ``question`` alone where retrieval ranked ``ids`` in that order
    (``QAService._read_retrieved``, ``k`` of them): what the read-first rules put in their places."""
    from function.retrieval.bm25 import Hit

    hits = [Hit(pid, 10.0 - i) for i, pid in enumerate(ids)]
    kept, _ = service._read_retrieved(hits, 12, service.rt.model(), question=question, k=k)
    return [p.id for p in kept]
