"""Per SQuAD dev question asked alone: the full read's answer, the first passage's answer, the first passage's span
probability and margin as the cascade sees them, and the retrieved scores."""

import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.getcwd())
from bench.cascade import f1_of
from bench.in_process import ingest_into, load_squad, open_service
from function.model.decode import best_spans, null_score
from function.service import cascade
from function.service.qa_request import QARequest

hybrid = len(sys.argv) > 2 and sys.argv[2] == "hybrid"
records, qs = load_squad(Path("/work/shared/data/squad"))
seen = {}


def patched(start, end, batch, max_tokens, threshold, min_probability=0.4, max_margin=-8.0, blocks=None):
    spans = best_spans(start, end, batch, 1, max_tokens, blocks=blocks)
    seen["p"] = spans[0].score if spans else 0.0
    seen["m"] = float(null_score(start, end, batch, max_tokens).margin)
    seen["t"] = threshold
    return seen["stop"]


cascade.settled = patched
rows = []
with tempfile.TemporaryDirectory() as tmp:
    env = {
        "QA_ARTIFACT_DIR": str(Path("artifact").resolve()),
        "QA_STORE": "sqlite",
        "QA_SQLITE_PATH": tmp + "/p.sqlite",
        "QA_CACHE": "0",
        "QA_THREADS": "0",
        "QA_CASCADE": "1",
    }
    if hybrid:
        env.update({"QA_INDEX_URI": tmp + "/i.lance", "QA_INDEX_ENCODER": str(Path("encoder").resolve())})
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
            row["full" if not stop else "first"] = f1_of(a[0]["text"] if a else "", q["answers"])
            if "p" in seen:
                row.update(p=seen["p"], m=seen["m"], t=seen["t"])
            row["scores"] = [h["score"] for h in r.payload.get("retrieved", [])]
            row["cos"] = [h.get("cosine") for h in r.payload.get("retrieved", [])]
            row["several"] = "p" in seen
        rows.append(row)
Path(sys.argv[1]).write_text(json.dumps(rows))
print(len(rows))
