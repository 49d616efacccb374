"""eval_squad.py WEIGHTS CKPT N CASCADE: SQuAD dev questions asked alone (hybrid, as `bench cascade --hybrid`, the
store holding train and dev paragraphs), each answered by the service (CASCADE 1: on, 0: all five read) with its model
run captured; then the re-ranker's logits added to the first stage's bias as w x (r - max r), decoded through the
function's own code. Writes /work/ce/eval-squad-CASCADE.json."""
import dataclasses
import json
import random
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, "/work/main")
sys.path.insert(0, "/work/ce")
from eval_docs import load_model, logits  # noqa: E402

from bench.cascade import f1_of  # noqa: E402
from bench.in_process import ingest_into, load_squad, open_service, retrieval_env  # noqa: E402
from function.evaluate.scoring import answer_text  # noqa: E402
from function.service import pipeline  # noqa: E402
from function.service.qa_request import QARequest  # noqa: E402
from harness.paths import ENCODER, SQUAD  # noqa: E402

CAP, LAST = {}, {}
orig_run, orig_payload = pipeline.QAService._run, pipeline.QAService._payload


def run(self, req, model, reading, batch):
    out = orig_run(self, req, model, reading, batch)
    LAST["stopped"] = len(out[0]) < len(batch)
    return out


def payload(req, model, reading, batch, start, end):
    CAP["last"] = {"req": req, "reading": reading, "batch": batch, "start": start, "end": end,
                   "stopped": LAST.get("stopped"), "model": model}
    return orig_payload(req, model, reading, batch, start, end)


pipeline.QAService._run = run
pipeline.QAService._payload = staticmethod(payload)


def main():
    weights = [float(w) for w in sys.argv[1].split(",")]
    ckpt, n, cascade = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    torch.set_num_threads(2)
    records, questions = load_squad(SQUAD)
    dev = questions["dev"]
    if n:
        dev = random.Random(0).sample(dev, n)
    tok, model = load_model(ckpt)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {"QA_ARTIFACT_DIR": "/work/main/artifact", "QA_STORE": "sqlite", "QA_SQLITE_PATH": f"{tmp}/p.sqlite",
               "QA_CACHE": "0", **retrieval_env("hybrid", Path(tmp), ENCODER), "QA_CASCADE": cascade}
        service = open_service(env)
        print("ingested in", round(ingest_into(service, records), 1), "s", flush=True)
        max_tokens = service.rt.manifest().sequence["max_answer_tokens"]
        for i, q in enumerate(dev):
            CAP.clear()
            result = service.answer(QARequest(q["question"], None, None, 1, max_tokens, 5, abstain=False))
            answers = result.payload["answers"]
            base = f1_of(answers[0]["text"] if answers else "", q["answers"])
            row = {"id": q["id"], "f1": {str(w): base for w in weights}, "moved": False}
            row["f1"]["alone"] = row["f1"]["oracle"] = row["f1"]["first"] = base
            c = CAP.get("last")
            rd = c["reading"] if c else None
            if c and not c["stopped"] and len(rd.tokens) > 1:
                nb = len(rd.tokens)
                r = logits(tok, model, q["question"], rd.texts)
                row.update(moved=True, r=r.tolist(), gold_at=[m.get("passage_id") for m in rd.meta].index(q["gold"])
                           if q["gold"] in [m.get("passage_id") for m in rd.meta] else None)
                again = answer_text(pipeline.QAService._payload(c["req"], c["model"], rd, c["batch"], c["start"],
                                                                c["end"]))
                assert f1_of(again, q["answers"]) == base, (q["id"], again)
                for w in weights:
                    red = dataclasses.replace(rd, bias=np.asarray(rd.bias, dtype=np.float64) + w * (r - r.max()))
                    text = answer_text(orig_payload(c["req"], c["model"], red, c["batch"], c["start"], c["end"]))
                    row["f1"][str(w)] = f1_of(text, q["answers"])
                per = []
                for p in range(nb):
                    forced = np.full(nb, -1e4)
                    forced[p] = 0.0
                    red = dataclasses.replace(rd, bias=forced)
                    per.append(f1_of(answer_text(orig_payload(c["req"], c["model"], red, c["batch"], c["start"],
                                                              c["end"])), q["answers"]))
                row["per"] = per
                row["f1"]["oracle"] = max(per)
                row["f1"]["first"] = per[0]
                forced = np.full(nb, -1e4)
                forced[int(r.argmax())] = 0.0
                red = dataclasses.replace(rd, bias=forced)
                row["f1"]["alone"] = f1_of(answer_text(orig_payload(c["req"], c["model"], red, c["batch"],
                                                                    c["start"], c["end"])), q["answers"])
            rows.append(row)
            if (i + 1) % 100 == 0:
                print(i + 1, {k: round(sum(r["f1"][k] for r in rows) / len(rows), 2) for k in rows[0]["f1"]},
                      flush=True)
    summary = {k: round(sum(r["f1"][k] for r in rows) / len(rows), 2) for k in rows[0]["f1"]}
    summary["questions"], summary["moved"] = len(rows), sum(r["moved"] for r in rows)
    json.dump({"ckpt": ckpt, "cascade": cascade, "summary": summary, "rows": rows},
              open(f"/work/ce/eval-squad-{cascade}.json", "w"))
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
