import json, re, sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    v = d[k]
    print(f"##### {k} [{v['part']}/{v['kind']}] {v['question']} | {v['answers'][:3]} ev={v['evidence']!r}")
    for j, t in enumerate(v["texts"][:4]):
        print(f"--- holding #{j} (passage {v['holding'][j]}):")
        print(t[:700].replace("\n", " / "))
