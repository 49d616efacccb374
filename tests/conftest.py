"""Shared fixtures. Tests are hermetic: models are made here, services are started here."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

# Nothing in the suite may reach a model hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def tiny_artifact(tmp_path_factory):
    """A tiny random BERT QA model (fp32, fused) in the real artifact layout."""
    from tests.support.tiny import make_tiny_artifact

    return make_tiny_artifact(tmp_path_factory.mktemp("tiny") / "artifact")


@pytest.fixture
def repo() -> Path:
    return REPO
