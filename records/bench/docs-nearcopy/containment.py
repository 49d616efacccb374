"""Directional containment among the five passages read: how much of a later passage's word 5-grams lie in one earlier passage."""
import json, sys, tempfile, gzip
from pathlib import Path
sys.path.insert(0, "/work/main")
from bench import docs
from bench.in_process import open_service
d = json.load(open("/work/main/build/docs-collapse/docs.json"))
rows_by = {s["set"]: s["rows"] + s["off_topic_rows"] for s in d["sets"]}
args = docs.parse_args(["--part", "dev"])
out = []
def sh(t):
    w = t.split()
    return {tuple(w[k:k+5]) for k in range(max(0, len(w) - 4))} or {tuple(w)}
for docset, folder, files, texts in docs.prepare(args):
    tmp = Path(tempfile.mkdtemp())
    svc = open_service({"QA_ARTIFACT_DIR": "/work/main/artifact", "QA_STORE": "sqlite", "QA_CACHE": "0", "QA_SQLITE_PATH": str(tmp / "s.sqlite")})
    docs._ingested(svc, docset, folder, files)
    store = svc.rt.store()
    for r in rows_by[docset["set"]]:
        ids = r.get("retrieved") or []
        ps = store.get_many(ids)
        S = [sh(ps[i].text) if i in ps else set() for i in ids]
        for b in range(1, len(S)):
            if not S[b]: continue
            c = max((len(S[b] & S[a]) / len(S[b]) for a in range(b)), default=0)
            if c > 0.3:
                out.append({"set": docset["set"], "q": r.get("id"), "pos": b, "c": round(c, 3), "len": len(S[b])})
    print("DONE", docset["set"], flush=True)
json.dump(out, open("/work/main/build/nearcont.json", "w"))
import collections
for lo in (0.5, 0.6, 0.7, 0.8, 0.9, 0.95):
    print("RESULT >=", lo, sum(o["c"] >= lo for o in out), "passages;", len({o["q"] for o in out if o["c"] >= lo}), "questions")
