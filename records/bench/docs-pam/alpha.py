"""Hybrid retrieval's BM25 share (ALPHA, 0.65 chosen on SQuAD train) on the documentation sets: recall@5 by part.

From the repository root: ``PYTHONPATH=. python records/bench/docs-pam/alpha.py`` (output: ``alpha.txt``)."""
import collections
import tempfile
from pathlib import Path

from bench import docs
from bench.documents import ingest_documents
from bench.in_process import open_service

args = docs.parse_args([])
ALPHAS = [0.35, 0.5, 0.65, 0.8, 0.9]
res = collections.defaultdict(list)
for docset, folder, files, _texts in docs.prepare(args, say=lambda *a: None):
    work = Path(tempfile.mkdtemp())
    env = {**docs.run_env(args), "QA_SQLITE_PATH": str(work / "s.sqlite"), "QA_INDEX_URI": str(work / "x.lance")}
    service = open_service(env)
    ingest_documents(service, [(rel, folder / rel) for rel in files], folder)
    store = service.rt.store()
    service.retrieve("warm up", 5)
    index = service.rt._index  # the HybridIndex the searcher holds: its alpha is read at each fusion
    for a in ALPHAS:
        index.alpha = a
        for q in docset["questions"]:
            ids = [h.passage_id for h in service.retrieve(q["question"], 5)]
            hit = any(p.doc_id == q["file"] and docs.holds(q, p.text) for p in store.get_many(ids).values())
            res[(a, q["part"])].append(hit)
            res[(a, q["part"], docset["set"])].append(hit)
for a in ALPHAS:
    cells = [f"{k[1]}{'/' + k[2] if len(k) > 2 else ''}={sum(v) / len(v):.3f}"
             for k, v in sorted(res.items(), key=lambda x: str(x[0])) if k[0] == a]
    print(a, " ".join(cells))
