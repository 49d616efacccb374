import json
import sys

rows = json.load(open(sys.argv[1]))
n = len(rows)


def run(part, R=None, P2=None):
    f1 = stopped = 0
    for r in part:
        stop = False
        if r.get("several") and "p" in r:
            lim = min(-8.0, r["t"]) if r["t"] is not None else -8.0
            if r["m"] <= lim:
                if r["p"] >= 0.4:
                    stop = True
                elif (
                    R is not None
                    and len(r["scores"]) > 1
                    and r["scores"][1] > 0
                    and r["scores"][0] >= R * r["scores"][1]
                    and r["p"] >= P2
                ):
                    stop = True
        stopped += stop
        f1 += r["first"] if stop else r["full"]
    return round(f1 / len(part), 2), round(100 * stopped / len(part), 1)


odd, even = rows[1::2], rows[0::2]
print(
    "full read",
    round(sum(r["full"] for r in rows) / n, 2),
    "shipped cascade all",
    run(rows),
    "odd",
    run(odd),
    "even",
    run(even),
)
base_odd = run(odd)[0]
best = None
for R in (1.1, 1.2, 1.3, 1.5, 1.75, 2, 2.5, 3):
    for P2 in (0, 0.1, 0.2, 0.3):
        f, st = run(odd, R, P2)
        ok = f >= base_odd
        print(R, P2, "odd", f, st, "ok" if ok else "")
        if ok and (best is None or st > best[2]):
            best = (R, P2, st)
print("chosen", best)
if best:
    print(
        "even shipped",
        run(even),
        "even variant",
        run(even, best[0], best[1]),
        "all variant",
        run(rows, best[0], best[1]),
    )
