"""Study (not kept): would "a word of the question that no passage of the store holds" help "no answer"? Reads the
replies collect.py wrote (build/nl/pooled-dev.json, build/nl/apart-dev.json and their bench outputs).
PYTHONPATH=. python records/bench/no-answer-rare/analyse.py"""
import json
import math
from collections import defaultdict, deque

from function.retrieval.terms import terms

# off-topic questions of the dev part that another set of the store answers (answered_in, bench/docs_sets)
ELSEWHERE = {"Which axios option sets the base URL for all requests?", "What does git rebase do?",
             "Which git command lists the branches of a repository?", "How do I sign my git commits with a GPG key?",
             "Which npm command installs a package as a development dependency?",
             "Which flag makes npm install save a package as a dev dependency?"}


def logit(p):
    p = min(max(p, 1e-7), 1 - 1e-7)
    return math.log(p / (1 - p))


def rows(recs_path, bench_json, part="dev"):
    recs = json.load(open(recs_path))
    b = json.load(open(bench_json))
    q = defaultdict(deque)
    for r in recs:
        q[r["question"]].append(r)
    ans, off = [], []
    for s in b["sets"]:
        for row in s["rows"]:
            if row["part"] == part and q[row["question"]]:
                ans.append((row, q[row["question"]].popleft()))
        for row in s["off_topic_rows"]:
            if row["part"] == part and q[row["question"]]:
                off.append((row, q[row["question"]].popleft()))
    return ans, off


def missing(r, most_df=0):
    """The question's terms that at most ``most_df`` passages of the store hold and none of the passages read."""
    if not r.get("df") or not r["passages"]:
        return []
    held = set()
    for p in r["passages"]:
        if p:
            held.update(terms(p[0] + " " + p[1]))
    return [t for t, d in r["df"]["df"].items() if d <= most_df and t not in held]


def decide(r, extra=0.0):
    if r.get("reason"):
        return True
    if r["probability"] is None:
        return bool(r["abstained"])
    return logit(r["probability"]) + extra > 0


if __name__ == "__main__":
    for name in ("pooled", "apart"):
        ans, off = rows(f"build/nl/{name}-dev.json", f"build/nl/{name}-dev/docs.json")
        off = [(row, r) for row, r in off if not (name == "pooled" and r["question"] in ELSEWHERE)]
        print(f"## {name}: {len(ans)} answerable, {len(off)} off-topic; {ans[0][1]['df']['n']} passages (first store)")
        for most_df in (0, 1, 3, 5, 10, 20, 50):
            a = [r for _, r in ans if missing(r, most_df)]
            o = [r for _, r in off if missing(r, most_df)]
            print(f"df <= {most_df:2}: answerable {len(a):3} (answered today {sum(not decide(r) for r in a):3}), "
                  f"off-topic {len(o):3} (answered today {sum(not decide(r) for r in o)})")
        for shift in (0, 2, 4, 8, 100):
            def verdict(r, shift=shift):
                return decide(r, shift if missing(r) else 0.0)
            ab = sum(verdict(r) for _, r in ans)
            f1 = sum(0 if verdict(r) else row["f1_never"] for row, r in ans)
            ref = sum(verdict(r) for _, r in off)
            print(f"shift {shift:3} where a word is in no passage of the store: answerable abstained {ab} "
                  f"({100 * ab / len(ans):.1f}%), F1 {100 * f1 / len(ans):.1f}, off-topic refused {ref}/{len(off)} "
                  f"({100 * ref / len(off):.1f}%)")
