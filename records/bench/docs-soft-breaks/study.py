"""A paragraph's source line breaks read as spaces (HTML through trafilatura), against the code before (``RULE.md``).

The Rust book's chapters 1-9 from Debian's rust-doc 1.63.0+dfsg1-2 (mdBook): ``apt-get download rust-doc``, then
``dpkg --fsys-tarfile rust-doc_*.deb | tar -x -C DIR --wildcards './usr/share/doc/rust-doc/html/book/ch0*'``; its 38
pages ingested both ways in one process ("before": ``extract._xml_text`` never joining a paragraph's lines, as it
did); each question of ``questions.json`` asked alone through the function's ``QAService`` with hybrid retrieval,
never abstaining; figures into ``result.json``.

    python records/bench/docs-soft-breaks/study.py DIR/usr/share/doc/rust-doc/html/book/ch0*.html
"""

from __future__ import annotations

import contextlib
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import function.ingest.extract as extract  # noqa: E402
from bench.documents import ingest_documents  # noqa: E402
from bench.in_process import open_service  # noqa: E402
from function.evaluate.scoring import answer_text, score  # noqa: E402
from function.service.qa_request import QARequest  # noqa: E402
from harness.paths import ENCODER, default_artifact  # noqa: E402

HERE = Path(__file__).resolve().parent


@contextlib.contextmanager
def before():
    """A paragraph's line breaks kept, as they were."""
    shipped = extract._xml_text
    extract._xml_text = lambda el, flow=False: shipped(el, False)
    try:
        yield
    finally:
        extract._xml_text = shipped


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
    return {"pages": len(pages), "passages": figures["passages"], "lines": sum(c.count("\n") + 1 for c in chunks),
            "em": round(100 * sum(r["em"] for r in rows) / n, 1), "f1": round(100 * sum(r["f1"] for r in rows) / n, 1),
            "rows": rows}


def main() -> int:
    pages = sorted(Path(p) for p in sys.argv[1:])
    questions = json.loads((HERE / "questions.json").read_text(encoding="utf-8"))
    with before():
        first = run(pages, questions)
    result = {"before": first, "after": run(pages, questions)}
    (HERE / "result.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for name, r in result.items():
        print(f"{name}: {r['pages']} pages, {r['passages']} passages, {r['lines']} lines, EM {r['em']}, F1 {r['f1']}")
    for a, b in zip(result["before"]["rows"], result["after"]["rows"]):
        if a["f1"] != b["f1"]:
            print(f"  {a['f1']:.2f} -> {b['f1']:.2f}  {a['question']}  {a['answer']!r} -> {b['answer']!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
