"""Hostile input: whatever a client sends, the answer is a 4xx or a 2xx, never a 5xx or a stack trace.

Three layers: Hypothesis on the request parser in process (many examples, fast),
Schemathesis from ``function/http/openapi.yaml`` and raw hostile bodies against a
real functions-framework process, and a body over the limit sent slowly over a
raw socket. Last, logs never hold more of a caller's text than QA_LOG_TEXT_CHARS.
"""

from __future__ import annotations

import collections
import io
import json
import socket
import time
from urllib.parse import urlsplit

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from function.config import Settings
from function.errors import QAError
from function.http.parse import parse, read_body
from function.service.qa_request import QARequest
from function.store.ids import valid_passage_id
from function.store.sqlite import SqliteStore
from harness.launch import FunctionServer
from harness.paths import REPO
from tests.support.fuzz import WIDE, examples

S = Settings.from_env({})
TRACE_WORDS = ("Traceback", 'File "', 'File \\"', "stack_trace")
TRIED: collections.Counter = collections.Counter()  # inputs per test, printed at the end (-s)


@pytest.fixture(scope="module", autouse=True)
def count_inputs():
    yield
    print(f"\nhostile inputs tried: {sum(TRIED.values())} {dict(TRIED)}")

# ---- the parser, in process --------------------------------------------------------------------

AWKWARD = [
    "", " ", "\t\n\r ", "\x00", "a\x00b", "\u200b", "\u200b\u200c\u200d\u2060\ufeff", "\u00a0",
    "\u202eevil\u202c", "\u200fمن قاد النورمان؟", "מי הוביל את הנורמנים?", "e\u0301" * 50,
    "😀", "👩‍👩‍👧‍👦🏳️‍🌈", "\U0010ffff", "\uffff", "\ud800", "\udfff", "x\udc80y", "../../etc/passwd",
    "a/b", "..", "__x__", "\\", '"', "{}", "null", "%00", "\x1b[31m", "Who led the Normans?",
]
hostile_text = st.one_of(
    st.sampled_from(AWKWARD),
    st.text(),  # any code point but surrogates
    st.lists(st.sampled_from(AWKWARD), max_size=8).map("".join),
    st.sampled_from([999, 1000, 1001, 19999, 20000, 20001, 200_000]).map(lambda n: "ab " * (n // 3) + "a" * (n % 3)),
)
huge_numbers = st.sampled_from([0, -1, 1, 10, 11, 64, 65, 2**31, 2**63, -(2**63), 10**100, 1.0, 1.5, -0.0,
                                1e308, float("inf"), float("-inf"), float("nan"), 5e-324, True, False])
json_leaf = st.none() | st.booleans() | huge_numbers | st.integers() | st.floats() | hostile_text
json_value = st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=3)
                          | st.dictionaries(hostile_text, inner, max_size=3), max_leaves=8)
ids = st.lists(st.one_of(hostile_text, json_leaf, st.just("Normans-0000")), max_size=60) | json_value
request_dict = st.fixed_dictionaries({}, optional={
    "question": hostile_text | json_value, "context": hostile_text | json_value, "passage_ids": ids,
    "top_k_passages": huge_numbers | json_value, "top_k": huge_numbers | json_value,
    "max_answer_tokens": huge_numbers | json_value, "passages": st.booleans() | json_value,
}) | st.dictionaries(hostile_text, json_value, max_size=4)


@st.composite
def hostile_body(draw) -> bytes:
    """A request body: JSON (with NaN, \\u escapes or raw UTF-8), then perhaps broken on purpose."""
    data = draw(request_dict)
    body = json.dumps(data, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    kind = draw(st.sampled_from(["as is", "as is", "truncated", "bad UTF-8", "flipped", "nested", "digits"]))
    at = draw(st.integers(0, len(body)))
    if kind == "truncated":
        body = body[:at]
    elif kind == "bad UTF-8":  # a lone continuation byte, an overlong NUL, an encoded surrogate, 0xff
        invalid = st.sampled_from([b"\x80", b"\xc0\x80", b"\xed\xa0\x80", b"\xff", b"\xf4\x90\x80\x80"])
        body = body[:at] + draw(invalid) + body[at:]
    elif kind == "flipped" and body:
        body = body[:at] + bytes([body[at % len(body)] ^ (1 << draw(st.integers(0, 7)))]) + body[at + 1:]
    elif kind == "nested":
        depth = draw(st.sampled_from([10, 500, 1000, 5000, 100_000]))
        body = b'{"question": "q", "context": "c", "top_k": ' + b"[" * depth + b"]" * depth + b"}"
    elif kind == "digits":
        digits = draw(st.sampled_from([20, 4300, 4301, 100_000]))
        body = b'{"question": "q", "context": "c", "top_k": 1' + b"0" * digits + b"}"
    return body


def check_parsed(req: QARequest) -> None:
    """What a request that passes the parser is: limits kept, nothing the store or the model cannot take."""
    for text, limit in ((req.question, S.max_question_chars), (req.context, S.max_context_chars)):
        if text is not None:
            assert isinstance(text, str) and text.strip() and len(text) <= limit
            text.encode("utf-8")  # no lone surrogate gets through
    assert not (req.context is not None and req.passage_ids is not None)
    if req.passage_ids is not None:
        assert 0 < len(req.passage_ids) <= S.max_passage_ids and len(set(req.passage_ids)) == len(req.passage_ids)
        assert all(valid_passage_id(i) for i in req.passage_ids)
    assert 1 <= req.top_k <= S.max_top_k and 1 <= req.max_answer_tokens <= S.max_answer_tokens
    assert (req.top_k_passages is not None) == req.retrieves
    assert isinstance(req.passages, bool) and (req.retrieves or not req.passages)
    if req.retrieves:
        assert 1 <= req.top_k_passages <= S.max_top_k_passages


def check_refusal(e: QAError) -> None:
    assert e.http_status in (400, 413), e.message
    assert len(e.message) <= 600 and not [w for w in TRACE_WORDS if w in e.message]
    json.dumps(e.body())  # it can be sent


@settings(max_examples=examples(1000), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(hostile_body())
def test_the_parser_answers_any_body_with_a_valid_request_or_a_client_error(body):
    TRIED["parser"] += 1
    try:
        req = parse(body, S, 30)
    except QAError as e:
        check_refusal(e)
    else:
        check_parsed(req)


class CountingStream(io.BytesIO):
    def __init__(self, data: bytes):
        super().__init__(data)
        self.read_bytes = 0

    def read(self, n=-1):
        chunk = super().read(n)
        self.read_bytes += len(chunk)
        return chunk


@settings(max_examples=examples(300), deadline=None)
@given(limit=st.integers(1024, 4096), size=st.integers(0, 10_000),
       declared=st.one_of(st.none(), st.integers(0, 10**12), st.just("honest")))
def test_read_body_never_reads_past_the_limit(limit, size, declared):
    """Content-Length honest, lying or absent (chunked): at most limit + 1 bytes are read, none if it says too many."""
    TRIED["read_body"] += 1
    stream = CountingStream(b"x" * size)
    content_length = size if declared == "honest" else declared
    try:
        body = read_body(stream, content_length, limit)
    except QAError as e:
        assert e.http_status == 413
        assert (content_length is not None and content_length > limit) or size > limit
        if content_length is not None and content_length > limit:
            assert stream.read_bytes == 0
    else:
        assert body == b"x" * size and size <= limit
    assert stream.read_bytes <= limit + 1


# ---- a real server: Schemathesis from the OpenAPI document, and raw hostile bodies -------------

schema = schemathesis.openapi.from_path(REPO / "function" / "http" / "openapi.yaml")
schema.config.generation.update(max_examples=examples(150), deterministic=not WIDE)
# A 413 for text over a documented size limit is this API's answer to those schema violations.
schema.config.checks.negative_data_rejection.expected_statuses = ["400", "404", "405", "409", "413"]
# Schema-valid is not always answerable: "at most one of context or passage_ids", white space only,
# more tokens than the model reads, unknown passage ids (the store is empty) are 400, 404, 413.
schema.config.checks.positive_data_acceptance.enabled = False


def no_trace(r) -> None:
    assert r.status_code < 500, (r.status_code, r.text[:500])
    assert not [w for w in TRACE_WORDS if w in r.text], r.text[:500]


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck))
def test_schemathesis_finds_no_5xx_and_no_stack_trace(case, local_service):
    TRIED["schemathesis"] += 1
    response = case.call(base_url=local_service.rstrip("/"), timeout=60)
    no_trace(response)
    case.validate_response(response)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=list(HealthCheck))
@given(body=hostile_body(),
       content_type=st.sampled_from(["application/json", "text/plain", "", "application/json; charset=latin-1"]))
def test_hostile_bodies_over_http_are_answered_with_4xx_or_2xx(local_service, body, content_type):
    TRIED["raw bodies"] += 1
    r = requests.post(local_service, data=body, headers={"Content-Type": content_type}, timeout=60)
    no_trace(r)
    r.json()["error" if r.status_code >= 400 else "answers"]  # JSON either way


@settings(max_examples=examples(150), deadline=None, suppress_health_check=list(HealthCheck))
@given(question=hostile_text, context=hostile_text, top_k=st.integers(1, 10))
@example(question="a\x00b", context="\ud800\udfff", top_k=1)  # `make fuzz` found it: a surrogate pair in JSON
def test_hostile_texts_reach_the_model_and_answers_are_exact_spans(local_service, question, context, top_k):
    """Emoji, right-to-left and zero-width characters, NUL, combining marks: offsets still map to characters."""
    TRIED["texts to the model"] += 1
    r = requests.post(local_service, json={"question": question, "context": context, "top_k": top_k}, timeout=60)
    no_trace(r)
    # the context as the function reads it: JSON's "\ud800\udfff" is one character (U+103FF), not two
    context = json.loads(json.dumps(context))
    if r.status_code == 200:
        for a in r.json()["answers"]:
            assert a["text"] == context[a["start"] : a["end"]] and 0 <= a["start"] < a["end"] <= len(context)


@pytest.mark.parametrize("method, path", [("GET", "/" + "a" * 60_000), ("POST", "/%00%ff?x=\u202e"),
                                          ("DELETE", "/ready"), ("PATCH", "/health"), ("OPTIONS", "/")])
def test_odd_paths_and_methods(local_service, method, path):
    TRIED["paths and methods"] += 1
    r = requests.request(method, local_service.rstrip("/") + path, data=b"{}", timeout=30)
    assert r.status_code in (404, 405)
    no_trace(r)
    assert len(r.content) < 1000  # a long path is not echoed back in full


def _raw_request(url: str, head: bytes) -> socket.socket:
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=10)
    sock.sendall(head)
    return sock


def _read_response(sock: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data or len(data) < data.index(b"\r\n\r\n") + 4 + int(
            data.split(b"Content-Length: ", 1)[1].split(b"\r\n", 1)[0]):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def test_a_body_over_the_limit_is_refused_before_it_is_sent(local_service):
    """Content-Length 100 MB, the first 64 KB sent, then nothing: the 413 comes at once, not after an upload."""
    head = (b"POST / HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100000000\r\n\r\n" + b'{"question": "' + b"a" * 65536)
    TRIED["over the limit"] += 1
    t0 = time.monotonic()
    with _raw_request(local_service, head) as sock:
        response = _read_response(sock)
        seconds = time.monotonic() - t0
    assert response.startswith(b"HTTP/1.1 413"), response[:300]
    assert b"the limit is %d" % S.max_body_bytes in response
    assert seconds < 5, seconds  # it did not wait for the other 99.9 MB (or for a timeout)


def test_a_chunked_body_over_the_limit_is_refused_once_the_limit_is_passed(local_service):
    """No Content-Length: the body is read up to the limit + 1 byte, then refused while the client still sends."""
    TRIED["over the limit"] += 1
    head = b"POST / HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    with _raw_request(local_service, head) as sock:
        chunk = b"a" * 65536
        for _ in range(S.max_body_bytes // len(chunk) + 1):
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        t0 = time.monotonic()
        response = _read_response(sock)  # the last chunk (b"0\r\n\r\n") is never sent
        seconds = time.monotonic() - t0
    assert response.startswith(b"HTTP/1.1 413"), response[:300]
    assert seconds < 5, seconds


# ---- logs hold at most QA_LOG_TEXT_CHARS of a caller's text ------------------------------------

LOG_CHARS = 16


def grams(text: str, n: int) -> set[str]:
    return {text[i : i + n] for i in range(len(text) - n + 1)}


def test_logs_never_hold_more_of_the_question_or_context_than_qa_log_text_chars(tiny_artifact, tmp_path):
    words = json.loads((REPO / "samples" / "squad_sample.json").read_text())["data"][1]["paragraphs"][0]["context"]
    question = "In which year did the Normans arrive and who was their leader then?"
    long_question = " ".join([question] * 12)
    context = words * (20000 // len(words))
    env = {"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_SQLITE_PATH": str(tmp_path / "p.sqlite"),
           "QA_LOG_TEXT_CHARS": str(LOG_CHARS), "QA_MAX_BODY_BYTES": "65536"}
    SqliteStore(tmp_path / "p.sqlite").close()  # an empty store, as ingestion makes it (the function makes none)
    srv = FunctionServer(env, tmp_path / "server.log").start()
    statuses = []
    try:
        for body in (
            {"question": question, "context": context[:3000]},  # answered
            {"question": question, "context": context[:3000]},  # from the answer cache
            {"question": question, "context": context},  # too many model windows
            {"question": long_question, "context": context[:3000]},  # too many question tokens
            {"question": question, "context": context[:3000], "passage_ids": ["a"]},
            {"question": question, "context": context[:3000], "top_k": 0},
            {"question": question, "context": context[:3000], context[:200]: 1},  # unknown field
            {"question": question},  # retrieval, from an empty store: "no answer"
            {"question": question, "passage_ids": ["Normans-0000"]},  # unknown id
            {"question": question, "passage_ids": [question, context[:400]]},  # the texts as ids
            {"question": question + "\ud800", "context": context[:3000]},
        ):
            r = requests.post(srv.url, json=body, timeout=60)
            statuses.append(r.status_code)
        for raw in (json.dumps({"question": question, "context": context[:3000]})[:-40].encode(),  # cut short
                    json.dumps({"question": question, "context": context}).encode() * 4):  # over the body limit
            statuses.append(requests.post(srv.url, data=raw, timeout=60).status_code)
    finally:
        srv.stop()
    assert statuses == [200, 200, 413, 413, 400, 400, 400, 200, 404, 404, 400, 400, 413]
    TRIED["log checks"] += len(statuses)
    text = srv.log_path.read_text(encoding="utf-8", errors="replace")
    logged = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    assert sum("httpRequest" in line for line in logged) == len(statuses)  # every request wrote its line
    asked = [line["question"] for line in logged if "question" in line]
    assert asked and all(q == question[:LOG_CHARS] + "…" for q in asked)
    leaks = (grams(question, LOG_CHARS + 1) | grams(context, LOG_CHARS + 1)) & grams(text, LOG_CHARS + 1)
    assert not leaks, sorted(leaks)[:5]
