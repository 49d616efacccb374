"""The function's regular expressions are the same whatever the interpreter's hash seed: one built from a set's
order (``reader._either`` before 2026-12-07) was reordered from run to run, which is harmless only while every
alternative that can match at one place is the only one that can."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_DUMP = """
import importlib, json, pkgutil, re, sys
import function
out = {}
for m in pkgutil.walk_packages(function.__path__, "function."):
    if m.name.endswith("__main__"):
        continue
    mod = importlib.import_module(m.name)
    out.update({f"{m.name}.{k}": v.pattern for k, v in vars(mod).items() if isinstance(v, re.Pattern)})
json.dump(out, sys.stdout)
"""


def _patterns(seed: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", _DUMP], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120, check=True)
    return json.loads(done.stdout)


def test_every_module_level_pattern_is_the_same_under_two_hash_seeds():
    first, second = _patterns("1"), _patterns("2")
    assert len(first) > 200  # every module of function/ was read (220 patterns on 2026-12-07)
    assert "function.model.reader.KIND_QUESTION" in first
    assert [name for name in first if first[name] != second.get(name)] == []
