"""``python -m bench cascade``: reading the first passage first (``QA_CASCADE``), and ranking the spans of several.

Ingests every paragraph of ``train.json`` and ``dev.json`` (``--data``) into a
temporary SQLite store and asks the dev questions without passage ids through
the function's own code in this process (``QAService``). Two measurements:

  sweep   every dev question (``--questions``: a seeded sample instead): one model run over the windows of
          the ``--top-k-passages`` retrieved passages and one over its gold paragraph, decoded every way
          compared here: the spans of all passages ranked by logits + w x BM25 for several w, and by
          logits + w x BM25 / the best BM25 read (``function/retrieval/span_bias.py``), each with its F1
          and gap to the gold paragraph's F1 (every ranking, the gold paragraph's too, then weighs the
          question's words in each span's sentence, as the reader does: ``function/model/sentence.py``, and
          with the sentence encoder, a question alone's spans by their sentence's meaning, ``reader.SENTENCE_COSINE``);
          and the cascade's decision (``function/service/cascade.py``) at several span-probability and
          margin thresholds, from the first passage's windows (each window
          runs at its own length, so its logits are those the cascade would see): the share of questions
          it stops after one passage and the F1 it gives, against reading all passages.
  timed   ``--timed`` dev questions (a seeded sample), each asked of two services over the same store, the
          cascade off and on (the shipped thresholds), in turn, the order alternating from one question to
          the next: passages read, F1, server time (the reply's ``total``) p50 / p95.
  docs    with ``--docs``: the same for the documentation benchmark's dev questions (``python -m bench docs``'s
          sets, each ingested by the ingestion code; off-topic questions too), abstaining as shipped: F1 of
          the answerable ones (an abstention scores 0), "no answer" on the off-topic ones, server time of all.

The SQuAD questions are asked with abstention off (as ``bench retrieval``'s F1 asked alone), so the F1 is
of the best span. Writes ``cascade.json`` and ``cascade.md`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shlex
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from bench.in_process import ingest_into, load_squad, open_service, retrieval_env
from bench.stats import latency_summary
from harness.paths import ENCODER, REPO, SQUAD, default_artifact

RAW_WEIGHTS = (0.0, 0.125, 0.25, 0.375, 0.5, 0.75, 1.0, 1.5, 2.0)  # logits + w x BM25
NORMALISED_WEIGHTS = (4.0, 6.0, 7.0, 8.0, 10.0, 12.0)  # logits + w x BM25 / the first hit's BM25
# logits - a x the window's [CLS] score (its start + end logit at [CLS]) + w x BM25 / best BM25, for (a, w)
NULL_RELATIVE = tuple((a, w) for a in (0.25, 0.5, 1.0) for w in (0.0, 4.0, 8.0))
PROBABILITIES = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)  # cascade: least span probability in the first passage
MARGINS = (math.inf, -4.0, -8.0, -10.0, -12.0, -14.0)  # cascade: largest no-answer margin there (inf: the threshold)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench cascade", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=SQUAD, help="folder with train.json and dev.json")
    p.add_argument("--artifact", type=Path, default=None, help="model artifact folder (default: artifact/)")
    p.add_argument("--top-k-passages", type=int, default=5)
    p.add_argument("--questions", type=int, default=0, help="sweep: dev questions (a seeded sample; 0: all; -1: none)")
    p.add_argument("--timed", type=int, default=300, help="timed: dev questions (a seeded sample; 0: none)")
    p.add_argument("--docs", action="store_true", help="also the documentation benchmark's dev part, off and on")
    p.add_argument("--hybrid", action="store_true",
                   help="hybrid retrieval: a Lance index with the shipped encoder's vectors beside the store "
                        "(QA_INDEX_URI + QA_INDEX_ENCODER), as make run DOCS=... and the Lance images search")
    p.add_argument("--encoder", type=Path, default=ENCODER,
                   help="sentence-encoder folder for --hybrid (default: the shipped encoder/)")
    p.add_argument("--threads", type=int, default=0, help="QA_THREADS (0: the CPUs this process may use)")
    p.add_argument("--out", type=Path, default=REPO / "records" / "bench" / "cascade")
    return p.parse_args(argv)


def log(message: str) -> None:
    print(f"[cascade] {message}", file=sys.stderr, flush=True)


def sample(questions: list[dict], n: int) -> list[dict]:
    return questions if not n or n >= len(questions) else random.Random(0).sample(questions, n)


def f1_of(text: str, answers: list[str]) -> float:
    from build_model.evaluation.metrics import best_over_golds, f1

    return 100 * best_over_golds(f1, text, answers)


def sweep(service, questions: list[dict], top_k_passages: int) -> dict:
    """Span rankings and cascade thresholds, each decoded from the same model runs (see the module's text)."""
    import numpy as np

    from function.errors import NotFound
    from function.model.decode import best_spans, null_score
    from function.model.reader import answers_from_logits
    from function.retrieval.span_bias import NULL_WEIGHT, passage_bias, plain_name_shares
    from function.service import cascade
    from function.service.pipeline import Reading, SentenceCosines

    model = service.rt.model()
    max_tokens = service.rt.manifest().sequence["max_answer_tokens"]
    threshold = (service.rt.manifest().no_answer or {}).get("threshold")
    rows = []
    started = time.perf_counter()

    def text(reading, batch, start, end, bias, null_weight: float = 0.0, alone: bool = True) -> str:
        encoder = service.rt.question_encoder() if alone else None  # with one, a question alone's spans are
        cosines = None if encoder is None else SentenceCosines(encoder, q["question"])  # weighed by their sentences
        found = answers_from_logits(start, end, batch, reading.tokens, 1, max_tokens, bias, texts=reading.texts,
                                    null_weight=null_weight, question=q["question"],  # the question of the loop below
                                    cosines=cosines)
        return reading.texts[found[0].passage][found[0].start:found[0].end] if found else ""

    for i, q in enumerate(questions, 1):
        q_ids = model.tokenizer.encode(q["question"]).ids
        gold = Reading.of_stored(service._fetch((q["gold"],), model.tokenizer.fingerprint))
        gold_batch = service._batch(q_ids, gold, model)
        ran = service.rt.inference.run(model, gold_batch)
        row = {"id": q["id"], "gold": f1_of(text(gold, gold_batch, ran.start_logits, ran.end_logits, None, alone=False),
                                            q["answers"])}
        try:
            hits, stored, _ = service.read_question(q["question"], top_k_passages, len(q_ids), model)
        except NotFound:
            rows.append({**row, "empty": True})
            continue
        by_id = {h.passage_id: h for h in hits}
        scores = np.array([by_id[p.id].score for p in stored])
        cosines = [by_id[p.id].cosine for p in stored]  # hybrid retrieval's, else None
        reading = Reading.of_stored(stored)
        batch = service._batch(q_ids, reading, model)
        ran = service.rt.inference.run(model, batch)
        start, end = ran.start_logits, ran.end_logits
        row["raw"] = {w: f1_of(text(reading, batch, start, end, w * scores), q["answers"]) for w in RAW_WEIGHTS}
        row["normalised"] = {w: f1_of(text(reading, batch, start, end, w * scores / scores.max()), q["answers"])
                             for w in NORMALISED_WEIGHTS}
        names = plain_name_shares(q["question"], [(p.title, p.text) for p in stored])
        shipped = passage_bias(scores, cosines=cosines, names=names)
        row["shipped"] = f1_of(text(reading, batch, start, end, shipped, NULL_WEIGHT), q["answers"])
        row["null_relative"] = {f"{a:g},{w:g}": f1_of(text(reading, batch, start, end, passage_bias(scores, w), a),
                                                      q["answers"])
                                for a, w in NULL_RELATIVE}
        row["alone"] = f1_of(text(reading, batch, start, end, None), q["answers"])  # the reader's probabilities
        n = cascade.first_windows(batch)
        first = batch.rows(slice(0, n))
        s1, e1 = start[:n], end[:n]
        spans = best_spans(s1, e1, first, 1, max_tokens)
        row["first"] = {"probability": spans[0].score if spans else 0.0,
                        "margin": null_score(s1, e1, first, max_tokens).margin,
                        "f1": f1_of(text(reading, first, s1, e1, shipped, NULL_WEIGHT), q["answers"]),
                        "several": len(stored) > 1, "gold_first": stored[0].id == q["gold"]}
        rows.append(row)
        if i % 100 == 0:
            log(f"swept {i} of {len(questions)} ({(time.perf_counter() - started) / i:.2f} s each)")
    return summarise(rows, threshold)


def summarise(rows: list[dict], threshold: float | None) -> dict:
    n = len(rows)
    read = [r for r in rows if "raw" in r]
    gold = sum(r["gold"] for r in rows) / n

    def mean(values) -> float:
        return round(sum(values) / n, 2)  # a question with nothing retrieved scores 0

    from function.retrieval.span_bias import NAME_WEIGHT

    ranking = [{"ranking": "as shipped (`span_bias`: logits + 8 x BM25 / best - 0.5 x [CLS] (+ 2 x cosine, hybrid) + "
                           f"{NAME_WEIGHT:g} x the share of the question's plain names held; then the sentence term, "
                           "`function.model.sentence`)",
                "f1": mean(r["shipped"] for r in read)},
               {"ranking": "probabilities alone", "f1": mean(r["alone"] for r in read)}]
    ranking += [{"ranking": f"logits + {w:g} x BM25", "weight": w, "normalised": False,
                 "f1": mean(r["raw"][w] for r in read)} for w in RAW_WEIGHTS]
    ranking += [{"ranking": f"logits + {w:g} x BM25 / best BM25 read", "weight": w, "normalised": True,
                 "f1": mean(r["normalised"][w] for r in read)} for w in NORMALISED_WEIGHTS]
    ranking += [{"ranking": f"logits - {a:g} x [CLS] score + {w:g} x BM25 / best BM25 read", "key": f"{a:g},{w:g}",
                 "f1": mean(r["null_relative"][f"{a:g},{w:g}"] for r in read)} for a, w in NULL_RELATIVE]
    shipped = [r["shipped"] for r in read]
    for v in ranking:
        v["gap"] = round(gold - v["f1"], 2)
        if "weight" in v or "key" in v:  # paired against the shipped ranking: the mean difference and its s.e.
            ours = ([r["null_relative"][v["key"]] for r in read] if "key" in v
                    else [r["normalised" if v["normalised"] else "raw"][v["weight"]] for r in read])
            diff = [a - b for a, b in zip(ours, shipped)]
            mean_diff = sum(diff) / n
            se = (sum((d - mean_diff) ** 2 for d in diff) / (n - 1) / n) ** 0.5 if n > 1 else 0.0
            v["vs_shipped"], v["vs_shipped_se"] = round(mean_diff, 2), round(se, 2)
    # the two halves of the questions (odd and even): does a weight chosen on one hold on the other?
    halves = {}
    for name, part in (("odd", read[1::2]), ("even", read[0::2])):
        halves[name] = {**{f"raw {w:g}": round(sum(r["raw"][w] for r in part) / max(1, len(part)), 2)
                           for w in RAW_WEIGHTS},
                        **{f"normalised {w:g}": round(sum(r["normalised"][w] for r in part) / max(1, len(part)), 2)
                           for w in NORMALISED_WEIGHTS},
                        **{f"null-relative {k}": round(sum(r["null_relative"][k] for r in part) / max(1, len(part)), 2)
                           for k in (f"{a:g},{w:g}" for a, w in NULL_RELATIVE)}}
    full = shipped
    grid = []
    for p in PROBABILITIES:
        for m in MARGINS:
            limit = m if threshold is None else min(m, threshold)
            stop = [r["first"]["several"] and r["first"]["probability"] >= p and r["first"]["margin"] <= limit
                    for r in read]
            f1 = [r["first"]["f1"] if s else r["shipped"] for r, s in zip(read, stop)]
            grid.append({"min_probability": p, "max_margin": m, "stopped": round(sum(stop) / n, 4),
                         "f1": mean(f1), "f1_full": mean(full),
                         "changed": sum(a != b for a, b in zip(f1, full))})
    return {"questions": n, "retrieved_none": n - len(read), "gold_paragraph_f1": round(gold, 2),
            "gold_first": round(sum(r["first"]["gold_first"] for r in read) / n, 4),
            "ranking": ranking, "halves": halves, "cascade": grid, "no_answer_threshold": threshold}


def timed(env: dict, questions: list[dict], top_k_passages: int) -> dict:
    """Each question asked of the service without the cascade and with it, in turn (alternating first)."""
    from function.errors import NotFound
    from function.service.qa_request import QARequest

    services = {"off": open_service({**env, "QA_CASCADE": "0"}), "on": open_service({**env, "QA_CASCADE": "1"})}
    max_tokens = services["off"].rt.manifest().sequence["max_answer_tokens"]
    got = {name: {"ms": [], "read": Counter(), "f1": []} for name in services}
    for service in services.values():  # warm: the model loaded, the store open
        service.answer(QARequest(questions[0]["question"], None, None, 1, max_tokens, top_k_passages, abstain=False))
    for i, q in enumerate(questions):
        order = ("off", "on") if i % 2 == 0 else ("on", "off")
        for name in order:
            ask = QARequest(q["question"], None, None, 1, max_tokens, top_k_passages, abstain=False)
            try:
                result = services[name].answer(ask)
            except NotFound:
                got[name]["f1"].append(0.0)
                continue
            answers = result.payload["answers"]
            got[name]["f1"].append(f1_of(answers[0]["text"] if answers else "", q["answers"]))
            got[name]["ms"].append(result.timings_ms["total"])
            got[name]["read"][result.passages_read or 0] += 1
    return {name: {"questions": len(questions), "f1": round(sum(g["f1"]) / len(questions), 2),
                   "server_ms": latency_summary(g["ms"], 2), "passages_read": dict(sorted(g["read"].items())),
                   "mean_read": round(sum(k * v for k, v in g["read"].items()) / max(1, sum(g["read"].values())), 2)}
            for name, g in got.items()}


def docs_timed(env: dict, work: Path) -> dict:
    """The documentation benchmark's dev questions asked alone of the cascade off and on in turn (see above)."""
    from bench import docs
    from bench.documents import ingest_documents
    from function.evaluate.scoring import answer_text, said_no_answer, score
    from function.service.qa_request import QARequest

    got = {name: {"ms": [], "read": Counter(), "f1": [], "off_topic_no_answer": []} for name in ("off", "on")}
    for docset, folder, files, _ in docs.prepare(docs.parse_args(["--part", "dev"]), say=log):
        questions, off_topic = docs.select(docset, "dev", 0)
        set_env = {**env, "QA_SQLITE_PATH": str(work / f"{docset['set']}.sqlite")}
        if env.get("QA_INDEX_URI"):  # --hybrid: each set's own Lance index, as bench docs --retrieval hybrid
            set_env["QA_INDEX_URI"] = str(work / f"{docset['set']}.lance")
        services = {name: open_service({**set_env, "QA_CASCADE": flag}) for name, flag in (("off", "0"), ("on", "1"))}
        ingest_documents(services["off"], [(rel, folder / rel) for rel in files], folder)
        s = services["off"].rt.settings
        for service in services.values():  # warm, as bench docs does
            for q in questions[:3]:
                service.answer(QARequest(q["question"], None, None, 1, s.max_answer_tokens, s.top_k_passages))
        asked = [(q, True) for q in questions] + [(q, False) for q in off_topic]
        for i, (q, answerable) in enumerate(asked):
            for name in (("off", "on") if i % 2 == 0 else ("on", "off")):
                result = services[name].answer(QARequest(q["question"], None, None, 1, s.max_answer_tokens,
                                                         s.top_k_passages))
                g = got[name]
                g["ms"].append(result.timings_ms["total"])
                g["read"][result.passages_read or 0] += 1
                if answerable:
                    g["f1"].append(100 * score(answer_text(result.payload), q["answers"])[1])
                else:
                    g["off_topic_no_answer"].append(said_no_answer(result.payload))
        for service in services.values():
            service.rt.store().close()
    return {name: {"questions": len(g["f1"]), "off_topic": len(g["off_topic_no_answer"]),
                   "f1": round(sum(g["f1"]) / len(g["f1"]), 2),
                   "off_topic_no_answer": round(sum(g["off_topic_no_answer"]) / len(g["off_topic_no_answer"]), 4),
                   "server_ms": latency_summary(g["ms"], 2), "passages_read": dict(sorted(g["read"].items())),
                   "mean_read": round(sum(k * v for k, v in g["read"].items()) / sum(g["read"].values()), 2)}
            for name, g in got.items()}


def markdown(result: dict) -> str:
    sw, lines = result.get("sweep"), [
        "# Reading less (the cascade) and ranking the spans of several passages",
        "",
        f"`{result['command']}` on {result['date']}; model `{result['artifact']['name']}`; "
        f"{result['corpus_paragraphs']:,} paragraphs (train.json + dev.json), questions from dev.json asked "
        f"alone (top {result['top_k_passages']} passages, abstention off); {result['machine']}.",
    ]
    if sw:
        lines += ["", f"Sweep: {sw['questions']:,} questions; gold paragraph F1 {sw['gold_paragraph_f1']:.2f}; "
                      f"gold paragraph retrieved first {sw['gold_first']:.1%}.", "",
                  "| span ranking | F1 asked alone | gap to the gold paragraph | F1 against the shipped (± s.e.) |",
                  "|---|---|---|---|"]
        for v in sw["ranking"]:
            paired = f"{v['vs_shipped']:+.2f} ± {v['vs_shipped_se']:.2f}" if "vs_shipped" in v else "-"
            lines.append(f"| {v['ranking']} | {v['f1']:.2f} "
                         f"| {v['gap']:.2f} | {paired} |")
        lines += ["", "Halves of the questions (F1): "
                  + "; ".join(f"{h}: " + ", ".join(f"{k} {v:.2f}" for k, v in vals.items())
                              for h, vals in sw["halves"].items()), "",
                  "| cascade: least span probability | largest margin | stopped after one passage | F1 "
                  "| F1 reading all | answers changed |", "|---|---|---|---|---|---|"]
        for g in sw["cascade"]:
            lines.append(f"| {g['min_probability']:g} | {g['max_margin']:g} | {g['stopped']:.1%} | {g['f1']:.2f} "
                         f"| {g['f1_full']:.2f} | {g['changed']} |")
    if result.get("timed"):
        lines += ["", "| cascade | questions | passages read (questions) | mean read | F1 | server p50 (ms) "
                      "| server p95 (ms) |", "|---|---|---|---|---|---|---|"]
        for name, t in result["timed"].items():
            lines.append(f"| {name} | {t['questions']} | {t['passages_read']} | {t['mean_read']} | {t['f1']:.2f} "
                         f"| {t['server_ms']['p50']:.1f} | {t['server_ms']['p95']:.1f} |")
    if result.get("docs"):
        lines += ["", "Documentation benchmark, dev part (abstaining as shipped; time and passages read over the "
                      "answerable and off-topic questions):", "",
                  "| cascade | questions + off-topic | passages read (questions) | mean read | F1 "
                  "| \"no answer\" off-topic | server p50 (ms) | server p95 (ms) |",
                  "|---|---|---|---|---|---|---|---|"]
        for name, t in result["docs"].items():
            lines.append(f"| {name} | {t['questions']} + {t['off_topic']} | {t['passages_read']} | {t['mean_read']} "
                         f"| {t['f1']:.2f} | {t['off_topic_no_answer']:.1%} | {t['server_ms']['p50']:.1f} "
                         f"| {t['server_ms']['p95']:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    args = parse_args(argv)
    from function.model.artifact import load_manifest

    artifact = (args.artifact or default_artifact()).resolve()
    manifest = load_manifest(artifact)
    records, questions = load_squad(args.data)
    result = {"command": "python -m bench cascade " + shlex.join(argv if argv is not None else sys.argv[1:]),
              "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
              "artifact": {"name": manifest.name, "artifact_hash": manifest.artifact_hash},
              "corpus_paragraphs": len(records), "top_k_passages": args.top_k_passages,
              "machine": f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}, {args.threads} thread(s)"}
    with tempfile.TemporaryDirectory() as tmp:
        env = {"QA_ARTIFACT_DIR": str(artifact), "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(Path(tmp) / "p.sqlite"),
               "QA_CACHE": "0", "QA_THREADS": str(args.threads)}
        if args.hybrid:
            env.update(retrieval_env("hybrid", Path(tmp), args.encoder))
            encoder = os.path.relpath(args.encoder.resolve(), REPO)
            result["retrieval"] = f"hybrid (a Lance index with {encoder}/'s vectors)"
        service = open_service({**env, "QA_CASCADE": "0"})
        log(f"ingested {len(records)} paragraphs in {ingest_into(service, records):.1f} s")
        if args.questions >= 0:
            dev = sample(questions["dev"], args.questions)
            log(f"sweep: {len(dev)} dev questions")
            result["sweep"] = sweep(service, dev, args.top_k_passages)
        if args.timed:
            dev = sample(questions["dev"], args.timed)
            log(f"timed: {len(dev)} dev questions, the cascade off and on in turn")
            result["timed"] = timed(env, dev, args.top_k_passages)
        if args.docs:
            log("docs: the documentation benchmark's dev part, the cascade off and on in turn")
            result["docs"] = docs_timed({k: v for k, v in env.items() if k != "QA_SQLITE_PATH"}, Path(tmp))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "cascade.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "cascade.md").write_text(markdown(result))
    print(markdown(result))
    return 0
