"""Abstention at threshold shifts from a ``docs.json``'s recorded no-answer probabilities (abstain where
logit(p) > shift, p = sigmoid(margin - threshold)); F1 counts each abstention 0.

    python records/build/sandbox/docs-cpu/shift.py records/bench/docs/docs.json dev
"""

import json
import math
import sys


def logit(p: float | None) -> float:
    if p is None:
        return math.inf  # nothing retrieved: "no answer" whatever the threshold
    p = min(max(p, 1e-12), 1 - 1e-12)
    return math.log(p / (1 - p))


result = json.load(open(sys.argv[1]))
part = sys.argv[2] if len(sys.argv) > 2 else "dev"
rows = [r for s in result["sets"] for r in s["rows"] if r["part"] == part]
off = [r for s in result["sets"] for r in s["off_topic_rows"] if r["part"] == part]
print(f"{part}: {len(rows)} answerable, {len(off)} off-topic")
for shift in (-2, -1, 0, 1, 2, 3, 4, 6, 8):
    abstains = [logit(r["probability"]) > shift for r in rows]
    f1 = sum(0 if a else r["f1_never"] for a, r in zip(abstains, rows)) / len(rows) * 100
    refused = sum(logit(r["probability"]) > shift for r in off) / len(off) * 100
    print(f"shift {shift:+}: abstained {sum(abstains) / len(rows) * 100:.1f}%, F1 {f1:.1f}, "
          f"off-topic no answer {refused:.1f}%")
