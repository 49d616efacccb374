"""Study: per question asked alone (docs benchmark), the no-answer probability and the coverage signals.

PYTHONPATH=. python records/bench/no-answer-terms/collect_docs.py OUT.json --part dev --retrieval bm25 --out DIR"""
import json
import sys
from pathlib import Path

import bench.docs as D

sys.path.insert(0, str(Path(__file__).parent))
from signals import signals  # noqa: E402

rec = []
_orig = D._ask


def _ask(service, question, ids, abstain):
    payload, ms = _orig(service, question, ids, abstain)
    if ids is None and abstain is None:
        na = payload.get("no_answer") or {}
        retrieved = [{k: r.get(k) for k in ("passage_id", "score", "cosine")} for r in payload.get("retrieved", [])]
        rec.append({"question": question, "probability": na.get("probability"), "abstained": na.get("abstained"),
                    "reason": na.get("reason"), "retrieved": retrieved, **signals(service, question, retrieved)})
    return payload, ms


D._ask = _ask
out = sys.argv[1]
rc = D.main(sys.argv[2:])
json.dump(rec, open(out, "w"))
sys.exit(rc)
