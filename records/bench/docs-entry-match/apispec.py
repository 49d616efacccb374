"""The entry term on the documentation set outside the benchmark that the code lift was checked on (Debian's
python-apispec-doc 5.2.2-3: ``records/bench/docs-code/apispec``, its 20 questions), asked alone (hybrid) through
``python -m function.evaluate``, with ``reader.ENTRY`` 0 and as shipped, in turn in one process.

    PYTHONPATH=. python records/bench/docs-entry-match/apispec.py /tmp/apispec --out build/entry-apispec
    (/tmp/apispec: as records/bench/docs-code/apispec/check.py's docstring lays it out)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from function.evaluate.cli import main as evaluate
from function.model import reader

QUESTIONS = Path(__file__).parent.parent / "docs-code" / "apispec" / "questions.jsonl"


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("docs", type=Path)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    shipped = reader.ENTRY
    for name, weight in (("off", 0.0), ("shipped", shipped)):
        reader.ENTRY = weight
        evaluate([str(QUESTIONS), "--docs", str(args.docs), "--out", str(args.out / f"{name}.json"),
                  "--md", str(args.out / f"{name}.md")])
        print(name, json.dumps(json.loads((args.out / f"{name}.json").read_text())["figures"])[:300], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
