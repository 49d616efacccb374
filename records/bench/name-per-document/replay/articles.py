"""For OOC rows refused by A and answered by main: does main's answer passage's article hold the question's names?"""

import json
import sys

from function.ingest.json_input import squad_id
from function.retrieval import span_bias

A = json.load(open(sys.argv[1]))
M = json.load(open(sys.argv[2]))
arts = {}
for f in ("dev", "train"):
    for a in json.load(open(f"/work/shared/data/squad/{f}.json"))["data"]:
        for i, p in enumerate(a["paragraphs"]):
            arts.setdefault(squad_id(a["title"], i).rsplit("-", 1)[0], []).append(p["context"])
ca = [c for c in A["corpora"] if "train" in c["corpus"]][0]
cm = [c for c in M["corpora"] if "train" in c["corpus"]][0]
mrows = {}
for r in cm["rows"]:
    mrows.setdefault(r["id"], []).append(r)
arows = {}
for r in ca["rows"]:
    arows.setdefault(r["id"], []).append(r)
stats = {}
for qid, rs in arows.items():
    for j, a in enumerate(rs):
        m = mrows[qid][j]
        if a["abstained"] == m["abstained"]:
            continue
        names = span_bias.question_names(a["question"])
        pid = a["answer_passage"]
        art = pid.rsplit("-", 1)[0] if pid else None
        text = " ".join(arts.get(art, [])).casefold()
        ptext = None
        held_doc = [n for n in names if span_bias._holds(span_bias._folded(n), text)]
        key = (
            "OOC" if not a["in_corpus"] else "IN",
            "A refuses" if a["abstained"] else "A answers",
            "doc holds all" if len(held_doc) == len(names) else "doc lacks",
        )
        stats[key] = stats.get(key, 0) + 1
        print(key, a["question"][:80], names, "->", repr(a["answer"][:30]), art, "f1", m["f1"])
print(json.dumps({" / ".join(k): v for k, v in sorted(stats.items())}, indent=1))
