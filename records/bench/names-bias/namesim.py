"""SQuAD dev asked alone (hybrid, as bench cascade's sweep): the shipped span bias, and with + w x (share of the
question's names, span_bias.question_names, a passage holds in its title or text). python namesim.py OUT.json [N]"""
import sys, os, json, time, tempfile
sys.path.insert(0, "/work/main"); os.chdir("/work/main")
from pathlib import Path
import numpy as np
from bench.cascade import load_squad, sample, f1_of, ingest_into, retrieval_env, open_service, default_artifact
from function.errors import NotFound
from function.model.reader import answers_from_logits
from function.retrieval import span_bias
from function.retrieval.span_bias import NULL_WEIGHT, passage_bias, question_names
from function.service.pipeline import Reading
from harness.paths import ENCODER
WEIGHTS = (1.0, 2.0, 4.0, 8.0, 50.0)
def shares(q, stored):
    names = question_names(q)
    if not names: return None
    out = []
    for p in stored:
        held = f"{p.title or ''} {p.text}".casefold()
        out.append(sum(n.casefold().strip(".:") in held for n in names) / len(names))
    return np.asarray(out)
records, questions = load_squad(Path("/work/shared/data/squad"))
n = int(sys.argv[2]) if len(sys.argv) > 2 else 0
with tempfile.TemporaryDirectory() as tmp:
    env = {"QA_ARTIFACT_DIR": str(default_artifact().resolve()), "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(Path(tmp) / "p.sqlite"),
           "QA_CACHE": "0", "QA_THREADS": "0", "QA_CASCADE": "0"}
    env.update(retrieval_env("hybrid", Path(tmp), ENCODER))
    service = open_service(env)
    print("ingested", ingest_into(service, records), flush=True)
    model = service.rt.model(); max_tokens = service.rt.manifest().sequence["max_answer_tokens"]
    rows = []; t0 = time.time()
    for i, q in enumerate(sample(questions["dev"], n), 1):
        q_ids = model.tokenizer.encode(q["question"]).ids
        try:
            hits, stored, _ = service.read_question(q["question"], 5, len(q_ids), model)
        except NotFound:
            rows.append({"id": q["id"], "empty": True}); continue
        by_id = {h.passage_id: h for h in hits}
        scores = np.array([by_id[p.id].score for p in stored]); cosines = [by_id[p.id].cosine for p in stored]
        reading = Reading.of_stored(stored); batch = service._batch(q_ids, reading, model)
        ran = service.rt.inference.run(model, batch)
        base = passage_bias(scores, cosines=cosines)
        def text(bias):
            found = answers_from_logits(ran.start_logits, ran.end_logits, batch, reading.tokens, 1, max_tokens, bias,
                                        texts=reading.texts, null_weight=NULL_WEIGHT, question=q["question"])
            return reading.texts[found[0].passage][found[0].start:found[0].end] if found else ""
        sh = shares(q["question"], stored)
        row = {"id": q["id"], "named": sh is not None, "gold_in": q["gold"] in [p.id for p in stored],
               "shipped": f1_of(text(base), q["answers"])}
        row["w"] = {w: (row["shipped"] if sh is None else f1_of(text(base + w * sh), q["answers"])) for w in WEIGHTS}
        rows.append(row)
        if i % 100 == 0: print(i, f"{(time.time()-t0)/i:.2f}s", flush=True)
json.dump(rows, open(sys.argv[1], "w"))
ok = [r for r in rows if "shipped" in r]
print("n", len(rows), "named", sum(r["named"] for r in ok))
print("shipped", 100 * sum(r["shipped"] for r in ok) / len(rows))
for w in WEIGHTS:
    d = np.array([r["w"][w] - r["shipped"] for r in ok])
    print(f"w={w}", round(100 * sum(r["w"][w] for r in ok) / len(rows), 2), "paired", round(100*d.sum()/len(rows), 2),
          "+-", round(100 * d.std(ddof=1) * np.sqrt(len(d)) / len(rows), 2), "up", (d > 0).sum(), "down", (d < 0).sum())
