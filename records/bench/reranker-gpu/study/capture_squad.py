"""capture_squad.py: SQuAD dev questions asked alone (hybrid, all five read, as eval_squad_x.py), the passages each
read, for scoring by re-rankers elsewhere. Writes /work/ce2/squad-pairs.json."""
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, "/work/main")
sys.path.insert(0, "/work/ce")
import eval_squad_x as ex  # noqa: E402

from bench.in_process import ingest_into, load_squad, open_service, retrieval_env  # noqa: E402
from function.service.qa_request import QARequest  # noqa: E402
from harness.paths import ENCODER, SQUAD  # noqa: E402


def main():
    records, questions = load_squad(SQUAD)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {"QA_ARTIFACT_DIR": "/work/main/artifact", "QA_STORE": "sqlite", "QA_SQLITE_PATH": f"{tmp}/p.sqlite",
               "QA_CACHE": "0", **retrieval_env("hybrid", Path(tmp), ENCODER), "QA_CASCADE": "0"}
        service = open_service(env)
        ingest_into(service, records)
        max_tokens = service.rt.manifest().sequence["max_answer_tokens"]
        for q in questions["dev"]:
            ex.CAP.clear()
            service.answer(QARequest(q["question"], None, None, 1, max_tokens, 5, abstain=False))
            c = ex.CAP.get("last")
            if c and len(c["reading"].tokens) > 1:
                out.append({"key": "squad:" + q["id"], "q": q["question"], "texts": list(c["reading"].texts)})
    json.dump(out, open("/work/ce2/squad-pairs.json", "w"))
    print(len(out))


if __name__ == "__main__":
    main()
