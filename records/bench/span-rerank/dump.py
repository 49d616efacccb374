"""n-best (10) with the right passage given, every part, with offsets, marks and titles: for a span re-ranker study."""
import json, sys, tempfile
from pathlib import Path
from bench import docs as D
from bench.documents import ingest_documents
from bench.in_process import open_service
from function.evaluate.scoring import score
from function.service.qa_request import QARequest
from harness.paths import default_artifact, ENCODER
import numpy as np

args = D.parse_args(["--part", "all"])
prepared = D.prepare(args)
env = {"QA_ARTIFACT_DIR": str(default_artifact().resolve()), "QA_STORE": "sqlite", "QA_CACHE": "0", "QA_THREADS": "2",
       "QA_INDEX_ENCODER": str(ENCODER.resolve())}
out = {"dev": [], "test": []}
with tempfile.TemporaryDirectory() as tmp:
    for docset, folder, files, _ in prepared:
        qs, _ = D.select(docset, "all", 0)
        e = {**env, "QA_SQLITE_PATH": f"{tmp}/{docset['set']}.sqlite", "QA_INDEX_URI": f"{tmp}/{docset['set']}.lance"}
        svc = open_service(e)
        figs, texts = ingest_documents(svc, [(r, folder / r) for r in files], folder)
        passages = D.stored_passages(svc, texts)
        store = svc.rt.store()
        for q in qs:
            pid = D.right_passage(q, passages)
            if not pid:
                continue
            p = store.get_many([pid])[pid]
            marks = p.code_spans.tolist()
            s = svc.rt.settings
            req = QARequest(q["question"], None, (pid,), 10, s.max_answer_tokens, None, abstain=False)
            pay = svc.answer(req).payload
            cands = [{"start": a["start"], "end": a["end"], "score": a["score"], "text": a["text"],
                      "f1": score(a["text"], q["answers"])[1], "em": score(a["text"], q["answers"])[0]}
                     for a in pay.get("answers", [])]
            out[q["part"]].append({"id": q["id"], "set": docset["set"], "kind": q["kind"], "question": q["question"],
                                   "gold": q["answers"], "title": p.title, "text": p.text, "marks": marks,
                                   "cands": cands})
        store.close()
for part, rows in out.items():
    json.dump(rows, open(f"build/oracle/nbest-{part}.json", "w"))
    print(part, len(rows))
