import json, re, sys
d = json.load(open(sys.argv[1]))
STOP = set("the a an of to in on for and or is are be by with what which how do does did i my can could should must when where who whose why that this it its from as at into default value set sets use used using get gets return returns".split())
def terms(s):
    return {w for w in re.findall(r"[a-z0-9_]+", s.lower()) if len(w) > 2 and w not in STOP}
flag = []
for k, v in d.items():
    if len(v["holding"]) < 2: continue
    qt = terms(v["question"]) - set().union(*(terms(a) for a in v["answers"]))
    if not qt: continue
    sh = [len(qt & terms(t)) / len(qt) for t in v["texts"]]
    if max(sh) - sh[0] >= 0.2:
        flag.append((k, v, sh))
print(len(flag), "flagged")
for k, v, sh in flag:
    print(f"== {k} [{v['part']}/{v['kind']}] {v['question']} | {v['answers'][:2]} ev={v['evidence']!r} shares={[round(x,2) for x in sh]}")
