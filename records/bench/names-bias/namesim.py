"""SQuAD dev asked alone (hybrid, reading all five, as ``bench cascade``'s sweep decodes): the shipped span bias,
and with + w x each passage's share of the names the question gives (``span_bias.question_names``, case-folded, in
its title or text). Run from the repository root:

    PYTHONPATH=. .venv/bin/python records/bench/names-bias/namesim.py OUT.json [N] [--plain]

(N: a seeded sample of dev questions; 0, all 1,227. --plain: the question's plain names only, not code-shaped ones,
as ../names-plain weighs them.)
"""

import json
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.cascade import f1_of, sample
from bench.in_process import ingest_into, load_squad, open_service, retrieval_env
from function.errors import NotFound
from function.model.reader import answers_from_logits
from function.retrieval.span_bias import NULL_WEIGHT, passage_bias, question_names
from function.service.pipeline import Reading
from harness.paths import ENCODER, default_artifact

WEIGHTS = (1.0, 2.0, 4.0, 6.0, 8.0, 50.0)
PLAIN = "--plain" in sys.argv
CODE = re.compile(r"[_.:#+]|[a-z][A-Z]")  # a code-shaped name: a mark of code inside, or camelCase


def shares(question: str, stored) -> np.ndarray | None:
    names = [n.casefold().strip(".:") for n in question_names(question)
             if not (PLAIN and CODE.search(n.strip(".:")))]
    if not names:
        return None
    held = [f"{p.title or ''} {p.text}".casefold() for p in stored]
    return np.asarray([sum(n in h for n in names) / len(names) for h in held])


def ask(service, model, max_tokens: int, q: dict) -> dict:
    q_ids = model.tokenizer.encode(q["question"]).ids
    try:
        hits, stored, _ = service.read_question(q["question"], 5, len(q_ids), model)
    except NotFound:
        return {"id": q["id"], "empty": True}
    by_id = {h.passage_id: h for h in hits}
    scores = np.array([by_id[p.id].score for p in stored])
    base = passage_bias(scores, cosines=[by_id[p.id].cosine for p in stored])
    reading = Reading.of_stored(stored)
    batch = service._batch(q_ids, reading, model)
    ran = service.rt.inference.run(model, batch)

    def text(bias) -> str:
        found = answers_from_logits(ran.start_logits, ran.end_logits, batch, reading.tokens, 1, max_tokens, bias,
                                    texts=reading.texts, null_weight=NULL_WEIGHT, question=q["question"])
        return reading.texts[found[0].passage][found[0].start:found[0].end] if found else ""

    share = shares(q["question"], stored)
    shipped = f1_of(text(base), q["answers"])
    return {"id": q["id"], "named": share is not None, "shipped": shipped,
            "w": {w: shipped if share is None else f1_of(text(base + w * share), q["answers"]) for w in WEIGHTS}}


def main() -> None:
    records, questions = load_squad(Path("../shared/data/squad"))
    args = [a for a in sys.argv[1:] if a != "--plain"]
    n = int(args[1]) if len(args) > 1 else 0
    with tempfile.TemporaryDirectory() as tmp:
        env = {"QA_ARTIFACT_DIR": str(default_artifact().resolve()), "QA_STORE": "sqlite",
               "QA_SQLITE_PATH": str(Path(tmp) / "p.sqlite"), "QA_CACHE": "0", "QA_THREADS": "0", "QA_CASCADE": "0",
               **retrieval_env("hybrid", Path(tmp), ENCODER)}
        service = open_service(env)
        ingest_into(service, records)
        model = service.rt.model()
        max_tokens = service.rt.manifest().sequence["max_answer_tokens"]
        started, rows = time.time(), []
        for i, q in enumerate(sample(questions["dev"], n), 1):
            rows.append(ask(service, model, max_tokens, q))
            if i % 100 == 0:
                print(i, f"{(time.time() - started) / i:.2f} s each", flush=True)
    Path(args[0]).write_text(json.dumps(rows))
    read = [r for r in rows if "shipped" in r]
    print("questions", len(rows), "giving a name", sum(r["named"] for r in read))
    print("shipped", round(sum(r["shipped"] for r in read) / len(rows), 2))  # f1_of is in points already
    for w in WEIGHTS:
        d = np.array([r["w"][w] - r["shipped"] for r in read])
        print(f"w={w:g}", round(sum(r["w"][w] for r in read) / len(rows), 2), "paired", round(d.sum() / len(rows), 2),
              "+-", round(d.std(ddof=1) * np.sqrt(len(d)) / len(rows), 2), "up", int((d > 0).sum()),
              "down", int((d < 0).sum()))


if __name__ == "__main__":
    main()
