"""Per SQuAD dev question asked alone against the train + dev paragraphs (hybrid retrieval, abstention off): the
answer's F1 read from every passage and from the first alone, and the first passage's span probability, no-answer
margin, the moved threshold and retrieval's lead, as ``cascade.settled`` sees them (cascade-lead's dump.py, at
``66b3450^``, with the lead). Usage: PYTHONPATH=. python records/bench/cascade-docs/dump_squad.py OUT.json"""

import json
import sys
import tempfile
from pathlib import Path

from bench.cascade import f1_of
from bench.in_process import ingest_into, load_squad, open_service
from function.model.decode import best_spans, null_score
from function.service import cascade
from function.service.qa_request import QARequest

records, qs = load_squad(Path("/work/shared/data/squad"))
seen: dict = {}


def settled(start, end, batch, max_tokens, threshold, min_probability=cascade.MIN_SPAN_PROBABILITY,
            max_margin=cascade.MAX_MARGIN, blocks=None, lead=None):
    spans = best_spans(start, end, batch, 1, max_tokens, blocks=blocks)
    seen.update(p=spans[0].score if spans else 0.0, m=float(null_score(start, end, batch, max_tokens).margin),
                t=threshold, lead=lead)
    return seen["stop"]


cascade.settled = settled
rows = []
with tempfile.TemporaryDirectory() as tmp:
    env = {"QA_ARTIFACT_DIR": str(Path("artifact").resolve()), "QA_STORE": "sqlite",
           "QA_SQLITE_PATH": tmp + "/p.sqlite", "QA_CACHE": "0", "QA_THREADS": "0", "QA_CASCADE": "1",
           "QA_INDEX_URI": tmp + "/i.lance",
           "QA_INDEX_ENCODER": str(Path("encoder").resolve())}
    s = open_service(env)
    ingest_into(s, records)
    mt = s.rt.manifest().sequence["max_answer_tokens"]
    for q in qs["dev"]:
        row = {"id": q["id"]}
        for stop in (False, True):
            seen.clear()
            seen["stop"] = stop
            r = s.answer(QARequest(q["question"], None, None, 1, mt, 5, abstain=False))
            a = r.payload["answers"]
            row["first" if stop else "full"] = f1_of(a[0]["text"] if a else "", q["answers"])
            row.update({k: v for k, v in seen.items() if k != "stop"})
            row["several"] = "p" in seen
        rows.append(row)
Path(sys.argv[1]).write_text(json.dumps(rows))
print(len(rows))
