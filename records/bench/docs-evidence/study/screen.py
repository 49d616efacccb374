"""screen.py [SETS_DIR]: per answerable question, the passages of its file that hold a gold form (and evidence),
as ingestion splits them; prints questions with more than one such passage, with each passage's opening and the
answer's surroundings. Writes /work/ev/screen-<dir>.json."""
import json, os, re, sys
from pathlib import Path
sys.path.insert(0, os.getcwd())
import bench.docs as docs
from bench.docs_fetch import corpus
from function.model.artifact import load_manifest
from function.ingest.documents import Recipe, from_file
from function.ingest.sources import InputFile
from function.ingest.split import budget_from_manifest
from function.model.tokenizer import QATokenizer

sets_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else docs.SETS
cache = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("/work/cache/docs-bench")
art = Path("artifact").resolve()
man = load_manifest(art)
from bench.in_process import open_service
import tempfile
svc = open_service({"QA_ARTIFACT_DIR": str(art), "QA_STORE": "sqlite", "QA_SQLITE_PATH": tempfile.mkdtemp() + "/x.sqlite"})
tok = svc.rt.model().tokenizer
mx, ov = budget_from_manifest(svc.rt.manifest())
recipe = Recipe(tok.fingerprint, mx, ov, svc.rt.settings.max_context_chars)
out = {}
for ds in docs.load_sets(sets_dir):
    folder, files = corpus(ds, cache, lambda *a: None)
    need = {q["file"] for q in ds["questions"]}
    texts = {}
    for rel in need:
        p = folder / rel
        for u in from_file(InputFile(str(p), rel, str(folder) + "/"), p.read_bytes(), tok, recipe):
            if hasattr(u, "pieces"):
                texts[u.doc_id] = [x.text for x in u.pieces]
    for q in ds["questions"]:
        ps = texts.get(q["file"], [])
        hold = [i for i, t in enumerate(ps) if docs.holds(q, t)]
        out[f"{ds['set']}/{q['id']}"] = {"part": q["part"], "kind": q["kind"], "question": q["question"],
                                         "answers": q["answers"], "evidence": q.get("evidence"), "holding": hold,
                                         "texts": [ps[i] for i in hold]}
json.dump(out, open(f"/work/ev/screen-{sets_dir.name}.json", "w"))
multi = {k: v for k, v in out.items() if len(v["holding"]) > 1}
print(len(out), "questions;", len(multi), "with more than one holding passage;",
      sum(1 for v in out.values() if not v["holding"]), "with none")
