"""A training file of the seeded 16,000 documentation questions the shipped student's trained half saw
(``[student] extra_limit = 16000`` over docqa-corpus-negatives.json.gz, seed 42: build_model/stages/distil.py)
plus every question of another file (the prose questions), so an arm with both differs from the docs-only arm
by the second file alone. Usage: mix.py DOCS.json.gz N SEED OTHER.json OUT.json.gz"""
import gzip
import json
import sys

import numpy as np

from build_model.squad import load_squad

docs, n, seed, other, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
split = load_squad(docs, impossible=True)
keep = {split.questions[i].id for i in np.random.default_rng(seed).choice(len(split.questions), n, replace=False)}
doc = json.loads(gzip.decompress(open(docs, "rb").read()))
data = []
for article in doc["data"]:
    paras = [{"context": p["context"], "qas": [q for q in p["qas"] if q["id"] in keep]} for p in article["paragraphs"]]
    paras = [p for p in paras if p["qas"]]
    if paras:
        data.append({"title": article["title"], "paragraphs": paras})
opener = gzip.open if other.endswith(".gz") else open
with opener(other, "rt", encoding="utf-8") as f:
    extra = json.load(f)["data"]
count = lambda arts: sum(len(p["qas"]) for a in arts for p in a["paragraphs"])  # noqa: E731
with gzip.open(out, "wt", encoding="utf-8") as f:
    json.dump({"version": "docqa-mix", "data": data + extra}, f)
print(f"{count(data)} of {docs} + {count(extra)} of {other} -> {out}")
