import json, sys, tempfile, textwrap, random
sys.path.insert(0, "/work/main")
from bench.in_process import open_service
from function.service.qa_request import QARequest
from function.evaluate.scoring import answer_text, score
from function.ingest.extract import extract, normalise_block
tmp = tempfile.mkdtemp()
svc = open_service({"QA_ARTIFACT_DIR": "/work/main/artifact", "QA_STORE": "sqlite", "QA_SQLITE_PATH": f"{tmp}/x.sqlite"})
data = json.load(open("/work/shared/data/squad/dev.json"))["data"]
qs = [(p["context"], q["question"], [a["text"] for a in q["answers"]]) for a in data for p in a["paragraphs"] for q in p["qas"]]
random.Random(0).shuffle(qs); qs = qs[:int(sys.argv[1])]
s = svc.rt.settings
tot = {"flat": 0.0, "wrapped": 0.0, "txt": 0.0}; same = 0
for ctx, q, golds in qs:
    wrapped = "\n".join(textwrap.wrap(ctx, 72))
    txt = extract("a.txt", ("Title\n\n" + wrapped + "\n").encode()).text.split("\n\n", 1)[1]
    same += txt == normalise_block(ctx)
    for mode, c in (("flat", ctx), ("wrapped", wrapped), ("txt", txt)):
        req = QARequest(q, c, None, 1, s.max_answer_tokens, None, abstain=False)
        tot[mode] += score(answer_text(svc.answer(req).payload), golds)[1]
print({k: round(100 * v / len(qs), 2) for k, v in tot.items()}, "txt == flat", same, "of", len(qs))
