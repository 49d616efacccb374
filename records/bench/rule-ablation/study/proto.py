"""proto.py: decode every captured run (asked alone and right passage given) with the function as it is and with a
patch, and print the F1 of each part and every answer that moved."""
import json, pickle, re, sys
import numpy as np
sys.path.insert(0, "/work/study")
import evaluate as ev
from function.evaluate.scoring import score
from function.model import reader

def load(name):
    caps = pickle.load(open(f"/work/study/cap-{name}.pkl", "rb"))
    rows = {(s["set"], r["id"]): r for s in json.load(open(f"/work/runs/m-{name}/docs.json"))["sets"] for r in s["rows"]}
    return caps, rows

DATA = {n: load(n) for n in ("docs", "blind")}

def decode_all():
    out = {}
    for name, (caps, rows) in DATA.items():
        for key, r in rows.items():
            for mode in ("alone", "given"):
                c = caps.get((*key, mode))
                if c is None:
                    text = ""
                else:
                    text, _ = ev.decode(c, c["reading"].bias)
                out[(name, *key, mode)] = text
    return out

def report(before, after, parts=None):
    agg = {}
    for k, t in after.items():
        name, s, i, mode = k
        r = DATA[name][1][(s, i)]
        f0, f1 = score(before[k], r["answers"])[1], score(t, r["answers"])[1]
        if parts is not None and (name.startswith("blind") or r["part"] not in parts):
            continue
        part = f"{'blind' if name.startswith('blind') else r['part']}-{mode}"
        a = agg.setdefault(part, [0, 0, 0, 0, 0])
        a[0] += f0; a[1] += f1; a[2] += 1; a[3] += f1 > f0; a[4] += f1 < f0
        if t != before[k]:
            print(f"  {part:12s} {i:22s} {f0:.2f}->{f1:.2f} {before[k][:40]!r} -> {t[:40]!r}  Q={r['question'][:70]!r}")
    for p in sorted(agg):
        a = agg[p]
        print(f"{p:12s} n={a[2]} {100*a[0]/a[2]:.2f} -> {100*a[1]/a[2]:.2f}  up {a[3]} down {a[4]}")
