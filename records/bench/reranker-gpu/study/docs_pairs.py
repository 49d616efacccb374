"""docs_pairs.py: the passages each captured documentation question asked alone read (where the reader chose among
several), for scoring by re-rankers elsewhere. Writes /work/ce2/docs-pairs.json."""
import json
import sys

sys.path.insert(0, "/work/study")
import evaluate as ev  # noqa: E402

out = []
for name in ("docs", "blind"):
    caps, rows = ev.load(name)
    for key, row in rows.items():
        c = caps.get((*key, "alone"))
        if c is None:
            continue
        rd = c["reading"]
        if not c["stopped"] and len(rd.tokens) > 1 and not row["no_answer"]:
            out.append({"key": name + ":" + json.dumps(list(key)), "q": c["req"].question, "texts": list(rd.texts)})
json.dump(out, open("/work/ce2/docs-pairs.json", "w"))
print(len(out))
