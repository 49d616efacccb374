"""``python -m bench windows``: a request's windows padded to the longest against run at their own lengths.

Ingests every paragraph of ``train.json`` and ``dev.json`` (``--data``) into a
temporary SQLite store and asks ``--questions`` dev questions (a seeded sample)
through the function's own code in this process (``QAService``), each on the
three paths: its paragraph as ``context``, its paragraph's ``passage_ids``,
and alone (the ``--top-k-passages`` passages BM25 retrieves); and a fourth,
``long_context``: its paragraph and the two after it in its article as one
``context`` (several windows, all full but the last, where SQuAD's paragraphs
mostly fit one). Every request is
answered by every strategy in turn, the order rotating from one question to
the next, so that a slow spell of the machine hits them all. The cascade is
off (``QA_CASCADE=0``) unless ``--cascade``: a question asked alone reads all its passages at once,
the padded batch it is measured against (``python -m bench cascade`` measures
the cascade on top of these runs; ``--cascade`` compares strategies as the
function's default runs them, the first passage read first).

  padded      all windows as one batch padded to the longest (as before; ``Inference(padded=True)``)
  unpadded    the function's default: each window at its own length, across the cores for a lone
              request where that finishes sooner (``function.model.unpadded``)
  sequential  each window at its own length, one after another with every thread (``serial`` mode)
  buckets     windows grouped by length, each group padded to its longest, one run per group after
              another with every thread (``bucket_groups``: the grouping with the least padding plus a
              per-run cost of ``--run-cost`` tokens); measured here only, not in the function
  spread      ``unpadded`` with ``QA_SPREAD_WINDOWS`` the other way round from its default (a lone request's
              windows across the cores, or one after another), on ``unpadded``'s own service and ONNX Runtime
              session, as a deployment would run either (``Toggled``): two sessions in one process disturb each
              other (each one's idle intra-op threads spin after its runs) (not run unless named in
              ``--strategies``)

It reports, per path and strategy: server time (the reply's ``total``) and the
model's share (``inference``) as p50 / p95 / mean, the median of each
request's time over the padded run's, the windows and the tokens run against
the padded ones, whether the answer (text, passage, abstention) is the padded
run's, and EM / F1 against the dev answers. And what one window gains from a
second intra-op thread (``speedup``: one window of each length on the
function's every-CPU session and on its 1-thread session, in turn), the figure
behind ``function.service.inference.INTRA_OP_EFFICIENCY``. Writes
``windows.json`` and ``windows.md`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench import machine
from bench.in_process import ingest_into, load_squad, open_service
from bench.stats import latency_summary
from harness.paths import REPO, SQUAD, default_artifact

STRATEGIES = ("padded", "unpadded", "sequential", "buckets", "spread")
PATHS = ("context", "passage_ids", "alone", "long_context")
RESULTS = REPO / "records" / "bench" / "windows"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench windows", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifact", type=Path, help="artifact folder (default: artifact/)")
    p.add_argument("--data", type=Path, default=SQUAD, help="folder with train.json and dev.json")
    p.add_argument("--questions", type=int, default=300, help="dev questions asked (a seeded sample)")
    p.add_argument("--top-k-passages", type=int, default=5)
    p.add_argument("--threads", type=int, default=0, help="QA_THREADS (0: the CPUs this process may use)")
    p.add_argument("--strategies", nargs="+", choices=STRATEGIES,
                   default=[s for s in STRATEGIES if s != "spread"])
    p.add_argument("--run-cost", type=int, default=64, help="buckets: one more run's cost, in padded tokens")
    p.add_argument("--warmup", type=int, default=5, help="questions asked first and not recorded")
    p.add_argument("--cascade", action="store_true",
                   help="the cascade on (QA_CASCADE=1, the function's default): a question alone reads its first "
                        "passage first")
    p.add_argument("--out", type=Path, default=RESULTS)
    return p.parse_args(argv)


def log(message: str) -> None:
    print(f"[windows] {message}", file=sys.stderr, flush=True)


def bucket_groups(lengths: list[int], run_cost: int) -> list[list[int]]:
    """Window indices grouped by length: the split of the sorted lengths into runs that minimises the padded
    tokens plus ``run_cost`` per run (each run padded to its longest)."""
    order = sorted(range(len(lengths)), key=lambda w: lengths[w])
    sizes = [lengths[w] for w in order]
    best, cut = [0] + [None] * len(sizes), [0] * (len(sizes) + 1)
    for j in range(1, len(sizes) + 1):
        for i in range(j):
            cost = best[i] + (j - i) * sizes[j - 1] + run_cost
            if best[j] is None or cost < best[j]:
                best[j], cut[j] = cost, i
    groups, j = [], len(sizes)
    while j:
        groups.append(order[cut[j]:j])
        j = cut[j]
    return groups[::-1]


def bucket_inference(settings, cpus: int, run_cost: int):
    """An ``Inference`` that runs a request's windows in ``bucket_groups``, one group after another."""
    import numpy as np

    from function.model.unpadded import gather, window_width
    from function.model.windows import Batch
    from function.service.inference import Inference

    class Buckets(Inference):
        runs = 0

        def _windows(self, infer, batch: Batch):
            lengths = [int(n) for n in batch.context_len]
            groups = bucket_groups(lengths, run_cost)
            if len(groups) == 1:
                self.runs += 1
                return infer(batch)
            parts: list = [None] * len(batch)
            for group in groups:
                rows = np.asarray(group)
                width = batch.context_start + int(batch.context_len[rows].max()) + 1
                start, end = infer(Batch(batch.input_ids[rows, :width], batch.attention_mask[rows, :width],
                                         batch.token_type_ids[rows, :width], batch.passage_index[rows],
                                         batch.token_start[rows], batch.context_len[rows], batch.context_start))
                self.runs += 1
                for k, w in enumerate(group):
                    own = window_width(batch, w)
                    parts[w] = (start[k : k + 1, :own], end[k : k + 1, :own])
            return gather(batch, parts)

    return Buckets(settings, cpus)


class Toggled:
    """``service`` answering each request with ``spread_lone`` (``Inference``: ``QA_SPREAD_WINDOWS``) set as given:
    a second strategy on the same ONNX Runtime session, whose run counters it shares."""

    def __init__(self, service, spread_lone: bool):
        self.service, self.spread_lone = service, spread_lone

    @property
    def rt(self):
        return self.service.rt

    def answer(self, req):
        inference = self.service.rt.inference
        before, inference.spread_lone = inference.spread_lone, self.spread_lone
        try:
            return self.service.answer(req)
        finally:
            inference.spread_lone = before


def services(env: dict, strategies: list[str], run_cost: int) -> dict:
    """One ``QAService`` per strategy over the same store (the first one's); ``spread`` on ``unpadded``'s."""
    from function.config import Settings
    from function.cpus import available_cpus

    names = list(dict.fromkeys(strategies))
    own = [n for n in names if n != "spread"] + (["unpadded"] if "spread" in names and "unpadded" not in names else [])
    out = {}
    for name in own:
        mode = "serial" if name in ("sequential", "buckets") else "adaptive"
        service = open_service({**env, "QA_INFERENCE_MODE": mode})
        if name == "padded":
            service.rt.inference.padded = True
        elif name == "buckets":
            service.rt.inference = bucket_inference(service.rt.settings, available_cpus(), run_cost)
        out[name] = service
    if "spread" in strategies:
        out["spread"] = Toggled(out["unpadded"], not Settings.from_env({}).spread_windows)
    return {name: out[name] for name in names + [n for n in own if n not in names]}


def requests_of(question: dict, texts: dict, top_k_passages: int, max_tokens: int) -> dict:
    """The question's request on each path (``texts``: paragraph id -> text, in the articles' order)."""
    from function.service.qa_request import QARequest

    q, gold = question["question"], question["gold"]
    ids = list(texts)
    at = ids.index(gold)
    article = gold.rsplit("-", 1)[0]
    following = [texts[i] for i in ids[at: at + 3] if i.rsplit("-", 1)[0] == article]
    return {"context": QARequest(q, texts[gold], None, 1, max_tokens),
            "passage_ids": QARequest(q, None, (gold,), 1, max_tokens),
            "alone": QARequest(q, None, None, 1, max_tokens, top_k_passages),
            "long_context": QARequest(q, "\n\n".join(following), None, 1, max_tokens)}


def recording_shapes(service) -> list[dict]:
    """Make ``service``'s model runs note the windows of each request and the tokens they hold against those
    of one batch padded to the longest window; the list they are appended to."""
    seen: list[dict] = []
    inference = service.rt.inference
    run = inference.run

    def noted(model, batch):
        seen.append({"windows": len(batch), "tokens": int(batch.attention_mask.sum()),
                     "padded_tokens": int(batch.input_ids.size)})
        return run(model, batch)

    inference.run = noted
    return seen


def ask_all(by_name: dict, questions: list[dict], texts: dict, top_k_passages: int, warmup: int) -> dict:
    """Every question on every path by every strategy in rotating order: the timings, answers and shapes."""
    names = list(by_name)
    max_tokens = next(iter(by_name.values())).rt.manifest().sequence["max_answer_tokens"]
    shapes = recording_shapes(by_name[names[0]])
    rows = {path: [] for path in PATHS}
    started = time.perf_counter()
    for i, q in enumerate(questions):
        reqs = requests_of(q, texts, top_k_passages, max_tokens)
        for path, req in reqs.items():
            turn = names[i % len(names):] + names[: i % len(names)]
            row = {"id": q["id"], "by": {}}
            shapes.clear()
            for name in turn:
                result = by_name[name].answer(req)
                answers = result.payload["answers"]
                top = answers[0] if answers else {}
                ms = result.timings_ms
                row["by"][name] = {"total_ms": ms["total"], "inference_ms": ms["inference"],
                                   "text": top.get("text", ""), "passage_id": top.get("passage_id"),
                                   "score": top.get("score"),
                                   "abstained": (result.payload.get("no_answer") or {}).get("abstained", False)}
            if i >= warmup:
                row.update(shapes[0] if shapes else {"windows": 0, "tokens": 0, "padded_tokens": 0})  # 0: no model run
                rows[path].append(row)
        if (i + 1) % 50 == 0:
            log(f"{i + 1} of {len(questions)} questions ({(time.perf_counter() - started) / (i + 1):.2f} s each)")
    return rows


def speedup(service, text: str, question: str, lengths=(128, 256, 384), runs: int = 30) -> list[dict]:
    """One window of each length on the every-CPU session and on a 1-thread one, in turn: median times and
    their ratio (empty with one CPU)."""
    from function.model.onnx_model import OnnxQAModel
    from function.model.reader import PassageTokens, prepare

    model = service.rt.model()
    if service.rt.inference.threads < 2:
        return []
    narrow = OnnxQAModel(model.manifest.model_path, 1, optimized=model.manifest.graph_optimized)
    q = model.tokenizer.encode(question).ids
    enc = model.tokenizer.encode(text)
    out = []
    for length in lengths:
        n = max(1, min(len(enc.ids), length - len(q) - model.spec.special_tokens))
        batch = prepare(q, [PassageTokens(enc.ids[:n], enc.offsets[:n])], model.spec)
        times: dict = {"wide": [], "narrow": []}
        for i in range(runs + 2):
            for name in (("wide", "narrow") if i % 2 else ("narrow", "wide")):
                t0 = time.perf_counter()
                (model.infer if name == "wide" else narrow)(batch)
                if i >= 2:
                    times[name].append((time.perf_counter() - t0) * 1000)
        wide, one = statistics.median(times["wide"]), statistics.median(times["narrow"])
        out.append({"window_tokens": int(batch.input_ids.shape[1]), "threads": service.rt.inference.threads,
                    "ms": round(wide, 2), "one_thread_ms": round(one, 2), "speedup": round(one / wide, 3)})
    return out


def summarise(rows: dict, questions: list[dict], names: list[str]) -> dict:
    from build_model.evaluation.metrics import squad_scores

    golds = {q["id"]: q["answers"] for q in questions}
    out = {}
    for path, path_rows in rows.items():
        if not path_rows:
            continue
        figures = {"requests": len(path_rows),
                   "windows_mean": round(statistics.fmean(r["windows"] for r in path_rows), 2),
                   "tokens_share_of_padded": round(sum(r["tokens"] for r in path_rows)
                                                   / max(1, sum(r["padded_tokens"] for r in path_rows)), 3),
                   "strategies": {}}
        for name in names:
            total = [r["by"][name]["total_ms"] for r in path_rows]
            infer = [r["by"][name]["inference_ms"] for r in path_rows]
            entry = {"server_ms": latency_summary(total), "inference_ms": latency_summary(infer)}
            if "padded" in names:
                base = [r["by"]["padded"] for r in path_rows]
                entry["server_over_padded_median"] = round(statistics.median(
                    t / b["total_ms"] for t, b in zip(total, base)), 3)
                entry["inference_over_padded_median"] = round(statistics.median(
                    t / b["inference_ms"] for t, b in zip(infer, base) if b["inference_ms"] > 0), 3)
                entry["same_answer_as_padded"] = round(statistics.fmean(
                    (r["by"][name]["text"], r["by"][name]["passage_id"], r["by"][name]["abstained"])
                    == (b["text"], b["passage_id"], b["abstained"]) for r, b in zip(path_rows, base)), 4)
            scores = squad_scores({r["id"]: r["by"][name]["text"] for r in path_rows},
                                  {r["id"]: golds[r["id"]] for r in path_rows})
            entry.update(exact_match=round(scores["exact_match"], 2), f1=round(scores["f1"], 2),
                         abstained=round(statistics.fmean(r["by"][name]["abstained"] for r in path_rows), 4))
            figures["strategies"][name] = entry
        out[path] = figures
    return out


def markdown(result: dict) -> str:
    m = result["machine"]
    lines = [f"# Windows padded to the longest against run at their own lengths ({result['date']})", "",
             f"`{result['command']}`", "",
             f"Model `{result['artifact']['name']}` ({result['artifact']['artifact_hash'][:12]}), "
             f"{result['corpus_paragraphs']} paragraphs (train.json + dev.json) in SQLite, {result['questions']} "
             f"dev questions on each path, answer cache off, cascade {'on' if result.get('cascade') else 'off'}; "
             f"{m['cpu']}, {m['available_cpus']} CPUs, "
             f"QA_THREADS={result['threads'] or 'all'}; load average at start {m['load_average_at_start']}, at the end "
             f"{result.get('load_average_at_end')} (other work than a training job shows here only).", ""]
    if not m["quiet"]:
        lines += ["**Not a quiet machine**: other work was running (" + "; ".join(m["competing_processes"])[:200]
                  + "): compare the strategies with each other (they ran in turn), not with other records.", ""]
    lines += ["| Path | Windows per request | Tokens run / padded | Strategy | Server p50 | p95 | mean | "
              "Inference p50 | Server / padded (median) | Same answer as padded | EM | F1 | No answer |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for path, f in result["paths"].items():
        for name, s in f["strategies"].items():
            lines.append(f"| {path} | {f['windows_mean']} | {f['tokens_share_of_padded']:.2f} | {name} | "
                         f"{s['server_ms']['p50']:.1f} ms | {s['server_ms']['p95']:.1f} | "
                         f"{s['server_ms']['mean']:.1f} | "
                         f"{s['inference_ms']['p50']:.1f} ms | {s.get('server_over_padded_median', '')} | "
                         f"{100 * s.get('same_answer_as_padded', 0):.1f}% | {s['exact_match']:.2f} | {s['f1']:.2f} | "
                         f"{100 * s['abstained']:.1f}% |")
    lines += ["", "Tokens run / padded: the tokens the windows hold over those of one batch padded to the longest "
              "window. Server / padded: the median over requests of each request's server time over the padded "
              "run's for the same request. Same answer: the top answer's text and passage, and whether it abstained.",
              ""]
    if result.get("speedup"):
        lines += ["One window on the every-CPU session against the 1-thread session (medians of 30 in turn):", "",
                  "| Window tokens | Threads | ms | 1 thread, ms | Speedup |", "|---|---|---|---|---|"]
        lines += [f"| {g['window_tokens']} | {g['threads']} | {g['ms']} | {g['one_thread_ms']} | {g['speedup']} |"
                  for g in result["speedup"]]
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    from function.model.artifact import load_manifest

    artifact = (args.artifact or default_artifact()).resolve()
    manifest = load_manifest(artifact)
    described = machine.describe()
    if not described["quiet"]:
        log("warning: other work is running; compare the strategies with each other only")
    records, questions = load_squad(args.data)
    texts = {r.id: r.text for r in records}
    dev = random.Random(0).sample(questions["dev"], min(len(questions["dev"]), args.questions + args.warmup))
    names = list(dict.fromkeys(args.strategies))
    with tempfile.TemporaryDirectory() as tmp:
        env = {"QA_ARTIFACT_DIR": str(artifact), "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(Path(tmp) / "p.sqlite"),
               "QA_CACHE": "0", "QA_THREADS": str(args.threads), "QA_CASCADE": "1" if args.cascade else "0"}
        by_name = services(env, names, args.run_cost)
        seconds = ingest_into(next(iter(by_name.values())), records)
        log(f"{len(records)} paragraphs ingested in {seconds:.1f} s; {len(dev)} questions x {len(PATHS)} paths x "
            f"{len(names)} strategies")
        rows = ask_all(by_name, dev, texts, args.top_k_passages, args.warmup)
        longest = max(records, key=lambda r: len(r.text)).text
        gains = speedup(by_name["unpadded"], longest, dev[0]["question"]) if "unpadded" in by_name else []
        runs = {name: {k: getattr(s.rt.inference, k) for k in ("wide_runs", "narrow_runs", "spread_runs", "runs")
                       if hasattr(s.rt.inference, k)} for name, s in by_name.items()}
    result = {"command": "python -m bench windows " + shlex.join(argv),
              "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
              "artifact": {"path": os.path.relpath(artifact, REPO), "name": manifest.name,
                           "artifact_hash": manifest.artifact_hash},
              "machine": described, "cascade": args.cascade,
              "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
              "threads": args.threads, "corpus_paragraphs": len(records),
              "questions": len(dev) - args.warmup, "top_k_passages": args.top_k_passages, "run_cost": args.run_cost,
              "runs": runs, "speedup": gains, "paths": summarise(rows, dev, names), "requests": rows}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "windows.json").write_text(json.dumps(result, separators=(",", ":")) + "\n")  # a row per request
    (args.out / "windows.md").write_text(markdown(result))
    print(markdown(result))
    return 0
