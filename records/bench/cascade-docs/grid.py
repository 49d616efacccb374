"""The cascade's decision at every (least span probability P, largest margin M, least lead L) applied to the dumped
rows: F1 asked alone and the share stopped after one passage, on the documentation dev part (``dump_docs.py``'s two
runs) and on SQuAD dev (``dump_squad.py``). Usage: python records/bench/cascade-docs/grid.py FIRST-DIR FULL-DIR
FIRST.json SQUAD.json"""

import json
import math
import sys

first_dir, full_dir, stats_path, squad_path = sys.argv[1:5]
PS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01)
MS = (math.inf, -4.0, -6.0, -8.0, -10.0, -12.0)
LS = (1.1, 1.2, 1.3, 1.5, 2.0, math.inf)


def rows_of(folder):
    d = json.load(open(f"{folder}/docs.json"))
    return ({r["id"]: r for s in d["sets"] for r in s["rows"]},
            {r["id"]: r for s in d["sets"] for r in s["off_topic_rows"]})


first, first_off = rows_of(first_dir)
full, full_off = rows_of(full_dir)
stats = json.load(open(stats_path))
squad = json.load(open(squad_path))


def stops(st, p, m, lead):
    if not st or "p" not in st:
        return None  # one passage read: nothing to decide
    limit = m if st["t"] is None else min(m, st["t"])
    return (st["p"] >= p or (st["lead"] is not None and st["lead"] >= lead)) and st["m"] <= limit


def docs_figures(p, m, lead):
    f1, n, stopped, asked = 0.0, 0, 0, 0
    for k, r in full.items():
        s = stops(stats.get(r["question"]), p, m, lead)
        row = first[k] if s else r
        f1 += row["f1"]
        n += 1
        stopped += bool(s)
        asked += s is not None
    refused = sum((first_off[k] if stops(stats.get(r["question"]), p, m, lead) else r)["no_answer"]
                  for k, r in full_off.items())
    return 100 * f1 / n, 100 * stopped / max(asked, 1), 100 * refused / len(full_off)


def squad_figures(p, m, lead):
    f1 = stopped = 0.0
    for r in squad:
        s = stops(r if r["several"] else None, p, m, lead)
        f1 += r["first"] if s else r["full"]
        stopped += bool(s)
    return f1 / len(squad), 100 * stopped / len(squad)  # f1_of is on a 0-100 scale


print("P M L | docs dev F1, stopped %, off-topic refused % | SQuAD dev F1, stopped %")
for p in PS:
    for m in MS:
        for lead in LS:
            d, ds, do = docs_figures(p, m, lead)
            q, qs = squad_figures(p, m, lead)
            mark = " <- shipped" if (p, m, lead) == (0.4, -8.0, 1.3) else ""
            print(f"{p:.2f} {m:6.1f} {lead:4.1f} | {d:6.2f} {ds:5.1f} {do:5.1f} | {q:6.2f} {qs:5.1f}{mark}")
print(f"read all: docs {sum(r['f1'] for r in full.values()) * 100 / len(full):.2f}, "
      f"squad {sum(r['full'] for r in squad) / len(squad):.2f}; first alone: docs "
      f"{sum(r['f1'] for r in first.values()) * 100 / len(first):.2f}, "
      f"squad {sum(r['first'] for r in squad) / len(squad):.2f}")
