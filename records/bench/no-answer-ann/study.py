"""Study: "no answer" out of corpus when the Lance table has its approximate vector index (IVF_HNSW_SQ).

The 1,666-passage corpus of `bench out-of-corpus --with-train` stays below ANN_MIN_ROWS (5,000), so its vector search
is flat and reports cosines. Here ANN_MIN_ROWS is 1,000, so ingestion's optimize indexes that corpus (the fold alone,
91-194 rows, stays flat: the control). Variants:
  as-is      the code as it is: a fully indexed table reports 2 x cosine - 1, marked not exact, so the threshold
             does not move (span_bias.no_answer_shift)
  converted  each such score taken back to a cosine, (score + 1) / 2, and marked exact, as a flat search's

PYTHONPATH=. python records/bench/no-answer-ann/study.py as-is|converted OUT_DIR \
    --with-train --retrieval hybrid --data ...    (with the code of 948a41b, before Hit.exact went)"""
import sys

import bench.out_of_corpus as O
from function.retrieval import lance_index
from function.retrieval.bm25 import Hit

variant, out = sys.argv[1], sys.argv[2]
lance_index.ANN_MIN_ROWS = 1_000
seen = {}
_nearest = lance_index.LanceIndex._nearest


def nearest(self, vector, k, exact, where=None):
    hits = _nearest(self, vector, k, exact, where)
    ds = self._current()
    key = (ds.version, ds.count_rows())
    if key not in seen:
        seen[key] = self._vector_indexed(ds)
        print(f"[study] table version {key[0]}, {key[1]} rows: vector index {seen[key]}, hits exact "
              f"{[h.exact for h in hits][:1]}", file=sys.stderr, flush=True)
    if variant == "converted":
        hits = [h if h.exact else Hit(h.passage_id, (h.score + 1.0) / 2.0, exact=True) for h in hits]
    return hits


lance_index.LanceIndex._nearest = nearest
sys.exit(O.main([*sys.argv[3:], "--out", out]))
