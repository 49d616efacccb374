"""tune.py [base|search|eval NAME=VALUE...]: the reader's rule weights decoded offline over captured runs.

base   : F1 per part with the weights as they are
search : coordinate search on the dev part (alone + given), each weight x {0, 0.5, 1.5, 2, 3}, two rounds; a move
         kept only if the dev objective rises by at least MIN_GAIN points
eval   : every part with the weights given (NAME=VALUE, module reader or sentence)
"""
import json
import os
import pickle
import sys

sys.path.insert(0, "/work/study")
sys.path.insert(0, os.getcwd())
import numpy as np  # noqa: E402

import evaluate as ev  # noqa: E402
from function.evaluate.scoring import score  # noqa: E402
from function.model import reader, sentence  # noqa: E402

RUNS = os.environ.get("RUNS", "/work/s2")
WEIGHTS = [("reader", n) for n in ("HEADING", "CODE", "OPTION", "PARAMETER", "ENTRY_MEANING", "DEFINITION", "DEFAULT",
                                   "RETURN", "CONDITION", "MEANS", "ALTERNATIVE", "TYPE", "SIGNATURE_VALUE", "PROJECT",
                                   "NAME_PIECES", "CALL_PARAMETER", "FILE_NAME", "SENTENCE_COSINE")] + [("sentence", "ECHO")]
MODS = {"reader": reader, "sentence": sentence}
FACTORS = (0.0, 0.5, 1.5, 2.0, 3.0)
MIN_GAIN = float(os.environ.get("MIN_GAIN", "0.15"))


def load(name):
    caps = pickle.load(open(f"{RUNS}/cap-{name}.pkl", "rb"))
    rows = {(s["set"], r["id"]): r for s in json.load(open(f"{RUNS}/cap-{name}/docs.json"))["sets"] for r in s["rows"]}
    return caps, rows


DATA = {n: load(n) for n in ("docs", "blind")}


def decode_all():
    out = {}
    for name, (caps, rows) in DATA.items():
        for key, r in rows.items():
            for mode in ("alone", "given"):
                c = caps.get((*key, mode))
                out[(name, *key, mode)] = "" if c is None else ev.decode(c, c["reading"].bias)[0]
    return out


def parts(out):
    agg = {}
    for k, t in out.items():
        name, s, i, mode = k
        r = DATA[name][1][(s, i)]
        part = f"{'blind' if name == 'blind' else r['part']}-{mode}"
        a = agg.setdefault(part, [0.0, 0])
        a[0] += score(t, r["answers"])[1]
        a[1] += 1
    return {p: 100 * a[0] / a[1] for p, a in agg.items()}


def objective(p):
    return (p["dev-alone"] + p["dev-given"]) / 2


def show(label, p):
    print(label, " ".join(f"{k}:{v:.2f}" for k, v in sorted(p.items())), flush=True)


def moves(before, after):
    for k in sorted(after):
        if after[k] != before[k]:
            name, s, i, mode = k
            r = DATA[name][1][(s, i)]
            f0, f1 = score(before[k], r["answers"])[1], score(after[k], r["answers"])[1]
            part = "blind" if name == "blind" else r["part"]
            print(f"  {part:5s} {mode:5s} {i:22s} {f0:.2f}->{f1:.2f} {before[k][:40]!r} -> {after[k][:40]!r}"
                  f" | {r['question'][:70]}")


def main(argv):
    what = argv[0] if argv else "base"
    if what == "eval":
        before = decode_all()
        show("default", parts(before))
    for kv in argv[1:]:
        n, v = kv.split("=")
        mod = "sentence" if n == "ECHO" else "reader"
        try:
            val = float(v)
        except ValueError:
            val = v
        setattr(MODS[mod], n, val)
    out = decode_all()
    base = parts(out)
    show("base", base)
    if what == "eval":
        moves(before, out)
    if what != "search":
        return
    best = objective(base)
    for rnd in range(2):
        moved = False
        for mod, n in WEIGHTS:
            orig = getattr(MODS[mod], n)
            if not orig:
                continue
            tried = {}
            for f in FACTORS:
                setattr(MODS[mod], n, orig * f)
                p = parts(decode_all())
                tried[f] = p
                print(f"  round {rnd} {n}={orig * f:g}: dev {objective(p):.2f} (alone {p['dev-alone']:.2f} given "
                      f"{p['dev-given']:.2f}) test {p['test-alone']:.2f}/{p['test-given']:.2f} blind "
                      f"{p['blind-alone']:.2f}/{p['blind-given']:.2f}", flush=True)
            f_best = max(tried, key=lambda f: objective(tried[f]))
            if objective(tried[f_best]) >= best + MIN_GAIN:
                best = objective(tried[f_best])
                setattr(MODS[mod], n, orig * f_best)
                moved = True
                print(f"MOVE {n} {orig:g} -> {orig * f_best:g}: dev objective {best:.2f}", flush=True)
            else:
                setattr(MODS[mod], n, orig)
        if not moved:
            break
    final = {n: getattr(MODS[m], n) for m, n in WEIGHTS}
    print("FINAL", json.dumps(final))
    show("final", parts(decode_all()))


if __name__ == "__main__":
    main(sys.argv[1:])
