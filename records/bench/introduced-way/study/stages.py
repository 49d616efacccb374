"""Per-stage server time of documentation questions asked alone, in one quiet process.

python /work/ev/stages.py OUT.json [SET ...]   (run from a clone's root)"""
import json, sys, statistics, time
from pathlib import Path
import bench.docs as d

rec = []
orig = d._ask
def _ask(service, question, ids, abstain):
    from function.service.qa_request import QARequest
    s = service.rt.settings
    req = QARequest(question, None, ids, 1, s.max_answer_tokens, None if ids else s.top_k_passages, abstain=abstain)
    t0 = time.perf_counter()
    result = service.answer(req)
    wall = (time.perf_counter() - t0) * 1000
    if ids is None:
        rec.append({"q": question, "wall": wall, "read": result.passages_read, **result.timings_ms})
    return result.payload, result.timings_ms.get("total", 0.0), result.passages_read
d._ask = _ask
out = sys.argv[1]
sets = sys.argv[2:] or None
d.main(["--part", "dev", "--cache", "/work/cache/docs-bench", "--out", "/tmp/stages-bench"] + (["--sets"] + sets if sets else []))
Path(out).write_text(json.dumps(rec))
keys = sorted({k for r in rec for k in r if isinstance(r[k], (int, float)) and k not in ("read",)})
print(len(rec), "asked alone")
for k in keys:
    v = [r.get(k, 0.0) for r in rec]
    print(f"{k:14s} median {statistics.median(v):7.2f}  mean {statistics.mean(v):7.2f}")
print("read", statistics.mean(r["read"] or 0 for r in rec))
