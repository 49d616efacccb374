"""MkDocs' readthedocs theme read from its markup, against the code before (``RULE-mkdocs-rtd.md``).

Debian python-typer-doc 0.7.0-1 (``apt-get download python-typer-doc=0.7.0-1 && dpkg -x python-typer-doc_*.deb
X``: DIR is ``X/usr/share/doc/python-typer-doc/html``), ingested into one store as ``make run DOCS=`` does, both
ways in one process ("before": ``docpages`` of BEFORE); each question of ``questions-typer.json`` asked alone through
the function's ``QAService`` with hybrid retrieval, never abstaining; figures into ``result-typer.json``.

    python records/bench/docs-sitegen/study-typer.py DIR
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
from function.ingest.extract import extract  # noqa: E402
from function.ingest.sources import list_inputs  # noqa: E402
from function.service.qa_request import QARequest  # noqa: E402
from harness.paths import ENCODER, default_artifact  # noqa: E402

HERE = Path(__file__).resolve().parent
BEFORE = "1227e28"


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


def check(folder: Path, questions: list[dict]) -> None:
    """Every answer form verbatim (white space collapsed) in its file's text, read both ways."""
    def texts() -> dict[str, str]:
        return {q["file"]: " ".join(extract(q["file"], (folder / q["file"]).read_bytes()).text.split())
                for q in questions}
    with before():
        old = texts()
    new = texts()
    for q in questions:
        for form in q["answers"]:
            for name, t in (("before", old), ("after", new)):
                if " ".join(form.split()) not in t[q["file"]]:
                    raise SystemExit(f"{q['id']}: {form!r} is not in {q['file']} read {name}")


def run(folder: Path, questions: list[dict]) -> dict:
    pages = [(str(Path(f.source).relative_to(folder)), Path(f.source)) for f in list_inputs([str(folder)]).files]
    with tempfile.TemporaryDirectory() as tmp:
        service = open_service({"QA_ARTIFACT_DIR": str(default_artifact()), "QA_STORE": "sqlite", "QA_CACHE": "0",
                                "QA_SQLITE_PATH": f"{tmp}/s.sqlite", "QA_INDEX_URI": f"{tmp}/s.lance",
                                "QA_INDEX_ENCODER": str(ENCODER), "QA_THREADS": "1"})
        figures, texts = ingest_documents(service, pages, folder)
        s = service.rt.settings
        rows = []
        for q in questions:
            req = QARequest(q["question"], None, None, 1, s.max_answer_tokens, s.top_k_passages, abstain=False)
            payload = service.answer(req).payload
            text = answer_text(payload)
            em, f1 = score(text, q["answers"])
            top = (payload.get("answers") or [{}])[0]
            rows.append({"question": q["question"], "answer": text, "em": em, "f1": f1, "title": top.get("title")})
        service.rt.store().close()
    n = len(rows)
    return {"documents": len(texts), "passages": figures["passages"],
            "em": round(100 * sum(r["em"] for r in rows) / n, 1), "f1": round(100 * sum(r["f1"] for r in rows) / n, 1),
            "rows": rows}


def main() -> int:
    folder = Path(sys.argv[1])
    questions = json.loads((HERE / "questions-typer.json").read_text(encoding="utf-8"))
    check(folder, questions)
    with before():
        first = run(folder, questions)
    result = {"before": first, "after": run(folder, questions)}
    (HERE / "result-typer.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for name, r in result.items():
        print(f"{name}: {r['documents']} documents, {r['passages']} passages, EM {r['em']}, F1 {r['f1']}")
    for a, b in zip(result["before"]["rows"], result["after"]["rows"]):
        if a["f1"] != b["f1"]:
            print(f"  {a['f1']:.2f} -> {b['f1']:.2f}  {a['question']}  {a['answer']!r} ({a['title']}) -> "
                  f"{b['answer']!r} ({b['title']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
