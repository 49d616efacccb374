"""The abstention threshold re-checked from recorded replies (records/bench/no-answer-recheck).

    python study/recheck.py extract DOCS_JSON BLIND_JSON    # per-question fields -> replies.json.gz
    python study/recheck.py table                             # recheck.md from replies.json.gz

A reply recorded at the shipped threshold T carries the no-answer probability sigmoid(margin - T') (T' = T moved
per question by the cosine, term-share and name signals), so at T + d it abstains exactly where
logit(probability) > d. An answerable question that abstained at T and not at T + d is scored with the same
question's never-abstaining reply ("abstain": false); one answered at T keeps its F1. A reply with no probability
(nothing matched) abstains at every threshold.
"""
import gzip
import json
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SHIPPED = 1.4528079231238824  # artifact/manifest.json no_answer.threshold (2.5514 moved by -ln 3)
MOVES = [("-ln 2", -math.log(2)), ("0 (shipped)", 0.0), ("+ln 2", math.log(2)), ("+ln 3 (the F1-best on SQuAD pairs)", math.log(3)),
         ("+ln 4", math.log(4)), ("+ln 6", math.log(6))]


def extract(docs: str, blind: str) -> None:
    keep = ("set", "part", "kind", "f1", "f1_never", "no_answer", "probability")
    out = {}
    for name, path, parts in (("docs", docs, ("dev", "test")), ("blind", blind, ("test",))):
        d = json.loads(Path(path).read_text())
        for part in parts:
            key = f"{name}-{part}"
            out[key] = {
                "answerable": [{k: r.get(k) for k in keep} for s in d["sets"] for r in s["rows"] if r["part"] == part],
                "off_topic": [{k: r.get(k) for k in ("set", "part", "no_answer", "probability")}
                              for s in d["sets"] for r in s["off_topic_rows"] if r["part"] == part]}
    with gzip.open(HERE / "replies.json.gz", "wt") as f:
        json.dump(out, f)


def _logit(p: float) -> float:
    p = min(max(p, 1e-12), 1 - 1e-12)
    return math.log(p / (1 - p))


def abstains(r: dict, d: float) -> bool:
    p = r["probability"]
    return (r["no_answer"] and p is None) or (p is not None and _logit(p) > d)


def table() -> None:
    data = json.load(gzip.open(HERE / "replies.json.gz", "rt"))
    lines = ["| part | threshold | F1 asked alone | answerable abstained | off-topic \"no answer\" | "
             "combined (F1 of the answerable + 100 per off-topic refused, over all) |", "|---|---|---|---|---|---|"]
    for key, rows in data.items():
        ans, off = rows["answerable"], rows["off_topic"]
        for label, d in MOVES:
            f1 = sum(0.0 if abstains(r, d) else ((r["f1_never"] if r["no_answer"] else r["f1"]) or 0.0) for r in ans)
            ab = sum(abstains(r, d) for r in ans)
            ref = sum(abstains(r, d) for r in off)
            lines.append(f"| {key} ({len(ans)} + {len(off)}) | {SHIPPED + d:.3f}: {label} | {100 * f1 / len(ans):.2f} | "
                         f"{ab} | {ref} of {len(off)} | {100 * (f1 + ref) / (len(ans) + len(off)):.2f} |")
    (HERE / "recheck.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    extract(*sys.argv[2:4]) if sys.argv[1] == "extract" else table()
