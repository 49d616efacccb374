"""Study: SQuAD out-of-corpus with hybrid retrieval; per question the no-answer probability and retrieved cosines."""
import json
import sys

import bench.out_of_corpus as O
from harness.paths import REPO

rec = []
_orig_env = O.service_env


def service_env(args, folder):
    return {**_orig_env(args, folder), "QA_INDEX_URI": str(folder / "index.lance"),
            "QA_INDEX_ENCODER": str((REPO / "encoder").resolve())}


def row(service, q, in_corpus, k):
    from build_model.evaluation.metrics import best_over_golds, f1
    on = O.ask(service, q["question"], k, True)
    off = O.ask(service, q["question"], k, False)
    never = off["answers"][0]["text"] if off["answers"] else ""
    v = on.get("no_answer") or {}
    r = {"id": q["id"], "in_corpus": in_corpus, "abstained": bool(v.get("abstained")), "unmatched": "reason" in v,
         "probability": v.get("probability"), "em": 0.0, "f1": 0.0, "em_never": 0.0,
         "f1_never": best_over_golds(f1, never, q["answers"]) if never and q["answers"] else 0.0,
         "retrieved": [{k2: x.get(k2) for k2 in ("passage_id", "score", "cosine")} for x in on.get("retrieved", [])]}
    text = on["answers"][0]["text"] if on["answers"] else ""
    r["f1"] = best_over_golds(f1, text, q["answers"]) if text and q["answers"] else 0.0
    rec.append(r)
    return r


O.service_env = service_env
O.row = row
out = sys.argv[1]
rc = O.main(sys.argv[2:])
json.dump(rec, open(out, "w"))
sys.exit(rc)
