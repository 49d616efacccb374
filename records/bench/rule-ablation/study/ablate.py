"""ablate.py: each answer rule of function.model.reader switched off in turn, every captured run decoded again."""
import sys, json
sys.path.insert(0, "/work/study"); sys.path.insert(0, "/work/main")
import proto
from function.evaluate.scoring import score
from function.model import reader, sentence

OFF = {"HEADING": 0.0, "CODE": 0.0, "OPTION": 0.0, "PARAMETER": 0.0, "ENTRY": False, "ENTRY_NEXT_DOOR": False,
       "API_ENTRY": False, "DEFINITION": 0.0, "DEFAULT": 0.0, "RETURN": 0.0, "CONDITION": 0.0, "ALTERNATIVE": 0.0,
       "CHOICE": False, "TYPE": 0.0, "SIGNATURE_VALUE": 0.0, "NAME_PIECES": 0.0}
names = sys.argv[1:] or list(OFF)
before = proto.decode_all()
def f1s(out):
    res = {}
    for k, t in out.items():
        name, s, i, mode = k
        r = proto.DATA[name][1][(s, i)]
        res[k] = score(t, r["answers"])[1]
    return res
b = f1s(before)
json.dump({"|".join(k): v for k, v in b.items()}, open("/work/study/abl-base.json", "w"))
for n in names:
    old = getattr(reader, n)
    setattr(reader, n, OFF[n])
    a = f1s(proto.decode_all())
    setattr(reader, n, old)
    json.dump({"|".join(k): v for k, v in a.items()}, open(f"/work/study/abl-{n}.json", "w"))
    agg = {}
    for k in a:
        name, s, i, mode = k
        r = proto.DATA[name][1][(s, i)]
        grp = "blind" if name == "blind" else ("setuptools" if s == "setuptools" else r["part"])
        g = agg.setdefault(f"{grp}-{mode}", [0, 0, 0, 0, 0])
        g[0] += b[k]; g[1] += a[k]; g[2] += 1; g[3] += a[k] > b[k]; g[4] += a[k] < b[k]
    print(n, " ".join(f"{p}:{100*(g[1]-g[0])/g[2]:+.2f}({g[3]}/{g[4]})" for p, g in sorted(agg.items())), flush=True)
