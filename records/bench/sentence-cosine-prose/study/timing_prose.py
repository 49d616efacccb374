"""Server time of SQuAD dev questions asked alone (hybrid, the cascade on, as shipped), the sentence-cosine ranking
switched off (SENTENCE_COSINE 0) and on (2) in turn over the same questions in one process, the order alternating."""
import json, sys, tempfile, statistics
from pathlib import Path
sys.path.insert(0, "/work/main")
from bench.cascade import sample, f1_of
from bench.in_process import ingest_into, load_squad, open_service, retrieval_env
from function.model import reader
from function.service.qa_request import QARequest

N = int(sys.argv[1]) if len(sys.argv) > 1 else 300
records, questions = load_squad(Path("/work/shared/data/squad"))
with tempfile.TemporaryDirectory() as tmp:
    env = {"QA_ARTIFACT_DIR": "/work/main/artifact", "QA_STORE": "sqlite", "QA_SQLITE_PATH": f"{tmp}/p.sqlite",
           "QA_CACHE": "0", "QA_THREADS": "0"}
    env.update(retrieval_env("hybrid", Path(tmp), Path("/work/main/encoder")))
    service = open_service(env)
    ingest_into(service, records)
    mt = service.rt.manifest().sequence["max_answer_tokens"]
    dev = sample(questions["dev"], N)
    got = {0.0: {"ms": [], "sent": [], "f1": []}, 2.0: {"ms": [], "sent": [], "f1": []}}
    for q in dev[:5]:
        service.answer(QARequest(q["question"], None, None, 1, mt, 5, abstain=False))
    for i, q in enumerate(dev):
        for w in ((0.0, 2.0) if i % 2 == 0 else (2.0, 0.0)):
            reader.SENTENCE_COSINE = w
            r = service.answer(QARequest(q["question"], None, None, 1, mt, 5, abstain=False))
            a = r.payload["answers"]
            got[w]["ms"].append(r.timings_ms["total"]); got[w]["sent"].append(r.timings_ms.get("sentences", 0.0))
            got[w]["f1"].append(f1_of(a[0]["text"] if a else "", q["answers"]))
    out = {}
    for w, g in got.items():
        ms = sorted(g["ms"])
        out[str(w)] = {"questions": len(ms), "p50": round(statistics.median(ms), 2),
                       "p90": round(ms[int(0.9 * len(ms))], 2), "mean": round(statistics.mean(ms), 2),
                       "sentences_ms_mean": round(statistics.mean(g["sent"]), 2),
                       "embedded_share": round(sum(s > 0 for s in g["sent"]) / len(ms), 3),
                       "f1": round(statistics.mean(g["f1"]), 2)}
    print(json.dumps(out, indent=1))
    Path("/work/runs/timing-prose.json").write_text(json.dumps(out, indent=1))
