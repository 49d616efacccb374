"""Study: answer aggregation. The shipped ranking picks the best span; here the top N spans (softmax over every
span read, shipped bias) are grouped by their SQuAD-normalised text and the group with the most probability wins
(its best span answers). SQuAD dev asked alone, BM25 top 5 over train + dev paragraphs, abstention off.
python records/bench/span-aggregate/study.py [N_QUESTIONS] [hybrid] [ARTIFACT]   (writes build/agg/rows-*.json)
python records/bench/span-aggregate/study.py score build/agg/rows-artifact.json"""
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from bench.cascade import f1_of, sample
from bench.in_process import ingest_into, load_squad, open_service
from harness.paths import ARTIFACT, REPO, SQUAD

n_questions = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1] != "score" else 0
HYBRID = len(sys.argv) > 2 and sys.argv[2] == "hybrid"
ART = Path(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[1] != "score" else ARTIFACT
TOPS = (1, 5, 10, 20, 40)


def norm(s):
    import re
    import string
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def main():
    from function.errors import NotFound
    from function.model.reader import answers_from_logits
    from function.retrieval.span_bias import NULL_WEIGHT
    from function.service.pipeline import Reading

    records, questions = load_squad(SQUAD)
    dev = sample(questions["dev"], n_questions)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {"QA_ARTIFACT_DIR": str(ART), "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(Path(tmp) / "p.sqlite"),
               "QA_CACHE": "0", "QA_CASCADE": "0", "QA_THREADS": "1"}
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
        else:
            ingest_into(service, records)
        model = service.rt.model()
        max_tokens = service.rt.manifest().sequence["max_answer_tokens"]
        started = time.perf_counter()
        for i, q in enumerate(dev, 1):
            q_ids = model.tokenizer.encode(q["question"]).ids
            row = {"id": q["id"]}
            try:
                hits = service.retrieve(q["question"], 5)
            except NotFound:
                rows.append({**row, "empty": True})
                continue
            stored, _, bias = service._read_retrieved(hits, len(q_ids), model)
            reading = Reading.of_stored(stored)
            batch = service._batch(q_ids, reading, model)
            ran = service.rt.inference.run(model, batch)
            found = answers_from_logits(ran.start_logits, ran.end_logits, batch, reading.tokens, max(TOPS), max_tokens,
                                        bias, texts=reading.texts, null_weight=NULL_WEIGHT)
            cands = [(reading.texts[a.passage][a.start:a.end], a.passage, a.score) for a in found]
            row["cands"] = [[t, p, round(s, 6)] for t, p, s in cands]
            row["answers"] = q["answers"]
            rows.append(row)
            if i % 100 == 0:
                print(f"{i} of {len(dev)} ({(time.perf_counter() - started) / i:.2f} s each)", flush=True)
    out = Path(f"build/agg/rows{'-hybrid' if HYBRID else ''}-{ART.name}.json")
    out.write_text(json.dumps(rows))
    print("wrote", out)


def pick(cands, n, mode):
    if not cands:
        return ""
    if n == 1:
        return cands[0][0]
    groups = defaultdict(float)
    per = defaultdict(lambda: defaultdict(float))
    first = {}
    for t, p, s in cands[:n]:
        k = norm(t)
        first.setdefault(k, t)
        if mode == "sum":
            groups[k] += s
        elif mode == "passage-max":
            per[k][p] = max(per[k][p], s)
    if mode == "passage-max":
        groups = {k: sum(v.values()) for k, v in per.items()}
    best = max(groups, key=lambda k: (groups[k], -list(first).index(k)))
    return first[best]


def score(path):
    rows = json.load(open(path))
    n = len(rows)
    res = {}
    base = None
    for mode in ("sum", "passage-max"):
        for top in TOPS:
            f = np.array([f1_of(pick(r["cands"], top, mode), r["answers"]) if "cands" in r else 0.0
                          for r in rows])
            if base is None:
                base = f
            d = f - base
            res[f"{mode}@{top}"] = dict(f1=round(f.mean(), 2), odd=round(f[1::2].mean(), 2),
                                        even=round(f[0::2].mean(), 2),
                                        paired=(round(d.mean(), 2), round(d.std(ddof=1) / np.sqrt(n), 2)))
    for k, v in res.items():
        print(k, v)


if __name__ == "__main__":
    if sys.argv[1] == "score":
        score(sys.argv[2])
    else:
        main()
