"""Study: would "a name the question gives is in none of the passages read" help "no answer"? Reads the replies
collect.py wrote into build/nm/ (pooled-dev.json, apart-dev.json and their bench outputs; squad.json)."""
import json
import math
import re
from collections import defaultdict, deque

TOKEN = re.compile(r"[A-Za-z0-9_][\w.:+#-]*[\w+#]|[A-Za-z0-9]")
COMMON = {"I", "A", "An", "The", "In", "On", "If", "Is", "Does", "Do", "Can", "How", "What", "Which", "When", "Where",
          "Who", "Why"}


def names(question, kind):
    toks = TOKEN.findall(question)
    out = []
    for i, t in enumerate(toks):
        if t in COMMON:
            continue
        inner_upper = any(c.isupper() for c in t[1:])
        ident = any(c in t for c in "_.:#+") or any(c.isdigit() for c in t)
        cap = t[0].isupper() and i > 0
        if kind == "ident" and (inner_upper or ident):
            out.append(t)
        elif kind == "cap" and (inner_upper or ident or cap):
            out.append(t)
    return out


def missing(rec, kind, first_only=False):
    ps = [p for p in (rec["passages"] or []) if p]
    if first_only:
        ps = ps[:1]
    if not ps:
        return False
    hay = " ".join((t + " " + x) for t, x in ps).casefold()
    return any(n.casefold().strip(".:") not in hay for n in names(rec["question"], kind))


def logit(p):
    p = min(max(p, 1e-7), 1 - 1e-7)
    return math.log(p / (1 - p))


def decide(rec, kind, shift, first_only=False):
    """abstain? with the extra shift toward abstention where a name is missing"""
    if rec.get("reason"):
        return True
    if rec["probability"] is None:
        return bool(rec["abstained"])
    extra = shift if (kind and missing(rec, kind, first_only)) else 0.0
    return logit(rec["probability"]) + extra > 0


def docs_rows(recs_path, bench_json):
    recs = json.load(open(recs_path))
    b = json.load(open(bench_json))
    q = defaultdict(deque)
    for r in recs:
        q[r["question"]].append(r)
    ans, off = [], []
    for s in b["sets"]:
        for row in s["rows"]:
            if row["part"] == "dev" and q[row["question"]]:
                ans.append((row, q[row["question"]].popleft()))
        for row in s["off_topic_rows"]:
            if row["part"] == "dev" and q[row["question"]]:
                off.append((row, q[row["question"]].popleft()))
    return ans, off


def docs_figures(ans, off, kind, shift, first_only=False):
    f1 = abst = 0
    for row, r in ans:
        a = decide(r, kind, shift, first_only)
        abst += a
        f1 += 0 if a else row["f1_never"]
    refused = sum(decide(r, kind, shift, first_only) for _, r in off)
    return f"F1 {100 * f1 / len(ans):.1f} abst {100 * abst / len(ans):.1f}% off {100 * refused / len(off):.1f}%"


def squad_figures(recs, kind, shift, first_only=False):
    inc = [r for r in recs if r["in_corpus"]]
    out = [r for r in recs if not r["in_corpus"]]
    f1 = sum(0 if decide(r, kind, shift, first_only) else r["f1_never"] for r in inc)
    ab = sum(decide(r, kind, shift, first_only) for r in inc)
    ref = sum(decide(r, kind, shift, first_only) for r in out)
    return f"in F1 {100 * f1 / len(inc):.2f} abst {100 * ab / len(inc):.1f}% out {100 * ref / len(out):.1f}%"


if __name__ == "__main__":
    sets = {}
    for name in ("pooled", "apart"):
        try:
            sets[name] = docs_rows(f"build/nm/{name}-dev.json", f"build/nm/{name}-dev/docs.json")
        except FileNotFoundError:
            pass
    try:
        squad = json.load(open("build/nm/squad.json"))
    except FileNotFoundError:
        squad = None
    for kind in (None, "ident", "cap"):
        for first_only in (False, True):
            for shift in ((0,) if kind is None else (2, 4, 8, 100)):
                if kind is None and first_only:
                    continue
                line = f"{kind or 'today':6} {'first' if first_only else 'any5 '} +{shift:<4}"
                for name, (ans, off) in sets.items():
                    line += f" | {name}: " + docs_figures(ans, off, kind, shift, first_only)
                if squad:
                    line += " | squad: " + squad_figures(squad, kind, shift, first_only)
                print(line)
