"""The code lift on a documentation set outside the benchmark (Debian's python-apispec-doc 5.2.2-3, not among the
training packages): 20 questions written from its API pages before any answer was seen, asked alone (hybrid) through
``python -m function.evaluate``, with ``reader.CODE`` 0 and as shipped, in turn in one process.

    apt-get download python-apispec-doc && dpkg -x python-apispec-doc_*.deb x
    mkdir -p /tmp/apispec && cp x/usr/share/doc/python-apispec-doc/html/{api_core,api_ext,quickstart,special_topics,\\
using_plugins,writing_plugins}.html /tmp/apispec/
    PYTHONPATH=. python records/bench/docs-code/apispec/check.py /tmp/apispec --out build/apispec
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from function.evaluate.cli import main as evaluate
from function.model import reader

HERE = Path(__file__).parent


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("docs", type=Path)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    shipped = reader.CODE
    for name, weight in (("off", 0.0), ("shipped", shipped)):
        reader.CODE = weight
        evaluate([str(HERE / "questions.jsonl"), "--docs", str(args.docs), "--out", str(args.out / f"{name}.json"),
                  "--md", str(args.out / f"{name}.md")])
        print(name, json.dumps(json.loads((args.out / f"{name}.json").read_text())["figures"])[:300], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
