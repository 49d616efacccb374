"""A name question's code candidates ranked also by how close their entry's words are to the question (RULE.md).

Runs ``python -m bench docs`` once per variant in one process, the reader's ``_by_sentence`` wrapped:
    python records/bench/docs-entry-match/study.py --part dev --out build/entry-match --variants 0,4,8
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

import bench.docs as bdocs
from function.model import reader, sentence
from function.retrieval.encoder import SentenceEncoder

S = 0.0
ENCODER = SentenceEncoder(bdocs.REPO / "encoder", threads=1)
COST = {"requests": 0, "units": 0, "seconds": 0.0}
_BLANK = re.compile(r"\n[^\S\n]*\n")


def unit(text: str, start: int) -> str:
    """The sentence ``start`` is in (``sentence.Sentences``' bounds), cut at the blank lines around ``start``."""
    a, z = sentence.Sentences(text)._bounds(start)
    before = [m.end() for m in _BLANK.finditer(text, a, start)]
    after = _BLANK.search(text, start, z)
    return text[before[-1] if before else a: after.start() if after else z].strip()


_by_sentence = reader._by_sentence


def by_sentence(found, question, texts, weight, titles=None, marks=None):
    ranked = _by_sentence(found, question, texts, weight, titles, marks)
    if S == 0 or not ranked or marks is None or not reader.NAME_QUESTION.search(question):
        return ranked
    code = [reader.is_code(texts[a.passage], marks[a.passage], a.start, a.end) for a in ranked]
    if not any(code):
        return ranked
    units = {i: unit(texts[a.passage], a.start) for i, a in enumerate(ranked) if code[i]}
    distinct = sorted(set(units.values()))
    t = time.perf_counter()
    vectors = ENCODER.embed([question] + distinct)
    COST["seconds"] += time.perf_counter() - t
    COST["requests"] += 1
    COST["units"] += len(distinct)
    cos = dict(zip(distinct, vectors[1:] @ vectors[0], strict=True))
    bonus = np.asarray([S * float(cos[units[i]]) if i in units else 0.0 for i in range(len(ranked))])
    scores = np.asarray([a.score for a in ranked], dtype=np.float64)
    lifted = scores * np.exp(bonus)
    lifted = lifted / (1.0 + (lifted - scores).sum())
    order = np.argsort(-lifted, kind="stable")
    return [reader.Answer(ranked[i].passage, ranked[i].start, ranked[i].end, float(lifted[i])) for i in order]


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--part", default="dev")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--variants", default="0,4,8")
    p.add_argument("--cache", default=None)
    args = p.parse_args()
    global S
    reader._by_sentence = by_sentence
    summary = {}
    for v in args.variants.split(","):
        S = float(v)
        COST.update(requests=0, units=0, seconds=0.0)
        out = args.out / f"s{v}"
        bdocs.main(["--part", args.part, "--out", str(out)] + (["--cache", args.cache] if args.cache else []))
        d = json.loads((out / "docs.json").read_text())
        summary[v] = {"tables": d["tables"], "cost": dict(COST)}
        print(v, json.dumps(summary[v])[:800], flush=True)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
