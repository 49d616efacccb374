"""``python -m bench cost``: what a million questions cost on Cloud Run + Firestore, from measured units.

    python -m bench cost --artifact artifact --questions 40 --busy-seconds 15

The function (as the image runs it: one gunicorn worker, 8 threads; the
server restricted to ``--cpus`` CPUs with ``taskset``, the deployed vCPUs)
serves the sample corpus from the official Firestore emulator. Every figure
below is counted or timed in this run:

1. *Misses*: each of ``--questions`` sample questions once per request kind
   (``context``, ``passage_ids``, the question alone), one at a time, answer
   cache on and the passage cache off (every question reads its passages, as
   on a new instance): the server's time per request (its log line) and the
   Firestore reads and writes the store code counted (``GET /``'s
   ``store.ops`` before and after, which includes the shared answer cache's
   write made after the reply).
2. *Shared-cache hits*: the same questions sent to a second process (another
   instance): each answer comes from Firestore's ``answers`` collection.
   The same misses and hits again with the shared tier off (``QA_CACHE_SHARED=0``):
   hits from the process's own cache, no cache reads or writes in Firestore.
   And once more with ``QA_CORPUS_CHECK_S=0``: each request reads the store's corpus generation, as
   every request does that finds the instance idle for longer than ``QA_CORPUS_CHECK_S`` (1 s; the
   light, scattered traffic billed *alone*): the reads of an in-process hit are that read alone.
3. *Busy*: ``--clients`` concurrent clients for ``--busy-seconds`` per kind,
   answer cache off (misses), then answer cache on with the questions already
   cached (hits): instance seconds per request = seconds / requests answered.
4. *A stream* (``--stream N``): every paragraph of ``--data``'s ``dev.json`` and
   ``train.json`` in collections of their own, and ``N`` distinct dev questions
   asked alone, in a seeded random order, one at a time, each on one warm
   instance per setting of what it keeps of the store in memory: nothing (as
   1.), passages (``QA_PASSAGE_CACHE_BYTES``), index documents
   (``QA_TERM_CACHE_BYTES``), both (the defaults). Answer cache as deployed
   (every question a miss): Firestore operations per question, over the stream
   and by its hundreds, and the server's time. Then the same paragraphs in a
   SQLite file, as the ``runtime-corpus`` image holds them (no Firestore), and
   the same stream from it; and again with the Lance folder and the encoder
   beside the file, as ``runtime-lance-corpus`` holds them (hybrid retrieval).

Steps 1-3 keep nothing of the store in memory (every question reads its terms
and passages, as on a new instance); step 4 is what a warm instance reads.
Billed *alone*, every request of a kind that reads the generation (``passage_ids``,
the question alone) pays that read too; billed *busy*, an instance reads it at
most once per ``QA_CORPUS_CHECK_S`` whatever it answers, nothing per question.

``bench.cost_model`` turns these into dollars per million questions at
``bench.prices``' list prices for answer-cache hit rates of 0%, 40% and 80%,
billed *alone* (every request rounded up to 100 ms on an idle instance) and
*busy* (requests sharing a busy instance), beside one always-on instance and
what a cold start costs; the stream's questions at its own reads and server
time (busy: step 3's instance time). Firestore is priced at
``--firestore-location``'s row (``bench.prices.FIRESTORE_LOCATIONS``: the
database's location; default the multi-region row, the highest).
``--reprice COST_JSON`` measures nothing and bills a record's measured units
again at these prices. Writes ``cost.json`` and ``cost.md`` into ``--out``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench import cost_model, cpu_quota, machine, prices
from bench.in_process import retrieval_env
from bench.questions import mix, payload, sample_questions
from harness import client
from harness.launch import FunctionServer, ingest
from harness.paths import ARTIFACT, ENCODER, MAIN, REPO, SAMPLE, SQUAD

KINDS = {"context": "context", "passage": "passage_ids", "retrieval": "retrieval"}  # bench.questions' -> the log's
HIT_RATES = (0.0, 0.4, 0.8)
# What the stream's instance keeps of the store in memory: (passages, index documents).
STREAM_CACHES = {"none": (False, False), "passages": (True, False), "terms": (False, True), "both": (True, True)}
# The same stream from the corpus in the image: a SQLite file (``docker build --target runtime-corpus``), and with the
# Lance folder and the encoder beside it (``runtime-lance-corpus``: hybrid retrieval); no Firestore.
IMAGE, IMAGE_HYBRID = "image", "image-hybrid"
STREAM_LABELS = {IMAGE: "the corpus in the image (SQLite; passages kept)",
                 IMAGE_HYBRID: "the corpus in the image, hybrid (SQLite and a Lance folder, the encoder)"}


def server(env: dict, cpus: float, log_path: Path, **extra: str) -> FunctionServer:
    """The function as the image runs it, on ``cpus`` CPUs (``taskset``), keeping nothing of the store in memory
    unless ``extra`` says (``kept_of_the_store``). The corpus generation is read once, at warm-up: it costs a
    read per instance per ``QA_CORPUS_CHECK_S`` (step 2's last run measures what that is per request alone).
    A fraction of a CPU (``--vcpus`` below 1) is one CPU held to that share (``bench.cpu_quota``), with one
    thread as ``infra/deploy.sh`` deploys it (concurrency 1)."""
    fraction = cpus < 1
    threads = {"THREADS": "1", "QA_THREADS": "1", "QA_INFERENCE_CONCURRENCY": "1"} if fraction else {"THREADS": "8"}
    srv = FunctionServer({**env, "QA_EAGER_LOAD": "1", "WORKERS": "1", **threads, "MALLOC_ARENA_MAX": "2",
                          **kept_of_the_store(), "QA_CORPUS_CHECK_S": "86400", **extra}, log_path,
                         source=MAIN, cpus=1 if fraction else int(cpus))
    if fraction:
        srv.command = cpu_quota.held(srv.command, cpu_quota.cgroup(cpus))
    return srv


def kept_of_the_store(passages: bool = False, terms: bool = False) -> dict:
    """The environment of an instance that keeps passages and/or index documents in memory (the function's
    defaults), or nothing (0 bytes)."""
    from function.config import VARIABLES

    default = {v.name: v.default for v in VARIABLES}
    return {name: default[name] if kept else "0"
            for name, kept in (("QA_PASSAGE_CACHE_BYTES", passages), ("QA_TERM_CACHE_BYTES", terms))}


def settled_ops(srv: FunctionServer, wait_s: float = 10.0) -> dict:
    """``store.ops`` once the background cache writes have landed (none in flight); none for a SQLite store (no
    operation of it is billed)."""
    deadline = time.monotonic() + wait_s
    while True:
        store = srv.health()["store"]
        if store["kind"] == "sqlite":
            return {"reads": 0, "writes": 0}
        if store["ops_in_flight"] == 0:
            return store["ops"]
        if time.monotonic() > deadline:
            raise RuntimeError(f"{store['ops_in_flight']} background store writes still running after {wait_s} s")
        time.sleep(0.01)


def one_at_a_time(srv: FunctionServer, kind: str, questions: list[dict], expect: str) -> dict:
    """Each question once, in turn; per request: the server's time; per question: the operations."""
    before, lines_before = settled_ops(srv), len(srv.logs())
    for q in questions:
        reply = client.checked(client.post(srv.url, payload(kind, q)))
        if reply.body["cache"] != expect:
            raise RuntimeError(f"{kind}: expected a cache {expect}, got {reply.body['cache']}")
    after = settled_ops(srv)
    lines = [x for x in srv.logs()[lines_before:] if x.get("kind") == KINDS[kind]]
    n = len(questions)
    server_ms = [x["latency_ms"] for x in lines]
    return {"requests": n, "server_ms_p50": round(statistics.median(server_ms), 2),
            "billed_alone_s": round(statistics.mean(cost_model.billed_alone_s(ms) for ms in server_ms), 4),
            "reads": (after["reads"] - before["reads"]) / n, "writes": (after["writes"] - before["writes"]) / n}


def busy(srv: FunctionServer, kind: str, questions: list[dict], clients: int, seconds: float) -> dict:
    """``clients`` clients asking ``kind`` questions for ``seconds``: instance seconds and operations per request."""
    before = settled_ops(srv)
    run = client.concurrent(srv.url, mix(questions, (kind,)), clients, seconds=seconds, timeout_s=30)
    elapsed, sent = run["seconds"], run["sent"]
    after = settled_ops(srv)
    ok = len(run["latencies_ms"])
    if run["errors"]:
        first = next(s for s in sent if not s.ok)
        raise RuntimeError(f"{kind}: {len(run['errors'])} of {len(sent)} requests failed: "
                           f"{first.error} {json.dumps(first.body)[:300]}")
    return {"requests": ok, "seconds": round(elapsed, 2), "requests_per_s": round(ok / elapsed, 2),
            "billed_busy_s": round(cost_model.billed_busy_s(elapsed, ok), 5),
            "hits": sum(s.body.get("cache") == "hit" for s in sent),
            "reads": (after["reads"] - before["reads"]) / ok, "writes": (after["writes"] - before["writes"]) / ok}


def stream(srv: FunctionServer, questions: list[dict], window: int = 100) -> dict:
    """Each question alone once, in turn, on one instance: Firestore operations per question (over all, and per
    ``window`` questions from the request log lines' own tallies: how the instance's caches warm), server time."""
    before, lines_before = settled_ops(srv), len(srv.logs())
    for q in questions:
        reply = client.checked(client.post(srv.url, payload("retrieval", q)))
        if reply.body["cache"] != "miss":
            raise RuntimeError(f"the stream's questions are distinct, yet one was a cache {reply.body['cache']}")
    after = settled_ops(srv)
    lines = [x for x in srv.logs()[lines_before:] if x.get("kind") == KINDS["retrieval"]]
    n = len(questions)
    server_ms = [x["latency_ms"] for x in lines]
    own = [x.get("store_ops", {}).get("reads", 0) for x in lines]  # a SQLite store's lines have none
    return {"requests": n, "server_ms_p50": round(statistics.median(server_ms), 2),
            "server_ms_p90": round(statistics.quantiles(server_ms, n=10)[-1], 2) if n > 1 else server_ms[0],
            "billed_alone_s": round(statistics.mean(cost_model.billed_alone_s(ms) for ms in server_ms), 4),
            "reads": (after["reads"] - before["reads"]) / n, "writes": (after["writes"] - before["writes"]) / n,
            "reads_by_window": [round(statistics.mean(own[i : i + window]), 3) for i in range(0, n, window)]}


def stream_questions(data: Path, n: int) -> list[dict]:
    """``n`` distinct questions of ``data``'s dev.json (by their text as the answer cache keys it), seeded order."""
    from function.service.cache import normalize_question

    distinct = {normalize_question(q["question"], True): q for q in sample_questions(data / "dev.json")}
    return random.Random(0).sample(list(distinct.values()), min(n, len(distinct)))


def measure_stream(env: dict, args, work: Path, log=print) -> dict:
    """Step 4 of the module's text: dev+train paragraphs in their own collections, one warm instance per setting."""
    env = {**env, "QA_PASSAGES_COLLECTION": "stream_passages"}
    log(f"  the stream's corpus: {args.data / 'dev.json'}, {args.data / 'train.json'}")
    ingest(env, str(args.data / "dev.json"), str(args.data / "train.json"), "--quiet", "--artifact",
           str(args.artifact), check=True, timeout_s=3600)
    questions = stream_questions(args.data, args.stream)
    out: dict = {"questions": len(questions), "data": str(args.data)}
    for name, (passages, terms) in STREAM_CACHES.items():
        log(f"  a stream of {len(questions)} questions alone, one warm instance keeping {name}")
        # the default answer cache (in-process): every distinct question a miss, nothing read or written for it
        with warmed(env, args.cpus, work / f"stream-{name}.log", None, QA_CACHE_SHARED="0",
                    **kept_of_the_store(passages, terms)) as srv:
            out[name] = stream(srv, questions)
    corpus, hybrid = work / "corpus", work / "corpus-hybrid"
    images = {IMAGE: {"QA_STORE": "sqlite", "QA_SQLITE_PATH": str(corpus / "passages.sqlite")},
              IMAGE_HYBRID: {"QA_STORE": "sqlite", "QA_SQLITE_PATH": str(hybrid / "passages.sqlite"),
                             **retrieval_env("hybrid", hybrid, ENCODER)}}
    for name, settings in images.items():
        log(f"  the same corpus as the {name} setting's image holds it (no Firestore), and the stream again")
        image_env = {**env, **settings}
        ingest(image_env, str(args.data / "dev.json"), str(args.data / "train.json"), "--quiet",
               "--artifact", str(args.artifact), check=True, timeout_s=3600)
        with warmed(image_env, args.cpus, work / f"stream-{name}.log", None, QA_CACHE_SHARED="0") as srv:
            out[name] = stream(srv, questions)
    return out


def stream_settings(stream: dict) -> list[str]:
    """The stream's settings a run measured, in order (records made before ``IMAGE`` and ``IMAGE_HYBRID`` lack them)."""
    return [name for name in (*STREAM_CACHES, IMAGE, IMAGE_HYBRID) if name in stream]


@contextlib.contextmanager
def warmed(env: dict, cpus: int, log_path: Path, warm: dict | None, **extra: str):
    """A server answering; with ``warm``, that question asked once per kind (model, store, every path loaded)."""
    with server(env, cpus, log_path, **extra) as srv:
        srv.health()
        for kind in KINDS if warm is not None else ():
            client.checked(client.post(srv.url, payload(kind, warm)))
        yield srv


def measure(env: dict, questions: list[dict], args, work: Path, log=print) -> dict:
    out: dict = {"miss": {}, "shared_hit": {}, "busy_miss": {}, "busy_hit": {},
                 "local_miss": {}, "local_hit": {}, "busy_local_hit": {}, "scattered_miss": {}, "scattered_hit": {}}
    warm, asked, cpus = questions[-1], questions[: args.questions], args.cpus
    with warmed(env, cpus, work / "first.log", warm, QA_CACHE_SHARED="1") as srv:
        out["cold_start"] = srv.cold_start().get("cold_start_ms", {})
        for kind in KINDS:
            log(f"  misses, one at a time: {kind}")
            out["miss"][kind] = one_at_a_time(srv, kind, asked, "miss")
    # Another instance: the first one's answers are in the shared tier (its own warm-up ones too).
    with warmed(env, cpus, work / "second.log", warm, QA_CACHE_SHARED="1") as srv:
        for kind in KINDS:
            log(f"  shared-cache hits, one at a time: {kind}")
            out["shared_hit"][kind] = one_at_a_time(srv, kind, asked, "hit")
    with warmed(env, cpus, work / "busy-miss.log", warm, QA_CACHE="0") as srv:
        for kind in KINDS:
            log(f"  busy, answer cache off: {kind} ({args.clients} clients, {args.busy_seconds:.0f} s)")
            out["busy_miss"][kind] = busy(srv, kind, asked, args.clients, args.busy_seconds)
    # One answer per instance (QA_CACHE_ENTRIES=1): nearly every hit is read from the shared tier.
    with warmed(env, cpus, work / "busy-hit.log", warm, QA_CACHE_ENTRIES="1", QA_CACHE_SHARED="1") as srv:
        for kind in KINDS:
            log(f"  busy, cached answers: {kind}")
            out["busy_hit"][kind] = busy(srv, kind, asked, args.clients, args.busy_seconds)
    # The shared tier off (QA_CACHE_SHARED=0): misses skip its read and write, hits come from this process.
    with warmed(env, cpus, work / "local.log", warm, QA_CACHE_SHARED="0") as srv:
        for kind in KINDS:
            log(f"  in-process cache only: {kind}")
            out["local_miss"][kind] = one_at_a_time(srv, kind, asked, "miss")
            out["local_hit"][kind] = one_at_a_time(srv, kind, asked, "hit")
            out["busy_local_hit"][kind] = busy(srv, kind, asked, args.clients, args.busy_seconds)
    # Requests that each find the instance idle for longer than QA_CORPUS_CHECK_S: each reads the generation.
    with warmed(env, cpus, work / "scattered.log", warm, QA_CACHE_SHARED="0", QA_CORPUS_CHECK_S="0") as srv:
        for kind in KINDS:
            log(f"  in-process cache, the corpus generation read by every request: {kind}")
            out["scattered_miss"][kind] = one_at_a_time(srv, kind, asked, "miss")
            out["scattered_hit"][kind] = one_at_a_time(srv, kind, asked, "hit")
    return out


# The tier each kind uses by default (QA_CACHE_SHARED=0): the in-process one.
DEFAULT_TIER = {"context": "local", "passage": "local", "retrieval": "local"}
# Answer-cache tiers: where a miss's and a hit's units come from in ``measure``'s output.
TIERS = {
    "shared": {"miss": "miss", "hit": "shared_hit", "busy_hit": "busy_hit"},
    "local": {"miss": "local_miss", "hit": "local_hit", "busy_hit": "busy_local_hit"},
}


def generation_reads(measured: dict) -> dict[str, float]:
    """Reads per request of the store's corpus generation, by kind, for a request that finds the instance idle for
    longer than ``QA_CORPUS_CHECK_S``: an in-process hit's reads with every request reading it (step 2's last run);
    0 for records made before it was measured."""
    scattered = measured.get("scattered_hit") or {}
    return {kind: scattered[kind]["reads"] if kind in scattered else 0.0 for kind in KINDS}


def bill(measured: dict, vcpus: float, memory_gib: float, location: str = prices.FIRESTORE_DEFAULT) -> dict:
    """Dollars per million questions per kind, billing way and hit rate; the always-on and cold-start figures;
    Firestore at ``location``'s list prices. Billed alone, each request also reads the corpus generation
    (``generation_reads``)."""
    rows, firestore = [], prices.FIRESTORE_LOCATIONS[location]
    generation = generation_reads(measured)
    for (tier, keys), kind in ((t, k) for t in TIERS.items() for k in KINDS):
        miss, hit = measured[keys["miss"]][kind], measured[keys["hit"]][kind]
        busy_miss_s = measured["busy_miss"][kind]["billed_busy_s"]  # answer cache off: a miss in either tier
        g = generation[kind]
        ways = {
            "alone": (cost_model.Units(miss["billed_alone_s"], miss["reads"] + g, miss["writes"]),
                      cost_model.Units(hit["billed_alone_s"], hit["reads"] + g, hit["writes"])),
            "busy": (cost_model.Units(busy_miss_s, miss["reads"], miss["writes"]),
                     cost_model.Units(measured[keys["busy_hit"]][kind]["billed_busy_s"], hit["reads"], hit["writes"])),
        }
        for way, (m, h) in ways.items():
            for rate in HIT_RATES:
                units = m.mixed(h, rate)
                rows.append({"cache": tier, "kind": kind, "billed": way, "hit_rate": rate,
                             "instance_s": round(units.instance_s, 5), "vcpu_s": round(units.instance_s * vcpus, 5),
                             "gib_s": round(units.instance_s * memory_gib, 5), "reads": round(units.reads, 3),
                             "writes": round(units.writes, 3),
                             "dollars_per_million": cost_model.per_million(units, vcpus, memory_gib, firestore)})
    if "stream" in measured:
        rows += stream_rows(measured, vcpus, memory_gib, location)
    always_on = cost_model.always_on_per_month(vcpus, memory_gib)
    capacity = {k: round(measured["busy_miss"][k]["requests_per_s"] * prices.SECONDS_PER_MONTH / 1e6, 1)
                for k in KINDS}
    cold = measured.get("cold_start") or {}
    startup_s = (cold.get("since_process_start_ms") or 0) / 1000
    return {"rows": rows, "always_on_per_month": always_on, "always_on_capacity_millions": capacity,
            "startup_s": round(startup_s, 3),
            "per_1000_cold_starts": round(1000 * cost_model.per_cold_start(startup_s, vcpus, memory_gib), 4)}


def stream_rows(measured: dict, vcpus: float, memory_gib: float,
                location: str = prices.FIRESTORE_DEFAULT) -> list[dict]:
    """The stream's questions (step 4) per setting of what the instance keeps: a miss at the stream's reads,
    writes and (alone) server time; busy, step 3's instance time of a question alone; a hit from the instance's own
    cache (the default tier)."""
    hit, rows, firestore = measured["local_hit"]["retrieval"], [], prices.FIRESTORE_LOCATIONS[location]
    busy_miss_s, busy_hit_s = (measured[k]["retrieval"]["billed_busy_s"] for k in ("busy_miss", "busy_local_hit"))
    generation = generation_reads(measured)["retrieval"]
    for name in stream_settings(measured["stream"]):
        miss = measured["stream"][name]
        g = 0.0 if name in (IMAGE, IMAGE_HYBRID) else generation  # a SQLite file's reads are not billed
        ways = {
            "alone": (cost_model.Units(miss["billed_alone_s"], miss["reads"] + g, miss["writes"]),
                      cost_model.Units(hit["billed_alone_s"], hit["reads"] + g, hit["writes"])),
            "busy": (cost_model.Units(busy_miss_s, miss["reads"], miss["writes"]),
                     cost_model.Units(busy_hit_s, hit["reads"], hit["writes"])),
        }
        for way, (m, h) in ways.items():
            for rate in HIT_RATES:
                units = m.mixed(h, rate)
                rows.append({"cache": "local", "kind": "retrieval", "stream": name, "billed": way, "hit_rate": rate,
                             "instance_s": round(units.instance_s, 5), "reads": round(units.reads, 3),
                             "writes": round(units.writes, 3),
                             "dollars_per_million": cost_model.per_million(units, vcpus, memory_gib, firestore)})
    return rows


def stream_markdown(result: dict) -> list[str]:
    """The stream's table: operations and time per question, and dollars, per setting of what is kept."""
    st = result["measured"]["stream"]
    total = {(r["stream"], r["billed"], r["hit_rate"]): r["dollars_per_million"]
             for r in result["bill"]["rows"] if "stream" in r}
    lines = ["", f"A stream of {st['questions']} distinct dev questions asked alone (seeded random order, one at a "
                 f"time; every paragraph of dev.json and train.json stored), each setting on one warm instance; "
                 "answer cache as deployed (in-process: every question a miss, no Firestore read or write for it). "
                 "Busy: the instance time of step 3 (sample corpus, nothing kept). Billed alone, each question also "
                 f"reads the corpus generation ({generation_reads(result['measured'])['retrieval']:.2f} a question, "
                 "in the Firestore $ below, not in the reads column; none from the image):", "",
             "| kept in memory | Firestore reads / question | writes | reads per question, by 100 questions | "
             "server ms p50 / p90 | Firestore $, 0% | **$ per million, 0%: alone / busy** | 40% | 80% |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name in stream_settings(st):
        m = st[name]
        windows = " ".join(f"{r:.2f}" for r in m["reads_by_window"])
        label = STREAM_LABELS.get(name, name)
        lines.append(f"| {label} | {m['reads']:.2f} | {m['writes']:.2f} | {windows} | {m['server_ms_p50']} / "
                     f"{m['server_ms_p90']} | {total[(name, 'alone', 0.0)]['firestore']:.2f} | "
                     f"**{total[(name, 'alone', 0.0)]['total']:.2f} / {total[(name, 'busy', 0.0)]['total']:.2f}** | "
                     + " | ".join(f"{total[(name, 'alone', h)]['total']:.2f} / {total[(name, 'busy', h)]['total']:.2f}"
                                  for h in HIT_RATES[1:]) + " |")
    return lines


def markdown(result: dict) -> str:
    m, b = result["machine"], result["bill"]
    location = result.get("firestore_location", prices.FIRESTORE_DEFAULT)
    repriced = f" Re-priced from {result['repriced_from']} (its measured units)." if "repriced_from" in result else ""
    lines = [f"Cost of a million questions: {result['vcpus']} vCPU, {result['memory_gib']} GiB (the deployed size), "
             f"server restricted to {result['cpus']:g} CPU(s) of {m['cpu']}"
             f"{' (one CPU under a CFS quota, one request at a time)' if result['cpus'] < 1 else ''}; "
             "Firestore emulator; "
             f"{result['questions']} sample questions per kind; prices of {prices.CONSULTED} "
             f"({prices.RUN_SOURCE}; Firestore {location}: {prices.FIRESTORE_LOCATIONS[location].source}), "
             "free tiers left out. "
             f"Load average at the start: {m['load_average_at_start']}"
             f"{'' if m['quiet'] else ', NOT quiet: ' + ', '.join(m['competing_processes'])}.{repriced}", "",
             f"Reproduce: `{result['command']}`"
             + (f" (its units measured by `{result['measured_by']}`)" if "measured_by" in result else ""), "",
             "With the default answer cache (`QA_CACHE_SHARED=0`: each instance's own, in-process tier). Billed "
             "alone, a request finds the instance idle for longer than `QA_CORPUS_CHECK_S` and reads the store's "
             "corpus generation: " + ", ".join(f"{k} {v:.2f}" for k, v in generation_reads(result["measured"]).items())
             + " reads a request (measured with `QA_CORPUS_CHECK_S=0`), counted in its reads below; busy, an "
             "instance reads it at most once a `QA_CORPUS_CHECK_S`, nothing per question:", "",
             "| kind | cache tier | billed | answer-cache hits | instance s / question | Firestore reads | writes | "
             "CPU $ | memory $ | requests $ | Firestore $ | **$ per million** |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    order = list(KINDS)
    chosen = [r for r in b["rows"] if r["cache"] == DEFAULT_TIER[r["kind"]] and "stream" not in r]
    for r in sorted(chosen, key=lambda r: order.index(r["kind"])):
        d = r["dollars_per_million"]
        lines.append(f"| {r['kind']} | {r['cache']} | {r['billed']} | {r['hit_rate']:.0%} | {r['instance_s']:.4f} | "
                     f"{r['reads']:.2f} | {r['writes']:.2f} | {d['cpu']:.2f} | {d['memory']:.2f} | "
                     f"{d['requests']:.2f} | {d['firestore']:.2f} | **{d['total']:.2f}** |")
    total = {(r["cache"], r["kind"], r["billed"], r["hit_rate"]): r["dollars_per_million"]["total"] for r in b["rows"]
             if "stream" not in r}
    lines += ["", "Total $ per million with the shared (Firestore) answer-cache tier (`QA_CACHE_SHARED=1`) and with "
                  "the in-process tier only (`QA_CACHE_SHARED=0`), at the same hit rate:", "",
              "| kind | billed | " + " | ".join(f"{h:.0%} hits: shared / in-process" for h in HIT_RATES) + " |",
              "|---|---|" + "---|" * len(HIT_RATES)]
    for k in KINDS:
        for way in ("alone", "busy"):
            lines.append(f"| {k} | {way} | " + " | ".join(
                f"{total[('shared', k, way, h)]:.2f} / {total[('local', k, way, h)]:.2f}" for h in HIT_RATES) + " |")
    meas = result["measured"]
    lines += ["", "| kind | miss: server ms p50 | shared hit | in-process hit | busy req/s: misses | shared hits | "
                  "in-process hits |", "|---|---|---|---|---|---|---|"]
    for k in KINDS:
        lines.append(f"| {k} | {meas['miss'][k]['server_ms_p50']} | {meas['shared_hit'][k]['server_ms_p50']} | "
                     f"{meas['local_hit'][k]['server_ms_p50']} | {meas['busy_miss'][k]['requests_per_s']} | "
                     f"{meas['busy_hit'][k]['requests_per_s']} | {meas['busy_local_hit'][k]['requests_per_s']} |")
    lines += ["", f"One always-on instance (instance-based billing, minimum instances 1): "
                  f"${b['always_on_per_month']:.2f} a month whatever it serves; busy with misses it would answer "
                  + ", ".join(f"{k} {v}M" for k, v in b["always_on_capacity_millions"].items())
                  + " questions a month.",
              f"A cold start: {b['startup_s']} s from process start to a loaded model here, "
              f"${b['per_1000_cold_starts']:.4f} per 1,000 cold starts at the deployed size "
              "(plus Cloud Run's container start; startup CPU boost bills the boosted CPUs for it)."]
    if "stream" in meas:
        lines += stream_markdown(result)
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    from harness.firestore import running_emulator

    argv = sys.argv[1:] if argv is None else list(argv)
    p = argparse.ArgumentParser(prog="python -m bench cost", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifact", type=Path, default=ARTIFACT)
    p.add_argument("--questions", type=int, default=40, help="sample questions per kind")
    p.add_argument("--busy-seconds", type=float, default=15.0)
    p.add_argument("--clients", type=int, default=8, help="the deployed concurrency")
    p.add_argument("--cpus", type=int, default=1, help="CPUs the server may use (the deployed vCPUs)")
    p.add_argument("--vcpus", type=float, default=1.0,
                   help="billed vCPUs (infra/deploy.sh CPU); below 1, the server is also held to that share of one "
                        "CPU (a cgroup CFS quota: root) and --clients must be 1")
    p.add_argument("--memory-gib", type=float, default=0.5, help="billed memory (infra/deploy.sh MEMORY)")
    p.add_argument("--stream", type=int, default=0, metavar="N",
                   help="also N distinct dev questions alone on one warm instance (step 4; 0: not)")
    p.add_argument("--data", type=Path, default=SQUAD, help="the stream's corpus: train.json and dev.json")
    p.add_argument("--firestore-location", choices=sorted(prices.FIRESTORE_LOCATIONS), default=prices.FIRESTORE_DEFAULT,
                   help="price Firestore's operations at this location's list prices (bench/prices.py; default: "
                        "%(default)s, the highest)")
    p.add_argument("--reprice", type=Path, metavar="COST_JSON",
                   help="measure nothing: bill a record's measured units (its cost.json) again at these prices")
    p.add_argument("--out", type=Path, default=REPO / "records" / "bench")
    args = p.parse_args(argv)
    command = "python -m bench cost " + shlex.join(argv if argv is not None else sys.argv[1:])
    if args.reprice is not None:
        return reprice(args.reprice, args.firestore_location, args.out, command)

    if not 1 <= args.cpus <= len(os.sched_getaffinity(0)):
        p.error(f"--cpus {args.cpus}: this process may use {len(os.sched_getaffinity(0))} CPUs")
    if args.vcpus < 1:  # measured as billed: one CPU held to the fraction, one request at a time (Cloud Run's rule)
        if args.vcpus < 0.08:
            p.error(f"--vcpus {args.vcpus}: Cloud Run's smallest is 0.08")
        if args.clients != 1:
            p.error(f"--vcpus {args.vcpus}: below 1 vCPU Cloud Run serves one request at a time; give --clients 1")
        try:
            cpu_quota.cgroup(args.vcpus)
        except cpu_quota.QuotaUnavailable as e:
            p.error(f"--vcpus {args.vcpus}: {e}")
        args.cpus = args.vcpus
    questions = sample_questions()
    if not 1 <= args.questions < len(questions):
        p.error(f"--questions must be between 1 and {len(questions) - 1} (the sample has {len(questions)})")
    with tempfile.TemporaryDirectory() as tmp, running_emulator(Path(tmp) / "emulator.log") as emulator:
        env = {**emulator, "QA_ARTIFACT_DIR": str(args.artifact.resolve())}
        ingest(env, str(SAMPLE), "--quiet", "--artifact", str(args.artifact), check=True)
        measured = measure(env, questions, args, Path(tmp))
        if args.stream > 0:
            measured["stream"] = measure_stream(env, args, Path(tmp))
    result = {"command": command, "artifact": str(args.artifact), "questions": args.questions, "cpus": args.cpus,
              "vcpus": args.vcpus, "memory_gib": args.memory_gib, "machine": machine.describe(),
              "prices_consulted": prices.CONSULTED, "firestore_location": args.firestore_location,
              "measured": measured, "bill": bill(measured, args.vcpus, args.memory_gib, args.firestore_location)}
    write(result, args.out)
    return 0


def write(result: dict, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "cost.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / "cost.md").write_text(markdown(result))
    print(markdown(result))


def reprice(record: Path, location: str, out: Path, command: str) -> int:
    """``--reprice``: a record's measured units (``cost.json``) billed again at ``location``'s Firestore prices and
    today's ``bench.prices``; the measurements, machine and the command that made them are kept beside."""
    try:
        result = json.loads(record.read_text())
        measured, vcpus, memory_gib = result["measured"], result["vcpus"], result["memory_gib"]
    except (OSError, ValueError, KeyError) as e:
        print(f"python -m bench cost: --reprice {record}: not a cost.json written by this command ({e})",
              file=sys.stderr)
        return 2
    result = {**result, "measured_by": result.get("command", "?"), "command": command, "repriced_from": str(record),
              "prices_consulted": prices.CONSULTED, "firestore_location": location,
              "bill": bill(measured, vcpus, memory_gib, location)}
    write(result, out)
    return 0
