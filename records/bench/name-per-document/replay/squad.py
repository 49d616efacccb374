"""Simulate a per-document name shift S on SQuAD OOC (with train) from main's probabilities."""

import json
import math

from function.ingest.json_input import squad_id
from function.retrieval import span_bias

A = json.load(open("/work/pd/a-ooc/out_of_corpus.json"))
M = json.load(open("/work/nm/ctrl-ooc/out_of_corpus.json"))
arts, paras, titles = {}, {}, {}
for f in ("dev", "train"):
    for a in json.load(open(f"/work/shared/data/squad/{f}.json"))["data"]:
        for i, p in enumerate(a["paragraphs"]):
            pid = squad_id(a["title"], i)
            paras[pid] = p["context"]
            titles[pid] = a["title"]
            arts.setdefault(pid.rsplit("-", 1)[0], []).append(p["context"])
arts = {k: " ".join(v).casefold() for k, v in arts.items()}
ca = [c for c in A["corpora"] if "train" in c["corpus"]][0]["rows"]
cm = [c for c in M["corpora"] if "train" in c["corpus"]][0]["rows"]
assert [r["id"] for r in ca] == [r["id"] for r in cm]


def logit(p):
    p = min(max(p, 1e-7), 1 - 1e-7)
    return math.log(p / (1 - p))


rows = []
for a, m in zip(ca, cm):
    names = [
        span_bias._folded(n)
        for n in span_bias.question_names(a["question"])
        if not span_bias._CODE_SHAPED.search(n.strip(".:"))
    ]
    if not names or m["probability"] is None or not a["answer_passage"]:
        rows.append((a, m, False, False))
        continue
    held = " ".join(span_bias._held(titles.get(p), paras.get(p, "")) for p in a["retrieved"])
    fired = any(not span_bias._holds(n, held) for n in names)
    art = arts[a["answer_passage"].rsplit("-", 1)[0]]
    doc_lacks = any(not span_bias._holds(n, art) for n in names)
    rows.append((a, m, fired, doc_lacks))
for S in (0, 4, 6, 8, 10, 12):
    ooc = inn = f1 = ab = 0
    no = 0
    for a, m, fired, doc_lacks in rows:
        extra = max(0.0, S - (4 if fired else 0)) if doc_lacks else 0.0
        refused = m["abstained"] or (m["probability"] is not None and logit(m["probability"]) + extra > 0)
        if a["in_corpus"]:
            inn += 1
            ab += refused
            f1 += 0 if refused else m["f1_never"]
        else:
            ooc += 1
            no += refused
    print(
        f"S={S}: OOC no-answer {100 * no / ooc:.1f}%  in-corpus F1 {100 * f1 / inn:.2f} abstained {100 * ab / inn:.2f}%"
    )
