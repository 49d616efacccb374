"""prof.py RUNS [N]: time QAService._payload over N captured docs questions asked alone (every passage read); cProfile with PROF=1."""
import pickle, sys, os, dataclasses, time, statistics
sys.path.insert(0, os.getcwd()); sys.path.insert(0, "/work/study")
import evaluate as ev
from function.service.pipeline import QAService, SentenceCosines
runs = sys.argv[1]; n = int(sys.argv[2]) if len(sys.argv) > 2 else 300
caps = pickle.load(open(f"{runs}/cap-off-docs.pkl", "rb"))
items = [c for k, c in sorted(caps.items(), key=lambda kv: kv[0]) if k[2] == "alone"][:n]
def one(c):
    cos = None if c.get("cos_question") is None else SentenceCosines(ev.ENC, c["cos_question"])
    reading = dataclasses.replace(c["reading"], cosines=cos)
    return QAService._payload(c["req"], ev.MODEL, reading, c["batch"], c["start"], c["end"])
for c in items: one(c)  # warm: embeddings memoised
if os.environ.get("PROF"):
    import cProfile, pstats
    pr = cProfile.Profile(); pr.enable()
    for c in items: one(c)
    pr.disable(); pstats.Stats(pr).sort_stats("cumulative").print_stats(45)
else:
    ts = []
    for rep in range(3):
        for c in items:
            t0 = time.perf_counter(); one(c); ts.append((time.perf_counter() - t0) * 1000)
    ts.sort()
    print(f"n={len(items)} median {statistics.median(ts):.2f} ms p90 {ts[int(len(ts)*0.9)]:.2f} mean {statistics.mean(ts):.2f}")
