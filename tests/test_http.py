"""A real functions-framework process, spoken to over HTTP, on the SQLite store and the Firestore emulator."""

import json
import shutil

import pytest
import requests

from function.store.passage import Passage
from harness.firestore import emulator_env
from harness.launch import FunctionServer, free_port, ingest

SAMPLE_IDS = ["Normans-0000", "Normans-0001", "Jacksonville,_Florida-0003"]


def sample_texts(repo) -> dict:
    data = json.loads((repo / "samples" / "squad_sample.json").read_text())["data"]
    return {f"{a['title']}-{i:04d}": p["context"] for a in data for i, p in enumerate(a["paragraphs"])}


@pytest.fixture(scope="module")
def sqlite_env(tiny_artifact, tmp_path_factory):
    folder = tmp_path_factory.mktemp("http-sqlite")
    env = {"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_STORE": "sqlite",
           "QA_SQLITE_PATH": str(folder / "p.sqlite"), "GOOGLE_CLOUD_PROJECT": "demo-proj"}
    result = ingest(env, "samples/squad_sample.json", "--quiet")
    assert result.returncode == 0, result.stderr
    return env, folder


@pytest.fixture(scope="module")
def server(sqlite_env):
    env, folder = sqlite_env
    srv = FunctionServer(env, folder / "server.log").start()
    yield srv
    srv.stop()


def post(srv, body, **kw):
    return requests.post(srv.url, json=body, timeout=30, **kw)


def test_health_describes_the_deployment_without_loading_the_model(server):
    assert requests.get(server.url + "ready", timeout=10).status_code == 503  # lazy: not loaded yet
    for path in ("", "healthz", "health"):
        r = requests.get(server.url + path, timeout=10)
        assert r.status_code == 200
        h = r.json()
        assert h["model"]["name"] == "tiny-random-bert" and len(h["model"]["artifact_hash"]) == 64
        assert h["sequence"]["max_seq_len"] == 96 and h["store"]["kind"] == "sqlite"
        assert h["model_loaded"] is False
        assert h["memory_trims"] == 0  # no burst of overlapping requests yet


def test_answers_from_stored_passages_with_exact_offsets(server, repo):
    texts = sample_texts(repo)
    r = post(server, {"question": "Who ruled the duchy of Normandy?", "passage_ids": SAMPLE_IDS, "top_k": 3},
             headers={"X-Cloud-Trace-Context": "0123456789abcdef0123456789abcdef/1;o=1"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["cold_start"] is True and body["cache"] == "miss"
    assert len(body["answers"]) == 3
    scores = [a["score"] for a in body["answers"]]
    assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)
    for a in body["answers"]:
        assert a["passage_id"] in SAMPLE_IDS and a["title"] in ("Normans", "Jacksonville, Florida")
        assert a["text"] == texts[a["passage_id"]][a["start"] : a["end"]] and a["text"]
    assert len({(a["passage_id"], a["start"], a["end"]) for a in body["answers"]}) == 3
    assert set(body["timings_ms"]) == {"tokenize", "fetch", "queue", "inference", "postprocess", "total"}
    assert body["model"]["name"] == "tiny-random-bert"
    timing = dict(part.strip().split(";dur=") for part in r.headers["Server-Timing"].split(","))
    assert {k: float(v) for k, v in timing.items()} == body["timings_ms"]
    assert requests.get(server.url, timeout=10).json()["model_loaded"] is True

    again = post(server, {"question": "who  ruled the Duchy of normandy?", "passage_ids": SAMPLE_IDS[::-1],
                          "top_k": 3})
    assert again.json()["cache"] == "hit" and again.json()["cold_start"] is False
    assert again.json()["answers"] == body["answers"]

    logs = server.logs()
    cold = [line for line in logs if line.get("message") == "cold start"]
    assert len(cold) == 1
    parts = {"verify_ms", "tokenizer_ms", "model_ms", "store_ms", "load_ms", "import_ms"}
    assert parts <= set(cold[0]["cold_start_ms"])
    req = [line for line in logs if line.get("message") == "POST / 200"][0]
    assert req["severity"] == "INFO" and req["cache"] == "miss" and req["cold_start"] is True
    assert req["logging.googleapis.com/trace"] == "projects/demo-proj/traces/0123456789abcdef0123456789abcdef"
    assert req["timings_ms"] == body["timings_ms"] and req["artifact_hash"] == body["model"]["artifact_hash"]


def test_a_question_alone_is_answered_from_the_passages_bm25_retrieves(server, repo):
    texts = sample_texts(repo)
    q = {"question": "What is the name of the region in France the Normans gave their name to?", "top_k": 2}
    r = post(server, q)
    assert r.status_code == 200, r.text
    body = r.json()
    retrieved = body["retrieved"]
    assert len(retrieved) == 5 and all(h["passage_id"] in texts for h in retrieved)  # QA_TOP_K_PASSAGES
    assert retrieved[0] == {"passage_id": "Normans-0000", "title": "Normans", "score": retrieved[0]["score"]}
    scores = [h["score"] for h in retrieved]
    assert scores == sorted(scores, reverse=True) and scores[-1] > 0
    assert {a["passage_id"] for a in body["answers"]} <= {h["passage_id"] for h in retrieved}
    for a in body["answers"]:
        assert a["text"] == texts[a["passage_id"]][a["start"] : a["end"]]
    assert list(body["timings_ms"]) == ["tokenize", "retrieve", "fetch", "queue", "inference", "postprocess", "total"]
    timing = dict(part.strip().split(";dur=") for part in r.headers["Server-Timing"].split(","))
    assert {k: float(v) for k, v in timing.items()} == body["timings_ms"]
    logged = [line for line in server.logs() if line.get("question") == q["question"]]
    assert logged and logged[-1]["retrieved"] == 5 and logged[-1]["passages"] == 0

    again = post(server, q).json()
    assert again["cache"] == "hit" and again["retrieved"] == retrieved and again["answers"] == body["answers"]
    fewer = post(server, {**q, "top_k_passages": 2}).json()  # another retrieval, another cache entry
    assert fewer["cache"] == "miss" and fewer["retrieved"] == retrieved[:2]
    ids = post(server, {**q, "passage_ids": [h["passage_id"] for h in retrieved]}).json()
    assert ids["cache"] == "miss" and "retrieved" not in ids and "retrieve" not in ids["timings_ms"]


@pytest.mark.parametrize("question, words", [
    ("What is it?", "only stop-words"),
    ("Xyzzy plugh?", "no stored passage holds any of the question's words"),
])
def test_a_question_no_passage_matches_is_answered_no_answer(server, question, words):
    r = post(server, {"question": question})
    body = r.json()
    assert r.status_code == 200 and body["answers"] == [] and body["retrieved"] == []
    assert body["no_answer"]["abstained"] is True and words in body["no_answer"]["reason"]
    # an ordinary outcome, whatever the request says about abstaining
    assert post(server, {"question": question, "abstain": False}).json()["no_answer"]["abstained"] is True


def test_answers_from_a_context_in_the_request(server):
    context = "The Normans were the people who in the 10th and 11th centuries gave their name to Normandy."
    body = post(server, {"question": "What did the Normans give their name to?", "context": context}).json()
    [a] = body["answers"]
    assert a["text"] == context[a["start"] : a["end"]] and "passage_id" not in a


@pytest.mark.parametrize("method, path, body, status, words", [
    ("POST", "", b"{not json", 400, "not valid JSON"),
    ("POST", "", json.dumps({"question": "q", "passage_ids": ["Normans-0000", "nope-1", "nope-2"]}).encode(),
     404, "2 unknown passage id(s): nope-1, nope-2"),
    ("POST", "", json.dumps({"question": "q " * 100, "context": "c"}).encode(), 413, "the model reads at most 32"),
    ("POST", "", json.dumps({"question": "Normans?", "top_k_passages": 50}).encode(), 400, "between 1 and 20"),
    ("PUT", "", b"", 405, "PUT is not allowed"),
    ("POST", "healthz", b"{}", 405, "not allowed"),
    ("GET", "nowhere", b"", 404, "no such path"),
])
def test_errors_are_json_with_the_reason(server, method, path, body, status, words):
    r = requests.request(method, server.url + path, data=body, timeout=10,
                         headers={"Content-Type": "application/json"})
    assert r.status_code == status
    err = r.json()["error"]
    assert err["code"] == status and words in err["message"]
    assert "Traceback" not in r.text


def test_a_compressed_body_is_a_415_a_byte_order_mark_is_ignored_a_key_given_twice_a_400(server):
    import gzip

    body = json.dumps({"question": "Who ruled?", "context": "Rollo ruled Normandy."}).encode()
    r = requests.post(server.url, data=gzip.compress(body), timeout=10,
                      headers={"Content-Type": "application/json", "Content-Encoding": "gzip"})
    assert r.status_code == 415 and r.headers["Accept-Encoding"] == "identity", r.text
    err = r.json()["error"]
    assert err["status"] == "UNSUPPORTED_MEDIA_TYPE" and "Content-Encoding 'gzip'" in err["message"]
    assert "send the JSON uncompressed" in err["message"]
    bom = requests.post(server.url, data=b"\xef\xbb\xbf" + body, timeout=30,
                        headers={"Content-Type": "application/json"})
    assert bom.status_code == 200 and bom.json()["answers"], bom.text
    twice = requests.post(server.url, timeout=10, headers={"Content-Type": "application/json"},
                          data=b'{"question": "", "question": "Who ruled?", "context": "Rollo ruled Normandy."}')
    assert twice.status_code == 400 and "the key 'question' more than once" in twice.json()["error"]["message"]


def test_too_many_model_windows_says_what_made_them_and_what_to_send(server, repo):
    import re

    context = "诺曼人是十世纪和十一世纪把名字给了法国诺曼底的人。" * 700  # within the 20,000 characters allowed
    r = post(server, {"question": "谁?", "context": context[:20000]})
    assert r.status_code == 413, r.text
    message = r.json()["error"]["message"]
    assert re.match(r"the context makes \d+ model windows; the limit is 64 per request: shorten it \(to about "
                    r"\d+ characters of text like this one\) or split it across requests$", message), message
    fits = int(re.search(r"to about (\d+) characters", message).group(1))
    assert post(server, {"question": "谁?", "context": context[:fits]}).status_code == 200  # the advice holds

    ids = list(sample_texts(repo))[:50]  # QA_MAX_PASSAGE_IDS
    r = post(server, {"question": "Who?", "passage_ids": ids})
    assert r.status_code == 413, r.text
    assert re.match(rf"the {len(ids)} passages make \d+ model windows; the limit is 64 per request: ask about "
                    "fewer of them at a time$", r.json()["error"]["message"])


def test_a_body_over_the_limit_is_refused_with_413(server):
    r = requests.post(server.url, data=b"x" * 300_000, timeout=10, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and "limit" in r.json()["error"]["message"]


def test_passages_from_another_tokenizer_are_refused_with_the_fix(server, sqlite_env):
    from function.store.sqlite import SqliteStore

    env, _ = sqlite_env
    store = SqliteStore(env["QA_SQLITE_PATH"])
    stale = store.get_many(["Normans-0002"])["Normans-0002"]
    store.upsert_many([Passage(**{**stale.__dict__, "id": "stale-1", "tokenizer": "f" * 64})])
    store.close()
    r = post(server, {"question": "Who?", "passage_ids": ["Normans-0000", "stale-1"]})
    assert r.status_code == 409
    err = r.json()["error"]
    assert "re-ingest" in err["message"] and err["details"]["passage_ids"] == ["stale-1"]


def test_a_corrupt_artifact_is_a_503_naming_the_file(tiny_artifact, sqlite_env, tmp_path):
    env, _ = sqlite_env
    broken = tmp_path / "artifact"
    shutil.copytree(tiny_artifact.folder, broken)
    (broken / "model.onnx").write_bytes(b"not a model")
    srv = FunctionServer({**env, "QA_ARTIFACT_DIR": str(broken)}, tmp_path / "server.log").start()
    try:
        for _ in range(2):  # and again: no crash loop, same clear answer
            r = post(srv, {"question": "Who?", "context": "Somebody."})
            assert r.status_code == 503 and r.headers["Retry-After"]
            assert "model.onnx" in r.json()["error"]["message"] and "Traceback" not in r.text
    finally:
        srv.stop()


def test_eager_load_loads_in_the_worker_before_any_request(sqlite_env, tmp_path):
    import time

    env, _ = sqlite_env
    srv = FunctionServer({**env, "QA_EAGER_LOAD": "1"}, tmp_path / "server.log").start()
    try:
        deadline = time.monotonic() + 30
        while (ready := requests.get(srv.url + "ready", timeout=10)).status_code == 503:
            assert ready.json()["error"]["message"] == "the model is loading" and ready.headers["Retry-After"]
            assert time.monotonic() < deadline, "the model was not loaded at start-up"
            time.sleep(0.02)
        assert ready.status_code == 200 and ready.json()["ready"] is True
        assert requests.get(srv.url, timeout=10).json()["model_loaded"] is True
        cold = [line for line in srv.logs() if line.get("message") == "cold start"]
        assert cold and cold[0]["eager"] is True
        assert post(srv, {"question": "Who?", "passage_ids": ["Normans-0000"]}).status_code == 200
    finally:
        srv.stop()


def test_eager_load_of_a_missing_artifact_is_logged_and_answered_with_503(sqlite_env, tmp_path):
    import time

    env, _ = sqlite_env
    srv = FunctionServer({**env, "QA_EAGER_LOAD": "1", "QA_ARTIFACT_DIR": str(tmp_path / "none")},
                         tmp_path / "server.log").start()
    try:
        r = post(srv, {"question": "Who?", "context": "Somebody."})
        assert r.status_code == 503 and "manifest.json is missing" in r.json()["error"]["message"]
        deadline = time.monotonic() + 10
        while not any("eager load failed" in line.get("message", "") for line in srv.logs()):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert srv.proc.poll() is None  # still serving: no crash loop
        ready = requests.get(srv.url + "ready", timeout=10)  # a startup probe keeps it out of traffic
        assert ready.status_code == 503 and "failed to load" in ready.json()["error"]["message"]
    finally:
        srv.stop()


def test_cache_off_always_runs_the_model(sqlite_env, tmp_path):
    env, _ = sqlite_env
    srv = FunctionServer({**env, "QA_CACHE": "0"}, tmp_path / "server.log").start()
    try:
        q = {"question": "Who?", "passage_ids": ["Normans-0000"]}
        assert [post(srv, q).json()["cache"] for _ in range(2)] == ["miss", "miss"]
    finally:
        srv.stop()


@pytest.mark.firestore
def test_firestore_backed_answers_and_the_shared_answer_cache(tiny_artifact, firestore_env, repo, tmp_path):
    # the corpus generation is read by each instance's first request, and not again within the test
    env = {**firestore_env, "QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_CORPUS_CHECK_S": "86400",
           "QA_CACHE_SHARED": "retrieval"}
    result = ingest(env, "samples/squad_sample.json", "--quiet")
    assert result.returncode == 0, result.stderr
    texts = sample_texts(repo)
    q = {"question": "When were the Normans in Normandy?", "passage_ids": SAMPLE_IDS, "top_k": 2}
    alone = {"question": "When were the Normans in Normandy?", "top_k_passages": 3}
    first = FunctionServer(env, tmp_path / "a.log").start()
    try:
        body = post(first, q).json()
        assert body["cache"] == "miss" and len(body["answers"]) == 2
        for a in body["answers"]:
            assert a["text"] == texts[a["passage_id"]][a["start"] : a["end"]]
        assert requests.get(first.url, timeout=10).json()["store"]["kind"] == "firestore"
        retrieval = post(first, alone).json()
        assert retrieval["cache"] == "miss" and len(retrieval["retrieved"]) == 3
        assert retrieval["retrieved"][0]["passage_id"].startswith("Normans-")
        assert retrieval["timings_ms"]["retrieve"] > 0
    finally:
        first.stop()
    second = FunctionServer(env, tmp_path / "b.log").start()  # another instance
    try:
        again = post(second, alone).json()  # retrieved answers are shared (QA_CACHE_SHARED=retrieval, as set)
        assert again["cache"] == "hit" and again["cold_start"] is True
        assert again["answers"] == retrieval["answers"]
        by_ids = post(second, q).json()  # answers by passage id are not: a model run costs less
        assert by_ids["cache"] == "miss" and by_ids["answers"] == body["answers"]
    finally:
        second.stop()
    # Each request's log line counts the Firestore reads it made (the answer cache's write runs after it).
    from function.retrieval.terms import query_terms

    terms = len(query_terms("When were the Normans in Normandy?"))
    lines = [json.loads(x) for name in ("a.log", "b.log") for x in (tmp_path / name).read_text().splitlines()
             if x.startswith("{") and '"kind"' in x]
    assert [(x["kind"], x["cache"], x["store_ops"]["reads"]) for x in lines] == [
        ("passage_ids", "miss", 1 + len(SAMPLE_IDS)),  # the corpus generation, the passages
        ("retrieval", "miss", 1 + 1 + terms + 3),  # the shared cache, #corpus and a document per term, 3 passages
        ("retrieval", "hit", 1 + 1),  # the corpus generation (another instance), the shared cache
        ("passage_ids", "miss", len(SAMPLE_IDS)),
    ]
    assert all(x["store_ops"]["writes"] == 0 for x in lines)


@pytest.mark.firestore
def test_an_unreachable_firestore_gives_503_while_contexts_still_work(tiny_artifact, tmp_path):
    env = {**emulator_env_for_closed_port(), "QA_ARTIFACT_DIR": str(tiny_artifact.folder),
           "QA_STORE_TIMEOUT_S": "1"}
    srv = FunctionServer(env, tmp_path / "server.log").start()
    try:
        r = post(srv, {"question": "Who?", "passage_ids": ["Normans-0000"]})
        assert r.status_code == 503 and int(r.headers["Retry-After"]) > 0
        assert "Firestore did not answer" in r.json()["error"]["message"]
        ok = post(srv, {"question": "Who?", "context": "Rollo was a Viking leader."})
        assert ok.status_code == 200 and ok.json()["answers"]
    finally:
        srv.stop()


def test_firestore_without_credentials_is_a_503_that_says_so(tiny_artifact, tmp_path):
    """No Google credentials (a local run with QA_STORE=firestore and no emulator) answered a stored-passage or a
    question alone with a bare 500 "internal error" while the health check said ok."""
    import os

    base = {k: v for k, v in os.environ.items() if k != "FIRESTORE_EMULATOR_HOST"}
    env = {"QA_STORE": "firestore", "QA_ARTIFACT_DIR": str(tiny_artifact.folder), "GOOGLE_CLOUD_PROJECT": "p",
           "GOOGLE_APPLICATION_CREDENTIALS": str(tmp_path / "missing.json")}
    srv = FunctionServer(env, tmp_path / "server.log", base_env=base).start()
    try:
        for body in ({"question": "Who?", "passage_ids": ["Normans-0000"]}, {"question": "Who led the Normans?"}):
            r = post(srv, body)
            assert r.status_code == 503, r.text
            assert "no Google Cloud credentials" in r.json()["error"]["message"]
        assert post(srv, {"question": "Who?", "context": "Rollo was a Viking leader."}).status_code == 200
    finally:
        srv.stop()


def emulator_env_for_closed_port() -> dict:
    class Closed:
        host = f"127.0.0.1:{free_port()}"

    return emulator_env(Closed)
