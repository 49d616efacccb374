"""make_data2.py: listwise groups for a GPU-trained cross-encoder re-ranker (question, right passage, up to 7 hard
negatives), passages stored once. SQuAD train: BM25's best paragraphs of the same article not holding an answer text.
Generated documentation questions (answerable): BM25's best contexts of the same package not holding the answer,
every package a benchmark or blind set is made from left out. Writes build/ce-gpu/data.json.gz."""
import collections
import glob
import gzip
import json
import math
import os
import random
import re

TOK = re.compile(r"\w+")
STOP = set(
    "the a an of to in is and or for what which does do how by on with as at be it that this from are was".split()
)


def toks(s):
    return [t for t in TOK.findall(s.lower()) if t not in STOP]


class BM25:
    def __init__(self, docs, k1=1.2, b=0.75):
        self.tf = [collections.Counter(toks(d)) for d in docs]
        self.len = [sum(t.values()) for t in self.tf]
        self.avg = sum(self.len) / max(1, len(self.len))
        df = collections.Counter(w for t in self.tf for w in t)
        n = len(docs)
        self.idf = {w: math.log(1 + (n - c + 0.5) / (c + 0.5)) for w, c in df.items()}
        self.k1, self.b = k1, b

    def scores(self, q):
        qs = set(toks(q))
        out = []
        for tf, ln in zip(self.tf, self.len):
            s = 0.0
            for w in qs:
                f = tf.get(w)
                if f:
                    s += self.idf[w] * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * ln / self.avg))
            out.append(s)
        return out


def negatives(bm, docs, q, pos, answers, k=3):
    sc = bm.scores(q)
    order = sorted(range(len(docs)), key=lambda i: -sc[i])
    out = []
    for i in order:
        if i == pos or docs[i] == docs[pos]:
            continue
        if any(a and a.lower() in docs[i].lower() for a in answers):
            continue
        out.append(docs[i])
        if len(out) == k:
            break
    return out


def held_back_names():
    names = set()
    for f in glob.glob("bench/docs_sets/*.json") + glob.glob(os.environ.get("CHECKS", "/work/checks/all") + "/*.json"):
        names |= set(re.findall(r'"name": "([^"]+)"', open(f).read()))
    return names


K = 7


def main():
    passages, index = [], {}

    def pid(text):
        if text not in index:
            index[text] = len(passages)
            passages.append(text)
        return index[text]

    groups = []
    sq = json.load(open("../shared/data/squad/train.json"))["data"]
    for art in sq:
        docs = [p["context"] for p in art["paragraphs"]]
        bm = BM25(docs)
        for i, p in enumerate(art["paragraphs"]):
            for qa in p["qas"]:
                answers = [a["text"] for a in qa["answers"]]
                neg = negatives(bm, docs, qa["question"], i, answers, k=K)
                if neg:
                    groups.append({"src": "squad", "q": qa["question"], "pos": pid(docs[i]),
                                   "neg": [pid(t) for t in neg]})
    print("squad groups", len(groups), flush=True)
    held = held_back_names()
    d = json.load(gzip.open("records/build/sandbox/docs-gpu/docqa-corpus-negatives.json.gz"))
    by_pkg = collections.defaultdict(list)
    for art in d["data"]:
        by_pkg[art["title"].split("/")[0]].append(art)
    print("packages left out:", sorted(p for p in by_pkg if p in held))
    n_docs = 0
    for pkg, arts in sorted(by_pkg.items()):
        if pkg in held:
            continue
        docs = sorted({p["context"] for a in arts for p in a["paragraphs"]})
        if len(docs) < 4:
            continue
        where = {c: i for i, c in enumerate(docs)}
        bm = BM25(docs)
        for a in arts:
            for p in a["paragraphs"]:
                for qa in p["qas"]:
                    if qa.get("is_impossible") or not qa["answers"]:
                        continue
                    answers = [x["text"] for x in qa["answers"]]
                    neg = negatives(bm, docs, qa["question"], where[p["context"]], answers, k=K)
                    if len(neg) >= 3:
                        groups.append({"src": "docs", "pkg": pkg, "q": qa["question"], "pos": pid(p["context"]),
                                       "neg": [pid(t) for t in neg]})
                        n_docs += 1
    print("docs groups", n_docs)
    random.Random(13).shuffle(groups)
    out = {"passages": passages, "groups": groups}
    with gzip.open("build/ce-gpu/data.json.gz", "wt") as f:
        json.dump(out, f)
    print("groups", len(groups), collections.Counter(g["src"] for g in groups), "passages", len(passages),
          "negatives", collections.Counter(len(g["neg"]) for g in groups))


if __name__ == "__main__":
    main()
