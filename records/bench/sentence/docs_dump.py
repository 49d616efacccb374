"""Study dump: every candidate list the function's reader ranks by sentence during `python -m bench docs --part dev`
(before that ranking), with the mode it was asked in (alone, never abstaining, right passage given).
PYTHONPATH=. python records/bench/sentence/docs_dump.py build/sentence/docs-cands.json   (~2 min)"""
import json
import sys

import bench.docs as D
import function.model.reader as R

RECORDS = []
STATE = {"mode": None}
_ask, _by_sentence = D._ask, R._by_sentence


def ask(service, question, ids, abstain):
    STATE["mode"] = "given" if ids else "alone" if abstain is None else "never"
    return _ask(service, question, ids, abstain)


def by_sentence(found, question, texts, weight):
    RECORDS.append({"q": question, "mode": STATE["mode"], "t": list(texts),
                    "c": [[a.passage, a.start, a.end, a.score] for a in found]})
    return _by_sentence(found, question, texts, weight)


if __name__ == "__main__":
    D._ask, R._by_sentence = ask, by_sentence
    D.main(["--part", "dev", "--out", sys.argv[1] + ".d"])
    with open(sys.argv[1], "w") as f:
        json.dump(RECORDS, f)
