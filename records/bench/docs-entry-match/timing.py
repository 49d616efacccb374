"""What the entry term costs: each dev question of the documentation benchmark asked alone, the term on and off in
turn (ABBA per question, ``rounds`` times) on one warm service per set, hybrid, answer cache off; server time
(``timings_ms.total``) and the reader's decoding (``postprocess``), medians over the questions of each one's median.

    PYTHONPATH=. python records/bench/docs-entry-match/timing.py --rounds 3 --out build/entry-timing.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import bench.docs as bdocs
from function.model import reader
from function.service.pipeline import QAService


def request(service, question: str):
    from function.service.qa_request import QARequest

    s = service.rt.settings
    return QARequest(question, None, None, 1, s.max_answer_tokens, s.top_k_passages)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    bargs = bdocs.parse_args(["--part", "dev"])
    env = {"QA_ARTIFACT_DIR": str(bdocs.default_artifact().resolve()), "QA_STORE": "sqlite", "QA_CACHE": "0",
           "QA_THREADS": "1", **bdocs.run_env(bargs)}
    cosines = QAService._cosines
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for docset, folder, files, _ in bdocs.prepare(bargs, say=lambda m: None):
            name = docset["set"]
            e = {**env, "QA_SQLITE_PATH": f"{tmp}/{name}.sqlite", "QA_INDEX_URI": f"{tmp}/{name}.lance"}
            service = bdocs.open_service(e)
            bdocs.ingest_documents(service, [(rel, folder / rel) for rel in files], folder)
            questions, _ = bdocs.select(docset, "dev", 0)
            for q in questions[:3]:
                bdocs._ask(service, q["question"], None, None)
            for q in questions:
                got: dict[str, dict[str, list[float]]] = {"on": {"total": [], "post": []},
                                                          "off": {"total": [], "post": []}}
                for _ in range(args.rounds):
                    for arm in ("on", "off", "off", "on"):
                        QAService._cosines = cosines if arm == "on" else (lambda self: None)
                        timings = service.answer(request(service, q["question"])).timings_ms
                        got[arm]["total"].append(timings["total"])
                        got[arm]["post"].append(timings["postprocess"])
                QAService._cosines = cosines
                rows.append({"id": q["id"], "name_question": bool(reader.NAME_QUESTION.search(q["question"])),
                             **{f"{k}_{arm}": statistics.median(v) for arm in got for k, v in got[arm].items()}})
            service.rt.store().close()
    named = [r for r in rows if r["name_question"]]
    summary = {"questions": len(rows), "name_questions": len(named)}
    for label, subset in (("all", rows), ("name", named)):
        for k in ("total", "post"):
            on, off = (statistics.median(r[f"{k}_{arm}"] for r in subset) for arm in ("on", "off"))
            summary[f"{label}_{k}_ms_p50"] = {"on": round(on, 2), "off": round(off, 2), "ratio": round(on / off, 3)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
