"""evaluate.py: per question asked alone (captured by capture.py), the answer each retrieved passage would give if
chosen, and the F1 of passage-choice rules, decoded from the captured logits through the function's own code."""
import dataclasses
import json
import pickle
import sys
import tempfile

import numpy as np

sys.path.insert(0, "/work/main")
from bench.in_process import open_service  # noqa: E402
from function.evaluate.scoring import answer_text, score  # noqa: E402
from function.service.pipeline import QAService  # noqa: E402

tmp = tempfile.mkdtemp()
MODEL = open_service({"QA_ARTIFACT_DIR": "/work/main/artifact", "QA_STORE": "sqlite",
                      "QA_SQLITE_PATH": f"{tmp}/x.sqlite"}).rt.model()


def decode(c, bias):
    reading = dataclasses.replace(c["reading"], bias=None if bias is None else np.asarray(bias, dtype=np.float64))
    payload = QAService._payload(c["req"], MODEL, reading, c["batch"], c["start"], c["end"])
    return answer_text(payload), next((a.get("passage_id") for a in payload.get("answers", [])), None)


def load(name):
    caps = pickle.load(open(f"/work/study/cap-{name}.pkl", "rb"))
    rows = {(s["set"], r["id"]): r for s in json.load(open(f"/work/runs/m-{name}/docs.json"))["sets"] for r in s["rows"]}
    return caps, rows


def table(name):
    caps, rows = load(name)
    out = []
    for key, row in rows.items():
        c = caps.get((*key, "alone"))
        if c is None:
            continue
        rd = c["reading"]
        n = len(rd.tokens)
        base, _ = decode(c, rd.bias)
        assert base == row["answer"] or row["no_answer"], (key, base, row["answer"])
        per = []
        if not c["stopped"] and n > 1 and not row["no_answer"]:
            for p in range(n):
                forced = np.full(n, -1e4)
                forced[p] = 0.0
                text, _ = decode(c, forced)
                per.append({"answer": text, "f1": score(text, row["answers"])[1]})
        out.append({"key": key, "part": row["part"], "f1": row["f1"], "stopped": c["stopped"], "n": n,
                    "abstained": row["no_answer"], "scores": rd.scores, "names": rd.names,
                    "cosines": [r.get("cosine") for r in (rd.retrieved or [])], "bias": list(map(float, rd.bias)),
                    "per": per, "answer": row["answer"], "holding": row["holding"],
                    "retrieved": row["retrieved"]})
    json.dump(out, open(f"/work/study/table-{name}.json", "w"), indent=0)
    print(name, len(out))


if __name__ == "__main__":
    for name in sys.argv[1:]:
        table(name)
