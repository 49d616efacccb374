"""Study: a span ranking learnt from features (conditional logit) against the shipped hand-set one, SQuAD dev asked
alone, BM25 top 5; fit on one half of the questions, scored on the other, and the other way round.
PYTHONPATH=. python records/bench/span-aggregate/learnt.py dump [hybrid]   (build/rr/cands*.json, ~90 s, 1 thread)
PYTHONPATH=. python records/bench/span-aggregate/learnt.py fit build/rr/cands.json   (learnt.txt)"""
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


def dump(hybrid):
    from function.errors import NotFound
    from function.model.decode import _context_logits
    from function.model.reader import trim
    from function.service.pipeline import Reading

    records, questions = load_squad(SQUAD)
    dev = questions["dev"]
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {"QA_ARTIFACT_DIR": str(ARTIFACT), "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(Path(tmp) / "p.sqlite"),
               "QA_CACHE": "0", "QA_CASCADE": "0", "QA_THREADS": "1"}
        if hybrid:
            env.update({"QA_INDEX_URI": str(Path(tmp) / "ix.lance"), "QA_INDEX_ENCODER": str(REPO / "encoder")})
        service = open_service(env)
        if hybrid:
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
        for i, q in enumerate(dev, 1):
            q_ids = model.tokenizer.encode(q["question"]).ids
            try:
                hits = service.retrieve(q["question"], 5)
            except NotFound:
                out.append({"id": q["id"], "c": []})
                continue
            stored, _, _ = service._read_retrieved(hits, len(q_ids), model)
            by = {h.passage_id: h for h in hits}
            bm = np.array([by[p.id].score for p in stored])
            bmr = bm / bm.max() if bm.max() > 0 else np.zeros_like(bm)
            cos = [by[p.id].cosine for p in stored]
            reading = Reading.of_stored(stored)
            b = service._batch(q_ids, reading, model)
            ran = service.rt.inference.run(model, b)
            S, E = np.asarray(ran.start_logits, np.float64), np.asarray(ran.end_logits, np.float64)
            ls, le = _context_logits(S, b), _context_logits(E, b)
            cands = {}
            for w in range(len(b)):
                n = int(b.context_len[w])
                null = S[w, 0] + E[w, 0]
                zs = np.logaddexp.reduce(np.concatenate([[S[w, 0]], ls[w, :n]]))
                ze = np.logaddexp.reduce(np.concatenate([[E[w, 0]], le[w, :n]]))
                sc = np.full((n, max_tokens), -np.inf)
                for d in range(min(max_tokens, n)):
                    sc[: n - d, d] = ls[w, : n - d] + le[w, d:n]
                flat = np.argsort(-sc, axis=None)[:PER_WINDOW]
                p = int(b.passage_index[w])
                for idx in flat:
                    st, d = np.unravel_index(idx, sc.shape)
                    raw = float(sc[st, d])
                    if not np.isfinite(raw):
                        continue
                    ts = int(b.token_start[w]) + int(st)
                    key = (p, ts, ts + int(d))
                    if key in cands and cands[key][0] >= raw:
                        continue
                    off = reading.tokens[p].offsets
                    a, z = trim(reading.texts[p], int(off[ts, 0]), int(off[ts + int(d), 1]))
                    text = reading.texts[p][a:z]
                    cands[key] = [raw, float(null), float(zs + ze), float(bmr[p]), p, int(d),
                                  float(cos[p]) if cos[p] is not None else 0.0, f1_of(text, q["answers"])]
            out.append({"id": q["id"], "c": list(cands.values())})
            if i % 200 == 0:
                print(i, f"{(time.perf_counter() - t0) / i:.2f} s each", flush=True)
    Path(f"build/rr/cands{'-hybrid' if hybrid else ''}.json").write_text(json.dumps(out))


def feats(c, names):
    raw, null, z, bmr, rank, d, cos = c[:, 0], c[:, 1], c[:, 2], c[:, 3], c[:, 4], c[:, 5], c[:, 6]
    allf = {"raw": raw, "null": null, "logz": z, "bm25": bmr, "first": (rank == 0) * 1.0, "rank": rank,
            "len": d, "cos": cos, "logp": raw - z}
    return np.stack([allf[k] for k in names], 1)


def shipped(c, hybrid):
    return c[:, 0] + 8 * c[:, 3] - 0.5 * c[:, 1] + (2 * c[:, 6] if hybrid else 0)


def learn(X, Y, k):
    """Weights of a conditional logit over each question's candidates (soft target: their F1, normalised)."""
    import torch
    mu, sd = torch.cat(X).mean(0), torch.cat(X).std(0) + 1e-6
    w = torch.zeros(k, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([w], max_iter=200)

    def closure():
        opt.zero_grad()
        loss = sum(-(y * torch.log_softmax(((x - mu) / sd) @ w, 0)).sum() for x, y in zip(X, Y)) / len(X)
        loss = loss + 1e-3 * (w ** 2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    return (w / sd).detach().numpy()


def fit(path):
    import torch
    hybrid = "hybrid" in path
    rows = json.load(open(path))
    Q = [np.array(r["c"]) for r in rows]
    n = len(Q)

    def score(idx, fn):
        return sum(float(Q[i][np.argmax(fn(Q[i])), 7]) if len(Q[i]) else 0.0 for i in idx) / len(idx)

    halves = (list(range(1, n, 2)), list(range(0, n, 2)))
    print("shipped", round(score(range(n), lambda c: shipped(c, hybrid)), 2),
          "odd", round(score(halves[0], lambda c: shipped(c, hybrid)), 2),
          "even", round(score(halves[1], lambda c: shipped(c, hybrid)), 2))
    print("oracle among candidates", round(score(range(n), lambda c: c[:, 7]), 2))
    sets = [["raw", "null", "bm25"], ["raw", "null", "bm25", "logz"], ["raw", "null", "bm25", "logz", "first", "rank"],
            ["raw", "null", "bm25", "logz", "first", "rank", "len"], ["raw", "null", "bm25", "logp", "first", "len"]]
    if hybrid:
        sets = [s + ["cos"] for s in sets]
    for names in sets:
        res = []
        for train, test in (halves, halves[::-1]):
            X = [torch.tensor(feats(Q[i], names)) for i in train if len(Q[i]) and Q[i][:, 7].max() > 0]
            Y = [torch.tensor(Q[i][:, 7] / Q[i][:, 7].sum()) for i in train if len(Q[i]) and Q[i][:, 7].max() > 0]
            wn = learn(X, Y, len(names))
            res.append((score(test, lambda c, wn=wn, names=names: feats(c, names) @ wn), wn / wn[0]))
        print(names, "held-out F1 (even, odd):", [round(r[0], 2) for r in res], "weights/raw:",
              [np.round(r[1], 2).tolist() for r in res])


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(len(sys.argv) > 2 and sys.argv[2] == "hybrid")
    else:
        fit(sys.argv[2])
