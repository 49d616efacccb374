"""The product names no lab path: function/ is deployed without bench/, experiments/ and records/, so a
figure it cites is pointed to by the docs/ page that holds it (which names the command and the record)."""

import re
from pathlib import Path

# a module path (bench.scale, experiments/...), a command (python -m bench cost), a records folder
LAB_PATH = re.compile(r"\b(?:bench|experiments)(?:[./]\w|\s+(?:cost|scale|docs|retrieval|documents)\b)|"
                      r"\brecords/|python -m (?:bench|experiments)\b")


def lab_paths(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".yaml", ".md", ".txt") and path.is_file():
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if LAB_PATH.search(line):
                    found.append(f"{path.relative_to(root.parent)}:{n}: {line.strip()}")
    return found


def test_the_pattern_finds_each_kind_of_lab_path():
    for line in ("see ``bench.scale``", "python -m bench cost lance", "records/bench/ann-probes-1e6",
                 "``experiments.fusion_sweep``", "bench/scale.py", "``bench scale`` reports"):
        assert LAB_PATH.search(line), line
    for line in ("docs/retrieval.md", "a benchmark measured it", "the cost model"):
        assert not LAB_PATH.search(line), line


def test_function_names_no_bench_experiments_or_records_path(repo):
    assert lab_paths(Path(repo) / "function") == []
