"""capture.py NAME bench-docs-args...: runs `python -m bench docs` capturing, for every question asked alone with the
defaults, the model run the answer was decoded from (reading, batch, logits, whether the cascade stopped), so that
other span rankings can be decoded offline from the same logits. Writes $RUNS/cap-NAME.pkl."""
import pickle
import sys

import os; sys.path.insert(0, os.getcwd())
import bench.docs as docs  # noqa: E402
from function.service import pipeline  # noqa: E402

CAP, CUR = {}, [None]
orig_payload = pipeline.QAService._payload
orig_run = pipeline.QAService._run
orig_ask = docs.ask_question
LAST = {}


def run(self, req, model, reading, batch):
    out = orig_run(self, req, model, reading, batch)
    LAST["stopped"] = len(out[0]) < len(batch)
    return out


def payload(req, model, reading, batch, start, end):
    mode = None
    if CUR[0] is not None and req.abstain is None and req.passage_ids is None and req.context is None:
        mode = "alone"
    elif CUR[0] is not None and req.passage_ids is not None and req.abstain is False:
        mode = "given"
    if mode is not None:
        import dataclasses
        question = None if reading.cosines is None else reading.cosines.question
        CAP[(*CUR[0], mode)] = {"req": req, "reading": dataclasses.replace(reading, cosines=None), "batch": batch,
                                "start": start, "end": end, "stopped": LAST.get("stopped"), "cos_question": question}
    return orig_payload(req, model, reading, batch, start, end)


def ask(service, q, passages):
    CUR[0] = (q["set"], q["id"])
    try:
        return orig_ask(service, q, passages)
    finally:
        CUR[0] = None


pipeline.QAService._run = run
pipeline.QAService._payload = staticmethod(payload)
docs.ask_question = ask
name = sys.argv[1]
rc = docs.main(sys.argv[2:])
with open(os.environ.get("RUNS", "/work/s2") + f"/cap-{name}.pkl", "wb") as f:
    pickle.dump(CAP, f)
print("captured", len(CAP), "rc", rc)
