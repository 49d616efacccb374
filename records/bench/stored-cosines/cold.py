"""Cold start side by side: a fresh process's first question asked alone (sample corpus, SQLite), BM25 alone
against stored cosines (QA_INDEX_ENCODER without QA_INDEX_URI), alternating; then warm server time per question."""
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = str(Path(__file__).resolve().parents[3])
PY = f"{REPO}/.venv/bin/python"
CHILD = r'''
import json, statistics, sys, time
t0 = time.perf_counter()
from bench.in_process import open_service
from function.service.qa_request import QARequest
s = open_service({"QA_ARTIFACT_DIR": "artifact", "QA_STORE": "sqlite", "QA_SQLITE_PATH": sys.argv[1], "QA_CACHE": "0",
                  **({"QA_INDEX_ENCODER": "encoder"} if sys.argv[2] == "stored" else {})})
r = s.answer(QARequest("Who ruled Normandy in the 10th century?", None, None, 1, 30, 5))
first = (time.perf_counter() - t0) * 1000
warm = []
for q in ["What is the capital of Normandy?", "Who was the duke of Normandy in 1066?",
          "What language did the Normans speak?", "When did the Normans conquer England?",
          "What is Computational complexity theory?", "What is a decision problem?"] * 5:
    warm.append(s.answer(QARequest(q, None, None, 1, 30, 5)).timings_ms["total"])
import resource
print(json.dumps({"first_ms": first, "warm_p50": statistics.median(warm), "answer": r.payload["answers"][:1],
                  "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
'''
dbs = {"bm25": "/tmp/cold-bm25.sqlite", "stored": "/tmp/cold-stored.sqlite"}
for kind, db in dbs.items():
    if os.path.exists(db):
        os.remove(db)
    env = {**os.environ, "QA_ARTIFACT_DIR": "artifact", "QA_SQLITE_PATH": db,
           **({"QA_INDEX_ENCODER": "encoder"} if kind == "stored" else {})}
    subprocess.run([PY, "-m", "function.ingest", "samples", "--quiet"], cwd=REPO, env=env, check=True)
out = {"bm25": [], "stored": []}
for i in range(int(sys.argv[1]) if len(sys.argv) > 1 else 5):
    for kind in (("bm25", "stored") if i % 2 == 0 else ("stored", "bm25")):
        done = subprocess.run([PY, "-c", CHILD, dbs[kind], kind], cwd=REPO, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": REPO})
        found = [row for row in done.stdout.splitlines() if row.startswith('{"first_ms"')]
        if not found:
            sys.exit(done.stderr[-2000:])
        out[kind].append(json.loads(found[0]))
for kind, rows in out.items():
    print(kind, "first answer ms p50", round(statistics.median(r["first_ms"] for r in rows), 1),
          "warm server p50 ms", round(statistics.median(r["warm_p50"] for r in rows), 2),
          "peak RSS MB", round(statistics.median(r["maxrss_mb"] for r in rows), 1), rows[0]["answer"][0]["text"])
os.makedirs(f"{REPO}/build/sc", exist_ok=True)
json.dump(out, open(f"{REPO}/build/sc/cold.json", "w"), indent=1)
