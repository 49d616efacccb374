"""Oracle: with the right passage given, is a gold form among the reader's n best spans? (dev part)"""
import json, sys, tempfile
from pathlib import Path
from bench import docs as D
from bench.documents import ingest_documents
from bench.in_process import open_service
from function.evaluate.scoring import score
from function.service.qa_request import QARequest
from harness.paths import default_artifact, ENCODER

args = D.parse_args(["--part", sys.argv[1] if len(sys.argv) > 1 else "dev"])
prepared = D.prepare(args)
env = {"QA_ARTIFACT_DIR": str(default_artifact().resolve()), "QA_STORE": "sqlite", "QA_CACHE": "0", "QA_THREADS": "2",
       "QA_INDEX_ENCODER": str(ENCODER.resolve())}
out = []
with tempfile.TemporaryDirectory() as tmp:
    for docset, folder, files, _ in prepared:
        qs, _ = D.select(docset, args.part, 0)
        e = {**env, "QA_SQLITE_PATH": f"{tmp}/{docset['set']}.sqlite", "QA_INDEX_URI": f"{tmp}/{docset['set']}.lance"}
        svc = open_service(e)
        figs, texts = ingest_documents(svc, [(r, folder / r) for r in files], folder)
        passages = D.stored_passages(svc, texts)
        for q in qs:
            pid = D.right_passage(q, passages)
            if not pid:
                continue
            s = svc.rt.settings
            req = QARequest(q["question"], None, (pid,), 10, s.max_answer_tokens, None, abstain=False)
            p = svc.answer(req).payload
            ans = [a.get("text", "") for a in p.get("answers", [])]
            f1s = [score(a, q["answers"])[1] for a in ans]
            out.append({"id": q["id"], "kind": q["kind"], "q": q["question"], "gold": q["answers"], "answers": ans,
                        "f1s": f1s, "scores": [a.get("score") for a in p.get("answers", [])],
                        "passage": dict(passages[q["file"]])[pid]})
        svc.rt.store().close()
json.dump(out, open(sys.argv[2] if len(sys.argv) > 2 else "build/oracle/dev.json", "w"), indent=1)
import statistics
for k in (1, 3, 5, 10):
    print(k, round(100 * statistics.mean(max(r["f1s"][:k] or [0]) for r in out), 1))
