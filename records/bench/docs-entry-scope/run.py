"""`python -m bench docs` with candidate.patch's two constants set in-process (apply the patch first):
python records/bench/docs-entry-scope/run.py ENTRY RETURN [bench docs arguments] (from the repository root)."""

import os
import sys


def main() -> int:
    sys.path.insert(0, os.getcwd())
    from bench.docs import main as bench_docs
    from function.model import reader

    reader.ENTRY, reader.RETURN = float(sys.argv[1]), float(sys.argv[2])
    return bench_docs(sys.argv[3:])


if __name__ == "__main__":
    sys.exit(main())
