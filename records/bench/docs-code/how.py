"""The code lift for more kinds of question (RULE.md's addenda): the dev part with the shipped ``NAME_QUESTION`` and
with it extended by ``--pattern``, in turn in one process.

    PYTHONPATH=. python records/bench/docs-code/how.py --out build/docs-code-how                  # addendum 1
    PYTHONPATH=. python records/bench/docs-code/how.py --name default --pattern '\\bdefaults?\\b' \\
        --out build/docs-code-default                                                          # addendum 3
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import bench.docs as bdocs
from function.model import reader

HOW = r"^\s*how\s+(?:do|can|should)\s+(?:i|you|we)\b|^\s*how\s+to\b"


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--name", default="how")
    p.add_argument("--pattern", default=HOW, help="added to NAME_QUESTION with '|'")
    args = p.parse_args()
    shipped = reader.NAME_QUESTION
    for name, pattern in (("shipped", shipped),
                          (args.name, re.compile(shipped.pattern + "|" + args.pattern, re.IGNORECASE))):
        reader.NAME_QUESTION = pattern
        bdocs.main(["--part", "dev", "--out", str(args.out / name)])
        t = json.loads((args.out / name / "docs.json").read_text())["tables"]["pooled"]["dev"]
        print(name, {k: t[k] for k in ("f1", "exact_match", "f1_right_passage", "no_answer_answerable")}, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
