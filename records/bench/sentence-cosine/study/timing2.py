"""timing2.py OUT bench-cascade-args...: `python -m bench cascade` recording every question alone's timings_ms."""
import json, sys
import numpy as np
sys.path.insert(0, ".")
import bench.cascade as bc
from function.service import pipeline

T = []
orig = pipeline.QAService.answer

def answer(self, req):
    r = orig(self, req)
    if req.retrieves:
        T.append({**r.timings_ms, "read": r.passages_read, "cascade": self.rt.settings.cascade})
    return r

pipeline.QAService.answer = answer
rc = bc.main(sys.argv[2:])
json.dump(T, open(sys.argv[1], "w"))
for on in (False, True):
    t = [x for x in T if x["cascade"] == on]
    if not t: continue
    s = np.array([x.get("sentences", 0.0) for x in t]); tot = np.array([x["total"] for x in t])
    print(f"cascade {on}: {len(t)} questions; sentences ms p50 {np.percentile(s, 50):.2f} p90 {np.percentile(s, 90):.2f} "
          f"mean {s.mean():.2f}; total p50 {np.percentile(tot, 50):.2f} p90 {np.percentile(tot, 90):.2f}; "
          f"sentences / total p50 {np.percentile(s / tot, 50):.3f}")
