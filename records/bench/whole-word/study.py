"""An answer widened to the words it starts or ends inside (RULE.md): documentation dev and SQuAD dev, off and on.

    PYTHONPATH=. python records/bench/whole-word/study.py --out build/whole-word
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import bench.cascade as bcascade
import bench.docs as bdocs
from function.model import reader


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    for on in (False, True):
        reader.WHOLE_WORD = on
        name = "on" if on else "off"
        bdocs.main(["--part", "dev", "--out", str(args.out / f"docs-{name}")])
        bcascade.main(["--questions", "0", "--timed", "0", "--out", str(args.out / f"squad-{name}")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
