"""The choice of NO_ANSWER_COSINE_WEIGHT / _AT from the replies of 962debe (RULE.md): python grid.py [FOLDER].

Each pair's decisions are recomputed from the replies: the margin is the reported probability's log-odds (the
artifact's threshold subtracted), the cosine the best of the passages read; a question the pair answers and the
code did not is scored with its never-abstaining answer."""

import gzip
import json
import math
import sys
from pathlib import Path

HERE = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent)


def load(name):
    with gzip.open(HERE / name, "rt") as f:
        return json.load(f)


def logit(p):
    if p is None:
        return None
    if p <= 0:
        return -50.0
    if p >= 1:
        return 50.0
    return math.log(p / (1 - p))


def best_cosine(retrieved):
    found = [x["cosine"] for x in retrieved if x.get("cosine") is not None]
    return max(found) if found else None


def docs_points(rec, bench):
    by_question = {}
    for r in rec:
        by_question.setdefault(r["question"], r)
    points = []
    for s in bench["sets"]:
        for r in s["rows"] + s["off_topic_rows"]:
            c = by_question[r["question"]]
            points.append({"ans": "f1" in r, "m": logit(c["probability"]), "unmatched": bool(c.get("reason")),
                           "c": best_cosine(c["retrieved"]), "f1": r.get("f1", 0.0), "f1n": r.get("f1_never", 0.0)})
    return points


def squad_points(rows):
    return [{"ans": x["in_corpus"], "m": logit(x["probability"]), "unmatched": x["unmatched"],
             "c": best_cosine(x["retrieved"]), "f1": x["f1"], "f1n": x["f1_never"]} for x in rows]


def sim(points, w, c0):
    """(in-corpus F1 %, in-corpus abstained %, out-of-corpus "no answer" %) with the threshold moved by w (c - c0)."""
    f1 = abstained = refused = n_in = n_out = 0
    for x in points:
        m = x["m"]
        now = x["unmatched"] or (m is not None and m > 0)
        shift = w * (x["c"] - c0) if x["c"] is not None else 0.0
        new = x["unmatched"] or (m is not None and m - shift > 0)
        if x["ans"]:
            n_in += 1
            abstained += new
            f1 += 0.0 if new else (x["f1"] if not now else x["f1n"])
        else:
            n_out += 1
            refused += new
    return round(100 * f1 / n_in, 2), round(100 * abstained / n_in, 2), round(100 * refused / n_out, 2)


docs = docs_points(load("replies-docs-dev.json.gz"), load("docs-dev-962debe.json.gz"))
squad = squad_points(load("replies-squad.json.gz"))  # two folds without train.json, then two with it
groups = {"squad-small": squad[: len(squad) // 2], "squad-train": squad[len(squad) // 2 :]}

if __name__ == "__main__":
    for g, points in groups.items():
        ins = sorted(x["c"] for x in points if x["ans"] and x["c"] is not None)
        outs = sorted(x["c"] for x in points if not x["ans"] and x["c"] is not None)

        def q(a, f):
            return round(a[int(f * (len(a) - 1))], 3)

        print(g, "in-corpus cos 5/50%", q(ins, .05), q(ins, .5), "out 50/90%", q(outs, .5), q(outs, .9))
    print("pair | docs F1 / abst / off | squad-small F1 / abst / out | squad-train F1 / abst / out")
    base = (sim(docs, 0, 0), sim(groups["squad-small"], 0, 0), sim(groups["squad-train"], 0, 0))
    print("now", *base)
    for w in (2, 4, 8, 16):
        for c0 in (0.3, 0.4, 0.5, 0.6):
            d, a, b = sim(docs, w, c0), sim(groups["squad-small"], w, c0), sim(groups["squad-train"], w, c0)
            ok = (d[2] >= base[0][2] and a[2] >= base[1][2] - 0.5 and b[2] >= base[2][2] - 0.5
                  and a[0] >= base[1][0] and b[0] >= base[2][0])
            print((w, c0), d, a, b, "OK" if ok else "")
