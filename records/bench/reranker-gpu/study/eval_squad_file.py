"""eval_squad_file.py SCORES CASCADE: SQuAD dev asked alone (hybrid, as eval_squad_x.py, CASCADE 1 on / 0 all five
read), a re-ranker's logits read from SCORES (score_pairs.py, by passage text) added to the first stage's bias as
w x (r - max r) where every passage read is prose (no line break); per question F1 at each weight, odd / even halves.
Writes SCORES.squad-CASCADE.json."""
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, "/work/main")
sys.path.insert(0, "/work/ce")
import eval_squad_x as ex  # noqa: E402

from bench.cascade import f1_of  # noqa: E402
from bench.in_process import ingest_into, load_squad, open_service, retrieval_env  # noqa: E402
from function.evaluate.scoring import answer_text  # noqa: E402
from function.service.qa_request import QARequest  # noqa: E402
from harness.paths import ENCODER, SQUAD  # noqa: E402

WEIGHTS = (0.5, 1.0, 1.5, 2.0, 3.0, 4.0)


def main():
    scores_path, cascade = sys.argv[1], sys.argv[2]
    scores = json.load(open(scores_path))
    pairs = {it["key"]: it["texts"] for it in json.load(open("/work/ce2/squad-pairs.json"))}
    records, questions = load_squad(SQUAD)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {"QA_ARTIFACT_DIR": "/work/main/artifact", "QA_STORE": "sqlite", "QA_SQLITE_PATH": f"{tmp}/p.sqlite",
               "QA_CACHE": "0", **retrieval_env("hybrid", Path(tmp), ENCODER), "QA_CASCADE": cascade}
        service = open_service(env)
        ingest_into(service, records)
        max_tokens = service.rt.manifest().sequence["max_answer_tokens"]
        for i, q in enumerate(questions["dev"]):
            ex.CAP.clear()
            result = service.answer(QARequest(q["question"], None, None, 1, max_tokens, 5, abstain=False))
            answers = result.payload["answers"]
            base = f1_of(answers[0]["text"] if answers else "", q["answers"])
            row = {"id": q["id"], "i": i, "f1": {"0": base, **{str(w): base for w in WEIGHTS}}, "moved": False}
            c = ex.CAP.get("last")
            rd = c["reading"] if c else None
            key = "squad:" + q["id"]
            if c and not c["stopped"] and len(rd.tokens) > 1 and key in scores:
                by_text = dict(zip(pairs[key], scores[key]))
                r = np.asarray([by_text[t] for t in rd.texts], dtype=np.float64)
                prose = not any("\n" in t for t in rd.texts)
                row.update(moved=prose, prose=prose)
                if prose:
                    for w in WEIGHTS:
                        red = dataclasses.replace(rd, bias=np.asarray(rd.bias, dtype=np.float64) + w * (r - r.max()))
                        text = answer_text(ex.orig_payload(c["req"], c["model"], red, c["batch"], c["start"],
                                                           c["end"]))
                        row["f1"][str(w)] = f1_of(text, q["answers"])
            rows.append(row)
    def mean(rs, k):
        return round(sum(r["f1"][k] for r in rs) / len(rs), 2)
    keys = list(rows[0]["f1"])
    summary = {"all": {k: mean(rows, k) for k in keys},
               "odd": {k: mean([r for r in rows if r["i"] % 2], k) for k in keys},
               "even": {k: mean([r for r in rows if not r["i"] % 2], k) for k in keys},
               "questions": len(rows), "moved": sum(r["moved"] for r in rows)}
    json.dump({"scores": scores_path, "cascade": cascade, "summary": summary, "rows": rows},
              open(f"{scores_path}.squad-{cascade}.json", "w"))
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
