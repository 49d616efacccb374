"""Where docs F1 asked alone is lost, per question: abstained; right passage not among the five read; right passage read
but another passage's span won (given it alone, F1 at least 0.2 higher); wrong even given the right passage (F1 given < 0.5);
partial. ``python losses.py after-dev.json.gz [CLASS]`` (CLASS: list that class's questions)."""
import gzip, json, sys
from collections import defaultdict
d = json.load(gzip.open(sys.argv[1]))
cat = defaultdict(list)
tot = 0; n = 0
for s in d["sets"]:
    for r in s["rows"]:
        n += 1
        f, g = r["f1"], r["f1_given"]
        if r["no_answer"]: c = "abstained"
        elif not r["recall@5"]: c = "not retrieved"
        elif f >= 0.999: c = "right"
        elif g > f + 0.2: c = "selection (given better)"
        elif g < 0.5: c = "reading (given wrong too)"
        else: c = "partial/other"
        cat[c].append(r)
for c, rs in sorted(cat.items(), key=lambda x: -len(x[1])):
    loss = sum(1 - r["f1"] for r in rs)
    print(f"{c:28s} n={len(rs):4d} F1 loss={100*loss/n:5.1f} pts  mean f1={100*sum(r['f1'] for r in rs)/len(rs):5.1f} given={100*sum(r['f1_given'] for r in rs)/len(rs):5.1f}")
if len(sys.argv) > 2:
    for r in cat[sys.argv[2]]:
        print(r["id"], r["kind"], "|", r["question"], "| gold:", r["answers"][:2], "| alone:", r["answer"][:60], "| given:", r["answer_right_passage"][:60], "| rank", r["retrieved"].index(r["right_passage"]) if r["right_passage"] in r["retrieved"] else None)
