"""Request validation: every bad input is a 4xx with a message, never an exception that escapes."""

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from function.config import Settings
from function.errors import BadRequest, PayloadTooLarge, QAError
from function.http.parse import parse, read_body
from tests.support.fuzz import examples

S = Settings.from_env({})


def ok(body: dict):
    return parse(json.dumps(body).encode(), S, 30)


def test_valid_requests():
    r = ok({"question": "Who?", "context": "Him."})
    assert (r.question, r.context, r.passage_ids, r.top_k, r.max_answer_tokens) == ("Who?", "Him.", None, 1, 30)
    r = ok({"question": "Who?", "passage_ids": ["a", "b", "a"], "top_k": 3, "max_answer_tokens": 10})
    assert r.passage_ids == ("a", "b") and r.top_k == 3 and r.max_answer_tokens == 10
    assert not r.retrieves and r.top_k_passages is None


def test_a_file_s_passage_id_is_taken_as_its_path_writes_it():
    """The answer names the document by its path ("docs/Server.md") and its passage "docs%2FServer.md#0017": the id
    built from the path reads the same passage, and one that is no file's passage says how to write it."""
    r = ok({"question": "Who?", "passage_ids": ["docs/Server.md#0017", "docs%2FServer.md#0017", "b1"]})
    assert r.passage_ids == ("docs%2FServer.md#0017", "b1")
    with pytest.raises(BadRequest, match=r"'a/b'.*PATH#0003 or with its '/' as %2F"):
        ok({"question": "Who?", "passage_ids": ["a/b"]})


def test_a_question_alone_retrieves_its_passages():
    r = ok({"question": "Who?"})
    assert r.retrieves and r.top_k_passages == S.top_k_passages == 5 and r.context is r.passage_ids is None
    assert ok({"question": "Who?", "top_k_passages": 20, "context": None}).top_k_passages == 20


@pytest.mark.parametrize("body, error, words", [
    (b"{bad", BadRequest, "not valid JSON"),
    (b"\xff\xfe", BadRequest, "UTF-8"),
    (b"[1]", BadRequest, "JSON object"),
    (b'{"question": NaN, "context": "x"}', BadRequest, "not valid JSON"),
    (b"[" * 100000 + b"]" * 100000, BadRequest, "nested too deeply"),
    (b'{"question": 1' + b"0" * 5000 + b', "context": "x"}', BadRequest, "not valid JSON"),
    (b'{"context": "x"}', BadRequest, "'question' is required"),
    (b'{"question": "  ", "context": "x"}', BadRequest, "must not be empty"),
    (b'{"question": 5, "context": "x"}', BadRequest, "must be a string"),
    (b'{"question": "q", "context": "x", "passage_ids": ["a"]}', BadRequest, "at most one"),
    (b'{"question": "q", "top_k_passages": 0}', BadRequest, "between 1 and 20"),
    (b'{"question": "q", "top_k_passages": 21}', BadRequest, "between 1 and 20"),
    (b'{"question": "q", "top_k_passages": "5"}', BadRequest, "integer"),
    (b'{"question": "q", "context": "x", "top_k_passages": 3}', BadRequest, "without 'context' or 'passage_ids'"),
    (b'{"question": "q", "passage_ids": ["a"], "top_k_passages": 3}', BadRequest, "without 'context'"),
    (b'{"question": "q", "passage_ids": []}', BadRequest, "non-empty array"),
    (b'{"question": "q", "passage_ids": "a"}', BadRequest, "non-empty array"),
    (b'{"question": "q", "passage_ids": ["a/b"]}', BadRequest, "invalid passage id"),
    (b'{"question": "q", "passage_ids": [""]}', BadRequest, "invalid passage id"),
    (b'{"question": "q", "passage_ids": [7]}', BadRequest, "invalid passage id"),
    (b'{"question": "q", "context": "x", "top_k": 0}', BadRequest, "between 1 and 10"),
    (b'{"question": "q", "context": "x", "top_k": 11}', BadRequest, "between 1 and 10"),
    (b'{"question": "q", "context": "x", "top_k": true}', BadRequest, "integer"),
    (b'{"question": "q", "context": "x", "top_k": 1.5}', BadRequest, "integer"),
    (b'{"question": "q", "context": "x", "max_answer_tokens": 65}', BadRequest, "between 1 and 64"),
    (b'{"question": "q", "context": "x", "passage_id": "a"}', BadRequest, "unknown field"),
    (b'{"question": "\\ud800", "context": "x"}', BadRequest, "surrogate"),
    (json.dumps({"question": "q" * 1001, "context": "x"}).encode(), PayloadTooLarge, "limit is 1000"),
    (json.dumps({"question": "q", "context": "x" * 20001}).encode(), PayloadTooLarge, "limit is 20000"),
    (json.dumps({"question": "q", "passage_ids": [str(i) for i in range(51)]}).encode(), PayloadTooLarge,
     "limit is 50"),
])
def test_bad_requests_name_the_problem(body, error, words):
    with pytest.raises(error, match=words) as info:
        parse(body, S, 30)
    assert 400 <= info.value.http_status < 500


def test_a_byte_order_mark_is_ignored_and_a_key_given_twice_is_named():
    body = json.dumps({"question": "Who?", "context": "Him."}).encode()
    assert parse(b"\xef\xbb\xbf" + body, S, 30).question == "Who?"  # a UTF-8 byte order mark: harmless
    for twice, key in ((b'{"question": "", "question": "Who led the Normans?", "context": "Rollo."}', "question"),
                       (b'{"question": "q", "context": "x", "top_k": 1, "top_k": 3}', "top_k"),
                       (b'{"question": "q", "context": "x", "z": {"a": 1, "a": 2}}', "a")):  # nested too
        with pytest.raises(BadRequest) as info:
            parse(twice, S, 30)
        assert f"the key '{key}' more than once" in info.value.message
        assert info.value.log_message == "request body gives a key more than once"  # no caller's text in logs
    with pytest.raises(BadRequest, match="UTF-16 .* send it as UTF-8"):
        parse(body.decode().encode("utf-16"), S, 30)


@pytest.mark.parametrize("coding", ["gzip", "x-gzip", "deflate", "br", "zstd", "GZIP", "identity, gzip"])
def test_a_compressed_body_is_a_415_that_says_to_send_it_uncompressed(coding):
    from function.http.parse import check_encoding

    with pytest.raises(QAError) as info:
        check_encoding(coding)
    e = info.value
    assert (e.http_status, e.status, e.headers) == (415, "UNSUPPORTED_MEDIA_TYPE", {"Accept-Encoding": "identity"})
    assert f"Content-Encoding {coding!r}" in e.message and "send the JSON uncompressed" in e.message
    for accepted in (None, "", "identity", " Identity "):
        check_encoding(accepted)


def test_bodies_over_the_limit_are_refused_before_they_are_read():
    class Unreadable(io.BytesIO):
        def read(self, n=-1):
            raise AssertionError("must not read")

    with pytest.raises(PayloadTooLarge):
        read_body(Unreadable(), content_length=10_000_000, limit=1000)
    stream = io.BytesIO(b"x" * 5000)  # no Content-Length (chunked): read at most limit + 1
    with pytest.raises(PayloadTooLarge):
        read_body(stream, content_length=None, limit=1000)
    assert stream.tell() == 1001
    assert read_body(io.BytesIO(b"{}"), 2, 1000) == b"{}"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=12,
)
request_like = st.fixed_dictionaries({}, optional={
    "question": json_values | st.text(), "context": json_values | st.text(),
    "passage_ids": json_values | st.lists(st.text(), max_size=60), "top_k": json_values,
    "top_k_passages": json_values,
    "max_answer_tokens": json_values,
})


@settings(max_examples=examples(400), deadline=None)
@given(st.one_of(request_like.map(lambda d: json.dumps(d).encode()), st.binary(max_size=200)))
def test_parse_never_fails_other_than_with_a_client_error(body):
    try:
        parse(body, S, 30)
    except QAError as e:
        assert e.http_status in (400, 413)


@pytest.mark.parametrize("field", ["context", "passage_ids", "top_k_passages", "top_k", "max_answer_tokens",
                                   "abstain"])
def test_null_is_the_same_as_leaving_an_optional_field_out(field):
    """openapi.yaml's rule for every optional field, the one the property tests hold the server to."""
    bases = ({"question": "Who?"}, {"question": "Who?", "context": "Him."}, {"question": "Who?", "passage_ids": ["a"]})
    for base in bases:
        if field in base:
            continue
        assert ok({**base, field: None}) == ok(base)


def test_every_optional_field_of_the_schema_is_nullable_and_question_is_not(repo):
    import yaml

    from function.http.parse import FIELDS

    schema = yaml.safe_load((repo / "function" / "http" / "openapi.yaml").read_text())
    properties = schema["components"]["schemas"]["AnswerRequest"]["properties"]
    assert set(properties) == set(FIELDS)
    assert {name for name, p in properties.items() if p.get("nullable")} == set(FIELDS) - {"question"}
    with pytest.raises(BadRequest, match="'question' must be a string"):
        parse(b'{"question": null, "context": "x"}', S, 30)
