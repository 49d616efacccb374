"""Cosine of the question to each candidate's line (and to the span with its line) by the shipped encoder."""
import json, sys
import numpy as np
from function.retrieval.encoder import SentenceEncoder
from harness.paths import ENCODER

enc = SentenceEncoder(ENCODER, threads=2)
enc.load()
for part in sys.argv[1:]:
    rows = json.load(open(f"build/oracle/nbest-{part}.json"))
    for r in rows:
        t = r["text"]
        lines = []
        for a in r["cands"][:10]:
            ls = t.rfind("\n", 0, a["start"]) + 1
            le = t.find("\n", a["end"]); le = len(t) if le < 0 else le
            # the span's line and the next non-empty line (an entry's description follows its name)
            nxt = t.find("\n", le + 1); nxt = len(t) if nxt < 0 else nxt
            lines.append(t[ls:nxt].strip()[:300] or a["text"])
        if not lines:
            continue
        E = enc.embed([r["question"]] + lines)
        E = E / np.linalg.norm(E, axis=1, keepdims=True)
        cs = (E[1:] @ E[0]).tolist()
        for a, c in zip(r["cands"][:10], cs):
            a["cos_line"] = c
    json.dump(rows, open(f"build/oracle/nbest-{part}.json", "w"))
    print(part, "done")
