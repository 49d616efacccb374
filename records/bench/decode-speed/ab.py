"""Decoding time of one checkout of the function: 300 SQuAD dev questions asked alone and with their paragraph.

    python records/bench/decode-speed/ab.py CHECKOUT OUT.json [STORE.sqlite]

Runs CHECKOUT's ``QAService`` in this process on the shipped artifact (this checkout's ``artifact/``), the
train + dev paragraphs ingested into an embedded store (made on the first run, reused after), the answer cache
off; every 4th dev question (300), asked alone (BM25, the cascade on, as served) and with its paragraph as
``context``. Writes each reply's first answer, score, abstention and stage times; prints the medians of the
``postprocess`` stage (the decoding: spans, no-answer verdict, sentence ranking, snippet) and of the total.
Two checkouts' files compare answer by answer (``--compare A.json B.json``).
"""

import json
import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[3]
SQUAD = HERE.parent / "shared" / "data" / "squad"


def run(tree: Path, out: Path, store: Path) -> None:
    sys.path.insert(0, str(tree))
    os.chdir(tree)
    from bench.in_process import ingest_into, load_squad, open_service
    from function.http.parse import parse

    env = {"QA_ARTIFACT_DIR": str(HERE / "artifact"), "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(store),
           "QA_CACHE": "0"}
    service = open_service(env)
    records, questions = load_squad(SQUAD)
    store.parent.mkdir(parents=True, exist_ok=True)
    done = Path(f"{store}.done")  # ingested by an earlier run
    if not done.exists():
        ingest_into(service, records)
        done.write_text("1")
    dev = questions["dev"][::4][:300]
    passages = service.rt.store()
    replies: dict[str, list[dict]] = {"alone": [], "context": []}
    for q in dev:
        for kind in replies:
            body = {"question": q["question"]}
            if kind == "context":
                body["context"] = passages.get_many([q["gold"]])[q["gold"]].text
            result = service.answer(parse(json.dumps(body).encode(), service.rt.settings, 30))
            answers = result.payload["answers"]
            replies[kind].append({"answer": answers[0]["text"] if answers else None,
                                  "score": answers[0]["score"] if answers else None,
                                  "abstained": result.payload.get("no_answer", {}).get("abstained"),
                                  "timings_ms": result.timings_ms})
    out.write_text(json.dumps(replies))
    for kind, rows in replies.items():
        post = statistics.median(r["timings_ms"]["postprocess"] for r in rows)
        total = statistics.median(r["timings_ms"]["total"] for r in rows)
        print(f"{kind}: postprocess p50 {post:.2f} ms, total p50 {total:.2f} ms")


def compare(a: Path, b: Path) -> None:
    x, y = json.loads(a.read_text()), json.loads(b.read_text())
    for kind in x:
        differ = sum((p["answer"], p["score"], p["abstained"]) != (q["answer"], q["score"], q["abstained"])
                     for p, q in zip(x[kind], y[kind], strict=True))
        print(f"{kind}: {len(x[kind])} replies, {differ} differ (answer, score or abstention)")


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        compare(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        run(Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve(),
            Path(sys.argv[3] if len(sys.argv) > 3 else "build/decode-speed/store.sqlite").resolve())
