"""How hard the property tests search, one switch for all of them.

``make test`` (and CI) runs them derandomised: Hypothesis draws the same examples on every run and
machine, so the suite passes or fails by the code, never by chance. ``make fuzz`` (``QA_FUZZ=wide``)
runs ten times as many examples, freshly random each time: run it before touching the request
format, and turn what it finds into an explicit case (``@example`` or a test of its own).
"""

from __future__ import annotations

import os

from hypothesis import settings

WIDE = os.environ.get("QA_FUZZ", "") == "wide"
PROFILE = "wide" if WIDE else "deterministic"

settings.register_profile("deterministic", derandomize=True, database=None, print_blob=True)
settings.register_profile("wide", derandomize=False, print_blob=True)


def load_profile() -> None:
    settings.load_profile(PROFILE)


def examples(n: int) -> int:
    """``n`` examples in the deterministic run, ten times as many in the wide one."""
    return n * 10 if WIDE else n
