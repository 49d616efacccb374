"""Texinfo (makeinfo) pages read from their markup, against trafilatura as before: the Bash Reference Manual.

Debian's ``bash-doc`` 5.2.15-2 (``apt-get download bash-doc && dpkg -x bash-doc_5.2.15-2_all.deb DIR``), its
``usr/share/doc/bash/bashref.html`` (one page, makeinfo 6.8) ingested alone, both ways in one process: "before"
sends Texinfo pages to trafilatura (``docpages.is_doc_page`` patched to refuse them, as it did), "after" is the
code as committed. Each question of ``questions.json`` (written for this check, each answer found verbatim in
both extractions) is asked alone through the function's ``QAService`` with hybrid retrieval, as ``make run
DOCS=...`` serves, never abstaining.

    python records/bench/docs-texinfo/study.py DIR/usr/share/doc/bash/bashref.html
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from bench.documents import ingest_documents  # noqa: E402
from bench.in_process import open_service  # noqa: E402
from function.evaluate.scoring import answer_text, score  # noqa: E402
from function.ingest import docpages  # noqa: E402
from function.service.qa_request import QARequest  # noqa: E402
from harness.paths import ENCODER, default_artifact  # noqa: E402

HERE = Path(__file__).resolve().parent


def run(page: Path, questions: list[dict], before: bool) -> dict:
    shipped = docpages.is_doc_page
    if before:
        docpages.is_doc_page = lambda root: not docpages._TEXINFO.search(docpages._generator(root)) and shipped(root)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            service = open_service({"QA_ARTIFACT_DIR": str(default_artifact()), "QA_STORE": "sqlite", "QA_CACHE": "0",
                                    "QA_SQLITE_PATH": f"{tmp}/s.sqlite", "QA_INDEX_URI": f"{tmp}/s.lance",
                                    "QA_INDEX_ENCODER": str(ENCODER), "QA_THREADS": "1"})
            figures, texts = ingest_documents(service, [(page.name, page)], page.parent)
            chunks = texts[page.name]
            s = service.rt.settings
            rows = []
            for q in questions:
                req = QARequest(q["q"], None, None, 1, s.max_answer_tokens, s.top_k_passages, abstain=False)
                payload = service.answer(req).payload
                text = answer_text(payload)
                em, f1 = score(text, q["a"])
                rows.append({"question": q["q"], "answer": text, "em": em, "f1": f1,
                             "title": (payload.get("answers") or [{}])[0].get("title")})
            service.rt.store().close()
    finally:
        docpages.is_doc_page = shipped
    n = len(rows)
    return {"passages": figures["passages"],
            "passages_with_a_navigation_line": sum("Previous:" in c or "Up:" in c for c in chunks),
            "em": round(100 * sum(r["em"] for r in rows) / n, 1), "f1": round(100 * sum(r["f1"] for r in rows) / n, 1),
            "rows": rows}


def main() -> int:
    page = Path(sys.argv[1])
    questions = json.loads((HERE / "questions.json").read_text(encoding="utf-8"))
    result = {"before": run(page, questions, True), "after": run(page, questions, False)}
    (HERE / "result.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for name, r in result.items():
        print(f"{name}: {r['passages']} passages ({r['passages_with_a_navigation_line']} with a navigation line), "
              f"EM {r['em']}, F1 {r['f1']}")
    for a, b in zip(result["before"]["rows"], result["after"]["rows"]):
        if a["f1"] != b["f1"]:
            print(f"  {a['f1']:.2f} -> {b['f1']:.2f}  {a['question']}  {a['answer']!r} -> {b['answer']!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
