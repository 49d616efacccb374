import json, sys
def load(p):
    return {(s["set"], r["id"]): r for s in json.load(open(p))["sets"] for r in s["rows"]}
a, b = load(sys.argv[1]), load(sys.argv[2]); part = sys.argv[3] if len(sys.argv) > 3 else "all"
for k in sorted(a):
    x, y = a[k], b.get(k)
    if y is None or (part != "all" and x["part"] != part): continue
    if x["answer"] != y["answer"] or x["answer_right_passage"] != y["answer_right_passage"]:
        print(f"| {k[1]} \"{x['question'][:80]}\" | {x['part']} | `{x['answer'][:40]}` ({x['f1']:.2f}) | `{y['answer'][:40]}` ({y['f1']:.2f}) |")
