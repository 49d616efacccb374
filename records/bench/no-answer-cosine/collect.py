"""Study: per question asked alone, the no-answer probability and the retrieved passages' scores and cosines.

PYTHONPATH=. python records/bench/no-answer-cosine/collect.py OUT.json --part dev --out DIR (bench docs' arguments)."""
import json
import sys

import bench.docs as D

rec = []
_orig = D._ask


def _ask(service, question, ids, abstain):
    payload, ms = _orig(service, question, ids, abstain)
    if ids is None and abstain is None:
        na = payload.get("no_answer") or {}
        rec.append({"question": question, "probability": na.get("probability"), "abstained": na.get("abstained"),
                    "reason": na.get("reason"),
                    "retrieved": [{k: r.get(k) for k in ("passage_id", "score", "cosine")}
                                  for r in payload.get("retrieved", [])]})
    return payload, ms


D._ask = _ask
out = sys.argv[1]
rc = D.main(sys.argv[2:])
json.dump(rec, open(out, "w"))
sys.exit(rc)
