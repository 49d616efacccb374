"""function/http/openapi.yaml stays in step with the code: fields, limits, and real responses validate."""

import copy
import json

import jsonschema
import pytest
import requests
import yaml
from openapi_spec_validator import validate

from function.config import Settings
from function.http.parse import FIELDS
from harness.launch import FunctionServer, ingest


@pytest.fixture(scope="module")
def spec(repo):
    doc = yaml.safe_load((repo / "function" / "http" / "openapi.yaml").read_text())
    validate(doc)
    return doc


def _json_schema(node):
    """OpenAPI 3.0 schema -> JSON Schema: ``nullable: true`` becomes ``anyOf [..., null]``."""
    if isinstance(node, list):
        return [_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    node = {k: _json_schema(v) for k, v in node.items()}
    if node.pop("nullable", False):
        return {"anyOf": [node, {"type": "null"}]}
    return node


def validator(spec, name):
    components = _json_schema(copy.deepcopy(spec["components"]))
    return jsonschema.Draft7Validator({"$ref": f"#/components/schemas/{name}", "components": components})


def test_request_fields_and_limits_match_the_code(spec):
    req = spec["components"]["schemas"]["AnswerRequest"]
    assert set(req["properties"]) == set(FIELDS)
    s = Settings.from_env({})
    p = req["properties"]
    assert p["question"]["maxLength"] == s.max_question_chars
    assert p["context"]["maxLength"] == s.max_context_chars
    assert p["passage_ids"]["maxItems"] == s.max_passage_ids
    assert p["top_k"]["maximum"] == s.max_top_k
    assert (p["top_k_passages"]["default"], p["top_k_passages"]["maximum"]) == (s.top_k_passages,
                                                                             s.max_top_k_passages)
    assert p["max_answer_tokens"]["maximum"] == s.max_answer_tokens
    assert p["documents"]["maxItems"] == p["tags"]["maxItems"] == s.max_filter_values
    assert (p["documents"]["items"]["maxLength"] == p["tags"]["items"]["maxLength"] == p["source_prefix"]["maxLength"]
            == s.max_filter_chars)


def test_real_responses_validate_against_the_spec(spec, tiny_artifact, tmp_path):
    env = {"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_SQLITE_PATH": str(tmp_path / "p.sqlite")}
    assert ingest(env, "samples/squad_sample.json", "--quiet").returncode == 0
    srv = FunctionServer(env, tmp_path / "server.log").start()
    try:
        health = requests.get(srv.url, timeout=10).json()
        validator(spec, "Health").validate(health)
        for body in ({"question": "Who?", "passage_ids": ["Normans-0000", "Normans-0001"], "top_k": 2},
                     {"question": "Who?", "passage_ids": ["Normans-0000", "Normans-0001"], "top_k": 2},
                     {"question": "Who?", "context": "Rollo, a Viking.", "max_answer_tokens": 5},
                     {"question": "Who ruled Normandy?", "top_k_passages": 3},
                     {"question": "Who ruled Normandy?", "top_k_passages": 3, "passages": True},  # with texts
                     {"question": "xyzzy?"}):  # matches no stored passage: "no answer", with the reason
            r = requests.post(srv.url, json=body, timeout=30)
            assert r.status_code == 200
            validator(spec, "AnswerResponse").validate(r.json())
        validator(spec, "Health").validate(requests.get(srv.url, timeout=10).json())  # loaded now
        for bad in ({"question": ""}, {"question": "q", "passage_ids": ["none"]}):
            r = requests.post(srv.url, data=json.dumps(bad), timeout=10)
            assert str(r.status_code) in spec["paths"]["/"]["post"]["responses"]
            validator(spec, "Error").validate(r.json())
        gzipped = requests.post(srv.url, data=b"\x1f\x8b", headers={"Content-Encoding": "gzip"}, timeout=10)
        assert gzipped.status_code == 415 and "Accept-Encoding" in spec["paths"]["/"]["post"]["responses"]["415"][
            "headers"]
        validator(spec, "Error").validate(gzipped.json())
        # a method a path does not list is a 405 that each of its operations documents, Allow naming those listed
        for path, item in spec["paths"].items():
            assert all("405" in op["responses"] for op in item.values()), path
            r = requests.request("PUT" if "put" not in item else "DELETE", srv.url.rstrip("/") + path, timeout=10)
            assert r.status_code == 405 and set(r.headers["Allow"].split(", ")) == {m.upper() for m in item} | {"HEAD"}
            validator(spec, "Error").validate(r.json())
    finally:
        srv.stop()
