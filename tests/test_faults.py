"""Faults: the store going away while serving, ingestion killed part way, a damaged artifact.

Each fault is made for real: the Firestore emulator's processes are frozen
(SIGSTOP: connections open, nothing answers) and then killed, an ingestion
process is killed with SIGKILL, artifact files are cut short or altered. Elapsed
times are measured only to assert upper bounds that show nothing hangs.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests

from harness.firestore import EMULATOR_PROJECT, FirestoreEmulator, emulator_env
from harness.launch import FunctionServer, free_port
from harness.launch import ingest as ingest_command
from harness.paths import REPO

PASSAGES = {"question": "Who ruled the duchy of Normandy?", "passage_ids": ["Normans-0000", "Normans-0001"]}
RETRIEVE = {"question": "Who ruled the duchy of Normandy?"}
CONTEXT = {"question": "Who was Rollo?", "context": "Rollo was a Viking leader who founded Normandy."}
STORE_TIMEOUT_S = 1.0
HANG_MARGIN_S = 5.0  # on top of QA_STORE_TIMEOUT_S: a loaded test machine, not a speed target
RECOVERY_S = 15.0  # documented: RECONNECT_EVERY_S (1 s) + QA_STORE_TIMEOUT_S; the rest is margin
TRACE_WORDS = ("Traceback", 'File "', 'File \\"', "stack_trace")


def post(srv: FunctionServer, body: dict) -> tuple[requests.Response, float]:
    t0 = time.monotonic()
    r = requests.post(srv.url, json=body, timeout=60)
    return r, time.monotonic() - t0


def no_stack_traces(srv: FunctionServer) -> None:
    text = srv.log_path.read_text(errors="replace")
    assert not [w for w in TRACE_WORDS if w in text], text[-3000:]


def load_sample(tiny_artifact, emulator: FirestoreEmulator, monkeypatch) -> None:
    """Ten passages of the sample corpus into the emulator, from this process (it keeps data in memory only)."""
    from function.ingest.documents import Recipe, from_records
    from function.ingest.ingestion import Ingestion
    from function.ingest.json_input import parse_text
    from function.model.artifact import load_manifest
    from function.model.tokenizer import QATokenizer
    from function.store.firestore import FirestoreStore

    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", emulator.host)
    store = FirestoreStore(EMULATOR_PROJECT, "(default)", "passages", "answers", timeout_s=30)
    sample = REPO / "samples" / "squad_sample.json"
    tokenizer = QATokenizer(load_manifest(tiny_artifact.folder).tokenizer_path)
    records = [r for r in parse_text(str(sample), sample.read_text()) if r.id.startswith("Normans-000")]
    job = Ingestion(store, tokenizer, batch_size=500)
    job.add_and_flush(from_records(str(sample), records, Recipe(tokenizer.fingerprint, 0, 0, 20000)))
    assert job.counts.passages == 10 and not job.failures  # written, and none rejected


# ---- the store goes away while the function serves -------------------------------------------


@pytest.fixture
def own_emulator(tmp_path):
    """An emulator of this test's own (not the session's): the test freezes, stops and restarts it."""
    emulator = FirestoreEmulator(tmp_path / "emulator.log").start()
    yield emulator
    if emulator.proc is not None:
        os.killpg(emulator.proc.pid, signal.SIGCONT)
    emulator.stop()


@pytest.mark.firestore
def test_a_firestore_outage_is_a_quick_503_and_the_same_process_recovers(tiny_artifact, own_emulator,
                                                                         tmp_path, monkeypatch):
    load_sample(tiny_artifact, own_emulator, monkeypatch)
    env = {**emulator_env(own_emulator), "QA_ARTIFACT_DIR": str(tiny_artifact.folder),
           "QA_STORE_TIMEOUT_S": str(STORE_TIMEOUT_S)}
    # bare: every request reaches the store; cached: the defaults (answer cache with its shared tier)
    bare = FunctionServer({**env, "QA_CACHE": "0", "QA_PASSAGE_CACHE_BYTES": "0"}, tmp_path / "bare.log")
    cached = FunctionServer(env, tmp_path / "cached.log")
    asked = itertools.count()
    worst = {"503": 0.0, "context 200": 0.0}  # slowest answers during the outage, for the record (-s)

    def fresh(body: dict) -> dict:  # a question no cache has seen
        return {**body, "question": f"{body['question']} ({next(asked)})"}

    def outage(what: str) -> None:
        for srv, body, store_calls in ((bare, PASSAGES, 1), (bare, RETRIEVE, 1), (cached, fresh(RETRIEVE), 2)):
            r, seconds = post(srv, body)  # with the cache on, its shared tier is a store call too
            assert r.status_code == 503, (what, r.text)
            assert int(r.headers["Retry-After"]) > 0 and "Firestore did not answer" in r.json()["error"]["message"]
            assert seconds < store_calls * STORE_TIMEOUT_S + HANG_MARGIN_S, (what, seconds)
            worst["503"] = max(worst["503"], seconds)
        for srv in (bare, cached, cached, cached):
            ok, seconds = post(srv, fresh(CONTEXT))  # the model needs no store
            assert ok.status_code == 200 and ok.json()["answers"], (what, ok.text)
            assert seconds < STORE_TIMEOUT_S + HANG_MARGIN_S, (what, seconds)
            worst["context 200"] = max(worst["context 200"], seconds)

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(FunctionServer.start, (bare, cached)))
    try:
        for srv, body in ((bare, PASSAGES), (bare, RETRIEVE), (cached, PASSAGES)):
            assert post(srv, body)[0].status_code == 200

        os.killpg(own_emulator.proc.pid, signal.SIGSTOP)  # hung: it accepts connections, answers nothing
        outage("frozen")
        os.killpg(own_emulator.proc.pid, signal.SIGCONT)
        own_emulator.stop()  # gone: connections refused
        outage("stopped")

        own_emulator.start()  # same port, empty: a 404 once the function reaches it
        back = time.monotonic()
        while (r := post(bare, PASSAGES)[0]).status_code == 503:
            assert time.monotonic() - back < RECOVERY_S, "the function did not reconnect to the store"
            time.sleep(0.1)
        reconnected_s = time.monotonic() - back
        assert r.status_code == 404, r.text
        load_sample(tiny_artifact, own_emulator, monkeypatch)
        r = post(bare, PASSAGES)[0]
        assert r.status_code == 200 and r.json()["cold_start"] is False  # the same process, not a new one
        assert post(bare, RETRIEVE)[0].status_code == 200
        print(f"\noutage: slowest 503 {worst['503']:.2f} s, slowest context answer {worst['context 200']:.2f} s "
              f"(QA_STORE_TIMEOUT_S={STORE_TIMEOUT_S:g}); "
              f"answering again {reconnected_s:.2f} s after the store was back")
        for srv in (bare, cached):
            assert srv.proc.poll() is None
            assert sum(line.get("message") == "cold start" for line in srv.logs()) == 1
            no_stack_traces(srv)
    finally:
        bare.stop()
        cached.stop()


def test_after_a_shared_answer_cache_failure_requests_stop_waiting_on_it(monkeypatch):
    """While the store hangs, every read of the shared tier would wait for the store's deadline."""
    from function.errors import StoreUnavailable
    from function.service.cache import AnswerCache

    calls, errors = [], []

    class HungStore:
        def get_answer(self, key):
            calls.append(key)
            raise StoreUnavailable("Firestore did not answer (get cached answer: DeadlineExceeded)")

    monkeypatch.setattr(AnswerCache, "SHARED_PAUSE_S", 0.3)
    cache = AnswerCache(10, 60, HungStore(), on_error=errors.append)
    assert cache.get("a") == (None, None) and calls == ["a"]
    assert cache.get("b") == (None, None) and calls == ["a"]  # not asked again while paused
    cache.put("b", {"answers": []})  # kept locally; no write to the shared tier is started
    assert cache.get("b") == ({"answers": []}, "local") and calls == ["a"]
    time.sleep(0.3)
    assert cache.get("c") == (None, None) and calls == ["a", "c"]
    assert len(errors) == 2 and "not used for" in errors[0]


@pytest.mark.firestore
def test_a_connection_failure_makes_the_next_call_dial_a_new_channel(monkeypatch):
    """gRPC's own reconnect backoff grows to 120 s; the store dials anew instead, at most once a second."""
    import grpc

    from function.errors import StoreUnavailable
    from function.store import firestore as fs

    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", f"127.0.0.1:{free_port()}")  # nothing listens there
    monkeypatch.setattr(fs, "RECONNECT_EVERY_S", 0.5)
    channels = []
    real = grpc.insecure_channel
    monkeypatch.setattr(grpc, "insecure_channel", lambda *a, **kw: channels.append(1) or real(*a, **kw))
    store = fs.FirestoreStore(EMULATOR_PROJECT, "(default)", "passages", "answers", timeout_s=STORE_TIMEOUT_S)

    def fail() -> None:
        with pytest.raises(StoreUnavailable, match="ServiceUnavailable"):
            store.get_many(["a"])

    fail()
    assert len(channels) == 1
    fail()  # a new channel; it fails too, within RECONNECT_EVERY_S: kept
    fail()
    assert len(channels) == 2
    time.sleep(0.5)
    fail()  # dropped again
    fail()
    assert len(channels) == 3


# ---- ingestion killed part way, then run again -------------------------------------------------

N_PASSAGES = 2000
WATCHED = ["karo", "milendor", "suva", "telka", "absentword"]


def write_corpus(path: Path, n: int) -> dict[str, tuple[str, str]]:
    """A generated corpus: JSONL of {id, title, text}; returns id -> (title, text)."""
    rng = random.Random(20)
    syllables = ["ka", "ro", "mi", "len", "dor", "su", "va", "tel", "ne", "shi"]
    words = sorted({"".join(rng.choice(syllables) for _ in range(rng.randint(2, 3))) for _ in range(600)})
    words += ["karo", "milendor", "suva", "telka"]
    corpus = {}
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            pid, title = f"gen-{i:05d}", f"Topic {i // 20}"
            text = " ".join(rng.choice(words) for _ in range(rng.randint(30, 70))) + "."
            corpus[pid] = (title, text)
            f.write(json.dumps({"id": pid, "title": title, "text": text}) + "\n")
    return corpus


def expected_stats(corpus: dict, terms: list[str]) -> dict:
    from function.retrieval.bm25 import PassageTerms

    analysed = [PassageTerms.of(title, text) for title, text in corpus.values()]
    return {"passages": len(analysed), "total_length": sum(a.length for a in analysed),
            "df": {t: sum(t in a.frequencies() for a in analysed) for t in terms}}


def ingest_killed_part_way(args: list[str], env: dict, stored, total: int) -> int:
    """Start an ingestion, SIGKILL it once ``stored()`` is a quarter of ``total`` or more, but not all."""
    proc = subprocess.Popen([sys.executable, "-m", "function.ingest", *args, "--quiet"], cwd=REPO,
                            env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            n = stored()
            if total // 4 <= n < total:
                proc.send_signal(signal.SIGKILL)
                assert proc.wait(10) == -signal.SIGKILL
                return n
            time.sleep(0.005)
        raise AssertionError(f"ingestion ended (rc {proc.poll()}) before it could be killed part way: "
                             f"{proc.stderr.read().decode()[-2000:] if proc.poll() is not None else ''}")
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stderr.close()


def run_ingest(args: list[str], env: dict) -> None:
    done = ingest_command(env, *args, "--quiet", timeout_s=120)
    assert done.returncode == 0, done.stderr[-3000:]


def test_ingestion_killed_part_way_then_run_again_stores_every_passage_once_sqlite(tiny_artifact, tmp_path):
    from function.store.sqlite import SqliteStore

    corpus = write_corpus(tmp_path / "corpus.jsonl", N_PASSAGES)
    db = tmp_path / "p.sqlite"
    env = {"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(db)}
    args = [str(tmp_path / "corpus.jsonl"), "--batch-size", "25"]

    def stored() -> int:
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as con:
                return con.execute("SELECT COUNT(*) FROM passages").fetchone()[0]
        except sqlite3.OperationalError:  # not created yet
            return 0

    killed_at = ingest_killed_part_way(args, env, stored, N_PASSAGES)
    assert 0 < killed_at < N_PASSAGES
    run_ingest(args, env)
    print(f"\nSQLite: killed with {killed_at} of {N_PASSAGES} passages stored; after the re-run all {N_PASSAGES}")
    store = SqliteStore(db)
    try:
        ids = [row[0] for row in store._query("SELECT id FROM passages ORDER BY id")]
        assert ids == sorted(corpus) and store.count() == N_PASSAGES
        got = store.get_many(list(corpus))
        assert all(got[pid].text == text for pid, (_, text) in corpus.items())
        assert store.index.stats(WATCHED) == expected_stats(corpus, WATCHED)
    finally:
        store.close()


def test_a_missing_sqlite_store_is_a_503_saying_to_ingest_until_ingestion_makes_it(tiny_artifact, tmp_path):
    """QA_SQLITE_PATH naming a file ingestion never wrote (a typo): the function does not make an empty store and
    answer "no answer" from it; what needs stored passages is a 503 naming the path, a ``context`` is answered,
    and once ingestion writes the file the same process answers from it."""
    db = tmp_path / "typo" / "passages.sqlite"
    env = {"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(db)}
    with FunctionServer(env, tmp_path / "server.log") as srv:
        assert requests.get(srv.url, timeout=10).json()["store"] == {"kind": "sqlite", "path": str(db),
                                                                      "exists": False}
        for body in (RETRIEVE, PASSAGES, RETRIEVE):  # and again: not made by the first refusal either
            r, _ = post(srv, body)
            assert r.status_code == 503 and int(r.headers["Retry-After"]) > 0, r.text
            message = r.json()["error"]["message"]
            assert f"the SQLite store {db} does not exist" in message
            assert f"python -m function.ingest DOCS --sqlite-path {db}" in message
        r, _ = post(srv, CONTEXT)
        assert r.status_code == 200 and r.json()["answers"], r.text
        assert not db.parent.exists()

        run_ingest(["samples/squad_sample.json"], env)
        assert requests.get(srv.url, timeout=10).json()["store"]["exists"] is True
        r, _ = post(srv, RETRIEVE)
        assert r.status_code == 200 and r.json()["retrieved"], r.text
        r, _ = post(srv, PASSAGES)
        assert r.status_code == 200 and r.json()["answers"], r.text
        no_stack_traces(srv)


@pytest.mark.firestore
def test_ingestion_killed_part_way_then_run_again_stores_every_passage_once_firestore(tiny_artifact, firestore_env,
                                                                                     tmp_path):
    from function.store.firestore import FirestoreStore

    corpus = write_corpus(tmp_path / "corpus.jsonl", N_PASSAGES)
    env = {**firestore_env, "QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_STORE_TIMEOUT_S": "30"}
    args = [str(tmp_path / "corpus.jsonl"), "--batch-size", "500"]
    store = FirestoreStore(None, "(default)", "passages", "answers", timeout_s=30)
    try:
        killed_at = ingest_killed_part_way(args, env, store.count, N_PASSAGES)
        assert 0 < killed_at < N_PASSAGES
        run_ingest(args, env)
        print(f"\nFirestore: killed with {killed_at} of {N_PASSAGES} passages stored; "
              f"after the re-run all {N_PASSAGES}")
        ids = [snap.id for snap in store.passages.select([]).stream()]
        assert sorted(ids) == sorted(corpus) and store.count() == N_PASSAGES
        got = store.get_many(list(corpus)[:300])
        assert all(got[pid].text == corpus[pid][1] for pid in got) and len(got) == 300
        assert store.index.stats(WATCHED) == expected_stats(corpus, WATCHED)
    finally:
        store.close()


# ---- a damaged artifact ------------------------------------------------------------------------


def _flip_middle_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def _edit_manifest(folder: Path, edit) -> None:
    raw = json.loads((folder / "manifest.json").read_text())
    edit(raw)
    (folder / "manifest.json").write_text(json.dumps(raw))


# name -> (damage, the file the 503 names, whether it also gives the file's expected sha256)
DAMAGE = {
    "model missing": (lambda f: (f / "model.onnx").unlink(), "model.onnx", True),
    "model truncated": (lambda f: (f / "model.onnx").write_bytes((f / "model.onnx").read_bytes()[:4096]),
                        "model.onnx", True),
    "tokenizer tampered": (lambda f: _flip_middle_byte(f / "tokenizer.json"), "tokenizer.json", True),
    "manifest not JSON": (lambda f: (f / "manifest.json").write_text('{"name": "tiny", '), "manifest.json", False),
    "manifest without a hash": (lambda f: _edit_manifest(f, lambda m: m["files"]["model.onnx"].pop("sha256")),
                                "manifest.json", False),
    "manifest without sequence settings": (
        lambda f: _edit_manifest(f, lambda m: m["sequence"].pop("max_answer_tokens")), "manifest.json", False),
}
CASES = [(name, eager) for name in DAMAGE for eager in (False, True)]


@pytest.fixture(scope="module")
def damaged_servers(tiny_artifact, tmp_path_factory):
    """One functions-framework process per (damage, QA_EAGER_LOAD), all started together."""
    from function.store.sqlite import SqliteStore

    root = tmp_path_factory.mktemp("damaged")
    expected = json.loads((tiny_artifact.folder / "manifest.json").read_text())["files"]
    servers = {}
    for name, eager in CASES:
        folder = root / f"{name.replace(' ', '-')}-{int(eager)}"
        shutil.copytree(tiny_artifact.folder, folder / "artifact")
        DAMAGE[name][0](folder / "artifact")
        env = {"QA_ARTIFACT_DIR": str(folder / "artifact"), "QA_STORE": "sqlite",
               "QA_SQLITE_PATH": str(folder / "p.sqlite"), "QA_EAGER_LOAD": str(int(eager))}
        SqliteStore(folder / "p.sqlite").close()  # there, as ingestion makes it: the artifact is what fails
        servers[name, eager] = FunctionServer(env, folder / "server.log")
    with ThreadPoolExecutor(len(servers)) as pool:
        list(pool.map(FunctionServer.start, servers.values()))
        yield servers, expected
        list(pool.map(FunctionServer.stop, servers.values()))


@pytest.mark.parametrize("name, eager", CASES, ids=[f"{n}-{'eager' if e else 'lazy'}" for n, e in CASES])
def test_a_damaged_artifact_is_a_503_naming_the_file_never_an_answer_or_a_crash(damaged_servers, name, eager):
    servers, expected = damaged_servers
    srv = servers[name, eager]
    _, file, names_hash = DAMAGE[name]
    if eager:  # the load at start-up fails once, and is logged as such
        deadline = time.monotonic() + 30
        while not any(line.get("message", "").startswith("eager load failed") for line in srv.logs()):
            assert time.monotonic() < deadline and srv.proc.poll() is None, srv.log_path.read_text()[-3000:]
            time.sleep(0.05)
    for body in (CONTEXT, PASSAGES, CONTEXT):  # and again: the same clear answer each time
        r, _ = post(srv, body)
        assert r.status_code == 503 and int(r.headers["Retry-After"]) > 0, r.text
        error = r.json()["error"]
        assert file in error["message"] and error["details"]["file"].endswith(file)
        if names_hash:
            assert expected[file]["sha256"] in error["message"]
            assert error["details"]["expected_sha256"] == expected[file]["sha256"]
    ready = requests.get(srv.url + "ready", timeout=10)
    assert ready.status_code == 503 and file in ready.json()["error"]["message"]
    assert srv.proc.poll() is None  # still the same server: no crash loop
    assert sum(line.get("message", "").startswith("eager load failed") for line in srv.logs()) == int(eager)
    assert not [line for line in srv.logs() if line.get("httpRequest", {}).get("status") == 200
                and line["httpRequest"]["requestMethod"] == "POST"]
    no_stack_traces(srv)
