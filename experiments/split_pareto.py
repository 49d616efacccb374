"""Split models (DeFormer) against the whole 6-layer and 3-layer models, int8, on every path (issue 28.3).

    .venv/bin/python -m experiments.split_pareto build/split-k2/model build/split-k3-lrs/model \\
        --small-artifact build/artifact-l3 --out records/build/sandbox/split-pareto

Each split model (``experiments.split_distil``'s ``model/`` with its ``split.json``) is exported as two
graphs and quantised with the shipped artifact's settings (``build_model.conversion.split_export``); the
whole models are the shipped ``--artifact`` and ``--small-artifact`` (the 3-layer model:
``git show 7313eea:artifact/FILE`` for manifest.json, model.onnx, tokenizer.json). Dev EM/F1 through the
function's windows and reader, on three paths:

* **passage in the request**: the function's windows; a split computes the passage's states on the fly;
* **stored passage** (by id): a split reads each window's states as ingestion stored them, so the windows
  are cut for a 64-token question whatever the question (``WindowSpec.question_budget``), and the states
  went through a storage format (fp32, fp16, int8 with a scale per token); a whole model reads the
  function's windows, as today;
* **question alone**: the ``--top-k-passages`` passages BM25 (the function's SQLite store, every
  paragraph of train.json and dev.json) ranks first, read together, decoded by the reader (no abstention,
  no BM25 fusion: the same for every model, so the rows compare).

Then the model time of a request of each kind, over ``--timing-questions`` dev questions, every model in
alternating rounds so that a slow spell of the machine hits all of them: a stored passage (the gold
paragraph) and a question alone (its retrieved passages). A split's time is the lower graph on the
question, the stored states read back from their bytes, and the upper graph on the windows; a whole
model's is one run on the windows. Writes ``OUT.md`` and ``OUT.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from build_model.conversion.split_export import STATE_FORMATS, SplitOnnx, build_split_int8
from build_model.evaluation import benchmark
from build_model.evaluation.metrics import squad_scores
from harness.paths import REPO, SQUAD

ALONE = "question alone"
PASSAGE_TOKENS = 160  # ingestion's longest passage (a window of its own): what a million stored passages weigh
PATHS = ("passage in the request", "stored passage", ALONE)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m experiments.split_pareto", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("splits", type=Path, nargs="*", help="split models (folders with split.json)")
    p.add_argument("--artifact", type=Path, default=REPO / "artifact", help="the whole 6-layer model")
    p.add_argument("--small-artifact", type=Path, default=None, help="the 3-layer artifact, for its row")
    p.add_argument("--data", type=Path, default=SQUAD, help="folder with train.json and dev.json")
    p.add_argument("--formats", nargs="+", default=list(STATE_FORMATS), choices=list(STATE_FORMATS),
                   help="storage formats of the passage states to score")
    p.add_argument("--top-k-passages", type=int, default=5)
    p.add_argument("--limit", type=int, default=0, help="first N dev questions only (0: all)")
    p.add_argument("--timing-questions", type=int, default=60)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--threads", type=int, default=benchmark.THREADS)
    p.add_argument("--out", type=Path, required=True, help="OUT.md and OUT.json are written")
    return p.parse_args(argv)


def corpus(data: Path, artifact: Path, limit: int, k: int) -> tuple[list[dict], dict[str, str], list[list[str]]]:
    """(dev questions with their gold passage id, passage id -> text of every train/dev paragraph, each
    question's ``k`` first ids from the function's own SQLite store and BM25)."""
    from bench.in_process import ingest_into, load_squad, open_service, retrieve_all

    records, questions = load_squad(data)
    dev = questions["dev"][:limit] if limit else questions["dev"]
    with tempfile.TemporaryDirectory(prefix="split-pareto-") as tmp:
        service = open_service({"QA_ARTIFACT_DIR": str(artifact), "QA_STORE": "sqlite", "QA_CACHE": "0",
                                "QA_SQLITE_PATH": str(Path(tmp) / "p.sqlite"), "QA_TOP_K_PASSAGES": str(k),
                                "QA_MAX_TOP_K_PASSAGES": str(k)})
        ingest_into(service, records)
        ranked, _ = retrieve_all(service, dev, k)
    return dev, {r.id: r.text for r in records}, ranked


class Reader:
    """The function's windows and reader around one model's ``infer``: a question, its passages, the answer."""

    def __init__(self, tok, spec, infer, max_answer_tokens: int):
        self.tok, self.spec, self.infer, self.max_answer = tok, spec, infer, max_answer_tokens
        self._encoded: dict[str, object] = {}

    def passages(self, texts: dict[str, str], ids: list[str]):
        from function.model.reader import PassageTokens

        missing = [i for i in dict.fromkeys(ids) if i not in self._encoded]
        for i, enc in zip(missing, self.tok.encode_many([texts[i] for i in missing])):
            self._encoded[i] = enc
        return [PassageTokens(self._encoded[i].ids, self._encoded[i].offsets) for i in ids]

    def batch(self, question_ids, texts: dict[str, str], ids: list[str]):
        from function.model.reader import prepare

        passages = self.passages(texts, ids)
        return prepare(question_ids[: self.spec.max_query_tokens], passages, self.spec), passages

    def answer(self, question_ids, texts: dict[str, str], ids: list[str]) -> str:
        from function.model.reader import answers_from_logits

        if not ids:
            return ""
        batch, passages = self.batch(question_ids, texts, ids)
        start, end = self.infer(batch)
        best = answers_from_logits(start, end, batch, passages, 1, self.max_answer,
                                   texts=[texts[i] for i in ids])
        return texts[ids[best[0].passage]][best[0].start : best[0].end] if best else ""


def scores(reader: Reader, questions: list[dict], q_ids: list, texts: dict[str, str], lists: list[list[str]]) -> dict:
    t0 = time.perf_counter()
    preds = {q["id"]: reader.answer(e.ids, texts, ids) for q, e, ids in zip(questions, q_ids, lists)}
    s = squad_scores(preds, {q["id"]: q["answers"] for q in questions})
    return {"exact_match": round(s["exact_match"], 2), "f1": round(s["f1"], 2),
            "seconds": round(time.perf_counter() - t0, 1)}


def stored_requests(model: SplitOnnx, fmt, batches: list) -> Callable[[], None]:
    """A split model's requests as served from stored states: each window's bytes computed once here, as
    ingestion would; the returned call runs every request: the question's lower states, the stored
    states read back, the upper graph."""
    stored = []
    for batch in batches:
        cs = batch.context_start
        states = model.passage_states(batch.input_ids[:, cs:], batch.attention_mask[:, cs:])
        stored.append((batch, fmt.encode(states), states.shape))

    def run() -> None:
        for batch, blob, shape in stored:
            cs = batch.context_start
            question = model.question_states(batch.input_ids[:1, :cs], batch.attention_mask[:1, :cs])
            model.answer(question, fmt.decode(blob, shape), batch)

    return run


def whole_requests(infer, batches: list) -> Callable[[], None]:
    def run() -> None:
        for batch in batches:
            infer(batch)

    return run


def timed(runs: dict[str, Callable[[], None]], rounds: int) -> dict[str, float]:
    """Median over ``rounds`` of each run's time (ms), the runs in alternating order each round."""
    for run in runs.values():  # once untimed: sessions and caches warm
        run()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for r in range(rounds):
        for name in (list(runs) if r % 2 == 0 else list(reversed(runs))):
            t0 = time.perf_counter()
            runs[name]()
            times[name].append((time.perf_counter() - t0) * 1000)
    return {name: statistics.median(v) for name, v in times.items()}


def measure(args: argparse.Namespace) -> dict:
    import torch

    from build_model import hf
    from build_model.training.split import SplitQA
    from function.model.artifact import load_manifest
    from function.model.load import window_spec
    from function.model.onnx_model import OnnxQAModel
    from function.model.tokenizer import QATokenizer

    torch.set_num_threads(args.threads)
    manifest = load_manifest(args.artifact.resolve())
    tok = QATokenizer(manifest.tokenizer_path)
    spec = window_spec(manifest)
    fixed = dataclasses.replace(spec, question_budget=spec.max_query_tokens)  # windows as a split stores them
    max_answer = manifest.sequence["max_answer_tokens"]
    questions, texts, ranked = corpus(args.data, args.artifact.resolve(), args.limit, args.top_k_passages)
    gold = [[q["gold"]] for q in questions]
    q_ids = tok.encode_many([q["question"] for q in questions])
    sample = [i for i in range(min(args.timing_questions, len(questions))) if ranked[i]]
    lists = {"stored passage": gold, ALONE: ranked}

    def batches(reader_spec, path) -> list:
        reader = Reader(tok, reader_spec, None, max_answer)
        return [reader.batch(q_ids[i].ids, texts, lists[path][i])[0] for i in sample]

    rows, runs = [], {path: {} for path in lists}
    wholes = [("6 layers, whole (shipped)", args.artifact.resolve())]
    if args.small_artifact:
        wholes.append(("3 layers, whole", args.small_artifact.resolve()))
    for name, folder in wholes:
        m = load_manifest(folder)
        infer = OnnxQAModel(m.model_path, args.threads, optimized=m.graph_optimized)
        reader = Reader(tok, spec, infer, max_answer)
        by_id = scores(reader, questions, q_ids, texts, gold)
        rows.append({"model": name, "artifact": m.name, "mb": round(m.model_path.stat().st_size / 1e6, 1),
                     "bytes_per_token": None, "f1": {"passage in the request": by_id, "stored passage": by_id,
                                                     ALONE: scores(reader, questions, q_ids, texts, ranked)}})
        print(json.dumps(rows[-1]), flush=True)
        for path in lists:
            runs[path][name] = whole_requests(infer, batches(spec, path))

    with tempfile.TemporaryDirectory(prefix="split-pareto-") as tmp:
        for folder in args.splits:
            layout = json.loads((folder / "split.json").read_text())
            split = SplitQA(hf.load_qa_model(str(folder), attn="eager").eval(), layout["k"],
                            layout["passage_positions_from"])
            work = Path(tmp) / folder.parent.name
            work.mkdir()
            graphs = build_split_int8(split, manifest.raw["quantization"], manifest.raw["onnx"]["opset"], work)
            lower, upper = graphs["lower"]["int8"], graphs["upper"]["int8"]
            mb = round((lower.stat().st_size + upper.stat().st_size) / 1e6, 1)
            on_the_fly = scores(Reader(tok, spec, SplitOnnx(lower, upper, args.threads), max_answer), questions,
                                q_ids, texts, gold)
            for fmt_name in args.formats:
                fmt = STATE_FORMATS[fmt_name]
                model = SplitOnnx(lower, upper, args.threads, fmt)
                stored = Reader(tok, fixed, model, max_answer)
                name = f"split k={layout['k']} ({folder.parent.name}), states {fmt.name}"
                rows.append({"model": name, "k": layout["k"], "mb": mb, "fused_ops": {p: graphs[p]["fused_ops"]
                                                                                    for p in graphs},
                             "bytes_per_token": fmt.bytes_per_token(split.model.config.hidden_size),
                             "f1": {"passage in the request": on_the_fly,
                                    "stored passage": scores(stored, questions, q_ids, texts, gold),
                                    ALONE: scores(stored, questions, q_ids, texts, ranked)}})
                print(json.dumps(rows[-1]), flush=True)
                for path in lists:
                    runs[path][name] = stored_requests(model, fmt, batches(fixed, path))
        ms = {path: {name: v / len(sample) for name, v in timed(r, args.rounds).items()} for path, r in runs.items()}
    reference = wholes[0][0]
    for row in rows:
        row["ms"] = {path: round(ms[path][row["model"]], 2) for path in ms}
        row["vs_whole"] = {path: round(ms[path][row["model"]] / ms[path][reference], 3) for path in ms}
        if len(wholes) > 1:
            row["vs_small"] = {path: round(ms[path][row["model"]] / ms[path][wholes[1][0]], 3) for path in ms}
    return {"rows": rows, "questions": len(questions), "timing_questions": len(sample),
            "top_k_passages": args.top_k_passages, "rounds": args.rounds, "threads": args.threads,
            "machine": benchmark.machine(), "reference": reference}


def markdown(result: dict, command: str) -> str:
    lines = [f"Dev questions: {result['questions']} (`../shared/data/squad/dev.json`); question alone: the "
             f"{result['top_k_passages']} passages BM25 ranks first among train.json + dev.json paragraphs. "
             f"Model time: mean per request over {result['timing_questions']} questions, median of "
             f"{result['rounds']} alternating rounds, {result['threads']} threads; ratio to "
             f"{result['reference']}.", "",
             "| model | int8 MB | stored bytes/token | F1 passage in request | F1 stored passage | F1 question "
             "alone | ms stored passage | ms question alone |", "|---|---|---|---|---|---|---|---|"]
    for row in result["rows"]:
        f1 = row["f1"]
        lines.append(f"| {row['model']} | {row['mb']} | {row['bytes_per_token'] or '-'} | "
                     + " | ".join(f"{f1[p]['f1']:.2f}" for p in PATHS) + " | "
                     + " | ".join(f"{row['ms'][p]:.1f} ({row['vs_whole'][p]:.2f}x)" for p in ("stored passage", ALONE))
                     + " |")
    from bench.prices import STORAGE_GIB_MONTH

    stored = sorted({row["bytes_per_token"] for row in result["rows"] if row["bytes_per_token"]})
    if stored:
        gib = {b: b * (PASSAGE_TOKENS + 1) * 1e6 / 2**30 for b in stored}
        lines += ["", f"Stored states of a million {PASSAGE_TOKENS}-token passages (and their [SEP]): "
                  + "; ".join(f"{b} bytes/token: {gib[b]:.0f} GiB, ${gib[b] * STORAGE_GIB_MONTH:,.0f} a month in "
                              f"Firestore" for b in stored)
                  + f" (${STORAGE_GIB_MONTH}/GiB-month, `bench/prices.py`); a stored passage's token ids and "
                  f"offsets take 10 bytes a token (`function/store/records.py`)."]
    machine = result["machine"]
    lines += ["", f"Machine: {machine['cpu']}, {machine['available_cpus']} CPUs, {', '.join(machine['isa'])}", "",
              f"Command: `{command}`", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    args = parse_args(argv)
    for folder in args.splits:
        if not (folder / "split.json").is_file():
            raise SystemExit(f"{folder}: no split.json (a split model is experiments.split_distil's --out/model)")
    result = measure(args)
    command = "python -m experiments.split_pareto " + shlex.join(argv if argv is not None else sys.argv[1:])
    result["command"] = command
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(markdown(result, command))
    print(markdown(result, command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
