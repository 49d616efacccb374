import json, sys, collections
d = json.load(open(sys.argv[1])); part = sys.argv[2] if len(sys.argv) > 2 else "dev"
tot = collections.Counter(); n = 0
per = collections.defaultdict(collections.Counter)
for s in d["sets"]:
    for r in s["rows"]:
        if part != "all" and r["part"] != part: continue
        n += 1
        g = r["f1_given"]; a = r["f1"]
        if not r["recall@5"]: cat = "miss"
        elif r["no_answer"]: cat = "abstain"
        elif r["answer_passage"] in r["holding"]: cat = "right-passage"
        else: cat = "other-passage"
        tot[cat + ":n"] += 1; tot[cat + ":lost"] += g - a
        per[r["set"]][cat] += g - a
print("n", n)
for k in sorted(tot): print(k, round(tot[k] * (100 / n if k.endswith('lost') else 1), 2))
for s, c in per.items(): print(s, {k: round(v, 1) for k, v in c.items()})
