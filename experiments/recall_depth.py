"""How deep in BM25's ranking the planted dev paragraphs sit: recall@k for several k, by corpus size.

    python -m experiments.recall_depth build/scale-run2/w/lance-10000/index.lance \
        build/scale-run2/w/lance-100000/index.lance build/scale-run2/w/lance-1000000/index.lance

Each table is one ``python -m bench scale --keep`` left (Lance, the dev paragraphs planted); every dev
question is searched once for its top 100 (``bench.scale.query``) and the gold paragraph's rank read
off. Recall@100 bounds what any reranker of BM25's first 100 could reach at 5.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bench.scale import query

SQUAD = Path("../shared/data/squad")
DEPTHS = (1, 5, 10, 20, 50, 100)


def main(argv=None) -> int:
    tables = [Path(a) for a in (argv if argv is not None else sys.argv[1:])]
    if not tables:
        raise SystemExit(__doc__)
    from bench.scale_corpus import dev_questions

    golds = [q["gold"] for q in dev_questions(SQUAD / "dev.json")]  # in the order bench.scale.query asks them
    print("| table | " + " | ".join(f"@{k}" for k in DEPTHS) + " |")
    print("|---|" + "---|" * len(DEPTHS))
    for table in tables:
        if not table.exists():
            raise SystemExit(f"{table} does not exist (python -m bench scale --keep leaves it)")
        ranked = query("lance", table, SQUAD, max(DEPTHS))["ranked"]
        cells = [f"{sum(g in r[:k] for g, r in zip(golds, ranked)) / len(golds):.3f}" for k in DEPTHS]
        print(f"| {table} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
