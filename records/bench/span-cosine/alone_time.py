"""Server time of a question asked alone, one service per process: BM25 (the store's FTS5) or hybrid (a Lance index
with encoder/'s vectors beside the store, the cosine in span ranking), the cascade as shipped, abstention off.

    PYTHONPATH=. python records/bench/span-cosine/alone_time.py bm25|hybrid [N dev questions, 0: all]

Ingests train.json + dev.json (../shared/data/squad), asks one question to warm, then every question in turn
and prints F1 and the median of each of the reply's ``timings_ms`` (retrieve, inference, total) on stderr.
"""
import statistics
import sys
import tempfile

from bench.cascade import f1_of, sample
from bench.in_process import ingest_into, load_squad, open_service
from function.service.qa_request import QARequest
from harness.paths import ARTIFACT, ENCODER, SQUAD

kind = sys.argv[1]
records, questions = load_squad(SQUAD)
dev = sample(questions["dev"], int(sys.argv[2]) if len(sys.argv) > 2 else 0)
with tempfile.TemporaryDirectory() as tmp:
    env = {"QA_ARTIFACT_DIR": str(ARTIFACT), "QA_STORE": "sqlite", "QA_CACHE": "0", "QA_SQLITE_PATH": f"{tmp}/a.sqlite"}
    if kind == "hybrid":
        env.update({"QA_INDEX_URI": f"{tmp}/a.lance", "QA_INDEX_ENCODER": str(ENCODER)})
    service = open_service(env)
    ingest_into(service, records)
    service.answer(QARequest(dev[0]["question"], None, None, 1, 30, 5, abstain=False))
    times: dict[str, list[float]] = {}
    f1 = []
    for q in dev:
        reply = service.answer(QARequest(q["question"], None, None, 1, 30, 5, abstain=False))
        answers = reply.payload["answers"]
        f1.append(f1_of(answers[0]["text"] if answers else "", q["answers"]))
        for name, ms in reply.timings_ms.items():
            if isinstance(ms, (int, float)):
                times.setdefault(name, []).append(ms)
    print(kind, len(dev), "questions, F1", round(sum(f1) / len(f1), 2), "server ms p50",
          {k: round(statistics.median(times[k]), 1) for k in ("retrieve", "inference", "total")},
          "p95 total", round(sorted(times["total"])[int(0.95 * len(times["total"]))], 1), file=sys.stderr)
