"""The function of two checkouts side by side: cold start and warm latency, interleaved in one run.

    python -m experiments.before_after BEFORE_DIR [AFTER_DIR] --rounds 5 --requests 30 --out OUT

``BEFORE_DIR`` and ``AFTER_DIR`` (default: this checkout) are checkouts of the
project (``git worktree add /tmp/before <commit>``); each serves its own
``main.py`` and ``function/`` (functions-framework ``--source``, run from the
checkout) with the same artifact and the same SQLite store (the sample corpus,
ingested once by this checkout), the answer cache off. Each round starts one
server of each checkout in turn (the order alternates), times the first answer
from process start (a question with ``passage_ids``: the model load and the
store are on that path), then sends ``--requests`` of each kind (``context``,
``passage``, ``retrieval``, sample questions in a fixed order) and records the
server's own ``timings_ms.total``, then the process tree's resident memory.
Reports medians per checkout and their ratios (after / before). For a
refactoring that must not slow the request path; with ``--own-artifacts``, each
checkout serves its own ``artifact/`` (two models that share a tokenizer, so the
one store serves both): a model change measured the same way.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from bench.questions import KINDS, payload, sample_questions
from harness.client import checked, post
from harness.launch import FunctionServer, ingest
from harness.paths import ARTIFACT, REPO, SAMPLE


def commit_of(checkout: Path) -> str:
    done = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(checkout), "status", "--porcelain", "--", "function", "main.py"],
                           capture_output=True, text=True).stdout.strip()
    return done.stdout.strip() + ("+changes" if dirty else "")


def one_round(checkout: Path, env: dict, questions: list[dict], requests: int, log: Path) -> dict:
    server = FunctionServer(env, log, source=checkout / "main.py", cwd=checkout)
    server.start()
    try:
        first = checked(post(server.url, payload("passage", questions[0])))
        cold_ms = (first.ms / 1000 + server.listening_s) * 1000  # process start -> listening -> first answer
        warm = {}
        for kind in KINDS:
            totals = []
            for i in range(requests):
                r = checked(post(server.url, payload(kind, questions[(i + 1) % len(questions)])))
                totals.append(r.body["timings_ms"]["total"])
            warm[kind] = statistics.median(totals)
        memory = server.memory()
        return {"model": first.body["model"]["name"], "cold_start_ms": round(cold_ms, 1),
                "listening_ms": round(server.listening_s * 1000, 1),
                "warm_server_ms_p50": warm, "rss_mb": memory["rss_mb"], "peak_rss_mb": memory["peak_rss_mb"]}
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.before_after", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("before", type=Path)
    p.add_argument("after", type=Path, nargs="?", default=REPO)
    p.add_argument("--artifact", type=Path, default=ARTIFACT)
    p.add_argument("--own-artifacts", action="store_true",
                   help="each checkout serves its own artifact/ (a model change), not --artifact")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--requests", type=int, default=30, help="per kind and round")
    p.add_argument("--out", type=Path, required=True, help="writes OUT.json and OUT.md")
    args = p.parse_args(argv)
    checkouts = {"before": args.before.resolve(), "after": args.after.resolve()}
    questions = sample_questions(SAMPLE)
    with tempfile.TemporaryDirectory(prefix="before-after-") as tmp:
        env = {"QA_ARTIFACT_DIR": str(args.artifact.resolve()), "QA_STORE": "sqlite",
               "QA_SQLITE_PATH": str(Path(tmp) / "p.sqlite"), "QA_CACHE": "0"}
        ingest(env, str(SAMPLE), "--quiet", check=True)
        runs: dict[str, list[dict]] = {name: [] for name in checkouts}
        for r in range(args.rounds):
            order = list(checkouts) if r % 2 == 0 else list(reversed(checkouts))
            for name in order:
                own = {"QA_ARTIFACT_DIR": str(checkouts[name] / "artifact")} if args.own_artifacts else {}
                runs[name].append(one_round(checkouts[name], {**env, **own}, questions, args.requests,
                                            Path(tmp) / f"{name}.log"))
                print(f"round {r + 1} {name}: {runs[name][-1]}", file=sys.stderr, flush=True)

    def med(name: str, key, kind: str | None = None) -> float:
        values = [run[key][kind] if kind else run[key] for run in runs[name]]
        return round(statistics.median(values), 2)

    rows = [("cold start: process start to first answer (ms)", "cold_start_ms", None)]
    rows += [(f"warm, {kind}: server total p50 (ms)", "warm_server_ms_p50", kind) for kind in KINDS]
    rows += [("resident memory after the requests (MB, process tree)", "rss_mb", None),
             ("peak resident memory (MB, process tree)", "peak_rss_mb", None)]
    summary = [{"figure": label, "before": med("before", key, kind), "after": med("after", key, kind),
                "ratio": round(med("after", key, kind) / med("before", key, kind), 3)} for label, key, kind in rows]
    command = "python -m experiments.before_after " + " ".join(argv if argv is not None else sys.argv[1:])
    result = {"command": command, "date": datetime.now(UTC).strftime("%Y-%m-%d"),
              "commits": {name: commit_of(path) for name, path in checkouts.items()},
              "artifact": "each checkout's own" if args.own_artifacts else str(args.artifact),
              "summary": summary, "runs": runs}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    lines = [f"# Before / after: {result['commits']['before']} -> {result['commits']['after']}", "",
             f"`{command}`, {result['date']}; medians over {args.rounds} interleaved rounds, "
             f"{args.requests} requests per kind and round, answer cache off.", "",
             "| figure | before | after | after / before |", "|---|---|---|---|"]
    lines += [f"| {s['figure']} | {s['before']} | {s['after']} | {s['ratio']:.3f} |" for s in summary]
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
