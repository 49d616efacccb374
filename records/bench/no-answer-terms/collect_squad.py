"""Study: SQuAD out of corpus (BM25 by default); per question the no-answer probability and the coverage signals.

PYTHONPATH=. python records/bench/no-answer-terms/collect_squad.py OUT.json --with-train --data ... --out DIR"""
import json
import sys
from pathlib import Path

import bench.out_of_corpus as O

sys.path.insert(0, str(Path(__file__).parent))
from signals import signals  # noqa: E402

rec = []
_orig_row, _orig_ask = O.row, O.ask
last = {}


def ask(service, question, k, abstain):
    payload = _orig_ask(service, question, k, abstain)
    if abstain:
        last["on"] = payload
    return payload


def row(service, q, in_corpus, k):
    r = _orig_row(service, q, in_corpus, k)
    on = last["on"]
    retrieved = [{k2: x.get(k2) for k2 in ("passage_id", "score", "cosine")} for x in on.get("retrieved", [])]
    rec.append({**r, "retrieved": retrieved, **signals(service, q["question"], retrieved)})
    return r


O.row, O.ask = row, ask
out = sys.argv[1]
rc = O.main(sys.argv[2:])
json.dump(rec, open(out, "w"))
sys.exit(rc)
