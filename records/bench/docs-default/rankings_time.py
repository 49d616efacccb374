"""Where hybrid retrieval's time goes on one folder's Lance index (records/bench/docs-default/README.md).

    python records/bench/docs-default/rankings_time.py .data/docs-<hash>-hybrid-<encoder>    (from the root)

git's questions (bench/docs_sets/git.json) against the folder `make run DOCS=build/docs-bench/git/corpus`
made: BM25 alone (top 5), hybrid as the function runs it (``seq``), hybrid with the question's embedding beside
the BM25 search on a thread (``par``), and each step alone; three rounds, the contenders' order alternating.
"""

import concurrent.futures
import json
import statistics
import sys
import time
from pathlib import Path

from function.retrieval.encoder import SentenceEncoder
from function.retrieval.hybrid import HybridIndex, Rankings
from function.retrieval.lance_index import LanceIndex
from function.retrieval.terms import query_terms

folder = Path(sys.argv[1])
encoder = SentenceEncoder(Path("encoder"))
index = LanceIndex(str(folder / "index.lance"), dim=384)
hybrid = HybridIndex(index, encoder)
hybrid.warm()
questions = [q["question"] for q in json.loads(Path("bench/docs_sets/git.json").read_text())["questions"]]
pool = concurrent.futures.ThreadPoolExecutor(1)


def seq(q, terms):
    return hybrid.fuse(terms, hybrid.rankings(q, terms, 20), 5)


def par(q, terms):
    bm25 = pool.submit(index.search, terms, 20, None)
    dense = index.nearest(encoder.embed([q])[0], 20)
    return hybrid.fuse(terms, Rankings(bm25.result(), dense), 5)


def bm25_alone(q, terms):
    return index.search(terms, 5)


def timed(times, name, work, *args):
    t0 = time.perf_counter()
    out = work(*args)
    times.setdefault(name, []).append((time.perf_counter() - t0) * 1000)
    return out


times: dict[str, list[float]] = {}
for round_ in range(3):
    for i, q in enumerate(questions):
        terms = query_terms(q)
        order = [("seq", seq), ("par", par), ("bm25", bm25_alone)]
        got = {name: timed(times, name, work, q, terms) for name, work in (order if (i + round_) % 2 else
                                                                          [order[1], order[0], order[2]])}
        assert [h.passage_id for h in got["seq"]] == [h.passage_id for h in got["par"]]
        vector = timed(times, "embed", encoder.embed, [q])[0]
        timed(times, "nearest", index.nearest, vector, 20)
        timed(times, "search", index.search, terms, 20)
print(len(questions), {name: round(statistics.median(v), 2) for name, v in times.items()})
