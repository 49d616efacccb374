"""Study dump: the candidate spans of every SQuAD dev question, with what the span ranking and the sentence term
need (shipped artifact, train + dev paragraphs stored, top K, abstention off).
PYTHONPATH=. python records/bench/sentence/squad_dump.py bm25|hybrid|gold [K]   (build/sentence/cands-MODE-kK.json,
~90 s; K passages retrieved, default 5)
Each candidate: [start + end logit (gold: per-window log-probabilities), [CLS] score, log-partition, BM25 / best,
passage rank, length - 1, cosine, F1, passage, start char, end char]."""
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.cascade import f1_of
from bench.in_process import ingest_into, load_squad, open_service
from harness.paths import ARTIFACT, REPO, SQUAD

PER_WINDOW = 8
K = int(sys.argv[2]) if len(sys.argv) > 2 else 5
OUT = Path("build/sentence")


def _candidates(scores, b, w, reading, answers, fixed):
    """The PER_WINDOW best spans of window ``w`` by ``scores`` ([n, depth]) as dump rows; ``fixed``: the window's
    [CLS] score, log-partition, BM25 / best, rank and cosine."""
    from function.model.reader import trim
    out = {}
    for idx in np.argsort(-scores, axis=None)[:PER_WINDOW]:
        st, d = np.unravel_index(idx, scores.shape)
        val = float(scores[st, d])
        if not np.isfinite(val):
            continue
        p = int(b.passage_index[w])
        ts = int(b.token_start[w]) + int(st)
        off = reading.tokens[p].offsets
        a, z = trim(reading.texts[p], int(off[ts, 0]), int(off[ts + int(d), 1]))
        null, logz, bm25, rank, cos = fixed
        out[(p, ts, ts + int(d))] = [val, null, logz, bm25, rank, int(d), cos, f1_of(reading.texts[p][a:z], answers),
                                     p, a, z]
    return out


def _spans(ls, le, b, w, max_tokens):
    n = int(b.context_len[w])
    sc = np.full((n, max_tokens), -np.inf)
    for d in range(min(max_tokens, n)):
        sc[: n - d, d] = ls[w, : n - d] + le[w, d:n]
    return sc


def dump(mode):
    from function.errors import NotFound
    from function.model.decode import _context_log_probs, _context_logits
    from function.service.pipeline import Reading

    records, questions = load_squad(SQUAD)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {"QA_ARTIFACT_DIR": str(ARTIFACT), "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(Path(tmp) / "p.sqlite"),
               "QA_CACHE": "0", "QA_CASCADE": "0", "QA_THREADS": "1"}
        if mode == "hybrid":
            env.update({"QA_INDEX_URI": str(Path(tmp) / "ix.lance"), "QA_INDEX_ENCODER": str(REPO / "encoder")})
        service = open_service(env)
        if mode == "hybrid":
            from function.ingest.documents import Recipe, from_records
            from function.ingest.ingestion import Ingestion
            tok = service.rt.model().tokenizer
            recipe = Recipe(tok.fingerprint, 0, 0, service.rt.settings.max_context_chars)
            job = Ingestion(service.rt.store(), tok, batch_size=256, note=lambda m: None, index=service.rt.searcher())
            job.add_and_flush(from_records("train.json+dev.json", records, recipe))
            job.finish()
        else:
            ingest_into(service, records)
        model = service.rt.model()
        max_tokens = service.rt.manifest().sequence["max_answer_tokens"]
        t0 = time.perf_counter()
        for i, q in enumerate(questions["dev"], 1):
            q_ids = model.tokenizer.encode(q["question"]).ids
            if mode == "gold":
                reading = Reading.of_stored(service._fetch((q["gold"],), model.tokenizer.fingerprint))
                b = service._batch(q_ids, reading, model)
                ran = service.rt.inference.run(model, b)
                ls = _context_log_probs(np.asarray(ran.start_logits), b)
                le = _context_log_probs(np.asarray(ran.end_logits), b)
                cands = {}
                for w in range(len(b)):
                    for k, v in _candidates(_spans(ls, le, b, w, max_tokens), b, w, reading, q["answers"],
                                            (0.0, 0.0, 0.0, 0, 0.0)).items():
                        if k not in cands or cands[k][0] < v[0]:
                            cands[k] = v
            else:
                try:
                    hits = service.retrieve(q["question"], K)
                except NotFound:
                    out.append({"id": q["id"], "q": q["question"], "t": [], "c": []})
                    continue
                stored, _, _ = service._read_retrieved(hits, len(q_ids), model)
                by = {h.passage_id: h for h in hits}
                bm = np.array([by[p.id].score for p in stored])
                bmr = bm / bm.max() if bm.max() > 0 else np.zeros_like(bm)
                cos = [by[p.id].cosine or 0.0 for p in stored]
                reading = Reading.of_stored(stored)
                b = service._batch(q_ids, reading, model)
                ran = service.rt.inference.run(model, b)
                S, E = np.asarray(ran.start_logits, np.float64), np.asarray(ran.end_logits, np.float64)
                ls, le = _context_logits(S, b), _context_logits(E, b)
                cands = {}
                for w in range(len(b)):
                    n = int(b.context_len[w])
                    z = np.logaddexp.reduce(np.r_[S[w, 0], ls[w, :n]]) + np.logaddexp.reduce(np.r_[E[w, 0], le[w, :n]])
                    p = int(b.passage_index[w])
                    fixed = (float(S[w, 0] + E[w, 0]), float(z), float(bmr[p]), p, float(cos[p]))
                    for k, v in _candidates(_spans(ls, le, b, w, max_tokens), b, w, reading, q["answers"],
                                            fixed).items():
                        if k not in cands or cands[k][0] < v[0]:
                            cands[k] = v
            out.append({"id": q["id"], "q": q["question"], "t": list(reading.texts), "c": list(cands.values())})
            if i % 200 == 0:
                print(i, f"{(time.perf_counter() - t0) / i:.2f} s each", flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"cands-{mode}-k{K}.json").write_text(json.dumps(out))


if __name__ == "__main__":
    dump(sys.argv[1])
