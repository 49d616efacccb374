"""Dev questions asked alone through several ``QAService`` set-ups, question by question, and what each answered.

``ask_interleaved`` is what ``experiments.read_depth`` (one service, several
depths) and ``experiments.fusion_f1`` (several services, one depth) share: each
question goes to every set-up in turn, so that a slow spell of this shared
machine falls on all of them alike; answers never abstain (the best span is
what is scored, as ``bench.retrieval.read_all`` scores it). ``kept_tables_parser``
and ``require`` are their shared command line (the tables ``bench scale --keep`` left), ``scored_table``
their table of what each set-up answered.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bench.stats import latency_summary
from harness.paths import ARTIFACT, SQUAD


def kept_tables_parser(prog: str, doc: str) -> argparse.ArgumentParser:
    """The arguments every experiment on ``bench scale --keep``'s reading store and Lance table takes."""
    p = argparse.ArgumentParser(prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--store", type=Path, required=True)
    p.add_argument("--index", required=True)
    p.add_argument("--artifact", type=Path, default=ARTIFACT)
    p.add_argument("--data", type=Path, default=SQUAD, help="the folder with train.json and dev.json")
    p.add_argument("--every", type=int, default=1, help="every n-th dev question")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", type=Path, required=True)
    return p


def require(*paths) -> None:
    for path in map(Path, paths):
        if not path.exists():
            raise SystemExit(f"{path} does not exist (python -m bench scale --keep leaves it)")


def ask_interleaved(questions: list[dict], setups: dict) -> dict:
    """``setups``: name -> (service, top_k_passages). Per name: the answer text by question id, each
    question's server time, and how many questions had their gold paragraph among the passages read."""
    from function.service.request import QARequest

    answers = {name: {} for name in setups}
    server_ms = {name: [] for name in setups}
    found = dict.fromkeys(setups, 0)
    started = time.perf_counter()
    for i, q in enumerate(questions, 1):
        for name, (service, k) in setups.items():
            max_tokens = service.rt.manifest().sequence["max_answer_tokens"]
            result = service.answer(QARequest(q["question"], None, None, 1, max_tokens, k, abstain=False))
            spans = result.payload["answers"]
            answers[name][q["id"]] = spans[0]["text"] if spans else ""
            server_ms[name].append(result.timings_ms["total"])
            found[name] += q["gold"] in [p["passage_id"] for p in result.payload.get("retrieved", [])]
        if i % 100 == 0:
            print(f"{i} of {len(questions)} questions, {(time.perf_counter() - started) / i:.2f} s each", flush=True)
    return {"answers": answers, "server_ms": server_ms, "found": found}


def scored_rows(questions: list[dict], asked: dict, key: str) -> list[dict]:
    """One row per set-up: EM, F1, the share of questions whose gold paragraph was read, server time."""
    from build_model.evaluation.metrics import squad_scores

    golds = {q["id"]: q["answers"] for q in questions}
    rows = []
    for name, answers in asked["answers"].items():
        scores = squad_scores(answers, golds)
        rows.append({key: name, "exact_match": round(scores["exact_match"], 2), "f1": round(scores["f1"], 2),
                     "gold_passage_read": round(asked["found"][name] / len(questions), 4),
                     "server_ms": latency_summary(asked["server_ms"][name], 3)})
    return rows


def scored_table(rows: list[dict], key: str, first_column: str, found_column: str) -> list[str]:
    """``scored_rows``'s rows as a markdown table, ``key``'s value in the first column."""
    lines = [f"| {first_column} | EM | F1 | {found_column} | server p50 / p99 (ms) |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r[key]} | {r['exact_match']} | {r['f1']} | {r['gold_passage_read']:.3f} | "
                     f"{r['server_ms']['p50']} / {r['server_ms']['p99']} |")
    return lines
