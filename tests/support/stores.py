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
