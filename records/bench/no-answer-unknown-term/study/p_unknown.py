"""Prototype: a question holding a term that no passage of the store holds and that the model's WordPiece vocabulary
does not hold whole (a name the corpus never mentions: "webpack", "memcached") has its "no answer" threshold lowered
by SHIFT (the name signal's 4), decided from the runs' own no-answer probabilities: p' = sigmoid(logit(p) + SHIFT)."""
import argparse, json, math, sys
from pathlib import Path
sys.path.insert(0, "/work/main")
from bench import docs
from function.retrieval.terms import query_terms, terms
from tokenizers import Tokenizer

SHIFT = float(sys.argv[1]) if len(sys.argv) > 1 else 4.0
tok = Tokenizer.from_file("/work/main/artifact/tokenizer.json")

def whole(t):
    return len(tok.encode(t, add_special_tokens=False).tokens) == 1

def set_terms(sets_dir, names=None):
    ns = argparse.Namespace(sets_dir=sets_dir, sets=names, cache=Path("/work/cache/docs-bench"), show=None)
    out = {}
    for docset, folder, files, texts in docs.prepare(ns, say=lambda m: None):
        vocab = set()
        for rel, text in texts.items():
            vocab.update(terms(text)); vocab.update(terms(rel.replace("/", " ").replace("_", " ").replace(".", " ")))
        out[docset["set"]] = vocab
    return out

def unknown(q, vocab):
    return [t for t in query_terms(q) if t not in vocab and not whole(t)]

def adjusted(p, flag):
    if not flag:
        return p > 0.5
    p = min(max(p, 1e-9), 1 - 1e-9)
    return 1 / (1 + math.exp(-(math.log(p / (1 - p)) + SHIFT))) > 0.5

def evaluate(path, vocabs, pooled=False):
    d = json.load(open(path))
    allv = set().union(*vocabs.values()) if pooled else None
    res = {}
    for x in d["sets"]:
        v = allv if pooled else vocabs[x["set"]]
        for r in x["rows"]:
            part = r["part"] if "blind" not in path else "blind"
            g = res.setdefault(part, {"n": 0, "f1": 0, "f1n": 0, "abst": 0, "abstn": 0, "off": 0, "ref": 0, "refn": 0, "moved": []})
            u = unknown(r["question"], v)
            now = r["no_answer"]; new = adjusted(r["probability"], bool(u)) or now
            g["n"] += 1; g["f1"] += r["f1"]; g["f1n"] += 0 if new and not now else r["f1"]
            g["abst"] += now; g["abstn"] += new
            if new != now: g["moved"].append(("ANS", r["id"], r["question"], u, r["f1"]))
        for r in x["off_topic_rows"]:
            part = r["part"] if "blind" not in path else "blind"
            g = res.setdefault(part, {"n": 0, "f1": 0, "f1n": 0, "abst": 0, "abstn": 0, "off": 0, "ref": 0, "refn": 0, "moved": []})
            u = unknown(r["question"], v)
            now = r["no_answer"]; new = adjusted(r["probability"], bool(u)) or now
            g["off"] += 1; g["ref"] += now; g["refn"] += new
            if new != now: g["moved"].append(("OFF", r["id"], r["question"], u))
    for part, g in sorted(res.items()):
        print(f"{path.split('/')[-2]} {part}: answerable {g['n']} F1 {100*g['f1']/g['n']:.2f} -> {100*g['f1n']/g['n']:.2f}, "
              f"abstained {100*g['abst']/g['n']:.1f}% -> {100*g['abstn']/g['n']:.1f}%; off-topic {g['off']} refused "
              f"{100*g['ref']/max(1,g['off']):.1f}% -> {100*g['refn']/max(1,g['off']):.1f}%")
        for m in g["moved"]:
            print("    ", m)

dev_vocabs = set_terms(docs.SETS)
blind_vocabs = set_terms(Path("/work/checks/all"))
evaluate("/work/runs/m-docs/docs.json", dev_vocabs)
evaluate("/work/runs/pooled-dev/docs.json", dev_vocabs, pooled=True)
evaluate("/work/runs/m-blind/docs.json", blind_vocabs)
