"""The serving image's contents, built the way the Dockerfile builds them, answer over HTTP.

No container engine runs here, so the final stage is laid out on disk by
image_assembler/: a fresh virtual environment from requirements.txt only,
exactly the paths the Dockerfile copies, its byte-compilation step. The image's
own python ingests the sample corpus (the Cloud Run job's command) and the
image's CMD serves it. Takes 1-3 minutes: pip installs the runtime requirements.
"""

from __future__ import annotations

import json

import pytest

import image_assembler as img
from bench.harness.client import post
from bench.image import ingest, serve

REPO = img.REPO
SAMPLE = REPO / "samples" / "squad_sample.json"
QUESTION = "In what country is Normandy located?"


def _real_artifact() -> bool:
    manifest = REPO / "artifact" / "manifest.json"
    return manifest.exists() and json.loads(manifest.read_text())["name"] != "tiny-random-bert"


def _passages() -> dict[str, str]:
    from function.ingest.sources import squad_id

    data = json.loads(SAMPLE.read_text(encoding="utf-8"))["data"]
    return {squad_id(a["title"], i): p["context"] for a in data for i, p in enumerate(a["paragraphs"])}


@pytest.fixture(scope="module")
def image(tmp_path_factory, request):
    root = tmp_path_factory.mktemp("image")
    sources = {}
    if not (REPO / "artifact" / "manifest.json").exists():
        sources["artifact/"] = request.getfixturevalue("tiny_artifact").folder
    built = img.assemble(root / "fs", sources)
    sizes = img.sizes(built)
    print("\nimage's own layers:", json.dumps(sizes))
    return built


@pytest.fixture(scope="module")
def server(image, tmp_path_factory):
    db = tmp_path_factory.mktemp("store") / "passages.sqlite"
    env = {"QA_STORE": "sqlite", "QA_SQLITE_PATH": str(db)}
    done = ingest(image, [str(SAMPLE)], env)
    assert done.returncode == 0, done.stderr[-3000:]
    server = serve(image, env)
    try:
        server.start()
        yield server.url, server.health()
    finally:
        server.stop()
        print(server.output()[-2000:])
        server.close()


def test_no_build_stage_packages_in_the_environment(image):
    installed = image.installed()
    assert "functions-framework" in installed and "onnxruntime" in installed
    assert not [p for p in installed if p in img.BUILD_ONLY], installed
    assert "pip" not in installed, "the image needs no installer"


def test_code_is_byte_compiled_at_build_time(image):
    compiled = list((image.workdir / "function").rglob("__pycache__/*.pyc"))
    sources = list((image.workdir / "function").rglob("*.py"))
    assert len(compiled) >= len(sources), "compileall in the Dockerfile covers function/"


def test_image_holds_only_what_the_dockerfile_copies(image):
    top = sorted(p.name for p in image.workdir.iterdir() if p.name != "__pycache__")
    assert top == ["artifact", "function", "main.py"], top
    assert not list(image.workdir.rglob("tests")), "tests are dockerignored"


def test_health_comes_from_the_image(server, image):
    _, health = server
    manifest = json.loads((image.workdir / "artifact" / "manifest.json").read_text())
    assert health["status"] == "ok"
    assert health["model"]["artifact_hash"] == manifest["artifact_hash"]


def test_answers_a_stored_passage_over_http(server):
    url, _ = server
    reply = post(url, {"question": QUESTION, "passage_ids": ["Normans-0000"]})
    status, body = reply.status, reply.body
    assert status == 200, body
    best = body["answers"][0]
    text = _passages()["Normans-0000"]
    assert best["text"] == text[best["start"]:best["end"]] and best["text"]
    if _real_artifact():
        assert "France" in best["text"], best


def test_answers_a_given_context_over_http(server):
    url, _ = server
    context = _passages()["Normans-0000"]
    reply = post(url, {"question": QUESTION, "context": context})
    status, body = reply.status, reply.body
    assert status == 200, body
    best = body["answers"][0]
    assert best["text"] == context[best["start"]:best["end"]] and best["text"]


def test_image_is_small(image):
    # torch alone would add several hundred MB; the runtime stack is a fraction of that.
    sizes = img.sizes(image)
    assert sizes["venv"] < 300e6, sizes
