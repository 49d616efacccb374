"""Documentation questions with harder unanswerable pairs (issue 39, "no answer" in a store of several manuals).

From ``docqa-corpus-negatives.json.gz`` (records/build/sandbox/docs-gpu): a seeded 6,000 of its answerable questions
with their own passage, and for a seeded 3,000 of those the passage of ANOTHER package that the shipped retrieval
encoder (``encoder/``) ranks nearest to the question and that holds neither the answer nor a name or option the
question asks about (``build_model.docdata.negatives``' test), the question asked of it with no answer. The file's
own BM25 negatives are left out. Written as a SQuAD-format file for ``[student] extra_train``.

    PYTHONPATH=. .venv/bin/python records/build/sandbox/docs-hardneg/make_data.py OUT.json.gz
"""

import gzip
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

from build_model.docdata.negatives import _names, _squeeze
from function.retrieval.encoder import SentenceEncoder

SRC = Path("records/build/sandbox/docs-gpu/docqa-corpus-negatives.json.gz")
ANSWERABLE, NEGATIVES, DEPTH = 6000, 3000, 50

out = Path(sys.argv[1])
doc = json.loads(gzip.decompress(SRC.read_bytes()))
paragraphs = [(a["title"].split("/")[0], a["title"], p) for a in doc["data"] for p in a["paragraphs"]]
questions = [(j, qa) for j, (_, _, p) in enumerate(paragraphs) for qa in p["qas"] if not qa["is_impossible"]]
rng = random.Random("docs-hardneg")
chosen = sorted(rng.sample(range(len(questions)), ANSWERABLE))
asked = set(rng.sample(chosen, NEGATIVES))
print(f"{len(paragraphs)} passages, {len(questions)} answerable questions; {len(chosen)} chosen, {len(asked)} asked "
      "of another package's nearest passage", flush=True)

enc = SentenceEncoder(Path("encoder"), threads=2)
t0 = time.time()
P = enc.embed([p["context"] for _, _, p in paragraphs], batch_size=64)
print(f"passages embedded in {time.time() - t0:.0f} s", flush=True)
neg_q = sorted(asked)
Q = enc.embed([questions[i][1]["question"] for i in neg_q], batch_size=64)
print(f"questions embedded in {time.time() - t0:.0f} s", flush=True)

packages = np.asarray([pkg for pkg, _, _ in paragraphs])
kept: dict[int, list[dict]] = {}  # paragraph index -> its qas in the new file
for i in chosen:
    j, qa = questions[i]
    kept.setdefault(j, []).append(qa)
added, cosines, missed = 0, [], 0
for start in range(0, len(neg_q), 256):
    sims = Q[start : start + 256] @ P.T
    for r, i in enumerate(neg_q[start : start + 256]):
        j, qa = questions[i]
        banned = [_squeeze(a["text"]) for a in qa["answers"]] + _names(qa["question"])
        row = sims[r]
        order = np.argpartition(-row, DEPTH)[:DEPTH]
        for k in order[np.argsort(-row[order])]:
            if packages[k] == packages[j]:
                continue
            if any(b and b in _squeeze(paragraphs[k][2]["context"]) for b in banned):
                continue
            kept.setdefault(int(k), []).append({"id": qa["id"] + "-hn", "question": qa["question"], "answers": [],
                                                "is_impossible": True, "kind": "unanswerable"})
            added += 1
            cosines.append(float(row[k]))
            break
        else:
            missed += 1

articles: dict[str, dict] = {}
for j, qas in sorted(kept.items()):
    _, title, p = paragraphs[j]
    articles.setdefault(title, {"title": title, "paragraphs": []})["paragraphs"].append(
        {"context": p["context"], "qas": qas})
out.parent.mkdir(parents=True, exist_ok=True)
with gzip.open(out, "wt", encoding="utf-8") as f:
    json.dump({"version": "docs-hardneg", "data": list(articles.values())}, f)
c = np.asarray(cosines)
print(json.dumps({"answerable": len(chosen), "negatives": added, "no_negative_found": missed,
                  "negative_cosine": {"p10": round(float(np.percentile(c, 10)), 3),
                                      "median": round(float(np.median(c)), 3),
                                      "p90": round(float(np.percentile(c, 90)), 3)},
                  "out": str(out)}))
