"""show.py RUNS NAME ID [mode]: a captured question's passages (texts) and the decoded answer."""
import pickle, sys, os
sys.path.insert(0, os.getcwd())
runs, name, qid = sys.argv[1:4]
mode = sys.argv[4] if len(sys.argv) > 4 else "given"
caps = pickle.load(open(f"{runs}/cap-off-{name}.pkl", "rb"))
for k, c in caps.items():
    if k[1] == qid and k[2] == mode:
        print(k, c["req"].question)
        for i, t in enumerate(c["reading"].texts):
            print(f"--- passage {i} title={c['reading'].meta[i].get('title')!r}")
            print(t)
