# ruff: noqa  (a study script kept as it ran)
"""Decode time of one question asked alone with and without the second stage, on real retrievals: 300 SQuAD dev
questions against the 1,757 paragraphs (BM25), the model run once each, each decode timed in alternation."""
import json, sys, tempfile, time
from pathlib import Path
import numpy as np
sys.path.insert(0, "/work/main")
from bench.cascade import load_squad, sample
from bench.in_process import ingest_into, open_service
from function.model import reader
from function.model.reader import answers_from_logits
from function.retrieval.span_bias import NULL_WEIGHT, passage_bias
from function.service.pipeline import Reading

records, questions = load_squad(Path("/work/shared/data/squad"))
with tempfile.TemporaryDirectory() as tmp:
    service = open_service({"QA_ARTIFACT_DIR": "/work/main/artifact", "QA_STORE": "sqlite",
                            "QA_SQLITE_PATH": f"{tmp}/p.sqlite", "QA_CACHE": "0", "QA_THREADS": "1", "QA_CASCADE": "0"})
    ingest_into(service, records)
    model = service.rt.model()
    cases = []
    for q in sample(questions["dev"], 300):
        q_ids = model.tokenizer.encode(q["question"]).ids
        hits = service.retrieve(q["question"], 5)
        stored, _, _ = service._read_retrieved(hits, len(q_ids), model)
        by_id = {h.passage_id: h for h in hits}
        reading = Reading.of_stored(stored)
        batch = service._batch(q_ids, reading, model)
        ran = service.rt.inference.run(model, batch)
        bias = passage_bias(np.array([by_id[p.id].score for p in stored]))
        cases.append((ran.start_logits, ran.end_logits, batch, reading, bias, q["question"]))
orig = reader._within_chosen_passage
one = lambda found, *a, **k: found
times = {"one": [], "two": []}
for rnd in range(5):
    for name, fn in (("one", one), ("two", orig)) if rnd % 2 == 0 else (("two", orig), ("one", one)):
        reader._within_chosen_passage = fn
        for s, e, b, r, bias, question in cases:
            t = time.perf_counter()
            answers_from_logits(s, e, b, r.tokens, 1, 30, bias, texts=r.texts, null_weight=NULL_WEIGHT, question=question)
            times[name].append((time.perf_counter() - t) * 1000)
out = {k: {"p50_ms": round(float(np.median(v)), 3), "mean_ms": round(float(np.mean(v)), 3)} for k, v in times.items()}
print(json.dumps(out))
