"""The docs-rst study set: the `requests` set's questions asked of its reStructuredText sources (`_sources/*.rst.txt`).

    python records/bench/docs-rst/make_set.py    # writes build/requests-rst.json (fetch the requests set first)

A question is kept where its page has a source and the docutils reading holds a gold form (and its evidence) verbatim.
"""

import json
import os
import sys

sys.path.insert(0, os.getcwd())
from function.ingest.extract import extract  # noqa: E402

SET = "bench/docs_sets/requests.json"
ROOT = ("build/docs-bench/packages/debian/python-requests-doc_2.28.1+dfsg-1/usr/share/doc/python-requests-doc/"
        "html/")


def norm(text: str) -> str:
    return " ".join(text.split())


def main() -> None:
    d = json.load(open(SET))
    keep, drop, cache = [], [], {}
    for q in d["questions"]:
        rel = q["file"].split("/", 1)[1]
        src = ROOT + "_sources/" + rel[:-5] + ".rst.txt"
        if not os.path.exists(src):
            drop.append((q["id"], "no source"))
            continue
        if src not in cache:
            cache[src] = norm(extract(os.path.basename(src), open(src, "rb").read()).text)
        forms = [a for a in q["answers"] if norm(a) in cache[src]]
        if not forms or (q.get("evidence") and norm(q["evidence"]) not in cache[src]):
            drop.append((q["id"], rel))
            continue
        keep.append(dict(q, file="python-requests-doc/_sources/" + rel[:-5] + ".rst.txt", answers=forms,
                         id=q["id"].replace("requests-", "requests-rst-")))
    print(len(keep), "kept", len(drop), "dropped", sum(q["part"] == "dev" for q in keep), "dev")
    off = [dict(o, id=o["id"].replace("requests-", "requests-rst-")) for o in d["off_topic"]]
    out = {"set": "requests-rst", "generator": "rst",
           "description": "study only: requests' questions asked of its reStructuredText sources "
                          "(Sphinx's _sources/*.rst.txt)",
           "source": {"kind": "debian", "packages": [{"name": "python-requests-doc", "version": "2.28.1+dfsg-1",
                                                      "root": "usr/share/doc/python-requests-doc/html",
                                                      "include": ["_sources/*.rst.txt"]}]},
           "questions": keep, "off_topic": off}
    json.dump(out, open("build/requests-rst.json", "w"), indent=1)


if __name__ == "__main__":
    main()
