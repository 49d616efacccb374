"""Cold-start profiler: a fresh function process per run, timed from process start to the first answer.

Each run starts ``functions-framework --target answer`` on a loopback port
(answer cache off), waits until the port accepts, sends one question, and
records: time to listening, time to the first answer, the function's own
cold-start log line (import, tokenizer, model, store set-up), and the peak
resident memory of the process tree (the kernel's per-process high-water
mark, VmHWM, summed over the tree). Reports min / median / max over N runs.

    python bench/cold_start.py --runs 10 --json bench/results/cold_start.json
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
QUESTION = {"question": "In what country is Normandy located?", "passage_ids": ["Normans-0000"]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tree_pids(root: int) -> list[int]:
    """``root`` and its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def status_kb(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def memory_mb(root: int) -> dict:
    pids = tree_pids(root)
    return {"peak_rss_mb": round(sum(status_kb(p, "VmHWM") for p in pids) / 1024, 1),
            "rss_mb": round(sum(status_kb(p, "VmRSS") for p in pids) / 1024, 1),
            "processes": len(pids)}


def server_command(port: int) -> list[str]:
    ff = Path(sys.executable).with_name("functions-framework")
    return [str(ff), "--target", "answer", "--host", "127.0.0.1", "--port", str(port)]


def one_run(env: dict, question: dict, timeout_s: float = 120.0) -> dict:
    port = free_port()
    log = tempfile.TemporaryFile()
    t0 = time.perf_counter()
    proc = subprocess.Popen(server_command(port), cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        deadline = t0 + timeout_s
        while True:
            if proc.poll() is not None or time.perf_counter() > deadline:
                raise RuntimeError("the server did not start")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.005)
        listening = time.perf_counter() - t0
        req = urllib.request.Request(f"http://127.0.0.1:{port}/", data=json.dumps(question).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout_s) as resp:
            reply = json.loads(resp.read())
        first_answer = time.perf_counter() - t0
        mem = memory_mb(proc.pid)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    log.seek(0)
    cold = {}
    for line in log.read().decode(errors="replace").splitlines():
        if line.startswith("{") and '"cold start"' in line:
            cold = json.loads(line)["cold_start_ms"]
    return {"listening_ms": round(listening * 1000, 1), "first_answer_ms": round(first_answer * 1000, 1),
            "answer": reply["answers"][0]["text"] if reply.get("answers") else None,
            "server_timings_ms": reply.get("timings_ms"), "cold_start_ms": cold, **mem}


def summarise(runs: list[dict]) -> dict:
    def stats(values):
        values = [v for v in values if isinstance(v, (int, float))]
        if not values:
            return None
        return {"min": min(values), "median": statistics.median(values), "max": max(values)}

    keys = ["listening_ms", "first_answer_ms", "peak_rss_mb"]
    out = {k: stats([r[k] for r in runs]) for k in keys}
    cold_keys = sorted({k for r in runs for k in r["cold_start_ms"]})
    out["cold_start_ms"] = {k: stats([r["cold_start_ms"].get(k) for r in runs]) for k in cold_keys}
    return out


def prepare_store(env: dict) -> None:
    subprocess.run([sys.executable, "-m", "function.ingest", str(REPO / "samples" / "squad_sample.json"),
                    "--quiet"], cwd=REPO, env=env, check=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--artifact", default=str(REPO / "artifact"))
    p.add_argument("--json", type=Path, help="write the runs and the summary here")
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "QA_ARTIFACT_DIR": args.artifact, "QA_STORE": "sqlite",
               "QA_SQLITE_PATH": str(Path(tmp) / "passages.sqlite"), "QA_CACHE": "0", "PYTHONUNBUFFERED": "1"}
        prepare_store(env)
        runs = [one_run(env, QUESTION) for _ in range(args.runs)]
    result = {"artifact": args.artifact, "runs": runs, "summary": summarise(runs),
              "cpu": cpu_model(), "cpus": os.cpu_count()}
    print(json.dumps(result["summary"], indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


if __name__ == "__main__":
    raise SystemExit(main())
