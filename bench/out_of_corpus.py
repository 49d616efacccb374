"""``python -m bench out-of-corpus``: questions asked alone, against a corpus with and without their answer.

A user's corpus answers some questions and not others; asked alone (no
``passage_ids``, no ``context``), a question whose answer is not stored should
get "no answer", and one whose answer is stored should still be answered. The
7 articles of ``dev.json`` are split into two folds (articles 0, 2, 4, 6 and
1, 3, 5); each fold's paragraphs are ingested into a fresh SQLite store alone
(``--with-train``: with every ``train.json`` paragraph too, a larger corpus
whose passages are closer to the question), and every dev question is asked
alone through the function's own ``QAService``, twice: with the artifact's
default (abstaining) and with ``"abstain": false``. A question is *in corpus*
in the fold that ingested its article and *out of corpus* in the other, so each
of the 1,227 questions is measured once in each role. ``--sample`` adds what a
new user tries first: ``make run``'s sample corpus, its own 208 questions in
corpus and the 100 of ``samples/off_topic_questions.txt`` out of it.
``--retrieval hybrid`` searches each corpus as ``make run DOCS=...`` does: a Lance
index beside the store with the sentence encoder's vectors, BM25 and embeddings
mixed, whose cosine also moves the "no answer" threshold (docs/no_answer.md); ``--retrieval stored``
the store's own BM25 with each passage's embedding stored beside it (``QA_INDEX_ENCODER`` alone), whose
cosine does the same.

Reports, per corpus: the share of out-of-corpus questions answered "no answer"
(the model's abstention, or nothing in the store matching the question), the
share of in-corpus questions abstained on, and the in-corpus EM/F1 with
abstention (an abstention scores 0) beside the same questions never abstaining.
Writes ``out_of_corpus.json`` and ``.md`` into ``--out`` (default: records/bench/no_answer/<model>).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench import in_process
from harness.paths import ARTIFACT, ENCODER, REPO, SQUAD

FOLDS = ((0, 2, 4, 6), (1, 3, 5))  # dev.json article indices ingested in each fold
SAMPLE = REPO / "samples" / "squad_sample.json"
OFF_TOPIC = REPO / "samples" / "off_topic_questions.txt"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench out-of-corpus", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=SQUAD,
                   help="folder with dev.json (and train.json for --with-train), SQuAD v1.1 layout")
    p.add_argument("--artifact", type=Path, default=ARTIFACT, help="model artifact folder")
    p.add_argument("--top-k-passages", type=int, default=5, help="passages read per question")
    p.add_argument("--with-train", action="store_true", help="also ingest every train.json paragraph")
    p.add_argument("--sample", action="store_true",
                   help="also the sample corpus (make run's) against samples/off_topic_questions.txt")
    p.add_argument("--every", type=int, default=1, help="ask only every N-th dev question (1: all)")
    p.add_argument("--threads", type=int, default=1, help="ONNX Runtime threads (QA_THREADS)")
    p.add_argument("--retrieval", choices=("bm25", "stored", "hybrid"), default="bm25",
                   help="bm25 (the default): the SQLite store's own index; hybrid: a Lance index with the encoder's "
                        "vectors beside it (QA_INDEX_URI + QA_INDEX_ENCODER, what make run DOCS=... serves), whose "
                        "cosine also moves the 'no answer' threshold; stored: the store's own index, each passage's "
                        "embedding stored beside it (QA_INDEX_ENCODER alone), its cosine doing the same")
    p.add_argument("--encoder", type=Path, default=ENCODER, help="sentence encoder for --retrieval hybrid|stored")
    p.add_argument("--out", type=Path, default=None,
                   help="folder for out_of_corpus.json and .md (default: records/bench/no_answer/<model name>)")
    return p.parse_args(argv)


def log(message: str) -> None:
    print(f"[out-of-corpus] {message}", file=sys.stderr, flush=True)


def article_of(passage_id: str, titles: list[str]) -> int:
    """The dev article index of a dev paragraph id (``squad_id``: ``<title>-<paragraph>``)."""
    return [t.replace("/", "_") for t in titles].index(passage_id.rsplit("-", 1)[0])


def ask(service, question: str, k: int, abstain: bool) -> dict:
    from function.service.qa_request import QARequest

    max_tokens = service.rt.settings.max_answer_tokens
    return service.answer(QARequest(question, None, None, 1, max_tokens, k, abstain=abstain)).payload


def row(service, q: dict, in_corpus: bool, k: int) -> dict:
    """One question asked alone, abstaining and not: what the replies say."""
    from build_model.evaluation.metrics import best_over_golds, exact_match, f1

    on, off = ask(service, q["question"], k, True), ask(service, q["question"], k, False)
    text = on["answers"][0]["text"] if on["answers"] else ""
    never = off["answers"][0]["text"] if off["answers"] else ""
    verdict = on.get("no_answer") or {}

    def score(metric, span):
        return best_over_golds(metric, span, q["answers"]) if span and q["answers"] else 0.0

    return {"id": q["id"], "in_corpus": in_corpus, "abstained": bool(verdict.get("abstained")),
            "unmatched": "reason" in verdict, "probability": verdict.get("probability"),
            "em": score(exact_match, text), "f1": score(f1, text),
            "em_never": score(exact_match, never), "f1_never": score(f1, never)}


def fold_rows(service, questions: list[dict], in_corpus: set[int], titles: list[str], k: int) -> list[dict]:
    rows = []
    for i, q in enumerate(questions):
        rows.append(row(service, q, article_of(q["gold"], titles) in in_corpus, k))
        if (i + 1) % 200 == 0:
            log(f"{i + 1} of {len(questions)} questions")
    return rows


def figures(rows: list[dict]) -> dict:
    inside = [r for r in rows if r["in_corpus"]]
    outside = [r for r in rows if not r["in_corpus"]]

    def mean(rs, key):
        return round(100.0 * sum(r[key] for r in rs) / len(rs), 2) if rs else None

    return {
        "out_of_corpus": {"questions": len(outside), "no_answer": mean(outside, "abstained"),
                          "unmatched": mean(outside, "unmatched")},
        "in_corpus": {"questions": len(inside), "abstained": mean(inside, "abstained"),
                      "exact_match": mean(inside, "em"), "f1": mean(inside, "f1"),
                      "exact_match_never_abstaining": mean(inside, "em_never"),
                      "f1_never_abstaining": mean(inside, "f1_never"),
                      "f1_drop": round(mean(inside, "f1_never") - mean(inside, "f1"), 2) if inside else None},
    }


def run_corpus(args, with_train: bool, dev_records: list, train_records: list, questions: list[dict],
               titles: list[str]) -> dict:
    rows = []
    for fold in FOLDS:
        with tempfile.TemporaryDirectory(prefix="out-of-corpus-") as tmp:
            service = in_process.open_service(service_env(args, Path(tmp)))
            records = [r for r in dev_records if article_of(r.id, titles) in fold]
            in_process.ingest_into(service, records + (train_records if with_train else []))
            log(f"articles {fold} ingested ({len(records)} dev paragraphs"
                f"{f' + {len(train_records)} train' if with_train else ''})")
            rows += fold_rows(service, questions, set(fold), titles, args.top_k_passages)
    return {"corpus": "dev articles of the fold" + (" + every train.json paragraph" if with_train else ""),
            **figures(rows), "rows": rows}


def sample_corpus(args) -> dict:
    """``make run``'s corpus: its own 208 questions in corpus, ``samples/off_topic_questions.txt`` out of it."""
    from function.ingest.json_input import Record, parse_text

    text = SAMPLE.read_text(encoding="utf-8")
    records = [r for r in parse_text(SAMPLE.name, text) if isinstance(r, Record)]
    own = [{"id": q["id"], "question": q["question"], "answers": q["answers"]}
           for q in in_process.squad_questions(SAMPLE)]
    off_topic = [{"id": f"off-topic-{i}", "question": line, "answers": []}
                 for i, line in enumerate(off_topic_questions())]
    with tempfile.TemporaryDirectory(prefix="out-of-corpus-") as tmp:
        service = in_process.open_service(service_env(args, Path(tmp)))
        in_process.ingest_into(service, records)
        rows = [row(service, q, True, args.top_k_passages) for q in own]
        rows += [row(service, q, False, args.top_k_passages) for q in off_topic]
    return {"corpus": f"samples/{SAMPLE.name} (make run's); out of corpus: {OFF_TOPIC.name}",
            **figures(rows), "rows": rows}


def off_topic_questions() -> list[str]:
    lines = OFF_TOPIC.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def service_env(args, folder: Path) -> dict:
    env = {"QA_ARTIFACT_DIR": str(args.artifact), "QA_STORE": "sqlite",
           "QA_SQLITE_PATH": str(folder / "passages.sqlite"), "QA_CACHE": "0", "QA_THREADS": str(args.threads)}
    return env | in_process.retrieval_env(args.retrieval, folder, args.encoder)  # hybrid: the corpus's own table


def markdown(result: dict) -> str:
    lines = [f"# Questions asked alone, with and without their answer in the corpus ({result['artifact']['name']})",
             "", f"`{result['command']}`, {result['date']}; artifact {result['artifact']['hash'][:12]}, "
             f"top {result['top_k_passages']} passages, threshold {result['threshold']}, "
             f"retrieval {result['retrieval']}.", "",
             "| corpus | out of corpus: \"no answer\" | ... nothing matched | in corpus: abstained "
             "| in corpus EM / F1 | never abstaining EM / F1 | F1 drop |",
             "|---|---|---|---|---|---|---|"]
    for c in result["corpora"]:
        o, i = c["out_of_corpus"], c["in_corpus"]
        lines.append(f"| {c['corpus']} | {o['no_answer']:.1f}% of {o['questions']:,} | {o['unmatched']:.1f}% "
                     f"| {i['abstained']:.1f}% of {i['questions']:,} | {i['exact_match']:.2f} / {i['f1']:.2f} "
                     f"| {i['exact_match_never_abstaining']:.2f} / {i['f1_never_abstaining']:.2f} "
                     f"| {i['f1_drop']:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    args = parse_args(argv)
    from build_model.squad import load_squad
    from function.ingest.json_input import Record, parse_text
    from function.model.artifact import load_manifest

    manifest = load_manifest(args.artifact)
    if not isinstance(manifest.raw.get("no_answer"), dict):
        log("the artifact records no no-answer threshold: only unmatched questions can say 'no answer'")
    dev_text = (args.data / "dev.json").read_text(encoding="utf-8")
    titles = list(dict.fromkeys(p.title for p in load_squad(args.data / "dev.json").paragraphs.values()))
    dev_records = [r for r in parse_text("dev.json", dev_text) if isinstance(r, Record)]
    _, questions = in_process.load_squad(args.data)
    dev = questions["dev"][:: max(1, args.every)]
    train_records = []
    if args.with_train:
        train_text = (args.data / "train.json").read_text(encoding="utf-8")
        train_records = [r for r in parse_text("train.json", train_text) if isinstance(r, Record)]
    t0 = time.perf_counter()
    corpora = [run_corpus(args, False, dev_records, [], dev, titles)]
    if args.with_train:
        corpora.append(run_corpus(args, True, dev_records, train_records, dev, titles))
    if args.sample:
        corpora.append(sample_corpus(args))
    result = {
        "command": "python -m bench out-of-corpus " + " ".join(argv if argv is not None else sys.argv[1:]),
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "artifact": {"name": manifest.name, "hash": manifest.artifact_hash},
        "threshold": (manifest.raw.get("no_answer") or {}).get("threshold"),
        "top_k_passages": args.top_k_passages, "retrieval": args.retrieval, "folds": FOLDS, "corpora": corpora,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    if args.out is None:
        args.out = REPO / "records" / "bench" / "no_answer" / manifest.name.removesuffix("-squad-int8")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "out_of_corpus.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    (args.out / "out_of_corpus.md").write_text(markdown(result), encoding="utf-8")
    print(markdown(result))
    return 0
