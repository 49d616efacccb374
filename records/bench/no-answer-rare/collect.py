"""Study (not kept): per question asked alone, the reply's no-answer probability and the passages it read (title,
text), and the store's document frequency of each of the question's terms (the SQLite store's FTS5 vocabulary), through
bench.docs or bench.out_of_corpus unchanged (no-answer-names' collect.py, with ``df``).
PYTHONPATH=. python records/bench/no-answer-rare/collect.py docs|squad OUT.json BENCH-ARGS..."""
import json
import sys


def texts(service, retrieved):
    ids = [r["passage_id"] for r in retrieved]
    got = service.rt.store().get_many(ids) if ids else {}
    return [[got[i].title or "", got[i].text] if i in got else None for i in ids]


def record(service, question, payload):
    na = payload.get("no_answer") or {}
    retrieved = payload.get("retrieved", [])
    return {"question": question, "probability": na.get("probability"), "abstained": na.get("abstained"),
            "reason": na.get("reason"), "cosines": [r.get("cosine") for r in retrieved],
            "ids": [r["passage_id"] for r in retrieved], "passages": texts(service, retrieved),
            "answer": (payload.get("answers") or [{}])[0].get("text"), "df": df(service, question)}


def df(service, question):
    from function.retrieval.terms import query_terms
    index = getattr(service.rt.store(), "index", None)
    if index is None or not hasattr(index, "stats"):
        return None
    st = index.stats(query_terms(question))
    return {"n": st["passages"], "df": st["df"]}


mode, out, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
rec = []
if mode == "docs":
    import bench.docs as D
    _orig = D._ask

    def _ask(service, question, ids, abstain):
        payload, ms = _orig(service, question, ids, abstain)
        if ids is None and abstain is None:
            rec.append(record(service, question, payload))
        return payload, ms
    D._ask = _ask
    rc = D.main(rest)
else:
    import bench.out_of_corpus as O
    _orig_row, _orig_ask = O.row, O.ask
    last = {}

    def ask(service, question, k, abstain):
        payload = _orig_ask(service, question, k, abstain)
        if abstain:
            last["on"] = (question, payload)
        return payload

    def row(service, q, in_corpus, k):
        r = _orig_row(service, q, in_corpus, k)
        question, payload = last["on"]
        rec.append({**r, **record(service, question, payload), "in_corpus": in_corpus})
        return r
    O.row, O.ask = row, ask
    rc = O.main(rest)
json.dump(rec, open(out, "w"))
sys.exit(rc)
