"""Where things are in the checkout: the one place the tests, ``make run`` and the benchmarks take them from.

The function itself knows none of these: its artifact and SQLite file come
from ``QA_ARTIFACT_DIR`` and ``QA_SQLITE_PATH`` (``function/config.py``), which
every launcher here sets explicitly.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MAIN = REPO / "main.py"  # the functions-framework source file, as the image runs it
ARTIFACT = REPO / "artifact"  # the shipped model
STAND_IN_ARTIFACT = REPO / "build" / "stand-in" / "artifact"  # python -m bench stand-in: the shape, junk answers
SAMPLE = REPO / "samples" / "squad_sample.json"  # the sample corpus (two SQuAD articles)
SQLITE = REPO / ".data" / "passages.sqlite"  # make run's embedded store
SQUAD = REPO.parent / "shared" / "data" / "squad"  # train.json and dev.json beside the checkout (the sandbox only)
SENTENCE_MODEL = REPO.parent / "shared" / "models" / "all-MiniLM-L6-v2"  # hybrid retrieval's encoder, before export
ENCODER = REPO / "encoder"  # the shipped sentence encoder (hybrid retrieval): encoder/README.md


def default_artifact() -> Path:
    """The shipped artifact when the checkout holds one, else the stand-in (``python -m bench stand-in``)."""
    return ARTIFACT if (ARTIFACT / "manifest.json").is_file() else STAND_IN_ARTIFACT
