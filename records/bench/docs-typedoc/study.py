"""TypeDoc's pages read from their markup, against the code before (``RULE.md``).

Two TypeDoc sites built with TypeDoc 0.28.20 and TypeScript 5.9 (``npm install typedoc@0.28.20 typescript@5.9``) from
npm packages' declaration files, into DIR/dsite and DIR/site:

    npm pack date-fns@4.1.0 && tar xzf date-fns-4.1.0.tgz   # in package/: a tsconfig.json including *.d.ts, then
    typedoc --skipErrorChecking --entryPoints index.d.ts --out DIR/dsite
    npm pack p-queue@8.0.1 && tar xzf p-queue-8.0.1.tgz     # in package/: a tsconfig.json including dist/*.d.ts, then
    typedoc --skipErrorChecking --entryPoints dist/index.d.ts --out DIR/site

Both folders ingested into one store as ``make run DOCS=`` does, both ways in one process ("before": ``docpages``'
page rules of the commit before the change, BEFORE); each question of ``questions.json`` asked alone through the
function's ``QAService`` with hybrid retrieval, never abstaining; figures into ``result.json``.

    python records/bench/docs-typedoc/study.py DIR
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import tempfile
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from bench.documents import ingest_documents  # noqa: E402
from bench.in_process import open_service  # noqa: E402
from function.evaluate.scoring import answer_text, score  # noqa: E402
from function.ingest import docpages  # noqa: E402
from function.ingest.sources import list_inputs  # noqa: E402
from function.service.qa_request import QARequest  # noqa: E402
from harness.paths import ENCODER, default_artifact  # noqa: E402

HERE = Path(__file__).resolve().parent
BEFORE = "5a47bae"


@contextlib.contextmanager
def before():
    """docpages' navigation rules as they were."""
    old = types.ModuleType("docpages_before")
    source = subprocess.run(["git", "show", f"{BEFORE}:function/ingest/docpages.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    exec(compile(source, "docpages_before.py", "exec"), old.__dict__)
    names = ("generated", "is_doc_page", "read", "read_root")
    shipped = [getattr(docpages, n) for n in names]
    for n in names:
        setattr(docpages, n, getattr(old, n))
    try:
        yield
    finally:
        for n, f in zip(names, shipped):
            setattr(docpages, n, f)


def run(folder: Path, questions: list[dict]) -> dict:
    pages = [(str(Path(f.source).relative_to(folder)), Path(f.source))
             for site in ("dsite", "site") for f in list_inputs([str(folder / site)]).files]
    with tempfile.TemporaryDirectory() as tmp:
        service = open_service({"QA_ARTIFACT_DIR": str(default_artifact()), "QA_STORE": "sqlite", "QA_CACHE": "0",
                                "QA_SQLITE_PATH": f"{tmp}/s.sqlite", "QA_INDEX_URI": f"{tmp}/s.lance",
                                "QA_INDEX_ENCODER": str(ENCODER), "QA_THREADS": "1"})
        figures, texts = ingest_documents(service, pages, folder)
        s = service.rt.settings
        rows = []
        for q in questions:
            req = QARequest(q["q"], None, None, 1, s.max_answer_tokens, s.top_k_passages, abstain=False)
            payload = service.answer(req).payload
            text = answer_text(payload)
            em, f1 = score(text, q["a"])
            top = (payload.get("answers") or [{}])[0]
            rows.append({"question": q["q"], "answer": text, "em": em, "f1": f1, "title": top.get("title")})
        service.rt.store().close()
    n = len(rows)
    return {"documents": len(texts), "passages": figures["passages"],
            "em": round(100 * sum(r["em"] for r in rows) / n, 1), "f1": round(100 * sum(r["f1"] for r in rows) / n, 1),
            "rows": rows}


def main() -> int:
    folder = Path(sys.argv[1])
    questions = json.loads((HERE / "questions.json").read_text(encoding="utf-8"))
    with before():
        first = run(folder, questions)
    result = {"before": first, "after": run(folder, questions)}
    (HERE / "result.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for name, r in result.items():
        print(f"{name}: {r['documents']} documents, {r['passages']} passages, EM {r['em']}, F1 {r['f1']}")
    for a, b in zip(result["before"]["rows"], result["after"]["rows"]):
        if a["f1"] != b["f1"]:
            print(f"  {a['f1']:.2f} -> {b['f1']:.2f}  {a['question']}  {a['answer']!r} ({a['title']}) -> "
                  f"{b['answer']!r} ({b['title']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
