"""Study: does the question-passage cosine (all-MiniLM-L6-v2, encoder/) help rank the spans of several passages?

The shipped ranking: logits + 8 x BM25 / best BM25 read - 0.5 x [CLS]; here + c x cosine(question, passage) too,
for several c, on the SQuAD dev questions asked alone (BM25 top 5 over train + dev paragraphs, abstention off),
one model run per question decoded every way (bench.cascade's sweep). Writes build/s5/cos_study.json.
"""
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.cascade import f1_of, sample
from bench.in_process import ingest_into, load_squad, open_service
from function.retrieval.encoder import SentenceEncoder
from function.retrieval.hybrid import dense_text
from harness.paths import ARTIFACT, REPO, SQUAD

COS = (0.0, 2.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0)
BM25 = (4.0, 8.0)
n_questions = int(sys.argv[1]) if len(sys.argv) > 1 else 0
HYBRID = len(sys.argv) > 2 and sys.argv[2] == "hybrid"  # retrieval by a Lance index with vectors (QA_INDEX_ENCODER)


def main():
    from function.errors import NotFound
    from function.model.reader import answers_from_logits
    from function.retrieval.span_bias import NULL_WEIGHT, passage_bias
    from function.service.pipeline import Reading

    records, questions = load_squad(SQUAD)
    dev = sample(questions["dev"], n_questions)
    encoder = SentenceEncoder(REPO / "encoder")
    cache: dict[str, np.ndarray] = {}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {"QA_ARTIFACT_DIR": str(ARTIFACT), "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(Path(tmp) / "p.sqlite"),
               "QA_CACHE": "0", "QA_CASCADE": "0"}
        if HYBRID:
            env.update({"QA_INDEX_URI": str(Path(tmp) / "ix.lance"), "QA_INDEX_ENCODER": str(REPO / "encoder")})
        service = open_service(env)
        if HYBRID:
            from function.ingest.documents import Recipe, from_records
            from function.ingest.ingestion import Ingestion

            tok = service.rt.model().tokenizer
            recipe = Recipe(tok.fingerprint, 0, 0, service.rt.settings.max_context_chars)
            job = Ingestion(service.rt.store(), tok, batch_size=256, note=lambda m: None, index=service.rt.searcher())
            job.add_and_flush(from_records("train.json+dev.json", records, recipe))
            job.finish()
            print("hybrid index:", service.rt.searcher().description, service.rt.searcher().count(), flush=True)
        else:
            ingest_into(service, records)
        model = service.rt.model()
        max_tokens = service.rt.manifest().sequence["max_answer_tokens"]
        started = time.perf_counter()
        for i, q in enumerate(dev, 1):
            q_ids = model.tokenizer.encode(q["question"]).ids
            gold = Reading.of_stored(service._fetch((q["gold"],), model.tokenizer.fingerprint))
            gold_batch = service._batch(q_ids, gold, model)
            ran = service.rt.inference.run(model, gold_batch)
            found = answers_from_logits(ran.start_logits, ran.end_logits, gold_batch, gold.tokens, 1, max_tokens,
                                        None, texts=gold.texts)
            row = {"id": q["id"], "gold": f1_of(gold.texts[0][found[0].start:found[0].end] if found else "",
                                                 q["answers"])}
            try:
                hits = service.retrieve(q["question"], 5)
            except NotFound:
                rows.append({**row, "empty": True})
                continue
            stored, _, _ = service._read_retrieved(hits, len(q_ids), model)
            scores = np.array([{h.passage_id: h.score for h in hits}[p.id] for p in stored])
            todo = [p for p in stored if p.id not in cache]
            if todo:
                for p, v in zip(todo, encoder.embed([dense_text(p.title, p.text) for p in todo])):
                    cache[p.id] = v
            qv = encoder.embed([q["question"]])[0]
            cos = np.array([float(cache[p.id] @ qv) for p in stored])
            reading = Reading.of_stored(stored)
            batch = service._batch(q_ids, reading, model)
            ran = service.rt.inference.run(model, batch)
            row["gold_in"] = [p.id for p in stored].index(q["gold"]) if q["gold"] in [p.id for p in stored] else -1
            row["f1"] = {}
            for w in BM25:
                for c in COS:
                    found = answers_from_logits(ran.start_logits, ran.end_logits, batch, reading.tokens, 1,
                                                max_tokens, passage_bias(scores, w) + c * cos, texts=reading.texts,
                                                null_weight=NULL_WEIGHT)
                    text = reading.texts[found[0].passage][found[0].start:found[0].end] if found else ""
                    row["f1"][f"{w:g},{c:g}"] = f1_of(text, q["answers"])
            row["cos_rank_of_gold"] = int(np.argsort(-cos).tolist().index(row["gold_in"])) if row["gold_in"] >= 0 \
                else -1
            rows.append(row)
            if i % 100 == 0:
                print(f"{i} of {len(dev)} ({(time.perf_counter() - started) / i:.2f} s each)", flush=True)
    n = len(rows)
    read = [r for r in rows if "f1" in r]
    keys = list(read[0]["f1"])
    out = {"questions": n, "gold": round(sum(r["gold"] for r in rows) / n, 2),
           "f1": {k: round(sum(r["f1"][k] for r in read) / n, 2) for k in keys},
           "odd": {k: round(sum(r["f1"][k] for r in read[1::2]) / len(read[1::2]), 2) for k in keys},
           "even": {k: round(sum(r["f1"][k] for r in read[0::2]) / len(read[0::2]), 2) for k in keys}}
    base = [r["f1"]["8,0"] for r in read]
    out["paired"] = {}
    for k in keys:
        d = np.array([r["f1"][k] for r in read]) - np.array(base)
        d = np.concatenate([d, np.zeros(n - len(read))])
        out["paired"][k] = (round(float(d.mean()), 2), round(float(d.std(ddof=1) / np.sqrt(n)), 2))
    out_file = Path(f"build/s5/cos_study{'-hybrid' if HYBRID else ''}.json")
    out_file.write_text(json.dumps({"summary": out, "rows": rows}, indent=1))
    print(json.dumps(out, indent=1))


main()
