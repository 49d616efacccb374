"""scatter_study.py: in one store of every set (hybrid), how many manuals (a document id's first path part) the
five passages a question reads come from, answerable against off-topic questions; retrieval only."""
import argparse, json, sys, tempfile, collections
from pathlib import Path
sys.path.insert(0, "/work/main")
from bench import docs
from bench.in_process import open_service

p = argparse.ArgumentParser(); p.add_argument("--part", default="dev"); p.add_argument("--out", type=Path, required=True)
a = p.parse_args()
ns = argparse.Namespace(sets_dir=docs.SETS, sets=None, cache=Path("/work/cache/docs-bench"), show=None)
prepared = docs.prepare(ns)
rows = []
with tempfile.TemporaryDirectory() as tmp:
    env = {"QA_ARTIFACT_DIR": "/work/main/artifact", "QA_STORE": "sqlite", "QA_CACHE": "0",
           "QA_INDEX_ENCODER": "/work/main/encoder", "QA_SQLITE_PATH": f"{tmp}/p.sqlite", "QA_INDEX_URI": f"{tmp}/p.lance"}
    service = open_service(env)
    for docset, folder, files, _ in prepared:
        docs._ingested(service, docset, folder, files)
    store = service.rt.store()
    for docset, *_ in prepared:
        qs, off = docs.select(docset, a.part, 0)
        for kind, group in (("answerable", qs), ("off", off)):
            for q in group:
                try:
                    hits = service.hits_to_read(q["question"], 5)
                except Exception as e:  # nothing matched
                    continue
                got = store.get_many([h.passage_id for h in hits])
                seen, top = set(), []
                for h in hits:
                    t = got[h.passage_id].text
                    if t in seen: continue
                    seen.add(t); top.append(h)
                top = top[:5]
                manuals = [got[h.passage_id].doc_id.split("/")[0] for h in top]
                rows.append({"set": docset["set"], "id": q["id"], "kind": "answered_in" if q.get("answered_in") else kind,
                             "manuals": manuals, "cosines": [h.cosine for h in top]})
a.out.write_text(json.dumps(rows))
for kind in ("answerable", "off", "answered_in"):
    rs = [r for r in rows if r["kind"] == kind]
    if not rs: continue
    c = collections.Counter(len(set(r["manuals"])) for r in rs)
    first = collections.Counter(sum(m == r["manuals"][0] for m in r["manuals"]) for r in rs)
    print(kind, len(rs), "distinct manuals in the five:", sorted(c.items()), "| passages of the first's manual:", sorted(first.items()))
