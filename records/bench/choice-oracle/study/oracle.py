"""oracle.py: from evaluate.py's tables (each question asked alone that read several passages: the answer each read
passage gives when the first stage is made to choose it), F1 asked alone as the function chose, always the first
retrieved passage, and always the best passage."""
import collections
import json

for name in ("docs", "blind"):
    agg = collections.defaultdict(collections.Counter)
    for r in json.load(open(f"/work/study/table-{name}.json")):
        a = agg[name if name == "blind" else r["part"]]
        a["n"] += 1
        a["now"] += r["f1"]
        per = [p["f1"] for p in r["per"]] or [r["f1"]]  # one passage read (the cascade stopped), or abstained
        a["multi"] += bool(r["per"])
        a["first"] += per[0]
        a["best"] += max(per)
    for part, a in agg.items():
        n = a["n"]
        print(f"{part}: {n} questions ({a['multi']} read several passages): as chosen {100 * a['now'] / n:.2f}, "
              f"always the first {100 * a['first'] / n:.2f}, always the best {100 * a['best'] / n:.2f}")

# dev: where the best passage gives F1 at least 0.5 more than the chosen one, (chosen rank, best rank), 0 = first
pairs = collections.Counter()
for r in json.load(open("/work/study/table-docs.json")):
    if r["part"] != "dev" or not r["per"]:
        continue
    per = [p["f1"] for p in r["per"]]
    if max(per) - r["f1"] >= 0.5:
        chosen = next((i for i, p in enumerate(r["per"]) if p["answer"] == r["answer"]), None)
        pairs[(chosen, per.index(max(per)))] += 1
print("dev (chosen rank, best rank):", sorted(pairs.items(), key=lambda kv: -kv[1]))
