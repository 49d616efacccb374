import dataclasses, sys
sys.path.insert(0, "/work/study")
import proto, evaluate as ev
from function.evaluate.scoring import score
from function.service.pipeline import QAService
part_want = sys.argv[1] if len(sys.argv) > 1 else "dev"
for name, (caps, rows) in proto.DATA.items():
    for key, r in rows.items():
        if r["part"] != part_want: continue
        c = caps.get((*key, "given"))
        if c is None: continue
        req = dataclasses.replace(c["req"], top_k=16)
        p = QAService._payload(req, ev.MODEL, c["reading"], c["batch"], c["start"], c["end"])
        texts = [a["text"] for a in p.get("answers", [])]
        if not texts or score(texts[0], r["answers"])[1] >= 0.99: continue
        rank = next((i for i, t in enumerate(texts) if score(t, r["answers"])[1] >= 0.99), None)
        print(f"{r['id']:22s} {r['kind']:10s} rank={rank} Q={r['question'][:70]!r} gold={r['answers'][0][:30]!r} top={texts[:3]}")
