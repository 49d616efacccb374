"""Server time of SQuAD dev questions asked alone (hybrid, cascade on): sentence-cosine-choice's form (embedding where
the best four spans lie in one passage too) and this one (not there), in turn over the same questions, one process."""
import json, sys, tempfile, statistics
from dataclasses import replace
from pathlib import Path
import numpy as np
sys.path.insert(0, "/work/main")
from bench.cascade import sample, f1_of
from bench.in_process import ingest_into, load_squad, open_service, retrieval_env
from function.model import reader, sentence
from function.service.qa_request import QARequest

def choice_form(ranked, texts, cosines):  # bb5f210's _by_sentence_cosine
    top = ranked[:reader.SENTENCE_COSINE_TOP]
    if any("\n" in texts[a.passage] for a in top):
        return ranked
    said = [sentence.sentence_of(texts[a.passage], a.start, a.end) for a in top]
    distinct = list(dict.fromkeys(said))
    if len(distinct) < 2:
        return ranked
    of = dict(zip(distinct, (float(c) for c in cosines(distinct)), strict=True))
    cos = np.asarray([of[t] for t in said] + [min(of.values())] * (len(ranked) - len(top)), dtype=np.float64)
    moved = np.asarray([a.score for a in ranked], dtype=np.float64) * np.exp(reader.SENTENCE_COSINE * (cos - cos.max()))
    order = np.argsort(-moved, kind="stable")
    return [replace(ranked[i], score=float(moved[i])) for i in order]

forms = {"choice": choice_form, "one-passage skip": reader._by_sentence_cosine}
N = int(sys.argv[1]) if len(sys.argv) > 1 else 400
records, questions = load_squad(Path("/work/shared/data/squad"))
with tempfile.TemporaryDirectory() as tmp:
    env = {"QA_ARTIFACT_DIR": "/work/main/artifact", "QA_STORE": "sqlite", "QA_SQLITE_PATH": f"{tmp}/p.sqlite",
           "QA_CACHE": "0", "QA_THREADS": "0"}
    env.update(retrieval_env("hybrid", Path(tmp), Path("/work/main/encoder")))
    service = open_service(env)
    ingest_into(service, records)
    mt = service.rt.manifest().sequence["max_answer_tokens"]
    dev = sample(questions["dev"], N)
    got = {k: {"ms": [], "sent": [], "text": []} for k in forms}
    for q in dev[:5]:
        service.answer(QARequest(q["question"], None, None, 1, mt, 5, abstain=False))
    for i, q in enumerate(dev):
        for k in (list(forms) if i % 2 == 0 else list(forms)[::-1]):
            reader._by_sentence_cosine = forms[k]
            r = service.answer(QARequest(q["question"], None, None, 1, mt, 5, abstain=False))
            a = r.payload["answers"]
            got[k]["ms"].append(r.timings_ms["total"]); got[k]["sent"].append(r.timings_ms.get("sentences", 0.0))
            got[k]["text"].append(a[0]["text"] if a else "")
    out = {k: {"questions": len(g["ms"]), "p50": round(statistics.median(g["ms"]), 2),
               "mean": round(statistics.mean(g["ms"]), 2), "sentences_ms_mean": round(statistics.mean(g["sent"]), 2),
               "embedded_share": round(sum(s > 0 for s in g["sent"]) / len(g["ms"]), 3)} for k, g in got.items()}
    out["answers_differ"] = sum(a != b for a, b in zip(*(g["text"] for g in got.values())))
    print(json.dumps(out, indent=1))
    Path("/work/runs/timing-one.json").write_text(json.dumps(out, indent=1))
