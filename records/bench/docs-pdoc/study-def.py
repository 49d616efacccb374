"""pdoc's and pdoc3's signatures without Python's "def" keyword, against them with it (``RULE-def.md``).

Each site's pages ingested both ways in one process ("before": ``docpages._drop_def_keywords`` patched to do nothing),
its questions asked alone through the function's ``QAService`` with hybrid retrieval, never abstaining.

    python records/bench/docs-pdoc/study-def.py --site pdoc questions.json DIR/more_itertools.html \\
        DIR/more_itertools/more.html DIR/more_itertools/recipes.html
    python records/bench/docs-pdoc/study-def.py --site pdoc3 questions.json \\
        DIR3/more_itertools/{index,more,recipes}.html
    python records/bench/docs-pdoc/study-def.py --site boltons questions-boltons.json DIRB/boltons/*.html
"""

from __future__ import annotations

import contextlib
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
NOISE = ("View Source", '1"""', "Expand source code")  # what the view-source listings leave in a passage read as text


@contextlib.contextmanager
def before():
    """The signatures as they were, "def" kept."""
    shipped = docpages._drop_def_keywords
    docpages._drop_def_keywords = lambda root: None
    try:
        yield
    finally:
        docpages._drop_def_keywords = shipped


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
    """--site NAME QUESTIONS PAGE...: one site; figures into result-def-NAME.json."""
    name, qfile, pages = sys.argv[2], sys.argv[3], [Path(p) for p in sys.argv[4:]]
    questions = json.loads((HERE / qfile).read_text(encoding="utf-8"))
    with before():
        first = run(pages, questions)
    result = {"before": first, "after": run(pages, questions)}
    (HERE / f"result-def-{name}.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n",
                                                  encoding="utf-8")
    for label, r in result.items():
        print(f"{name} {label}: {r['pages']} pages, {r['passages']} passages, EM {r['em']}, F1 {r['f1']}")
    for a, b in zip(result["before"]["rows"], result["after"]["rows"]):
        if a["f1"] != b["f1"]:
            print(f"  {a['f1']:.2f} -> {b['f1']:.2f}  {a['question']}  {a['answer']!r} -> {b['answer']!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
