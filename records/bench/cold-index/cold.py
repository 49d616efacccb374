"""Study cold-index: first answer of a question asked alone after a cold start, the index opened beside the model's
load or after it (QA_STUDY_INDEX_AFTER=1), eager and lazy load, interleaved.

    PYTHONPATH=. python records/bench/cold-index/cold.py STORE_DIR RUNS OUT.json

STORE_DIR: a `make run DOCS=...` store folder (passages.sqlite and index.lance).
"""

import json
import sys
from pathlib import Path

from bench.cold_start import profile
from bench.contenders import base_env, ours

store, runs, out = Path(sys.argv[1]).resolve(), int(sys.argv[2]), Path(sys.argv[3])
cases = {}
for load in ("eager", "lazy"):
    env = {**base_env(store / "passages.sqlite", load=load), "QA_INDEX_URI": str(store / "index.lance"),
           "QA_INDEX_ENCODER": str(Path("encoder").resolve())}
    cases[f"{load} beside"] = env
    cases[f"{load} after"] = {**env, "QA_STUDY_INDEX_AFTER": "1"}
contender = ours(Path("artifact").resolve())
result = profile({name: (contender, env) for name, env in cases.items()}, {"question": "How do I install express?"},
                 runs)
for name, r in result.items():
    first = r["summary"]["first_answer_ms"]
    answers = {x["answer"] for x in r["runs"]}
    retrieve = sorted(x["server_timings_ms"].get("retrieve", 0) for x in r["runs"])[len(r["runs"]) // 2]
    print(f"{name}: first answer median {first['median']:.0f} ms (min {first['min']:.0f}, max {first['max']:.0f}), "
          f"retrieve median {retrieve:.0f} ms, answers {answers}")
out.write_text(json.dumps(result, indent=2) + "\n")
