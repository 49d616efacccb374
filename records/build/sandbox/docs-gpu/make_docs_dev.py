"""The documentation benchmark's DEV questions with their right passage, as a SQuAD file (run here, before the
GPU run): each arm's student is scored on it there (F1 with the right passage given), the only documentation
figure that can choose between arms without the ingestion stack on the GPU machine. Test questions stay out."""
import argparse
import json
import tempfile
from pathlib import Path

from bench import docs
from bench.documents import ingest_documents
from bench.in_process import open_service
from harness.paths import default_artifact

p = argparse.ArgumentParser()
p.add_argument("out", type=Path)
args = p.parse_args()
prepared = docs.prepare(argparse.Namespace(sets_dir=docs.SETS, sets=None, cache=None, show=None))
data, n = [], 0
with tempfile.TemporaryDirectory() as tmp:
    for docset, folder, files, _ in prepared:
        env = {"QA_ARTIFACT_DIR": str(default_artifact()), "QA_STORE": "sqlite", "QA_CACHE": "0",
               "QA_SQLITE_PATH": f"{tmp}/{docset['set']}.sqlite"}
        service = open_service(env)
        _, texts = ingest_documents(service, [(rel, folder / rel) for rel in files], folder)
        passages = docs.stored_passages(service, texts)
        paragraphs = []
        for q in docset["questions"]:
            if q["part"] != "dev":
                continue
            pid = docs.right_passage(q, passages)
            if pid is None:
                continue
            context = dict(passages[q["file"]])[pid]
            golds = [{"text": a, "answer_start": context.find(a)} for a in q["answers"] if a in context]
            if not golds:  # held only after normalisation: score against the forms, train on none
                golds = [{"text": a, "answer_start": 0} for a in q["answers"]]
                continue
            paragraphs.append({"context": context, "qas": [{"id": q["id"], "question": q["question"],
                                                             "answers": golds, "kind": q["kind"]}]})
            n += 1
        data.append({"title": docset["set"], "paragraphs": paragraphs})
        service.rt.store().close()
args.out.write_text(json.dumps({"version": "docs-dev", "data": data}), encoding="utf-8")
print(f"{n} dev questions with their right passage -> {args.out}")
