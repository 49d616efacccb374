"""Moves between two `python -m bench docs` runs (docs.json), split by which of the day's changes can act on each
question: `sentence.asks_default` (default-list-items), else `sentence.asked_condition` (this record), else none.

Run from the repository root: python records/bench/conditioned-alternatives/attribute.py BEFORE.json AFTER.json
"""

import json
import sys

from function.model import sentence


def kind(question: str) -> str:
    if sentence.asks_default(question):
        return "owner"
    return "cond" if sentence.asked_condition(question) else "other"


def main(before: str, after: str) -> None:
    runs = [json.load(open(p)) for p in (before, after)]
    ra, rb = ({x["id"]: x for s in r["sets"] for x in s["rows"]} for r in runs)
    ids = [i for i in ra if i in rb]
    for part in sorted({ra[i]["part"] for i in ids}) + ["all"]:
        sel = [i for i in ids if part == "all" or ra[i]["part"] == part]
        for k in ("cond", "owner", "other", None):
            def fig(key, k=k, sel=sel):
                return 100 * sum((rb[i] if k is None or kind(ra[i]["question"]) == k else ra[i])[key]
                                 for i in sel) / len(sel)
            print(f"{part} ({len(sel)}) {k or 'every'}: F1 {100 * sum(ra[i]['f1'] for i in sel) / len(sel):.2f} -> "
                  f"{fig('f1'):.2f}; given {100 * sum(ra[i]['f1_given'] for i in sel) / len(sel):.2f} -> "
                  f"{fig('f1_given'):.2f}")
    for i in ids:
        x, y = ra[i], rb[i]
        if any(x[k] != y[k] for k in ("answer", "answer_right_passage", "f1", "f1_given")):
            print(f"  [{kind(x['question'])}] {i} ({x['part']}) F1 {x['f1']:.2f} -> {y['f1']:.2f} {x['answer']!r} -> "
                  f"{y['answer']!r}; given {x['f1_given']:.2f} -> {y['f1_given']:.2f} | {x['question']}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
