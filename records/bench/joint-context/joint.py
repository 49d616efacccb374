"""Study: read the retrieved passages joined into one context (spans compared inside one softmax) vs as now."""
import json, random, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from bench.in_process import load_squad, open_service, ingest_into
from bench.cascade import f1_of
from function.service.qa_request import QARequest

n = int(sys.argv[1]); out = Path(sys.argv[2])
records, qs = load_squad(Path(sys.argv[3] if len(sys.argv) > 3 else "../shared/data/squad"))
dev = random.Random(0).sample(qs["dev"], n)
tmp = tempfile.mkdtemp()
env = {"QA_STORE": "sqlite", "QA_SQLITE_PATH": f"{tmp}/s.db"}
svc = open_service(env)
ingest_into(svc, records)
texts = {r.id if hasattr(r, "id") else None: r for r in records}
mt = svc.rt.manifest().sequence["max_answer_tokens"]
rows = []
t0 = time.time()
for i, q in enumerate(dev):
    r = svc.answer(QARequest(q["question"], None, None, 1, mt, 5, abstain=False, passages=True)).payload
    ret = r.get("retrieved", [])
    a = r["answers"][0]["text"] if r["answers"] else ""
    row = {"id": q["id"], "alone": f1_of(a, q["answers"]), "a": a,
           "gold_rank": next((k for k, p in enumerate(ret) if p["passage_id"] == q["gold"]), -1)}
    for k in (2, 3, 5):
        ctx = "\n\n".join(p["text"] for p in ret[:k])
        if not ctx:
            row[f"j{k}"] = 0.0; continue
        rr = svc.answer(QARequest(q["question"], ctx, None, 1, mt, None, abstain=False)).payload
        b = rr["answers"][0]["text"] if rr["answers"] else ""
        row[f"j{k}"] = f1_of(b, q["answers"]); row[f"b{k}"] = b
    rows.append(row)
    if i % 50 == 49:
        m = {k: round(100 * sum(x[k] for x in rows) / len(rows), 2) for k in ("alone", "j2", "j3", "j5")}
        print(i + 1, m, round(time.time() - t0), flush=True)
out.write_text(json.dumps(rows))
m = {k: round(100 * sum(x[k] for x in rows) / len(rows), 2) for k in ("alone", "j2", "j3", "j5")}
print("final", m)
