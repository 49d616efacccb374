"""The sample corpus's questions, and the three kinds of request made of them (``load``, ``cost``, ``image``).

A question is sent with its paragraph as ``context``, with its paragraph's
``passage_ids`` (as ingestion stores it), or alone (retrieval).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

from harness.paths import SAMPLE

KINDS = ("context", "passage", "retrieval")


def sample_questions(path: Path = SAMPLE) -> list[dict]:
    """(question, paragraph text, passage id) of every question in a SQuAD file, ids as ingestion makes them."""
    from bench.in_process import passage_id
    from build_model.squad import load_squad

    split = load_squad(path)
    return [{"question": q.question, "context": split.paragraphs[q.paragraph_id].context,
             "passage_id": passage_id(split.paragraphs[q.paragraph_id])} for q in split.questions]


def payload(kind: str, q: dict) -> dict:
    if kind == "context":
        return {"question": q["question"], "context": q["context"]}
    if kind == "passage":
        return {"question": q["question"], "passage_ids": [q["passage_id"]]}
    return {"question": q["question"]}


def mix(questions: list[dict], kinds: tuple[str, ...] = KINDS, seed: int = 0):
    """For ``harness.client.concurrent``: client ``i`` sends ``kinds`` in turn (from the ``i``-th), each with a
    random question (its own generator, seeded ``seed + i``), tagged with the kind."""
    def client(i: int) -> Iterator[tuple[str, dict]]:
        rng = random.Random(seed + i)
        n = i
        while True:
            kind = kinds[n % len(kinds)]
            n += 1
            yield kind, payload(kind, rng.choice(questions))

    return client
