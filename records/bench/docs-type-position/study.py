"""The pdoc and TypeDoc checks asked with and without ``reader.TYPE`` (``RULE.md``, item 3: reported, not decided on).

Each check's pages ingested once as ``make run DOCS=`` does (hybrid retrieval), each question of its questions file
asked alone through ``QAService``, never abstaining, with ``TYPE`` = 0 ("before") and as shipped ("after"), the
answer cache off; figures into ``checks.json``.

    python records/bench/docs-type-position/study.py PDOC_DIR TYPEDOC_DIR

PDOC_DIR: more-itertools 10.5.0's pdoc site (records/bench/docs-pdoc); TYPEDOC_DIR: the folder holding ``dsite`` and
``site`` (records/bench/docs-typedoc).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from bench.documents import ingest_documents  # noqa: E402
from bench.in_process import open_service  # noqa: E402
from function.evaluate.scoring import answer_text, score  # noqa: E402
from function.ingest.sources import list_inputs  # noqa: E402
from function.model import reader  # noqa: E402
from function.service.qa_request import QARequest  # noqa: E402
from harness.paths import ENCODER, default_artifact  # noqa: E402

HERE = Path(__file__).resolve().parent


def check(folder: Path, subfolders: list[str], questions: list[dict]) -> dict:
    pages = [(str(Path(f.source).relative_to(folder)), Path(f.source))
             for sub in subfolders for f in list_inputs([str(folder / sub)]).files]
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        service = open_service({"QA_ARTIFACT_DIR": str(default_artifact()), "QA_STORE": "sqlite", "QA_CACHE": "0",
                                "QA_SQLITE_PATH": f"{tmp}/s.sqlite", "QA_INDEX_URI": f"{tmp}/s.lance",
                                "QA_INDEX_ENCODER": str(ENCODER), "QA_THREADS": "1"})
        ingest_documents(service, pages, folder)
        s = service.rt.settings
        shipped = reader.TYPE
        for name, weight in (("before", 0.0), ("after", shipped)):
            reader.TYPE = weight
            rows = []
            for q in questions:
                req = QARequest(q["q"], None, None, 1, s.max_answer_tokens, s.top_k_passages, abstain=False)
                text = answer_text(service.answer(req).payload)
                em, f1 = score(text, q["a"])
                rows.append({"question": q["q"], "answer": text, "em": em, "f1": f1})
            n = len(rows)
            out[name] = {"em": round(100 * sum(r["em"] for r in rows) / n, 1),
                         "f1": round(100 * sum(r["f1"] for r in rows) / n, 1), "rows": rows}
        reader.TYPE = shipped
        service.rt.store().close()
    return out


def main() -> int:
    pdoc, typedoc = Path(sys.argv[1]), Path(sys.argv[2])
    load = lambda p: json.loads((ROOT / p).read_text(encoding="utf-8"))  # noqa: E731
    result = {"pdoc": check(pdoc, ["."], load("records/bench/docs-pdoc/questions.json")),
              "typedoc": check(typedoc, ["dsite", "site"], load("records/bench/docs-typedoc/questions.json"))}
    (HERE / "checks.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for name, r in result.items():
        print(f"{name}: F1 {r['before']['f1']} -> {r['after']['f1']}, EM {r['before']['em']} -> {r['after']['em']}")
        for a, b in zip(r["before"]["rows"], r["after"]["rows"]):
            if a["answer"] != b["answer"]:
                print(f"  {a['f1']:.2f} -> {b['f1']:.2f}  {a['question']}  {a['answer']!r} -> {b['answer']!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
