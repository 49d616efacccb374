"""A lift for spans the passage introduces as a default, for questions about a default (RULE.md).

Runs ``python -m bench docs`` once per value of ``reader.DEFAULT`` in one process:
    PYTHONPATH=. python records/bench/docs-default-lift/study.py --part dev --out build/docs-default --variants 0,2,4
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import bench.docs as bdocs
from function.model import reader


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--part", default="dev")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--variants", default="0,2,4")
    args = p.parse_args()
    summary = {}
    for v in args.variants.split(","):
        reader.DEFAULT = float(v)
        out = args.out / f"d{v}"
        bdocs.main(["--part", args.part, "--out", str(out)])
        summary[v] = json.loads((out / "docs.json").read_text())["tables"]["pooled"]
        print(v, json.dumps(summary[v]), flush=True)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
