"""A generator's pages read from their markup, against trafilatura as before (Texinfo; ``--doxygen``, ``--rustdoc``).

Texinfo: Debian's ``bash-doc`` 5.2.15-2 (``apt-get download bash-doc && dpkg -x bash-doc_5.2.15-2_all.deb DIR``),
its ``usr/share/doc/bash/bashref.html`` (one page, makeinfo 6.8). Doxygen: ``libjsoncpp-doc`` 1.9.5-4, every page of
``usr/share/doc/libjsoncpp-doc/`` (Doxygen 1.9.1; ``../docs-doxygen/doxygen.patch`` applied). rustdoc: ``rust-doc``
1.63.0+dfsg1-2, four pages of its ``html/std/`` (``Vec``, ``String``, ``HashMap``, ``Option``). Ingested both ways
in one process: "before" sends the generator's pages to trafilatura (``docpages.is_doc_page`` patched to refuse
them, as it did, so its furniture is kept too; Doxygen's permalink mark "◆" too), "after" is the code as committed.
Each question of the record's ``questions.json`` (written for the check, each answer found verbatim in both
extractions) is asked alone through the function's ``QAService`` with hybrid retrieval, as ``make run DOCS=...``
serves, never abstaining; figures into the record's ``result.json``.

    python records/bench/docs-texinfo/study.py DIR/usr/share/doc/bash/bashref.html
    python records/bench/docs-texinfo/study.py --doxygen DIR/usr/share/doc/libjsoncpp-doc/*.html
    python records/bench/docs-texinfo/study.py --rustdoc DIR/usr/share/doc/rust-doc/html/std/{vec/struct.Vec.html,\
string/struct.String.html,collections/hash_map/struct.HashMap.html,option/enum.Option.html}
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
from function.ingest import extract as extract_module  # noqa: E402
from function.service.qa_request import QARequest  # noqa: E402
from harness.paths import ENCODER, default_artifact  # noqa: E402

HERE = Path(__file__).resolve().parent


class Before:
    """The extraction as it was for ``generator``'s pages, inside ``with Before(generator):``."""

    def __init__(self, generator: str):
        self.generator = generator

    def __enter__(self):
        self.shipped, self.marks = docpages.is_doc_page, extract_module._PERMALINK_TEXTS
        made_by = re.compile(self.generator if self.generator != "texinfo" else docpages._TEXINFO_NAMES, re.I)
        docpages.is_doc_page = lambda root: not made_by.search(docpages._generator(root)) and self.shipped(root)
        if self.generator == "doxygen":
            extract_module._PERMALINK_TEXTS = self.marks - {"\u25c6"}

    def __exit__(self, *exc):
        docpages.is_doc_page, extract_module._PERMALINK_TEXTS = self.shipped, self.marks


def readable(pages: list[Path], generator: str) -> list[Path]:
    """The pages with text both ways (a Doxygen directory page holds only a graph: "no text found")."""
    def ok(page: Path) -> bool:
        try:
            extract_module.extract(page.name, page.read_bytes())
            return True
        except extract_module.ExtractError:
            return False
    with Before(generator):
        before = {p for p in pages if ok(p)}
    return [p for p in pages if p in before and ok(p)]


# what the generator's furniture leaves in a passage when it is read as text
NOISE = {"texinfo": ("Previous:", "Up:"), "doxygen": ("More...", "Definition at line", "Referenced by", "\u25c6"),
         "rustdoc": ("Notable traits", "Expand description", "\u24d8")}


def run(pages: list[Path], questions: list[dict], before: bool, generator: str = "texinfo") -> dict:
    with Before(generator) if before else contextlib.nullcontext():
        return _run(pages, questions, NOISE[generator])


def _run(pages: list[Path], questions: list[dict], noise: tuple[str, ...]) -> dict:
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
            "passages_with_furniture": sum(any(n in c for n in noise) for c in chunks),
            "em": round(100 * sum(r["em"] for r in rows) / n, 1), "f1": round(100 * sum(r["f1"] for r in rows) / n, 1),
            "rows": rows}


def main() -> int:
    generator = sys.argv[1][2:] if sys.argv[1] in ("--doxygen", "--rustdoc") else "texinfo"
    pages = readable([Path(p) for p in sys.argv[1 + (generator != "texinfo"):]], generator)
    record = HERE.parent / f"docs-{generator}"
    questions = json.loads((record / "questions.json").read_text(encoding="utf-8"))
    result = {"before": run(pages, questions, True, generator), "after": run(pages, questions, False, generator)}
    (record / "result.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for name, r in result.items():
        print(f"{name}: {r['pages']} pages, {r['passages']} passages ({r['passages_with_furniture']} with the "
              f"generator's furniture), EM {r['em']}, F1 {r['f1']}")
    for a, b in zip(result["before"]["rows"], result["after"]["rows"]):
        if a["f1"] != b["f1"]:
            print(f"  {a['f1']:.2f} -> {b['f1']:.2f}  {a['question']}  {a['answer']!r} -> {b['answer']!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
