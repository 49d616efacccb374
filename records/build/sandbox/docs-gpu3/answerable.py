"""A documentation training file without its unanswerable pairs (the second GPU run's "-nn" arms: the prose arm
abstained more on the benchmark's answerable questions). Usage: answerable.py IN.json[.gz] OUT.json.gz"""
import gzip
import json
import sys

src, out = sys.argv[1], sys.argv[2]
with (gzip.open if src.endswith(".gz") else open)(src, "rt", encoding="utf-8") as f:
    doc = json.load(f)
kept = 0
for article in doc["data"]:
    for para in article["paragraphs"]:
        para["qas"] = [qa for qa in para["qas"] if not qa.get("is_impossible")]
        kept += len(para["qas"])
    article["paragraphs"] = [p for p in article["paragraphs"] if p["qas"]]
doc["data"] = [a for a in doc["data"] if a["paragraphs"]]
with gzip.open(out, "wt", encoding="utf-8") as f:
    json.dump(doc, f)
print(f"{kept} answerable questions of {src} -> {out}")
