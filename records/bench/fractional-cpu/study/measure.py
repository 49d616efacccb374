"""The warm stream of ``bench cost --stream`` with the server held to a fraction of a CPU (RULE.md).

    python records/bench/fractional-cpu/study/measure.py --out records/bench/fractional-cpu [--stream 600]

Needs root and a writable cgroup ``cpu`` controller (v1 ``/sys/fs/cgroup/cpu`` or v2 ``/sys/fs/cgroup``): each
server's process group joins a cgroup whose CFS quota is Q x its 100 ms period, on top of ``taskset`` to one CPU.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from bench import cost, cost_model, machine, prices
from bench.in_process import retrieval_env
from bench.questions import payload, sample_questions
from harness import client
from harness.firestore import running_emulator
from harness.launch import ingest
from harness.paths import ARTIFACT, ENCODER, SAMPLE, SQUAD

ORDER = (1.0, 0.5, 0.25, 0.25, 0.5, 1.0)
PERIOD_US = 100_000


def cgroup(q: float) -> Path:
    """A cgroup whose processes get ``q`` of a CPU (CFS quota over a 100 ms period)."""
    v1 = Path("/sys/fs/cgroup/cpu")
    if v1.is_dir() and (v1 / "cpu.cfs_quota_us").exists():
        d = v1 / f"frac-{q:g}"
        d.mkdir(exist_ok=True)
        (d / "cpu.cfs_period_us").write_text(str(PERIOD_US))
        (d / "cpu.cfs_quota_us").write_text(str(int(q * PERIOD_US)))
        return d
    d = Path("/sys/fs/cgroup") / f"frac-{q:g}"
    d.mkdir(exist_ok=True)
    (d / "cpu.max").write_text(f"{int(q * PERIOD_US)} {PERIOD_US}")
    return d


def held(env: dict, q: float, log_path: Path, **extra: str):
    """``bench cost``'s server, its process (and so everything it starts) first moved into ``q``'s cgroup."""
    srv = cost.server(env, 1, log_path, **extra)
    procs = cgroup(q) / "cgroup.procs"
    srv.command = ["sh", "-c", f'echo $$ > {procs} && exec "$@"', "sh", *srv.command]
    return srv


def one(env: dict, q: float, questions: list[dict], warm: dict, work: Path, name: str, busy_s: float) -> dict:
    out: dict = {"q": q}
    # What a deployed instance keeps of the store in memory: passages and index documents (the defaults).
    kept = cost.kept_of_the_store(True, True)
    with held(env, q, work / f"{name}-{q:g}.log", QA_CACHE_SHARED="0", **kept) as srv:
        srv.health()
        client.checked(client.post(srv.url, payload("retrieval", warm)))
        out["first_answer_s"] = round(time.perf_counter() - srv.started, 3)
        out["cold_start"] = srv.cold_start()
        out["stream"] = cost.stream(srv, questions)
        lines = [x for x in srv.logs() if x.get("kind") == "retrieval"][-len(questions):]
        out["server_ms"] = [x["latency_ms"] for x in lines]
    with held(env, q, work / f"{name}-{q:g}-busy.log", QA_CACHE="0", **kept) as srv:
        srv.health()
        client.checked(client.post(srv.url, payload("retrieval", warm)))
        out["busy"] = cost.busy(srv, "retrieval", questions[:100], 1, busy_s)
    return out


def price(run: dict, generation_reads: float, image: bool) -> dict:
    s, q = run["stream"], run["q"]
    g = 0.0 if image else generation_reads
    firestore = prices.FIRESTORE_LOCATIONS[prices.FIRESTORE_DEFAULT]
    alone = cost_model.per_million(cost_model.Units(s["billed_alone_s"], s["reads"] + g, s["writes"]), q, 0.5,
                                   firestore)
    busy = cost_model.per_million(cost_model.Units(run["busy"]["billed_busy_s"], s["reads"], s["writes"]), q, 0.5,
                                  firestore)
    steps = [cost_model.billed_alone_s(ms) for ms in run["server_ms"]]
    return {"alone": alone, "busy": busy,
            "billed_steps": {f"{k * 100} ms": sum(round(x * 10) == k for x in steps) for k in range(1, 11)}}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--stream", type=int, default=600)
    p.add_argument("--busy-seconds", type=float, default=15.0)
    p.add_argument("--settings", default="both,image-hybrid")
    p.add_argument("--order", default=",".join(f"{q:g}" for q in ORDER))
    args = p.parse_args()
    order = [float(x) for x in args.order.split(",")]
    settings = args.settings.split(",")
    # The warm-up question is in no stream (the sample's questions are SQuAD dev questions too).
    warm = {"question": "Which warm-up question loads every path of the function?"}
    questions = cost.stream_questions(SQUAD, args.stream)
    result: dict = {"command": "python records/bench/fractional-cpu/study/measure.py " + " ".join(sys.argv[1:]),
                    "machine": machine.describe(), "order": order, "questions": len(questions), "runs": {}}
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, running_emulator(Path(tmp) / "emulator.log") as emulator:
        work = Path(tmp)
        env = {**emulator, "QA_ARTIFACT_DIR": str(ARTIFACT.resolve()), "QA_PASSAGES_COLLECTION": "stream_passages"}
        data = [str(SQUAD / "dev.json"), str(SQUAD / "train.json")]
        # The corpus generation a request alone reads (bench cost's step 2, last run), from the sample corpus.
        ingest({**env, "QA_PASSAGES_COLLECTION": "passages"}, str(SAMPLE), "--quiet", "--artifact", str(ARTIFACT),
               check=True)
        with cost.warmed({**env, "QA_PASSAGES_COLLECTION": "passages"}, 1, work / "gen.log", sample_questions()[-1],
                         QA_CACHE_SHARED="0", QA_CORPUS_CHECK_S="0") as srv:
            asked = sample_questions()[:20]
            gen = cost.one_at_a_time(srv, "retrieval", asked, "miss")
            hit = cost.one_at_a_time(srv, "retrieval", asked, "hit")
        result["generation_reads"] = hit["reads"]
        envs = {}
        for name in settings:
            t0 = time.perf_counter()
            if name == "both":
                envs[name] = env
            elif name == "image-hybrid":
                hybrid = work / "corpus-hybrid"
                envs[name] = {**env, "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(hybrid / "passages.sqlite"),
                              **retrieval_env("hybrid", hybrid, ENCODER)}
            else:
                raise SystemExit(f"--settings: both or image-hybrid, not {name}")
            ingest(envs[name], *data, "--quiet", "--artifact", str(ARTIFACT), check=True, timeout_s=3600)
            print(f"{name}: ingested in {time.perf_counter() - t0:.0f} s", flush=True)
        for i, q in enumerate(order):
            for name in settings:
                t0 = time.perf_counter()
                run = one(envs[name], q, questions, warm, work, f"{name}-{i}", args.busy_seconds)
                run["price"] = price(run, result["generation_reads"], name != "both")
                result["runs"].setdefault(name, []).append(run)
                s = run["stream"]
                print(f"[{i}] {name} q={q:g}: p50 {s['server_ms_p50']} p90 {s['server_ms_p90']} ms, reads "
                      f"{s['reads']:.2f}, alone ${run['price']['alone']['total']:.2f} busy "
                      f"${run['price']['busy']['total']:.2f}, first answer {run['first_answer_s']} s "
                      f"({time.perf_counter() - t0:.0f} s)", flush=True)
                (args.out / "fractional.json").write_text(json.dumps(result, indent=1) + "\n")
        del gen
    (args.out / "fractional.json").write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
