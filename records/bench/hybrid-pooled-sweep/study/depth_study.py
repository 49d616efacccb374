"""depth_study.py [--pooled] [--sets-dir DIR] [--part dev]: recall@5 of hybrid retrieval's fusion for several depths
(passages taken from each ranking), over the documentation benchmark's questions, retrieval only (no reader)."""
import argparse, json, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, "/work/main")
from bench import docs
from bench.in_process import open_service
from function.retrieval.hybrid import Rankings
from function.retrieval.terms import query_terms

DEPTHS = (10, 20, 30, 50, 100)
p = argparse.ArgumentParser()
p.add_argument("--pooled", action="store_true"); p.add_argument("--sets-dir", type=Path, default=docs.SETS)
p.add_argument("--part", default="dev"); p.add_argument("--out", type=Path, required=True)
p.add_argument("--sets", nargs="*")
a = p.parse_args()
ns = argparse.Namespace(sets_dir=a.sets_dir, sets=a.sets or None, cache=Path("/work/cache/docs-bench"), show=None)
prepared = docs.prepare(ns)
out = {"depths": DEPTHS, "rows": []}

def study(service, passages, docset):
    searcher = service.rt.searcher()
    store = service.rt.store()
    qs, _ = docs.select(docset, a.part, 0)
    for q in qs:
        terms = query_terms(q["question"])
        if not terms:
            continue
        r = searcher.rankings(q["question"], terms, max(DEPTHS))
        row = {"set": docset["set"], "id": q["id"]}
        for d in DEPTHS:
            hits = searcher.fuse(terms, Rankings(r.bm25[:d], r.dense[:d]), 8)
            got = store.get_many([h.passage_id for h in hits])
            seen, top = set(), []
            for h in hits:  # copies of a better-ranked text skipped, as the function reads
                t = got[h.passage_id].text
                if t in seen:
                    continue
                seen.add(t); top.append(h.passage_id)
            top = top[:5]
            row[f"d{d}"] = any(got[pid].doc_id == q["file"] and docs.holds(q, got[pid].text) for pid in top)
        bm = [h.passage_id for h in r.bm25[:5]]; de = [h.passage_id for h in r.dense[:5]]
        g = store.get_many(list(dict.fromkeys(bm + de)))
        row["bm25@5"] = any(g[x].doc_id == q["file"] and docs.holds(q, g[x].text) for x in bm)
        row["dense@5"] = any(g[x].doc_id == q["file"] and docs.holds(q, g[x].text) for x in de)
        out["rows"].append(row)

with tempfile.TemporaryDirectory() as tmp:
    env = {"QA_ARTIFACT_DIR": "/work/main/artifact", "QA_STORE": "sqlite", "QA_CACHE": "0",
           "QA_INDEX_ENCODER": "/work/main/encoder"}
    if a.pooled:
        service = open_service({**env, "QA_SQLITE_PATH": f"{tmp}/p.sqlite", "QA_INDEX_URI": f"{tmp}/p.lance"})
        passages = {}
        for docset, folder, files, _ in prepared:
            passages.update(docs._ingested(service, docset, folder, files)[1])
        for docset, *_ in prepared:
            study(service, passages, docset)
    else:
        for docset, folder, files, _ in prepared:
            s = docset["set"]
            service = open_service({**env, "QA_SQLITE_PATH": f"{tmp}/{s}.sqlite", "QA_INDEX_URI": f"{tmp}/{s}.lance"})
            passages = docs._ingested(service, docset, folder, files)[1]
            study(service, passages, docset)
            service.rt.store().close()
rows = out["rows"]
a.out.write_text(json.dumps(out, indent=0))
keys = [f"d{d}" for d in DEPTHS] + ["bm25@5", "dense@5"]
print("all", len(rows), " ".join(f"{k}:{sum(r[k] for r in rows)/len(rows):.3f}" for k in keys))
for s in dict.fromkeys(r["set"] for r in rows):
    rs = [r for r in rows if r["set"] == s]
    print(s, len(rs), " ".join(f"{k}:{sum(r[k] for r in rs)/len(rs):.3f}" for k in keys))
