"""How deep in BM25's ranking the planted dev paragraphs sit: recall@k for several k, by corpus size.

    python -m experiments.recall_depth build/scale-run2/w/lance-10000/index.lance \
        build/scale-run2/w/lance-100000/index.lance build/scale-run2/w/lance-1000000/index.lance

Each table is one ``python -m bench scale --keep`` left (Lance, the dev paragraphs planted); every dev
question is searched once for its top 100 (``bench.scale.query``) and the gold paragraph's rank read
off. Recall@100 bounds what any reranker of BM25's first 100 could reach at 5.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.scale import query
from harness.paths import SQUAD

DEPTHS = (1, 5, 10, 20, 50, 100)


def recall_at(tables: list[Path], data: Path = SQUAD, depths=DEPTHS) -> dict[str, dict[int, float]]:
    """Each table's recall@k of the planted dev paragraphs for every k in ``depths``."""
    from bench.scale_corpus import dev_questions

    golds = [q["gold"] for q in dev_questions(data / "dev.json")]  # in the order bench.scale.query asks them
    out = {}
    for table in tables:
        if not table.exists():
            raise SystemExit(f"{table} does not exist (python -m bench scale --keep leaves it)")
        ranked = query("lance", table, data, max(depths))["ranked"]
        out[str(table)] = {k: round(sum(g in r[:k] for g, r in zip(golds, ranked)) / len(golds), 4) for k in depths}
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.recall_depth", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("tables", type=Path, nargs="+", help="Lance tables that python -m bench scale --keep left")
    p.add_argument("--data", type=Path, default=SQUAD, help="the folder with dev.json")
    args = p.parse_args(argv)
    print("| table | " + " | ".join(f"@{k}" for k in DEPTHS) + " |")
    print("|---|" + "---|" * len(DEPTHS))
    for table, recall in recall_at(args.tables, args.data).items():
        print(f"| {table} | " + " | ".join(f"{recall[k]:.3f}" for k in DEPTHS) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
