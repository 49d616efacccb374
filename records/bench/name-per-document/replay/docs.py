import functools
import json
import math
import sys
from pathlib import Path

from function.ingest.extract import extract
from function.retrieval import span_bias

d = json.load(open(sys.argv[1]))
cache = Path(sys.argv[2])


def logit(p):
    p = min(max(p, 1e-7), 1 - 1e-7)
    return math.log(p / (1 - p))


@functools.lru_cache(None)
def doc_text(setname, doc):
    for c in (cache / setname / "corpus", cache / (setname + "-whole") / "corpus"):
        f = c / doc
        if f.exists():
            x = extract(doc, f.read_bytes())
            return f"{x.title} {x.text}".casefold()
    raise SystemExit(f"missing {setname} {doc}")


for S in (4, 6, 8):
    out = {}
    for s in d["sets"]:
        for r in s["rows"]:
            names = [
                span_bias._folded(n)
                for n in span_bias.question_names(r["question"])
                if not span_bias._CODE_SHAPED.search(n.strip(".:"))
            ]
            refused = r["no_answer"]
            if names and not refused and r["answer_passage"] and r["probability"] is not None:
                doc = r["answer_passage"].rsplit("#", 1)[0].replace("%2F", "/").replace("%25", "%")
                text = doc_text(s["set"], doc)
                if any(not span_bias._holds(n, text) for n in names) and logit(r["probability"]) + S > 0:
                    refused = True
                    if S == 8 or r["f1"] > 0:
                        print(
                            S,
                            r["id"],
                            r["part"],
                            round(r["f1"], 2),
                            r["question"][:70],
                            [n for n in names if not span_bias._holds(n, text)],
                        )
            o = out.setdefault(r["part"], [0, 0, 0])
            o[0] += 1
            o[1] += 0 if refused else r["f1"]
            o[2] += refused
    print(S, {p: (n, round(100 * f / n, 2), round(100 * a / n, 2)) for p, (n, f, a) in out.items()})
