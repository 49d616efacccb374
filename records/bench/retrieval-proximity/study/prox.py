"""Offline: rerank captured hits by a proximity feature; recall@5 per part."""
import gzip, json, math, re, sys, collections
sys.path.insert(0, "/work/main")
from function.retrieval.terms import search_terms, terms as tterms
from function.service.pipeline import _collapsed

cap = json.load(gzip.open(sys.argv[1], "rt"))
N = int(sys.argv[2]) if len(sys.argv) > 2 else 20

def norm_t(t):
    return t[:-1] if len(t) > 3 and t.endswith("s") and not t.endswith("ss") else t

def lines_of(text):
    return [l for l in text.split("\n") if l.strip()]

def prox(qt, weights, text, span=2):
    ls = [set(norm_t(t) for t in tterms(l)) for l in lines_of(text)]
    tot = sum(weights[t] for t in qt) or 1.0
    best = 0.0
    for i in range(len(ls)):
        s = set().union(*ls[i:i + span])
        best = max(best, sum(weights[t] for t in qt if t in s) / tot)
    return best

def distinct5(hits):
    seen, out = set(), []
    for h in hits:
        c = _collapsed(h[5])
        if c in seen:
            continue
        seen.add(c); out.append(h)
        if len(out) == 5:
            break
    return out

def run(lam, span=2, idf=True):
    res = collections.defaultdict(lambda: [0, 0])
    for s, rows in cap.items():
        for r in rows:
            if r["kind"] != "q":
                continue
            hits = r["hits"][:N]
            if not hits:
                res[r["part"]][1] += 1; continue
            qt = sorted(set(norm_t(t) for t in search_terms(r["question"])))
            sets = [set(norm_t(t) for t in tterms(h[4] + "\n" + h[5])) for h in hits]
            w = {t: (math.log((len(hits) + 1) / (1 + sum(t in x for x in sets))) if idf else 1.0) for t in qt}
            top = max(h[1] for h in hits) or 1.0
            sc = [h[1] / top + lam * prox(qt, w, h[5], span) for h in hits]
            order = [h for _, h in sorted(zip(sc, hits), key=lambda x: -x[0])] + r["hits"][N:]
            ok = any(h[6] for h in distinct5(order))
            res[r["part"]][0] += ok; res[r["part"]][1] += 1
    return {p: (a, b, round(a / b, 4)) for p, (a, b) in res.items()}

if __name__ == "__main__":
    print("base", run(0.0))
    for span in (1, 2, 3):
        for lam in (0.05, 0.1, 0.2, 0.3, 0.5):
            print(span, lam, run(lam, span))
