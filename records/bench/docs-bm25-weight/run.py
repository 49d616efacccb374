"""`python -m bench docs` with the span ranking's retrieval weight set in-process:
python records/bench/docs-bm25-weight/run.py WEIGHT [bench docs arguments] (from the repository root)."""

import os
import sys


def main() -> int:
    sys.path.insert(0, os.getcwd())
    from bench.docs import main as bench_docs
    from function.retrieval import span_bias

    weight = float(sys.argv[1])
    span_bias.BM25_WEIGHT = weight
    span_bias.passage_bias.__defaults__ = (weight, *span_bias.passage_bias.__defaults__[1:])
    return bench_docs(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
