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
3. *Busy*: ``--clients`` concurrent clients for ``--busy-seconds`` per kind,
   answer cache off (misses), then answer cache on with the questions already
   cached (hits): instance seconds per request = seconds / requests answered.

``bench.cost_model`` turns these into dollars per million questions at
``bench.prices``' list prices for answer-cache hit rates of 0%, 40% and 80%,
billed *alone* (every request rounded up to 100 ms on an idle instance) and
*busy* (requests sharing a busy instance), beside one always-on instance and
what a cold start costs. Writes ``cost.json`` and ``cost.md`` into ``--out``.

``python -m bench cost lance`` counts instead the Cloud Storage operations of the
Lance retrieval index (``QA_INDEX_URI=gs://...``): see ``LANCE_DOC`` below.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from bench import cost_model, machine, prices
from bench.questions import mix, payload, sample_questions
from harness import client
from harness.launch import FunctionServer, ingest
from harness.paths import ARTIFACT, MAIN, REPO, SAMPLE

KINDS = {"context": "context", "passage": "passage_ids", "retrieval": "retrieval"}  # bench.questions' -> the log's
HIT_RATES = (0.0, 0.4, 0.8)


def server(env: dict, cpus: int, log_path: Path, **extra: str) -> FunctionServer:
    """The function as the image runs it, on ``cpus`` CPUs (``taskset``)."""
    return FunctionServer({**env, "QA_EAGER_LOAD": "1", "WORKERS": "1", "THREADS": "8", "MALLOC_ARENA_MAX": "2",
                           "QA_PASSAGE_CACHE_BYTES": "0", **extra}, log_path, source=MAIN, cpus=cpus)


def store_ops(srv: FunctionServer) -> dict:
    return srv.health()["store"]["ops"]


def settled_ops(srv: FunctionServer, wait_s: float = 2.0) -> dict:
    """``store.ops`` once the background cache writes have landed (two equal readings in a row)."""
    deadline, last = time.monotonic() + wait_s, store_ops(srv)
    while time.monotonic() < deadline:
        time.sleep(0.2)
        now = store_ops(srv)
        if now == last:
            return now
        last = now
    return last


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
                 "local_miss": {}, "local_hit": {}, "busy_local_hit": {}}
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
    return out


# The tier each kind uses by default (QA_CACHE_SHARED=retrieval): the shared one only for questions alone.
DEFAULT_TIER = {"context": "local", "passage": "local", "retrieval": "shared"}
# Answer-cache tiers: where a miss's and a hit's units come from in ``measure``'s output.
TIERS = {
    "shared": {"miss": "miss", "hit": "shared_hit", "busy_hit": "busy_hit"},
    "local": {"miss": "local_miss", "hit": "local_hit", "busy_hit": "busy_local_hit"},
}


def bill(measured: dict, vcpus: float, memory_gib: float) -> dict:
    """Dollars per million questions per kind, billing way and hit rate; the always-on and cold-start figures."""
    rows = []
    for (tier, keys), kind in ((t, k) for t in TIERS.items() for k in KINDS):
        miss, hit = measured[keys["miss"]][kind], measured[keys["hit"]][kind]
        busy_miss_s = measured["busy_miss"][kind]["billed_busy_s"]  # answer cache off: a miss in either tier
        ways = {
            "alone": (cost_model.Units(miss["billed_alone_s"], miss["reads"], miss["writes"]),
                      cost_model.Units(hit["billed_alone_s"], hit["reads"], hit["writes"])),
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
                             "dollars_per_million": cost_model.per_million(units, vcpus, memory_gib)})
    always_on = cost_model.always_on_per_month(vcpus, memory_gib)
    capacity = {k: round(measured["busy_miss"][k]["requests_per_s"] * prices.SECONDS_PER_MONTH / 1e6, 1)
                for k in KINDS}
    cold = measured.get("cold_start") or {}
    startup_s = (cold.get("since_process_start_ms") or 0) / 1000
    return {"rows": rows, "always_on_per_month": always_on, "always_on_capacity_millions": capacity,
            "startup_s": round(startup_s, 3),
            "per_1000_cold_starts": round(1000 * cost_model.per_cold_start(startup_s, vcpus, memory_gib), 4)}


def markdown(result: dict) -> str:
    m, b = result["machine"], result["bill"]
    lines = [f"Cost of a million questions: {result['vcpus']} vCPU, {result['memory_gib']} GiB (the deployed size), "
             f"server restricted to {result['cpus']} CPU(s) of {m['cpu']}; Firestore emulator; "
             f"{result['questions']} sample questions per kind; prices of {prices.CONSULTED} "
             f"({prices.RUN_SOURCE}; {prices.FIRESTORE_SOURCE}), free tiers left out. "
             f"Load average at the start: {m['load_average_at_start']}"
             f"{'' if m['quiet'] else ', NOT quiet: ' + ', '.join(m['competing_processes'])}.", "",
             f"Reproduce: `{result['command']}`", "",
             "With the default answer cache (`QA_CACHE_SHARED=retrieval`: the shared Firestore tier for questions "
             "alone, the in-process tier for the other kinds):", "",
             "| kind | cache tier | billed | answer-cache hits | instance s / question | Firestore reads | writes | "
             "CPU $ | memory $ | requests $ | Firestore $ | **$ per million** |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    order = list(KINDS)
    chosen = [r for r in b["rows"] if r["cache"] == DEFAULT_TIER[r["kind"]]]
    for r in sorted(chosen, key=lambda r: order.index(r["kind"])):
        d = r["dollars_per_million"]
        lines.append(f"| {r['kind']} | {r['cache']} | {r['billed']} | {r['hit_rate']:.0%} | {r['instance_s']:.4f} | "
                     f"{r['reads']:.2f} | {r['writes']:.2f} | {d['cpu']:.2f} | {d['memory']:.2f} | "
                     f"{d['requests']:.2f} | {d['firestore']:.2f} | **{d['total']:.2f}** |")
    total = {(r["cache"], r["kind"], r["billed"], r["hit_rate"]): r["dollars_per_million"]["total"] for r in b["rows"]}
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
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    from harness.firestore import FirestoreEmulator, emulator_env

    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["lance"]:
        return lance_main(argv[1:])

    p = argparse.ArgumentParser(prog="python -m bench cost", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifact", type=Path, default=ARTIFACT)
    p.add_argument("--questions", type=int, default=40, help="sample questions per kind")
    p.add_argument("--busy-seconds", type=float, default=15.0)
    p.add_argument("--clients", type=int, default=8, help="the deployed concurrency")
    p.add_argument("--cpus", type=int, default=1, help="CPUs the server may use (the deployed vCPUs)")
    p.add_argument("--vcpus", type=float, default=1.0, help="billed vCPUs (infra/deploy.sh CPU)")
    p.add_argument("--memory-gib", type=float, default=0.5, help="billed memory (infra/deploy.sh MEMORY)")
    p.add_argument("--out", type=Path, default=REPO / "records" / "bench")
    args = p.parse_args(argv)

    if not 1 <= args.cpus <= len(os.sched_getaffinity(0)):
        p.error(f"--cpus {args.cpus}: this process may use {len(os.sched_getaffinity(0))} CPUs")
    questions = sample_questions()
    if not 1 <= args.questions < len(questions):
        p.error(f"--questions must be between 1 and {len(questions) - 1} (the sample has {len(questions)})")
    with tempfile.TemporaryDirectory() as tmp:
        emulator = FirestoreEmulator(Path(tmp) / "emulator.log").start()
        try:
            env = {**emulator_env(emulator), "QA_ARTIFACT_DIR": str(args.artifact.resolve())}
            ingest(env, str(SAMPLE), "--quiet", "--artifact", str(args.artifact), check=True)
            measured = measure(env, questions, args, Path(tmp))
        finally:
            emulator.stop()
    result = {"command": "python -m bench cost " + shlex.join(argv if argv is not None else sys.argv[1:]),
              "artifact": str(args.artifact), "questions": args.questions, "cpus": args.cpus, "vcpus": args.vcpus,
              "memory_gib": args.memory_gib, "machine": machine.describe(), "prices_consulted": prices.CONSULTED,
              "measured": measured, "bill": bill(measured, args.vcpus, args.memory_gib)}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "cost.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.out / "cost.md").write_text(markdown(result))
    print(markdown(result))
    return 0


# ==== python -m bench cost lance: the Lance index's Cloud Storage operations, counted ===========================

LANCE_DOC = """``python -m bench cost lance``: what the Lance retrieval index (``QA_INDEX_URI=gs://...``) does on
Cloud Storage, counted operation by operation, priced beside Firestore's term index.

    python -m bench cost lance --sizes 10000 100000 --questions 300 --cold 20 --firestore-passages 2000

Lance reaches ``gs://`` through Rust's ``object_store``, which speaks Cloud Storage's XML API. Here it
speaks to ``CountingBucket``: an HTTP server on a loopback port that answers that API from a local
folder (ranged reads, HEAD, listings in pages of 1,000 keys, uploads with ``x-goog-if-generation-match``,
multipart uploads, copies, deletes) and counts every request by Cloud Storage's billing class. What is
counted is what the function's own code (``function.retrieval.lance_index.LanceIndex``) sends:

1. *Ingestion*: the corpus of ``python -m bench scale`` (dev paragraphs, train.json, the Brown corpus,
   then synthetic passages; ``bench/scale_corpus.py``), written as ``function.ingest`` writes it: an
   ``upsert`` of each batch of 256 passages' index rows, then ``optimize`` (fold, compaction, clean-up).
2. *Questions* (dev.json's, as their analysed terms, top 5): a *cold* open (a new instance: the table
   opened, then its first question), a *refresh* (what an instance does when its last look is older
   than ``QA_INDEX_REFRESH_S``: every question looks here) that finds no new version, one that finds a
   new version each time (another writer commits one before each question, uncounted: a commit that
   changes no rows, so what is counted is the refresh alone; an ingestion's commits also bring new
   files to read), and *warm* questions on a table kept open. The refreshes' questions are the warm
   run's first ones, asked in the same order: what a refresh adds is the difference.
3. With ``--firestore-passages``: the same corpus's first passages written to the Firestore emulator by
   ``FirestoreStore`` with its term index (as without ``QA_INDEX_URI``) and without it (as with it), and
   the same questions searched in its term index: reads and writes counted by the store code
   (``function/store/ops.py``).

``bench.cost_model`` prices the counts at ``bench.prices``' list prices. Writes ``cost_lance.json`` and
``cost_lance.md`` into ``--out``.
"""

# object_store's requests, by Cloud Storage billing class (XML API): listings, uploads, multipart steps and
# copies are Class A; reads and metadata Class B; deletes are free.
GCS_CLASS = {"list": "A", "put": "A", "put-refused": "A", "copy": "A", "multipart-create": "A",
             "multipart-part": "A", "multipart-complete": "A", "get": "B", "get-missing": "B", "head": "B",
             "delete": "free", "multipart-abort": "free"}
LIST_PAGE = 1000  # Cloud Storage's largest page of a listing
# Where in a Lance table a request goes: manifests, transactions, the indexes, data files, deletion files.
TABLE_PARTS = ("_versions", "_transactions", "_indices", "data", "_deletions", "_refs")


def table_part(key: str) -> str:
    """The part of a Lance table an object key (or a listing's prefix) belongs to."""
    return next((part for part in key.split("/") if part in TABLE_PARTS), "other")


def _gcs_handler():
    import email.utils
    import hashlib
    import http.server
    import re
    import urllib.parse
    import uuid
    from xml.sax.saxutils import escape

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # counted, not logged
            pass

        def _parse(self):
            url = urllib.parse.urlsplit(self.path)
            bucket, _, key = url.path.lstrip("/").partition("/")
            return bucket, urllib.parse.unquote(key), urllib.parse.parse_qs(url.query, keep_blank_values=True)

        def _reply(self, code: int, body: bytes = b"", headers: dict | None = None, length: int | None = None):
            self.send_response(code)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body) if length is None else length))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _object_headers(self, path: Path) -> dict:
            st = path.stat()
            return {"ETag": f'"{st.st_mtime_ns:x}-{st.st_size:x}"', "x-goog-generation": str(st.st_mtime_ns),
                    "Last-Modified": email.utils.formatdate(st.st_mtime, usegmt=True)}

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def _list(self, q: dict) -> None:
            root, prefix = self.server.root, q.get("prefix", [""])[0]
            delimiter, after = q.get("delimiter", [""])[0], q.get("start-after", [""])[0]
            token = q.get("continuation-token", [""])[0]
            page = min(int(q.get("max-keys", [LIST_PAGE])[0]), LIST_PAGE)
            entries = {}  # name -> path (an object) or None (a common prefix)
            for path in root.rglob("*"):
                key = path.relative_to(root).as_posix()
                if not path.is_file() or not key.startswith(prefix) or ".part-" in key:
                    continue
                rest = key[len(prefix):]
                if delimiter and delimiter in rest:
                    entries[prefix + rest.split(delimiter)[0] + delimiter] = None
                else:
                    entries[key] = path
            names = [n for n in sorted(entries) if n > max(after, token)]
            shown, more = names[:page], len(names) > page
            self.server.count("list", 0, prefix)
            xml = ["<?xml version='1.0' encoding='UTF-8'?><ListBucketResult>",
                   f"<IsTruncated>{'true' if more else 'false'}</IsTruncated>"]
            for name in shown:
                path = entries[name]
                if path is None:
                    xml.append(f"<CommonPrefixes><Prefix>{escape(name)}</Prefix></CommonPrefixes>")
                    continue
                st = path.stat()
                modified = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(st.st_mtime))
                xml.append(f"<Contents><Key>{escape(name)}</Key><Size>{st.st_size}</Size>"
                           f"<LastModified>{modified}</LastModified><ETag>\"{st.st_mtime_ns:x}\"</ETag></Contents>")
            if more:
                xml.append(f"<NextContinuationToken>{escape(shown[-1])}</NextContinuationToken>")
            xml.append("</ListBucketResult>")
            self._reply(200, "".join(xml).encode(), {"Content-Type": "application/xml"})

        def do_GET(self):
            _, key, q = self._parse()
            if not key:
                return self._list(q)
            path = self.server.root / key
            if not path.is_file():
                self.server.count("get-missing", 0, key)
                return self._reply(404, b"<Error><Code>NoSuchKey</Code></Error>")
            data, headers = path.read_bytes(), self._object_headers(path)
            wanted = re.fullmatch(r"bytes=(\d*)-(\d*)", self.headers.get("Range", ""))
            if not wanted:
                self.server.count("get", len(data), key)
                return self._reply(200, data, headers)
            first, last = wanted.groups()
            if first == "":
                first, last = max(0, len(data) - int(last)), len(data) - 1
            else:
                first, last = int(first), min(int(last) if last else len(data) - 1, len(data) - 1)
            body = data[first : last + 1]
            headers["Content-Range"] = f"bytes {first}-{last}/{len(data)}"
            self.server.count("get", len(body), key)
            return self._reply(206, body, headers)

        def do_HEAD(self):
            _, key, _ = self._parse()
            path = self.server.root / key
            self.server.count("head", 0, key)
            if not path.is_file():
                return self._reply(404)
            return self._reply(200, b"", self._object_headers(path), length=path.stat().st_size)

        def do_PUT(self):
            _, key, q = self._parse()
            body, root, path = self._body(), self.server.root, self.server.root / key
            if "uploadId" in q:
                self.server.uploads[q["uploadId"][0]][int(q["partNumber"][0])] = body
                self.server.count("multipart-part", len(body), key)
                return self._reply(200, b"", {"ETag": f'"{hashlib.md5(body).hexdigest()}"'})
            source = self.headers.get("x-goog-copy-source")
            with self.server.lock:
                if self.headers.get("x-goog-if-generation-match") == "0" and path.exists():
                    self.server.count("put-refused", 0, key)
                    return self._reply(412, b"<Error><Code>PreconditionFailed</Code></Error>")
                if source:
                    data = (root / urllib.parse.unquote(source).lstrip("/").partition("/")[2]).read_bytes()
                    self.server.count("copy", 0, key)
                else:
                    data = body
                    self.server.count("put", len(body), key, written=True)
                path.parent.mkdir(parents=True, exist_ok=True)
                scratch = path.with_name(f"{path.name}.part-{uuid.uuid4().hex}")
                scratch.write_bytes(data)
                os.replace(scratch, path)
            return self._reply(200, b"", self._object_headers(path))

        def do_POST(self):
            bucket, key, q = self._parse()
            self._body()
            path = self.server.root / key
            if "uploads" in q:
                upload = uuid.uuid4().hex
                self.server.uploads[upload] = {}
                self.server.count("multipart-create", 0, key)
                return self._reply(200, (f"<InitiateMultipartUploadResult><Bucket>{bucket}</Bucket><Key>"
                                         f"{escape(key)}</Key><UploadId>{upload}</UploadId>"
                                         "</InitiateMultipartUploadResult>").encode())
            if "uploadId" in q:
                parts = self.server.uploads.pop(q["uploadId"][0])
                data = b"".join(parts[n] for n in sorted(parts))
                with self.server.lock:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(data)
                self.server.count("multipart-complete", len(data), key, written=True)
                return self._reply(200, (f"<CompleteMultipartUploadResult><Bucket>{bucket}</Bucket><Key>"
                                         f"{escape(key)}</Key><ETag>\"{hashlib.md5(data).hexdigest()}\"</ETag>"
                                         "</CompleteMultipartUploadResult>").encode(), self._object_headers(path))
            return self._reply(400, b"<Error><Code>NotImplemented</Code></Error>")

        def do_DELETE(self):
            _, key, q = self._parse()
            if "uploadId" in q:
                self.server.uploads.pop(q["uploadId"][0], None)
                self.server.count("multipart-abort", 0, key)
                return self._reply(204)
            path = self.server.root / key
            self.server.count("delete", 0, key)
            if path.is_file():
                path.unlink()
                return self._reply(204)
            return self._reply(404)

    return Handler


class CountingBucket:
    """A Cloud Storage stand-in (XML API, one folder per bucket name ignored) that counts what it is asked.

    ``storage_options`` point Lance's ``object_store`` at it: a service-account key whose ``gcs_base_url``
    is this server, with OAuth off. ``take()`` returns the requests since the last call, by kind and class.
    """

    def __init__(self, root: Path):
        import http.server
        import threading

        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        counter = self
        self._lock = threading.Lock()

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True
            lock = threading.Lock()
            uploads: dict = {}
            root = self.root

            def count(self, kind: str, size: int, key: str, written: bool = False) -> None:
                counter._count(kind, size, key, written)

            def handle_error(self, request, client_address):
                # A client that drops an idle kept-alive connection: no request was made, nothing to count.
                if not isinstance(sys.exc_info()[1], ConnectionError):
                    super().handle_error(request, client_address)

        self._server = Server(("127.0.0.1", 0), _gcs_handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self._reset()

    def _reset(self) -> None:
        self._kinds: dict[str, int] = {}
        self._where: dict[str, int] = {}
        self._read = self._written = 0

    def _count(self, kind: str, size: int, key: str, written: bool) -> None:
        where = f"{kind} {table_part(key)}"
        with self._lock:
            self._kinds[kind] = self._kinds.get(kind, 0) + 1
            self._where[where] = self._where.get(where, 0) + 1
            if written:
                self._written += size
            elif GCS_CLASS[kind] == "B":
                self._read += size

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def storage_options(self) -> dict:
        key = {"gcs_base_url": self.url, "disable_oauth": True, "client_email": "", "private_key": "",
               "private_key_id": ""}
        return {"google_service_account_key": json.dumps(key), "allow_http": "true"}

    def take(self) -> dict:
        """The requests since the last ``take``: by kind, by class (A, B, free), bytes read and written."""
        with self._lock:
            kinds, where = dict(sorted(self._kinds.items())), dict(sorted(self._where.items()))
            read, written = self._read, self._written
            self._reset()
        by_class = {c: sum(n for k, n in kinds.items() if GCS_CLASS[k] == c) for c in ("A", "B", "free")}
        return {"kinds": kinds, "where": where, "class_a": by_class["A"], "class_b": by_class["B"],
                "free": by_class["free"], "bytes_read": read, "bytes_written": written}

    def stored_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file() and ".part-" not in p.name)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _per(total: dict, n: int) -> dict:
    """A ``CountingBucket.take()`` divided by ``n`` (per passage, per question)."""
    out = {k: round(total[k] / n, 4) for k in ("class_a", "class_b", "free", "bytes_read", "bytes_written")}
    for field in ("kinds", "where"):
        out[field] = {k: round(v / n, 4) for k, v in total[field].items()}
    return out


def _summed(takes: list[dict]) -> dict:
    total = {k: sum(t[k] for t in takes) for k in ("class_a", "class_b", "free", "bytes_read", "bytes_written")}
    for field in ("kinds", "where"):
        total[field] = {}
        for t in takes:
            for k, v in t[field].items():
                total[field][k] = total[field].get(k, 0) + v
        total[field] = dict(sorted(total[field].items()))
    return total


def lance_ingest(bucket: CountingBucket, uri: str, passages, batch: int = 256) -> dict:
    """Write ``passages`` (``.id``, ``.doc_id``, ``.title``, ``.text``) as ingestion does: an upsert of each
    batch's index rows, then ``optimize``; the operations of each step and per passage."""
    from function.ingest.job import index_rows
    from function.retrieval.lance_index import LanceIndex

    index = LanceIndex(uri, timeout_s=120.0, storage_options=bucket.storage_options)
    bucket.take()
    rows, chunk, started = 0, [], time.perf_counter()
    for p in passages:
        chunk.append(p)
        if len(chunk) == batch:
            rows += index.upsert(index_rows(chunk))
            chunk = []
    if chunk:
        rows += index.upsert(index_rows(chunk))
    upserts = bucket.take()
    index.optimize()
    finish = bucket.take()
    seconds = time.perf_counter() - started
    deltas = index._deltas()  # delta indices over ``terms``: a search reads each
    bucket.take()
    index.close()
    total = _summed([upserts, finish])
    stored = bucket.stored_bytes()  # with the versions of the last minute, which optimize's clean-up keeps
    # What stays once those are gone too (the next ingestion's clean-up): the table alone. Done on the folder
    # itself, not through the bucket: not counted.
    import lance

    lance.dataset(str(bucket.root / uri.split("/", 3)[3])).cleanup_old_versions(older_than=timedelta(0))
    return {"passages": rows, "batch": batch, "seconds": round(seconds, 1), "terms_index_deltas": deltas,
            "upserts": upserts, "optimize": finish,
            "per_passage": _per(total, rows), "stored_bytes_after_run": stored,
            "stored_bytes": bucket.stored_bytes()}


def lance_questions(bucket: CountingBucket, uri: str, questions: list[list[str]], cold: int, k: int = 5) -> dict:
    """The operations of a cold open (a new instance's open and first question), of a re-open (an instance
    whose last open is older than ``QA_INDEX_REFRESH_S``) and of warm questions on a table kept open."""
    from function.retrieval.lance_index import LanceIndex

    def index(refresh_s: float):
        return LanceIndex(uri, timeout_s=120.0, refresh_s=refresh_s, storage_options=bucket.storage_options)

    bucket.take()
    colds = []
    for terms in questions[:cold]:
        fresh = index(1e9)
        fresh.search(terms, k)
        colds.append(bucket.take())
        fresh.close()
    refreshing = index(0.0)  # every question finds its last look at the table too old
    refreshing.search(questions[-1], k)  # opened, its first question asked
    bucket.take()
    refreshes = []
    for terms in questions[:cold]:
        refreshing.search(terms, k)
        refreshes.append(bucket.take())
    # The same, with a new version to find each time: another writer's commit (uncounted) that changes
    # no rows, so that what is counted is the refresh (the new manifest) and the question. Other questions
    # than the last loop's, whose terms' postings this instance has read already.
    import lance

    writer = lance.dataset(uri, storage_options=bucket.storage_options)
    newer, second = [], (cold, 2 * cold) if len(questions) >= 2 * cold else (0, cold)
    for n, terms in enumerate(questions[second[0] : second[1]]):
        writer.update_config({"bench.cost.commit": str(n)})
        bucket.take()
        refreshing.search(terms, k)
        newer.append(bucket.take())
    refreshing.close()
    warm = index(1e9)
    warm.search(questions[-1], k)  # opened, its first question asked
    bucket.take()
    warm._current().io_stats_incremental()
    each = []
    for terms in questions:
        warm.search(terms, k)
        each.append(bucket.take())
    stats = warm._current().io_stats_incremental()
    warm.close()
    half = len(each) // 2
    return {"k": k, "cold": _per(_summed(colds), len(colds)), "cold_first": colds[0],
            "refresh": _per(_summed(refreshes), len(refreshes)),
            "refresh_new_version": _per(_summed(newer), len(newer)),
            # The warm table's answers to the same questions, asked in the same order after the same first
            # question (the same postings cached): what a refresh adds is the difference.
            "warm_as_refresh": _per(_summed(each[:cold]), len(each[:cold])),
            "warm_as_refresh_new_version": _per(_summed(each[second[0] : second[1]]), second[1] - second[0]),
            "warm": _per(_summed(each), len(each)), "warm_second_half": _per(_summed(each[half:]), len(each) - half),
            "warm_questions": len(each), "cold_questions": len(colds),
            "lance_io_stats_warm": {"read_iops": stats.read_iops, "read_bytes": stats.read_bytes,
                                    "counted_gets": sum(t["kinds"].get("get", 0) for t in each),
                                    "counted_bytes_read": sum(t["bytes_read"] for t in each)}}


def firestore_term_index(passages, questions: list[list[str]], k: int = 5, batch: int = 256) -> dict:
    """``FirestoreStore`` on the emulator: its operations per passage written (the term index's share apart)
    and its term index's reads per question; and per passage written without its term index (``QA_INDEX_URI``
    set: ``term_index=False``)."""
    from function.store import ops
    from function.store.firestore import FirestoreStore
    from function.store.records import Passage
    from harness.firestore import FirestoreEmulator, emulator_env

    with tempfile.TemporaryDirectory() as tmp:
        emulator = FirestoreEmulator(Path(tmp) / "emulator.log").start()
        saved = {k: os.environ.get(k) for k in ("FIRESTORE_EMULATOR_HOST", "GOOGLE_CLOUD_PROJECT")}
        try:
            os.environ.update({k: v for k, v in emulator_env(emulator).items() if k != "QA_STORE"})
            store = FirestoreStore(None, "(default)", "passages", "answers", 120.0)
            in_index = {"reads": 0, "writes": 0, "deletes": 0}
            update = store.index.update

            def counted_update(*args, **kwargs):
                before = ops.totals()
                try:
                    return update(*args, **kwargs)
                finally:
                    after = ops.totals()
                    for f in in_index:
                        in_index[f] += getattr(after, f) - getattr(before, f)

            store.index.update = counted_update
            before = ops.totals()

            def write(store, chunk):
                store.upsert_many([Passage.from_tokens(p.id, p.title, p.doc_id, p.text, [1], [[0, 1]],
                                                       "stand-in", 2) for p in chunk])
                return len(chunk)

            def write_all(store) -> int:
                written, chunk = 0, []
                for p in passages:
                    chunk.append(p)
                    if len(chunk) == batch:
                        written += write(store, chunk)
                        chunk = []
                if chunk:
                    written += write(store, chunk)
                return written

            written = write_all(store)
            after = ops.totals()
            asked = ops.totals()
            for terms in questions:
                store.search(terms, k)
            done = ops.totals()
            store.close()
            plain = FirestoreStore(None, "(default)", "passages_plain", "answers", 120.0, term_index=False)
            plain_before = ops.totals()
            write_all(plain)
            plain_after = ops.totals()
            plain.close()
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            emulator.stop()
    n, q = max(written, 1), max(len(questions), 1)
    return {"passages": written, "batch": batch, "questions": len(questions),
            "per_passage": {"reads": round((after.reads - before.reads) / n, 4),
                            "writes": round((after.writes - before.writes) / n, 4),
                            "deletes": round((after.deletes - before.deletes) / n, 4)},
            "per_passage_term_index": {f: round(v / n, 4) for f, v in in_index.items()},
            "per_passage_without_term_index": {f: round((getattr(plain_after, f) - getattr(plain_before, f)) / n, 4)
                                               for f in ("reads", "writes", "deletes")},
            "per_question": {"reads": round((done.reads - asked.reads) / q, 4)}}


def lance_bill(size_row: dict, firestore: dict | None, busy_questions_per_s: float, refresh_s: float) -> dict:
    """Dollars per million questions and per million passages ingested, and a month of storage."""
    q, ing = size_row["questions"], size_row["ingest"]

    def ops(d: dict) -> cost_model.ObjectOps:
        return cost_model.ObjectOps(d["class_a"], d["class_b"], d["free"], d["bytes_read"])

    warm = ops(q["warm"])
    # What a refresh adds to a question: its questions' operations less the warm table's for the same questions
    refresh = ops(q["refresh"]).plus(ops(q["warm_as_refresh"]), -1)
    newer = ops(q["refresh_new_version"]).plus(ops(q["warm_as_refresh_new_version"]), -1)
    # Busy: an instance answering busy_questions_per_s looks for a new version once every refresh_s and finds
    # one (ingestion under way): that refresh's operations are shared by the questions of those seconds.
    shared = 1 / (busy_questions_per_s * refresh_s)
    busy = warm.plus(newer, shared)
    out = {"questions": {"warm": cost_model.storage_ops_per_million(warm),
                         "busy": cost_model.storage_ops_per_million(busy),
                         "scattered": cost_model.storage_ops_per_million(warm.plus(refresh)),
                         "scattered_new_version": cost_model.storage_ops_per_million(warm.plus(newer)),
                         "refresh_alone": cost_model.storage_ops_per_million(refresh),
                         "refresh_new_version_alone": cost_model.storage_ops_per_million(newer),
                         "cold_start": cost_model.storage_ops_per_million(ops(q["cold"]))},
           "busy_questions_per_s": busy_questions_per_s, "refresh_s": refresh_s,
           "passages": cost_model.storage_ops_per_million(ops(ing["per_passage"])),
           "storage_per_million_passages_month": round(
               cost_model.storage_per_month(ing["stored_bytes"] / ing["passages"] * 1e6), 4)}
    if firestore:
        out["firestore_term_index"] = {
            "questions": cost_model.firestore_per_million(firestore["per_question"]["reads"]),
            "passages": cost_model.firestore_per_million(**firestore["per_passage_term_index"]),
            "passages_with_passage_documents": cost_model.firestore_per_million(**firestore["per_passage"])}
        if "per_passage_without_term_index" in firestore:
            out["firestore_term_index"]["passage_documents_alone"] = cost_model.firestore_per_million(
                **firestore["per_passage_without_term_index"])
    return out


def lance_markdown(result: dict) -> str:
    m = result["machine"]
    lines = [f"# The Lance index on Cloud Storage: operations counted, {result['date']}", "",
             f"Reproduce: `{result['command']}`", "",
             f"Requests of Lance {result['lance_version']} (`object_store`, Cloud Storage XML API) counted by "
             "`bench.cost.CountingBucket`; the index written and searched by `function.retrieval.lance_index`. "
             f"Prices of {prices.GCS_CONSULTED} ({prices.GCS_SOURCE}): Class A ${prices.GCS_CLASS_A_PER_1000} "
             f"and Class B ${prices.GCS_CLASS_B_PER_1000} per 1,000, Standard storage "
             f"${prices.GCS_STANDARD_GB_MONTH} per GB-month; Firestore ({prices.CONSULTED}): "
             f"${prices.READ_PER_100K} per 100,000 reads, ${prices.WRITE_PER_100K} per 100,000 writes. "
             f"Load average at the start: {m['load_average_at_start']}"
             f"{'' if m['quiet'] else ', NOT quiet: ' + ', '.join(m['competing_processes'])}.", "",
             "## Per question (top 5; dev.json questions as their analysed terms)", "",
             "| passages | case | Class A | Class B | of which LIST / GET / HEAD | KB read | $ per million |",
             "|---|---|---|---|---|---|---|"]
    for row in result["sizes"]:
        n = row["questions"]["cold_questions"]
        for case, label in (("cold", f"cold open + first question (mean of {n})"),
                            ("warm", f"warm, table kept open (mean of {row['questions']['warm_questions']})"),
                            ("warm_second_half", "warm, second half of those"),
                            ("refresh", f"refresh finding no new version, + a question (mean of {n}; last look "
                                        "older than QA_INDEX_REFRESH_S)"),
                            ("warm_as_refresh", "warm, the same questions"),
                            ("refresh_new_version", f"refresh finding a new version (checked out, caches kept), "
                                                    f"+ a question (mean of {n} others)"),
                            ("warm_as_refresh_new_version", "warm, the same questions")):
            d = row["questions"][case]
            kinds = d["kinds"]
            dollars = cost_model.storage_ops_per_million(cost_model.ObjectOps(d["class_a"], d["class_b"]))
            lines.append(f"| {row['size']:,} | {label} | {d['class_a']:.2f} | {d['class_b']:.2f} | "
                         f"{kinds.get('list', 0):.2f} / {kinds.get('get', 0):.2f} / {kinds.get('head', 0):.2f} | "
                         f"{d['bytes_read'] / 1024:.1f} | {dollars['total']:.4f} |")
    lines += ["", "## Per passage ingested (batches of 256, then optimize)", "",
              "| passages | Class A | Class B | deletes | of which PUT / LIST / GET | KB written | KB read | "
              "stored bytes / passage | delta indices | $ per million passages | "
              "storage $ per million passages a month |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in result["sizes"]:
        d, ing, b = row["ingest"]["per_passage"], row["ingest"], row["bill"]
        kinds = d["kinds"]
        puts = sum(v for k, v in kinds.items() if k in ("put", "multipart-part", "multipart-create",
                                                         "multipart-complete", "copy", "put-refused"))
        lines.append(f"| {row['size']:,} | {d['class_a']:.4f} | {d['class_b']:.4f} | {d['free']:.4f} | "
                     f"{puts:.4f} / {kinds.get('list', 0):.4f} / {kinds.get('get', 0):.4f} | "
                     f"{d['bytes_written'] / 1024:.2f} | {d['bytes_read'] / 1024:.2f} | "
                     f"{ing['stored_bytes'] / ing['passages']:.0f} | {ing.get('terms_index_deltas', '-')} | "
                     f"{b['passages']['total']:.2f} | "
                     f"{b['storage_per_million_passages_month']:.4f} |")
    fs = result.get("firestore")
    lines += ["", "## Dollars per million questions: Lance on Cloud Storage vs Firestore's term index", ""]
    if fs:
        lines += [f"Firestore's term index, counted on the emulator with the first {fs['passages']:,} passages of "
                  f"the corpus and the same {fs['questions']} questions: {fs['per_question']['reads']:.2f} reads "
                  f"per question; per passage written {fs['per_passage_term_index']['reads']:.2f} reads and "
                  f"{fs['per_passage_term_index']['writes']:.2f} writes for the term index "
                  f"({fs['per_passage']['reads']:.2f} and {fs['per_passage']['writes']:.2f} with the passage "
                  "documents)."
                  + (f" With `QA_INDEX_URI` set the store keeps no term index (`term_index=False`): "
                     f"{fs['per_passage_without_term_index']['reads']:.2f} reads and "
                     f"{fs['per_passage_without_term_index']['writes']:.2f} writes per passage written, "
                     "its document alone." if "per_passage_without_term_index" in fs else ""), ""]
    lines += ["| passages | Lance warm | Lance busy | Lance scattered (every question looks for a new version) | "
              "scattered, a new version each time | Firestore term index | "
              "Lance ingest, per million passages | Firestore term index ingest |",
              "|---|---|---|---|---|---|---|---|"]
    for row in result["sizes"]:
        b = row["bill"]
        f = b.get("firestore_term_index")
        fq, fp = (f"${f['questions']:.2f}", f"${f['passages']:.2f}") if f else ("-", "-")
        lines.append(f"| {row['size']:,} | ${b['questions']['warm']['total']:.4f} | "
                     f"${b['questions']['busy']['total']:.4f} | ${b['questions']['scattered']['total']:.4f} | "
                     f"${b['questions']['scattered_new_version']['total']:.4f} | "
                     f"{fq} | ${b['passages']['total']:.2f} | {fp} |")
    b0 = result["sizes"][0]["bill"]
    lines += ["", f"Busy: one refresh per {b0['refresh_s']:g} s (`QA_INDEX_REFRESH_S`), finding a new version, "
                  f"shared by {b0['busy_questions_per_s']:g} questions a second on the instance. Scattered: questions "
                  "more than `QA_INDEX_REFRESH_S` apart on an instance, each pays a refresh (a listing of the "
                  "table's versions), and the checkout of a new version where there is one."]
    return "\n".join(lines) + "\n"


def lance_main(argv=None) -> int:
    from datetime import UTC, datetime

    import lance

    from bench.scale_corpus import corpus, dev_questions, fetch_brown
    from function.retrieval.terms import query_terms
    from harness.paths import SQUAD

    p = argparse.ArgumentParser(prog="python -m bench cost lance", description=LANCE_DOC,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    p.add_argument("--questions", type=int, default=300, help="warm questions (dev.json's, in order)")
    p.add_argument("--cold", type=int, default=20, help="cold opens and re-opens, one question each")
    p.add_argument("--firestore-passages", type=int, default=0,
                   help="also count Firestore's term index on the emulator with this many passages (0: not)")
    p.add_argument("--busy-questions-per-s", type=float, default=7.7,
                   help="questions a second on a busy instance (docs/cost.md: 7.7 for questions alone)")
    p.add_argument("--refresh-s", type=float, default=10.0, help="QA_INDEX_REFRESH_S")
    p.add_argument("--data", type=Path, default=SQUAD, help="train.json and dev.json")
    p.add_argument("--no-brown", action="store_true", help="synthetic distractors after train.json")
    p.add_argument("--out", type=Path, default=REPO / "records" / "bench" / "cost_lance")
    args = p.parse_args(argv)

    brown = None if args.no_brown else fetch_brown(REPO / "build" / "corpora")
    questions = [t for t in (query_terms(q["question"]) for q in dev_questions(args.data / "dev.json")) if t]
    questions = questions[: args.questions]
    rows, firestore = [], None
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            bucket = CountingBucket(Path(tmp) / "bucket")
            uri = "gs://qa-bucket/index/bert-qa"
            try:
                passages, info = corpus(size, args.data, brown)
                print(f"{size:,} passages: ingesting ({info})", flush=True)
                ingested = lance_ingest(bucket, uri, passages)
                print(f"  {json.dumps(ingested['per_passage'])}", flush=True)
                asked = lance_questions(bucket, uri, questions, args.cold)
                print(f"  warm {json.dumps(asked['warm'])}\n  cold {json.dumps(asked['cold'])}", flush=True)
            finally:
                bucket.close()
        rows.append({"size": size, "corpus": info, "ingest": ingested, "questions": asked})
    if args.firestore_passages:
        passages, _ = corpus(max(args.firestore_passages, 285), args.data, brown)
        print(f"Firestore emulator: {args.firestore_passages:,} passages", flush=True)
        firestore = firestore_term_index(list(passages)[: args.firestore_passages], questions)
    for row in rows:
        row["bill"] = lance_bill(row, firestore, args.busy_questions_per_s, args.refresh_s)
    result = {"command": "python -m bench cost lance " + shlex.join(argv if argv is not None else sys.argv[1:]),
              "date": datetime.now(UTC).strftime("%Y-%m-%d"), "lance_version": lance.__version__,
              "machine": machine.describe(), "prices_consulted": prices.GCS_CONSULTED, "sizes": rows,
              "firestore": firestore}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "cost_lance.json").write_text(json.dumps(result, indent=1) + "\n")
    (args.out / "cost_lance.md").write_text(lance_markdown(result))
    print(lance_markdown(result))
    return 0
