"""casc.py [VARIANT]: the cascade decoded offline. Needs captures made with the cascade off (every passage read:
$RUNS/cap-off-{docs,blind}.pkl, capture.py ... --env QA_CASCADE=0); the cascade's stop (may_stop_first, settled) is
decided here from the first passage's rows of those logits, and the answer decoded from those rows alone where it
stops, from every row otherwise. Prints F1 per part and the share of questions stopped."""
import dataclasses, json, os, pickle, sys
sys.path.insert(0, os.getcwd())
import numpy as np
import evaluate as ev
from function.evaluate.scoring import score
from function.model.decode import paragraphs
from function.service import cascade
from function.service.pipeline import QAService, SentenceCosines

RUNS = os.environ.get("RUNS", "/work/s10")
DATA = {}
for name in ("docs", "blind"):
    caps = pickle.load(open(f"{RUNS}/cap-off-{name}.pkl", "rb"))
    rows = {(s["set"], r["id"]): r for s in json.load(open(f"{RUNS}/cap-off-{name}/docs.json"))["sets"] for r in s["rows"]}
    DATA[name] = (caps, rows)


def decode(c, policy):
    req, reading, batch = c["req"], c["reading"], c["batch"]
    start, end = c["start"], c["end"]
    cos = None if c.get("cos_question") is None else SentenceCosines(ev.ENC, c["cos_question"])
    reading = dataclasses.replace(reading, cosines=cos)
    stopped = False
    if len(reading.tokens) > 1 and policy(req, reading):
        n = cascade.first_windows(batch)
        first = batch.rows(slice(0, n))
        threshold = reading.threshold(ev.MODEL.manifest.no_answer)
        blocks = [paragraphs(reading.texts[0], reading.tokens[0].offsets)]
        if cascade.settled(start[:n], end[:n], first, req.max_answer_tokens, threshold, blocks=blocks,
                           lead=reading.lead()):
            batch, start, end, stopped = first, start[:n], end[:n], True
    p = QAService._payload(req, ev.MODEL, reading, batch, start, end)
    from function.evaluate.scoring import answer_text
    return answer_text(p), stopped


def main_policy(req, reading):
    return cascade.may_stop_first(reading.names, req.question,
                                  [(m.get("title"), t) for m, t in zip(reading.meta, reading.texts)])


def never(req, reading):
    return False


def run(policy):
    out = {}
    for name, (caps, rows) in DATA.items():
        for key, r in rows.items():
            c = caps.get((*key, "alone"))
            out[(name, *key)] = ("", False) if c is None else decode(c, policy)
    return out


def parts(out):
    agg = {}
    for (name, s, i), (t, stopped) in out.items():
        r = DATA[name][1][(s, i)]
        a = agg.setdefault("blind" if name == "blind" else r["part"], [0.0, 0, 0])
        a[0] += score(t, r["answers"])[1]; a[1] += 1; a[2] += stopped
    show = os.environ.get("PARTS", "dev").split(",")
    return " ".join(f"{p}:{100 * a[0] / a[1]:.2f} (stopped {a[2]}/{a[1]})" for p, a in sorted(agg.items()) if p in show)


def given_parts():
    """F1 with the right passage given, decoded from the given captures, per part shown (PARTS)."""
    agg = {}
    out = {}
    for name, (caps, rows) in DATA.items():
        for key, r in rows.items():
            c = caps.get((*key, "given"))
            if c is None:
                t = ""
            else:
                cos = None if c.get("cos_question") is None else SentenceCosines(ev.ENC, c["cos_question"])
                reading = dataclasses.replace(c["reading"], cosines=cos)
                from function.evaluate.scoring import answer_text
                t = answer_text(QAService._payload(c["req"], ev.MODEL, reading, c["batch"], c["start"], c["end"]))
            out[(name, *key)] = t
            a = agg.setdefault("blind" if name == "blind" else r["part"], [0.0, 0])
            a[0] += score(t, r["answers"])[1]; a[1] += 1
    show = os.environ.get("PARTS", "dev").split(",")
    print("given", " ".join(f"{p}:{100 * a[0] / a[1]:.2f}" for p, a in sorted(agg.items()) if p in show))
    return out


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "main"
    if what == "owned-off":
        cascade.OWNED = False
        pol = main_policy
    else:
        pol = {"main": main_policy, "never": never}[what]
    out = run(pol)
    print(what, parts(out))
    g = given_parts() if os.environ.get("GIVEN", "1") == "1" else {}
    pickle.dump((out, g), open(f"{RUNS}/casc-{what}{os.environ.get('TAG', '')}.pkl", "wb"))

