"""What the recorded replies say about "no answer" in the pooled store, computed (no model runs).

1. The off-topic questions a store of their own set refused and the pooled store answered: the logit of their
   no-answer probability in each (margin - the moved threshold; > 0 abstains).
2. The threshold's cosine point raised with the store's size: each question's logit moved by
   16 x beta x log10(N / 1000) (N: passages in its store), on the documentation dev part (a store per set, one for
   all: this record's docs.json.gz) and SQuAD out of corpus (records/bench/no-answer-terms/hybrid/kept).

    python records/bench/docs-pooled/shift.py        # from the repository root
"""

from __future__ import annotations

import gzip
import json
import math
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent
SQUAD = HERE.parent / "no-answer-terms" / "hybrid" / "kept" / "squad-out-of-corpus.json.gz"
WEIGHT = 16.0  # span_bias.NO_ANSWER_COSINE_WEIGHT
POOLED_N, FOLD_N, FOLD_TRAIN_N = 10_357, 90, 1_666


def logit(p: float) -> float:
    p = min(max(p, 1e-7), 1 - 1e-7)
    return math.log(p / (1 - p))


def moved(n: int, beta: float) -> float:
    return WEIGHT * beta * max(0.0, math.log10(n / 1000))


def docs_dev(result: dict, beta: float, pooled: bool) -> str:
    answerable, off = [], []
    for s in result["sets"]:
        d = moved(POOLED_N if pooled else s["ingestion"]["passages"], beta)
        answerable += [(logit(r["probability"]) + d > 0, r["f1_never"]) for r in s["rows"]
                       if r["part"] == "dev" and r["probability"] is not None]
        off += [logit(r["probability"]) + d > 0 for r in s["off_topic_rows"]
                if r["part"] == "dev" and r["probability"] is not None]
    abstained = sum(a for a, _ in answerable) / len(answerable)
    f1 = sum(0.0 if a else f for a, f in answerable) / len(answerable)
    return f"{100 * abstained:.1f}% / {100 * f1:.2f} / {100 * sum(off) / len(off):.1f}%"


def squad(corpus: dict, n: int, beta: float) -> str:
    d = moved(n, beta)
    inside = [r for r in corpus["rows"] if r["in_corpus"]]
    outside = [r for r in corpus["rows"] if not r["in_corpus"]]
    abstained = [logit(r["probability"]) + d > 0 for r in inside]
    f1 = sum(0.0 if a else r["f1_never"] for r, a in zip(inside, abstained, strict=True)) / len(inside)
    refused = sum(logit(r["probability"]) + d > 0 for r in outside) / len(outside)
    return f"{100 * sum(abstained) / len(inside):.1f}% / {100 * f1:.2f} / {100 * refused:.1f}%"


def main() -> None:
    runs = {t: json.load(gzip.open(HERE / t / "docs.json.gz")) for t in ("apart", "pooled")}
    apart = {r["id"]: r for s in runs["apart"]["sets"] for r in s["off_topic_rows"]}
    pooled = {r["id"]: r for s in runs["pooled"]["sets"] for r in s["off_topic_rows"]}
    flipped = [i for i in apart if apart[i]["no_answer"] and not pooled[i]["no_answer"]]
    for name, rows in (("own store", apart), ("pooled", pooled)):
        xs = [logit(rows[i]["probability"]) for i in flipped]
        print(f"{len(flipped)} off-topic questions refused alone, answered pooled: logit in the {name}: median "
              f"{statistics.median(xs):.2f}, quartiles {[round(v, 2) for v in statistics.quantiles(xs, n=4)]}")
    sq = json.load(gzip.open(SQUAD))
    print("\n| beta | docs dev, a store per set | docs dev, one store | SQuAD, fold | SQuAD, fold + train.json |")
    print("|---|---|---|---|---|")
    for beta in (0, 0.03, 0.05, 0.07, 0.1, 0.15):
        cells = [docs_dev(runs["apart"], beta, False), docs_dev(runs["pooled"], beta, True),
                 squad(sq["corpora"][0], FOLD_N, beta), squad(sq["corpora"][1], FOLD_TRAIN_N, beta)]
        print(f"| {beta} | " + " | ".join(cells) + " |")
    print("\n(each cell: answerable abstained / F1, an abstention 0, else the never-abstaining answer / off-topic "
          "or out-of-corpus refused)")


if __name__ == "__main__":
    main()
