"""The documentation questions the first CPU epoch did not see: ``docqa-corpus-negatives.json.gz`` less the
seeded 16,000 that ``[student] extra_limit = 16000`` drew (seed 42, build_model/stages/distil.py), written as
a SQuAD-format file for a second epoch (run2.sh). Usage: complement.py IN.json.gz OUT.json.gz [N [SEED]]"""
import gzip
import json
import sys

import numpy as np

from build_model.squad import load_squad

src, out = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 16000
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 42
split = load_squad(src, impossible=True)
seen = {split.questions[i].id for i in np.random.default_rng(seed).choice(len(split.questions), n, replace=False)}
doc = json.loads(gzip.decompress(open(src, "rb").read()))
kept = 0
for article in doc["data"]:
    for para in article["paragraphs"]:
        para["qas"] = [qa for qa in para["qas"] if qa["id"] not in seen]
        kept += len(para["qas"])
with gzip.open(out, "wt", encoding="utf-8") as f:
    json.dump(doc, f)
print(f"{len(split.questions)} questions, {len(seen)} seen, {kept} written to {out}")
