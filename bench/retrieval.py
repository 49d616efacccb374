"""``python -m bench retrieval``: questions asked without passage ids, measured end to end.

Ingests every paragraph of ``train.json`` and ``dev.json`` (``--data``; 1,757
paragraphs) into a temporary SQLite store, asks every ``dev.json`` question
with no passage ids through the function's own code in this process
(``QAService``: the same retrieval, fetch, windowing, model run and decoding as
``POST /``), and reports:

  recall@1/5/10   the gold paragraph among the first 1, 5, 10 retrieved
  EM / F1         SQuAD scores of the answers with retrieval (``--top-k-passages``)
                  next to the answers with the gold paragraph given as ``passage_ids``
  retrieve time   p50 / p95 of the ``retrieve`` stage (question analysis + the store's
                  search), for SQLite and, with ``--firestore``, the Firestore emulator
                  (started here unless FIRESTORE_EMULATOR_HOST names one)
  title weight    recall with the title's terms weighted 0, 1, 2: chosen on train
                  questions, dev shown beside
  span ranking    F1 with the retrieved passages' spans ranked by the reader's
                  probabilities alone and by logits + w * BM25 / the best BM25 read for
                  several w (``function/retrieval/span_bias.py``; chosen on dev by
                  ``python -m bench cascade``), on 1,000 train questions and dev; one
                  model run per question, decoded each way
  abstention      at the no-answer threshold (``--no-answer-threshold``, default the
                  artifact's ``no_answer.threshold``; skipped without one): the share of
                  questions the model abstains on, EM/F1 over every question (an
                  abstention scores 0: every dev question has its answer in the corpus)
                  and over the answers it gives, with retrieval and with the gold
                  paragraph, by whether the gold paragraph was among those read, and
                  at thresholds around it (``docs/no_answer.md``)

The model is ``--artifact`` (default: ``artifact/`` if it holds a manifest, else
``build/stand-in/artifact``); its name and hash are written with the figures.
Writes ``retrieval.json`` and ``retrieval.md`` into ``--out``.
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
from datetime import UTC, datetime
from pathlib import Path

from bench.in_process import KS, ingest_into, load_squad, open_service, recall, retrieve_all
from bench.stats import latency_summary
from harness.paths import REPO, SQUAD, default_artifact

TITLE_WEIGHTS = (0.0, 1.0, 2.0)
FUSION_WEIGHTS = (None, 4.0, 6.0, 8.0, 10.0, 12.0)  # span_bias.passage_bias's weight; None: probabilities alone
FUSION_TRAIN_QUESTIONS = 1000
ABSTENTION_OFFSETS = (-2.0, -1.0, 0.0, 1.0, 2.0, 4.0)  # thresholds around the artifact's, for the sweep


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench retrieval", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=SQUAD,
                   help="folder with train.json and dev.json (SQuAD v1.1 layout)")
    p.add_argument("--artifact", type=Path, default=None, help="model artifact folder (default: see above)")
    p.add_argument("--top-k-passages", type=int, default=5, help="passages read per question with retrieval")
    p.add_argument("--firestore", action="store_true", help="also measure the Firestore emulator")
    p.add_argument("--no-reading", action="store_true", help="retrieval only: skip the model runs (EM/F1)")
    p.add_argument("--limit", type=int, default=0, help="ask only the first N dev questions (0: all)")
    p.add_argument("--no-answer-threshold", type=float, default=None,
                   help="measure abstention at this threshold (default: the artifact's no_answer.threshold)")
    p.add_argument("--threads", type=int, default=1, help="ONNX Runtime threads (QA_THREADS)")
    p.add_argument("--out", type=Path, default=REPO / "records" / "bench")
    return p.parse_args(argv)


def log(message: str) -> None:
    print(f"[retrieval] {message}", file=sys.stderr, flush=True)


# -- measurements ----------------------------------------------------------

def read_all(service, questions: list[dict], top_k_passages: int) -> dict:
    """EM/F1 of the answers with retrieval and with the gold paragraph, through ``QAService.answer``."""
    from build_model.evaluation.metrics import squad_scores
    from function.errors import NotFound
    from function.service.qa_request import QARequest

    max_tokens = service.rt.manifest().sequence["max_answer_tokens"]
    retrieved, gold, stage_ms, server_ms = {}, {}, [], []
    started = time.perf_counter()
    for i, q in enumerate(questions, 1):
        # The best spans even from a model that abstains: ``abstention`` measures what abstaining does.
        ask = QARequest(q["question"], None, None, 1, max_tokens, top_k_passages, abstain=False)
        try:
            result = service.answer(ask)
            answers = result.payload["answers"]
            retrieved[q["id"]] = answers[0]["text"] if answers else ""
            stage_ms.append(result.timings_ms["retrieve"])
            server_ms.append(result.timings_ms["total"])  # retrieval, the store's reads and the model's run
        except NotFound:
            retrieved[q["id"]] = ""
        given = service.answer(QARequest(q["question"], None, (q["gold"],), 1, max_tokens, abstain=False))
        gold[q["id"]] = given.payload["answers"][0]["text"] if given.payload["answers"] else ""
        if i % 200 == 0:
            log(f"read {i} of {len(questions)} questions ({(time.perf_counter() - started) / i:.2f} s each)")
    golds = {q["id"]: q["answers"] for q in questions}
    with_retrieval, with_gold = squad_scores(retrieved, golds), squad_scores(gold, golds)
    return {
        "top_k_passages": top_k_passages,
        "with_retrieval": {k: round(with_retrieval[k], 2) for k in ("exact_match", "f1")},
        "gold_paragraph": {k: round(with_gold[k], 2) for k in ("exact_match", "f1")},
        "f1_gap": round(with_gold["f1"] - with_retrieval["f1"], 2),
        "retrieve_stage_ms": latency_summary(stage_ms, 3) if stage_ms else None,
        "question_alone_ms": latency_summary(server_ms, 3) if server_ms else None,
    }


def title_weight_variants(service, questions: dict[str, list[dict]]) -> list[dict]:
    """Recall with the title weighted differently (query-time in both stores): train decides."""
    from function.retrieval import bm25

    shipped = bm25.TITLE_WEIGHT
    rows = []
    try:
        for weight in TITLE_WEIGHTS:
            bm25.TITLE_WEIGHT = weight
            row = {"title_weight": weight, "shipped": weight == shipped}
            for split in ("train", "dev"):
                row[split] = recall(questions[split], retrieve_all(service, questions[split])[0])
            rows.append(row)
    finally:
        bm25.TITLE_WEIGHT = shipped
    return rows


def fusion_variants(service, questions: dict[str, list[dict]], top_k_passages: int) -> list[dict]:
    """F1 of the answers from the retrieved passages under each span ranking (train chooses): one model run per
    question through the function's own inference, decoded as ``POST /`` decodes it (``pipeline.spans``) with the
    BM25 term of its span bias weighted each way; the shipped weight's row is the function's answer with every
    passage read at once (``QA_CASCADE`` off)."""
    import dataclasses

    from build_model.evaluation.metrics import squad_scores
    from function.errors import NotFound
    from function.retrieval import span_bias
    from function.service.pipeline import spans
    from function.service.qa_request import QARequest

    model = service.rt.model()
    max_tokens = service.rt.manifest().sequence["max_answer_tokens"]
    predictions = {w: {"train": {}, "dev": {}} for w in FUSION_WEIGHTS}
    for split, qs in questions.items():
        for q in qs:
            ask = QARequest(q["question"], None, None, 1, max_tokens, top_k_passages, abstain=False)
            q_ids = model.tokenizer.encode(q["question"]).ids
            try:
                _, _, reading = service.read_question(q["question"], top_k_passages, len(q_ids), model)
            except NotFound:
                continue  # no searchable word: scores 0 under every ranking
            batch = service._batch(q_ids, reading, model)
            ran = service.rt.inference.run(model, batch)
            for w in FUSION_WEIGHTS:
                weighted = dataclasses.replace(reading, bias=reweighted(reading, w))
                found = spans(ask, weighted, batch, ran.start_logits, ran.end_logits)
                predictions[w][split][q["id"]] = (reading.texts[found[0].passage][found[0].start:found[0].end]
                                                  if found else "")
    rows = []
    for w in FUSION_WEIGHTS:
        row = {"bm25_weight": w, "shipped": w == span_bias.BM25_WEIGHT}
        for split, qs in questions.items():
            golds = {q["id"]: q["answers"] for q in qs}
            row[split] = round(squad_scores(predictions[w][split], golds)["f1"], 2)
        rows.append(row)
    return rows


def reweighted(reading, weight: float | None):
    """The reading's span bias with its BM25 term (``span_bias.passage_bias``) weighted ``weight`` instead of
    ``BM25_WEIGHT``, its other terms (cosines, names) as they are; None: no bias at all."""
    import numpy as np

    from function.retrieval import span_bias

    if weight is None:
        return None
    scores = np.asarray(reading.scores, dtype=np.float64)
    best = scores.max(initial=0.0)
    return reading.bias + (weight - span_bias.BM25_WEIGHT) * (scores / best if best > 0 else 0.0)


def abstention(service, questions: list[dict], top_k_passages: int, threshold: float) -> dict:
    """What abstaining at ``threshold`` does, with retrieval and with the gold paragraph given.

    One model run per question and source through the function's own inference, decoded as
    ``POST /`` decodes it (``_read_retrieved``'s passages and span bias, ``pipeline.spans``;
    ``null_score``'s margin); the threshold's neighbours are decoded from the same runs.
    """
    from function.errors import NotFound
    from function.model.decode import null_score
    from function.service.pipeline import Reading, spans
    from function.service.qa_request import QARequest

    model = service.rt.model()
    max_tokens = service.rt.manifest().sequence["max_answer_tokens"]
    rows: dict[str, list[dict]] = {"retrieval": [], "gold_paragraph": []}
    for q in questions:
        q_ids = model.tokenizer.encode(q["question"]).ids
        try:
            _, _, reading = service.read_question(q["question"], top_k_passages, len(q_ids), model)
        except NotFound:  # no searchable word: nothing read, nothing answered
            rows["retrieval"].append({"id": q["id"], "text": "", "margin": math.inf, "gold_read": False})
            reading = None
        gold = Reading.of_stored(service._fetch((q["gold"],), model.tokenizer.fingerprint))
        for source, read in (("retrieval", reading), ("gold_paragraph", gold)):
            if read is None:
                continue
            ask = (QARequest(q["question"], None, None, 1, max_tokens, top_k_passages, abstain=False)
                   if source == "retrieval" else QARequest(q["question"], None, (q["gold"],), 1, max_tokens,
                                                           abstain=False))
            batch = service._batch(q_ids, read, model)
            ran = service.rt.inference.run(model, batch)
            start, end = ran.start_logits, ran.end_logits
            found = spans(ask, read, batch, start, end)
            text = read.texts[found[0].passage][found[0].start : found[0].end] if found else ""
            rows[source].append({"id": q["id"], "text": text, "gold_read": any(m.get("passage_id") == q["gold"]
                                                                               for m in read.meta),
                                 "margin": null_score(start, end, batch, max_tokens).margin})
    golds = {q["id"]: q["answers"] for q in questions}
    out = {"threshold": threshold, "top_k_passages": top_k_passages}
    for source, got in rows.items():
        out[source] = {"at_threshold": abstention_figures(got, golds, threshold),
                       "never": abstention_figures(got, golds, math.inf)}
        if source == "retrieval":
            for read, label in ((True, "gold_read"), (False, "gold_not_read")):
                part = [r for r in got if r["gold_read"] is read]
                if part:
                    out[source][label] = abstention_figures(part, golds, threshold)
        out[source]["sweep"] = [{"offset": d, **abstention_figures(got, golds, threshold + d)}
                                for d in ABSTENTION_OFFSETS]
    return out


def abstention_figures(rows: list[dict], golds: dict[str, list[str]], threshold: float) -> dict:
    """Abstained share, EM/F1 over all the questions (an abstention scores 0) and over the answers given."""
    from build_model.evaluation.metrics import best_over_golds, exact_match, f1

    answered = [r for r in rows if not r["margin"] > threshold]
    em = [best_over_golds(exact_match, r["text"], golds[r["id"]]) for r in answered]
    f = [best_over_golds(f1, r["text"], golds[r["id"]]) for r in answered]
    n = len(rows)
    return {"questions": n, "abstained": round(1 - len(answered) / n, 4) if n else 0.0,
            "exact_match": round(100 * sum(em) / n, 2) if n else 0.0, "f1": round(100 * sum(f) / n, 2) if n else 0.0,
            "answered_exact_match": round(100 * sum(em) / len(em), 2) if em else None,
            "answered_f1": round(100 * sum(f) / len(f), 2) if f else None}


def firestore_run(env: dict, records: list, questions: list[dict], sqlite_ranked: list[list[str]],
                  work: Path) -> dict:
    import contextlib

    from harness.firestore import running_emulator

    with contextlib.ExitStack() as running:
        if not os.environ.get("FIRESTORE_EMULATOR_HOST"):  # else the emulator it names
            log("starting the Firestore emulator")
            running.enter_context(running_emulator(work / "firestore-emulator.log", timeout_s=120, in_process=True))
        service = open_service({**env, "QA_STORE": "firestore", "GOOGLE_CLOUD_PROJECT":
                                os.environ.get("GOOGLE_CLOUD_PROJECT", "demo-qa-bench")})
        log(f"ingesting {len(records)} paragraphs into {service.rt.store().description}")
        seconds = ingest_into(service, records)
        log(f"asking {len(questions)} questions of the Firestore emulator")
        ranked, times = retrieve_all(service, questions)
        same = sum(a == b for a, b in zip(ranked, sqlite_ranked)) / len(questions)
        return {"ingest_s": round(seconds, 1), "recall": recall(questions, ranked),
                "retrieve_ms": latency_summary(times, 3), "same_top10_as_sqlite": round(same, 4)}


# -- report ----------------------------------------------------------------

def markdown(result: dict) -> str:
    art, ret, read = result["artifact"], result["retrieval"], result.get("reading")
    lines = [
        "# Questions without passage ids: BM25 retrieval, then the model",
        "",
        f"`{result['command']}` on {result['date']}: {result['corpus']['paragraphs']:,} paragraphs "
        f"(train.json + dev.json) ingested, {result['questions']:,} dev.json questions asked without passage ids. "
        f"Model: `{art['name']}` (artifact hash `{art['artifact_hash'][:12]}`, {art['path']}).",
        "",
        "| store | recall@1 | recall@5 | recall@10 | retrieve p50 (ms) | retrieve p95 (ms) | ingest (s) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, label in (("sqlite", "SQLite (FTS5)"), ("firestore_emulator", "Firestore emulator")):
        if name in ret:
            r = ret[name]
            lines.append(f"| {label} | {r['recall']['@1']:.3f} | {r['recall']['@5']:.3f} | {r['recall']['@10']:.3f} "
                         f"| {r['retrieve_ms']['p50']:.2f} | {r['retrieve_ms']['p95']:.2f} | {r['ingest_s']} |")
    if "firestore_emulator" in ret:
        lines += ["", f"Same top-10 passages, in the same order, from both stores: "
                      f"{ret['firestore_emulator']['same_top10_as_sqlite']:.1%} of the questions."]
    if read:
        if art.get("stand_in"):
            lines += ["", f"The model is a stand-in ({art['stand_in']}): its EM/F1 say nothing about "
                          "answer quality, only that both paths ran; re-run with the trained artifact."]
        lines += [
            "",
            "| answers from | EM | F1 |",
            "|---|---|---|",
            f"| the top {read['top_k_passages']} retrieved passages | {read['with_retrieval']['exact_match']:.2f} "
            f"| {read['with_retrieval']['f1']:.2f} |",
            f"| the gold paragraph (`passage_ids`) | {read['gold_paragraph']['exact_match']:.2f} "
            f"| {read['gold_paragraph']['f1']:.2f} |",
            "",
            f"F1 gap: {read['f1_gap']:.2f} points.",
        ]
    if result.get("abstention"):
        lines += abstention_markdown(result["abstention"])
    if result.get("fusion_variants"):
        n_train = result["fusion_train_questions"]
        lines += ["", f"Ranking the spans of the top {read['top_k_passages']} passages (F1 on {n_train:,} train "
                      "questions and on dev, which chose it: `function/retrieval/span_bias.py`):", "",
                  "| ranking | train F1 | dev F1 |", "|---|---|---|"]
        for v in result["fusion_variants"]:
            w = v["bm25_weight"]
            label = ("the reader's probabilities alone" if w is None
                     else f"start + end logits + {w:g} x BM25 / the best BM25 read")
            mark = " (shipped)" if v["shipped"] else ""
            lines.append(f"| {label}{mark} | {v['train']:.2f} | {v['dev']:.2f} |")
    lines += ["", "Title weight in BM25 (recall@5; chosen on train questions):", "",
              "| title weight | train @1 | train @5 | train @10 | dev @1 | dev @5 | dev @10 |",
              "|---|---|---|---|---|---|---|"]
    for v in result["title_weight_variants"]:
        mark = " (shipped)" if v["shipped"] else ""
        lines.append(f"| {v['title_weight']:g}{mark} | " + " | ".join(
            f"{v[s][f'@{k}']:.3f}" for s in ("train", "dev") for k in KS) + " |")
    return "\n".join(lines) + "\n"


def abstention_markdown(ab: dict) -> list[str]:
    def pct(x):
        return "-" if x is None else f"{x:.2f}"

    def row(label: str, fig: dict) -> str:
        return (f"| {label} | {fig['questions']:,} | {fig['abstained']:.1%} | {fig['exact_match']:.2f} "
                f"| {fig['f1']:.2f} | {pct(fig['answered_exact_match'])} | {pct(fig['answered_f1'])} |")

    head = ["| questions | n | abstained | EM (all) | F1 (all) | EM (answered) | F1 (answered) |",
            "|---|---|---|---|---|---|---|"]
    ret, gold, k = ab["retrieval"], ab["gold_paragraph"], ab["top_k_passages"]
    lines = ["", f"Abstention at the no-answer threshold {ab['threshold']:.4f} (`docs/no_answer.md`); "
                 "an abstention scores 0 in EM/F1 over all questions:", "", *head,
             row(f"top {k} retrieved, never abstaining", ret["never"]),
             row(f"top {k} retrieved, abstaining", ret["at_threshold"])]
    for label, name in (("gold paragraph among them", "gold_read"), ("gold paragraph not among them", "gold_not_read")):
        if name in ret:
            lines.append(row(f"top {k} retrieved, abstaining: {label}", ret[name]))
    lines += [row("gold paragraph (`passage_ids`), never abstaining", gold["never"]),
              row("gold paragraph (`passage_ids`), abstaining", gold["at_threshold"]),
              "", f"Thresholds around it (top {k} retrieved):", "", *head]
    lines += [row(f"threshold {ab['threshold'] + v['offset']:.2f} ({v['offset']:+g})", v) for v in ret["sweep"]]
    return lines


def main(argv=None) -> int:
    args = parse_args(argv)
    from function.model.artifact import load_manifest
    from function.retrieval import bm25

    artifact = (args.artifact or default_artifact()).resolve()
    manifest = load_manifest(artifact)
    records, questions = load_squad(args.data)
    dev = questions["dev"][: args.limit] if args.limit else questions["dev"]
    log(f"{len(records)} paragraphs, {len(dev)} dev questions, model {manifest.name} ({artifact})")

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = {"QA_ARTIFACT_DIR": str(artifact), "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(work / "p.sqlite"),
               "QA_CACHE": "0", "QA_THREADS": str(args.threads), "QA_MAX_TOP_K_PASSAGES": str(max(20, *KS))}
        service = open_service(env)
        seconds = ingest_into(service, records)
        log(f"ingested into SQLite in {seconds:.1f} s; retrieving")
        ranked, times = retrieve_all(service, dev)
        retrieval = {"sqlite": {"ingest_s": round(seconds, 1), "recall": recall(dev, ranked),
                                "retrieve_ms": latency_summary(times, 3)}}
        variants = title_weight_variants(service, {"train": questions["train"], "dev": dev})
        reading, fusion_rows, train_sample, abstained = None, None, [], None
        threshold = args.no_answer_threshold
        if threshold is None and isinstance(manifest.raw.get("no_answer"), dict):
            threshold = manifest.raw["no_answer"].get("threshold")
        if not args.no_reading:
            log(f"reading: {len(dev)} questions with retrieval and with the gold paragraph")
            reading = read_all(service, dev, args.top_k_passages)
            if threshold is not None:
                log(f"abstention at threshold {threshold:.4f}: {len(dev)} questions")
                abstained = abstention(service, dev, args.top_k_passages, float(threshold))
            train_sample = random.Random(0).sample(questions["train"],
                                                   min(FUSION_TRAIN_QUESTIONS, len(questions["train"])))
            log(f"span rankings: {len(train_sample)} train and {len(dev)} dev questions")
            fusion_rows = fusion_variants(service, {"train": train_sample, "dev": dev}, args.top_k_passages)
        if args.firestore:
            retrieval["firestore_emulator"] = firestore_run(env, records, dev, ranked, work)

    result = {
        "command": "python -m bench retrieval " + shlex.join(argv if argv is not None else sys.argv[1:]),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "artifact": {"path": os.path.relpath(artifact, REPO), "name": manifest.name,
                     "artifact_hash": manifest.artifact_hash, "stand_in": manifest.raw.get("stand_in")},
        "corpus": {"paragraphs": len(records), "files": ["train.json", "dev.json"]},
        "questions": len(dev),
        "bm25": {"k1": bm25.K1, "b": bm25.B, "title_weight": bm25.TITLE_WEIGHT, "text_weight": bm25.TEXT_WEIGHT},
        "retrieval": retrieval,
        "reading": reading,
        "title_weight_variants": variants,
        "fusion_variants": fusion_rows,
        "abstention": abstained,
        "fusion_train_questions": len(train_sample),
        "machine": {"cpus": os.cpu_count(), "load_1min": round(os.getloadavg()[0], 2), "threads": args.threads},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "retrieval.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "retrieval.md").write_text(markdown(result))
    print(markdown(result))
    return 0
