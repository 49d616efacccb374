"""diff.py A.pkl B.pkl: questions whose answers differ between two casc.py outputs, with F1 each way."""
import pickle, json, sys
from collections import defaultdict
sys.path.insert(0, "/work/r-base")
from function.evaluate.scoring import score
A, B = (pickle.load(open(p, "rb")) for p in sys.argv[1:3])
rows = {}
for name in ("docs", "blind"):
    for s in json.load(open(f"/work/s13/cap-off-{name}/docs.json"))["sets"]:
        for r in s["rows"]:
            rows[(name, s["set"], r["id"])] = r
show = set((sys.argv[3] if len(sys.argv) > 3 else "dev").split(","))
for mode, i in (("alone", 0), ("given", 1)):
    tot = defaultdict(float)
    for k in A[i]:
        a = A[i][k][0] if mode == "alone" else A[i][k]
        b = B[i][k][0] if mode == "alone" else B[i][k]
        r = rows[k]; part = "blind" if k[0] == "blind" else r["part"]
        if a != b:
            fa, fb = score(a, r["answers"])[1], score(b, r["answers"])[1]
            tot[part] += fb - fa
            if part in show:
                print(mode, part, k[2], f"{fa:.2f}->{fb:.2f}", repr(r["question"][:70]), repr(a[:50]), "->", repr(b[:50]), "gold", repr(r["answers"][0][:40]))
    print(mode, {p: round(v, 2) for p, v in tot.items() if p in show})
