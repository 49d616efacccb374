import json, sys
import numpy as np
for name in ("docs", "blind"):
    t = json.load(open(f"/work/study/table-{name}.json"))
    for part in ("dev", "test"):
        rows = [r for r in t if r["part"] == part]
        if not rows: continue
        full = [r for r in rows if r["per"]]
        N = len(rows)
        cur = sum(r["f1"] for r in rows)
        def tot(choose):
            return sum((r["per"][choose(r)]["f1"] if r["per"] else r["f1"]) for r in rows)
        oracle = tot(lambda r: int(np.argmax([p["f1"] for p in r["per"]])))
        first = tot(lambda r: 0)
        print(f"{name} {part}: N={N} full-read={len(full)} current {100*cur/N:.2f} first-passage {100*first/N:.2f} oracle {100*oracle/N:.2f}")
        # how current choice compares among full reads
        chosen0 = sum(1 for r in full if r["per"] and r["per"][0]["answer"] == r["answer"])
        print("   full reads answering as passage 0 would:", chosen0, "of", len(full))
