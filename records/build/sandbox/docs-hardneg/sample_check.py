"""RULE.md's fifth figure for an artifact: tests/test_shipped_abstains.py's service (make run's sample corpus, the
embedded store, BM25) over ARTIFACT, its 100 off-topic questions and 208 sample questions asked alone.
    PYTHONPATH=. .venv/bin/python records/build/sandbox/docs-hardneg/sample_check.py ARTIFACT"""
import json
import sys
import tempfile
from pathlib import Path

from bench import in_process
from bench.out_of_corpus import SAMPLE, off_topic_questions
from function.ingest.json_input import Record, parse_text
from function.service.qa_request import QARequest

artifact = Path(sys.argv[1]).resolve()
with tempfile.TemporaryDirectory() as tmp:
    qa = in_process.open_service({"QA_ARTIFACT_DIR": str(artifact), "QA_STORE": "sqlite", "QA_CACHE": "0",
                                  "QA_THREADS": "1", "QA_SQLITE_PATH": str(Path(tmp) / "passages.sqlite")})
    in_process.ingest_into(qa, [r for r in parse_text(SAMPLE.name, SAMPLE.read_text(encoding="utf-8"))
                                if isinstance(r, Record)])

    def alone(q):
        return qa.answer(QARequest(q, None, None, 1, qa.rt.settings.max_answer_tokens, 5)).payload

    off = [alone(q)["no_answer"]["abstained"] for q in off_topic_questions()]
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))["data"]
    own = [alone(qa_["question"])["no_answer"]["abstained"] for a in data for p in a["paragraphs"] for qa_ in p["qas"]]
print(json.dumps({"artifact": str(artifact), "off_topic_answered": len(off) - sum(off), "off_topic": len(off),
                  "sample_abstained": sum(own), "sample": len(own)}))
