"""cmp.py A/docs.json B/docs.json [part]: F1 asked alone / right passage / never abstaining per part, and moved answers."""
import json, sys
def rows(p):
    return {(s["set"], r["id"]): r for s in json.load(open(p))["sets"] for r in s["rows"]}
a, b = rows(sys.argv[1]), rows(sys.argv[2]); part = sys.argv[3] if len(sys.argv) > 3 else None
keys = [k for k in b if k in a and (part is None or b[k]["part"] == part)]
for f in ("f1", "f1_given", "f1_never"):
    x = 100 * sum(a[k][f] for k in keys) / len(keys); y = 100 * sum(b[k][f] for k in keys) / len(keys)
    up = sum(b[k][f] > a[k][f] for k in keys); dn = sum(b[k][f] < a[k][f] for k in keys)
    print(f"{f:9s} n={len(keys)} {x:.2f} -> {y:.2f} ({y - x:+.2f}; up {up}, down {dn})")
ab = sum(a[k]["no_answer"] for k in keys); bb = sum(b[k]["no_answer"] for k in keys)
print("abstained answerable", ab, "->", bb)
