"""pdoc's pages read from their markup, against trafilatura as before (``RULE.md``).

more-itertools 10.5.0's pdoc site (pdoc 16.0.0: ``pip install pdoc more-itertools==10.5.0 && pdoc more_itertools -o
DIR``), its three pages (``more_itertools.html``, ``more_itertools/more.html``, ``more_itertools/recipes.html``), are
ingested both ways in one process: "before" sends pdoc's pages to trafilatura (``docpages.is_doc_page`` patched to
refuse them, as it did), "after" is the code as committed. Each question of ``questions.json`` (written for the check,
each answer found verbatim in both extractions) is asked alone through the function's ``QAService`` with hybrid
retrieval, as ``make run DOCS=...`` serves, never abstaining; figures into ``result.json``.

    python records/bench/docs-pdoc/study.py DIR/more_itertools.html DIR/more_itertools/more.html \\
        DIR/more_itertools/recipes.html
    pip install pdoc3==0.11.6 && pdoc --html -o DIR3 more_itertools    # (in another environment: both are "pdoc")
    python records/bench/docs-pdoc/study.py --pdoc3 DIR3/more_itertools/{index,more,recipes}.html
"""

from __future__ import annotations

import contextlib
import json
import re
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
NOISE = ("View Source", '1"""', "Expand source code")  # what the view-source listings leave in a passage read as text


@contextlib.contextmanager
def before():
    shipped = docpages.is_doc_page
    docpages.is_doc_page = lambda root: not re.search(r"\bpdoc3?\b", docpages._generator(root), re.I) and shipped(root)
    try:
        yield
    finally:
        docpages.is_doc_page = shipped


def run(pages: list[Path], questions: list[dict]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        service = open_service({"QA_ARTIFACT_DIR": str(default_artifact()), "QA_STORE": "sqlite", "QA_CACHE": "0",
                                "QA_SQLITE_PATH": f"{tmp}/s.sqlite", "QA_INDEX_URI": f"{tmp}/s.lance",
                                "QA_INDEX_ENCODER": str(ENCODER), "QA_THREADS": "1"})
        figures, texts = ingest_documents(service, [(p.name, p) for p in pages], pages[0].parent)
        chunks = [c for doc in texts.values() for c in doc]
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
    n = len(rows)
    return {"pages": len(pages), "passages": figures["passages"],
            "passages_with_listings": sum(any(x in c for x in NOISE) for c in chunks),
            "em": round(100 * sum(r["em"] for r in rows) / n, 1), "f1": round(100 * sum(r["f1"] for r in rows) / n, 1),
            "rows": rows}


def main() -> int:
    pdoc3 = sys.argv[1] == "--pdoc3"  # the pdoc3 site (RULE-pdoc3.md): figures into result-pdoc3.json
    pages = [Path(p) for p in sys.argv[1 + pdoc3:]]
    questions = json.loads((HERE / "questions.json").read_text(encoding="utf-8"))
    with before():
        first = run(pages, questions)
    result = {"before": first, "after": run(pages, questions)}
    (HERE / ("result-pdoc3.json" if pdoc3 else "result.json")).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for name, r in result.items():
        print(f"{name}: {r['pages']} pages, {r['passages']} passages ({r['passages_with_listings']} with a source "
              f"listing), EM {r['em']}, F1 {r['f1']}")
    for a, b in zip(result["before"]["rows"], result["after"]["rows"]):
        if a["f1"] != b["f1"]:
            print(f"  {a['f1']:.2f} -> {b['f1']:.2f}  {a['question']}  {a['answer']!r} -> {b['answer']!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
