"""RULE2.md's choice from 962debe's replies: python grid2.py [FOLDER] (grid.py's data and simulation)."""
import runpy
from pathlib import Path

g = runpy.run_path(str(Path(__file__).parent / "grid.py"), run_name="grid")
sim, docs, groups = g["sim"], g["docs"], g["groups"]
base_d, base_s, base_t = sim(docs, 0, 0), sim(groups["squad-small"], 0, 0), sim(groups["squad-train"], 0, 0)
print("\nRULE2: pair | docs F1 / abst / off | squad-small | squad-train | objective (F1 in + no answer out) / 2")
best = None
for w in (2, 4, 8, 16, 32):
    for c0 in (0.3, 0.4, 0.5, 0.6, 0.7):
        d, a, t = sim(docs, w, c0), sim(groups["squad-small"], w, c0), sim(groups["squad-train"], w, c0)
        score = (t[0] + t[2]) / 2
        ok = (d[1] <= 5.0 and d[2] >= base_d[2] and d[0] >= base_d[0] - 0.5 and a[0] >= base_s[0] - 0.5
              and t[0] >= base_t[0] - 0.5)
        print((w, c0), d, a, t, round(score, 2), "OK" if ok else "")
        if ok and (best is None or score > best[0]):
            best = (score, w, c0)
print("now", round((base_t[0] + base_t[2]) / 2, 2), "chosen", best)
