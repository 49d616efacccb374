"""The serving and ingestion images' contents, built the way the Dockerfile builds them, answer over HTTP.

No container engine runs here, so the final stage is laid out on disk by
harness/image/: a fresh virtual environment from requirements.txt only,
exactly the paths the Dockerfile copies, its byte-compilation step. The image's
own python ingests the sample corpus and the image's CMD serves it. The
ingestion image (``--target ingest``: the same, plus requirements-ingest.txt)
is laid out too, on a copy of the serving image's files (both are built FROM
``app``, which Docker reuses); its ENTRYPOINT (the Cloud Run job's command)
ingests a Markdown document, which the serving image then answers from. Takes
about half a minute: pip installs the runtime requirements once and the
ingestion ones once.
"""

from __future__ import annotations

import json
import subprocess

import pytest

import harness.image as img
from harness.client import post
from harness.image import ingest, serve

REPO = img.REPO
SAMPLE = REPO / "samples" / "squad_sample.json"
QUESTION = "In what country is Normandy located?"


def _real_artifact() -> bool:
    manifest = REPO / "artifact" / "manifest.json"
    return manifest.exists() and json.loads(manifest.read_text())["name"] != "tiny-random-bert"


def _passages() -> dict[str, str]:
    from function.ingest.json_input import squad_id

    data = json.loads(SAMPLE.read_text(encoding="utf-8"))["data"]
    return {squad_id(a["title"], i): p["context"] for a in data for i, p in enumerate(a["paragraphs"])}


@pytest.fixture(scope="module")
def image(tmp_path_factory, request):
    root = tmp_path_factory.mktemp("image")
    sources = {}
    if not (REPO / "artifact" / "manifest.json").exists():
        sources["artifact/"] = request.getfixturevalue("tiny_artifact").folder
    return img.assemble(root / "fs", sources)


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
    assert not [p for p in installed if p in img.INGEST_ONLY], "document libraries stay in the ingestion image"
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


@pytest.fixture(scope="module")
def corpus_image(image, tmp_path_factory):
    """``--target runtime-corpus``: the serving image plus a corpus ingested beforehand into ``corpus/``."""
    corpus = tmp_path_factory.mktemp("corpus")
    done = ingest(image, [str(SAMPLE)], {"QA_STORE": "sqlite", "QA_SQLITE_PATH": str(corpus / "passages.sqlite")})
    assert done.returncode == 0, done.stderr[-3000:]
    return img.assemble(tmp_path_factory.mktemp("corpus-image") / "fs", {"corpus/": corpus}, target="runtime-corpus",
                        on=image)


def test_the_corpus_image_answers_questions_alone_from_the_corpus_inside_it(corpus_image):
    """Its own settings point at its file (no store setting given, no Firestore): a question asked alone is
    answered from the passages ingested before the build."""
    env = corpus_image.env()
    assert env["QA_STORE"] == "sqlite"
    assert env["QA_SQLITE_PATH"] == str(corpus_image.path("/app/corpus/passages.sqlite"))
    assert corpus_image.path("/app/corpus/passages.sqlite").is_file()
    server = serve(corpus_image, {})
    try:
        server.start()
        assert server.health()["store"] == {"kind": "sqlite", "path": env["QA_SQLITE_PATH"], "exists": True}
        reply = post(server.url, {"question": QUESTION})
        assert reply.status == 200, reply.body
        retrieved = [p["passage_id"] for p in reply.body["retrieved"]]
        assert retrieved and set(retrieved) <= set(_passages())
        best = reply.body["answers"][0]
        text = _passages()[best["passage_id"]]
        assert best["passage_id"] in retrieved and best["text"] == text[best["start"]:best["end"]] and best["text"]
    finally:
        server.stop()
        server.close()


@pytest.fixture(scope="module")
def cosines_corpus_image(image, tmp_path_factory):
    """``--target runtime-cosines-corpus``: the serving image plus the sentence encoder and a corpus ingested
    beforehand with its embeddings (``QA_INDEX_ENCODER`` alone: stored cosines)."""
    corpus = tmp_path_factory.mktemp("cosines-corpus")
    done = ingest(image, [str(SAMPLE)], {"QA_STORE": "sqlite", "QA_SQLITE_PATH": str(corpus / "passages.sqlite"),
                                         "QA_INDEX_ENCODER": str(REPO / "encoder")})
    assert done.returncode == 0, done.stderr[-3000:]
    return img.assemble(tmp_path_factory.mktemp("cosines-corpus-image") / "fs", {"corpus/": corpus},
                        target="runtime-cosines-corpus", on=image)


def test_the_cosines_corpus_image_reads_each_passage_s_stored_cosine(cosines_corpus_image):
    """Its own settings name its file and its encoder, no table: a question asked alone retrieves by BM25 and each
    passage read carries the question's cosine from the embedding stored with it."""
    env = cosines_corpus_image.env()
    assert env["QA_STORE"] == "sqlite" and "QA_INDEX_URI" not in env
    assert env["QA_INDEX_ENCODER"] == str(cosines_corpus_image.path("/app/encoder"))
    server = serve(cosines_corpus_image, {})
    try:
        server.start()
        reply = post(server.url, {"question": QUESTION})
        assert reply.status == 200, reply.body
        retrieved = reply.body["retrieved"]
        assert retrieved and all(-1.0 <= p["cosine"] <= 1.0 for p in retrieved), retrieved
    finally:
        server.stop()
        server.close()


def test_image_is_small(image):
    # torch alone would add several hundred MB; the runtime stack is a fraction of that.
    sizes = img.sizes(image, gzipped=False)  # the push size is `python -m bench image`'s (gzips every file)
    print("\nimage's own layers:", json.dumps(sizes))
    assert sizes["venv"] < 300e6, sizes


# ---- the ingestion image: docker build --target ingest -------------------------------

NORMANDY_MD = """# Normandy

The Normans gave their name to Normandy, a region in France. They descended from Norse raiders.

## Language

The Norman dialect is still spoken in parts of Normandy and on the Channel Islands.
"""


@pytest.fixture(scope="module")
def ingest_image(image, tmp_path_factory):
    root = tmp_path_factory.mktemp("ingest-image")
    # on the serving image's files: both are built FROM app, and serving adds only settings (Docker reuses app's
    # layers: the same venv, code and artifact, hence the same tokenizer fingerprint in the passages)
    return img.assemble(root / "fs", target="ingest", on=image)


@pytest.fixture(scope="module")
def ingested_docs(ingest_image, tmp_path_factory):
    """The ingestion image's ENTRYPOINT on a folder holding one Markdown document."""
    docs = tmp_path_factory.mktemp("docs")
    (docs / "history").mkdir()
    (docs / "history" / "normandy.md").write_text(NORMANDY_MD, encoding="utf-8")
    db = tmp_path_factory.mktemp("ingest-store") / "passages.sqlite"
    env = {**ingest_image.env(), "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(db)}  # over the image's ENV
    done = subprocess.run(ingest_image.command([str(docs), "--quiet"]), cwd=ingest_image.workdir, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return db, done.stderr


def test_ingest_image_is_the_serving_image_plus_the_document_libraries(image, ingest_image):
    installed, serving = set(ingest_image.installed()), set(image.installed())
    assert set(img.INGEST_ONLY) <= installed, set(img.INGEST_ONLY) - installed
    assert serving <= installed, serving - installed
    pinned, ingest_pinned = set(image.installed(versions=True)), set(ingest_image.installed(versions=True))
    assert pinned <= ingest_pinned, f"the document libraries changed serving packages: {pinned - ingest_pinned}"
    assert not [p for p in installed if p in img.BUILD_ONLY]
    assert "pip" not in installed
    code = sorted(p.relative_to(image.workdir).as_posix() for p in image.workdir.rglob("*") if p.is_file())
    ingest_code = sorted(p.relative_to(ingest_image.workdir).as_posix()
                         for p in ingest_image.workdir.rglob("*") if p.is_file())
    assert ingest_code == code, "the same code, byte-compiled, and the same artifact"
    for script in (ingest_image.venv / "bin").iterdir():  # its scripts start its own python, not the serving one's
        if script.is_file() and not script.is_symlink() and script.read_bytes().startswith(b"#!"):
            assert script.read_text().splitlines()[0] == f"#!{ingest_image.python()}", script.name


def test_ingest_image_runs_the_ingest_command(ingest_image):
    cmd = ingest_image.command()
    assert cmd[0] == str(ingest_image.python()) and cmd[1:] == ["-m", "function.ingest", "--help"]
    done = subprocess.run(cmd, cwd=ingest_image.workdir, env=ingest_image.env(), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and "--sync" in done.stdout, done.stderr[-2000:]


def test_ingest_image_ingests_a_markdown_document(ingested_docs):
    from function.config import Settings
    from function.store import open_store
    from function.store.ids import chunk_passage_id

    db, log = ingested_docs
    assert "1 documents written" in log, log
    store = open_store(Settings.from_env({"QA_STORE": "sqlite", "QA_SQLITE_PATH": str(db)}))
    try:
        (record,) = store.documents_under("")
        assert record.doc_id == "history/normandy.md"
        first = store.get_many([chunk_passage_id(record.doc_id, 0)])[chunk_passage_id(record.doc_id, 0)]
        assert "Normandy" in first.text and "# " not in first.text, "Markdown read as text, not markup"
    finally:
        store.close()


def test_serving_image_answers_from_the_ingest_images_passages(image, ingested_docs):
    """Same artifact, same tokenizer fingerprint: the function accepts what the job wrote."""
    from function.store.ids import chunk_passage_id

    db, _ = ingested_docs
    server = serve(image, {"QA_STORE": "sqlite", "QA_SQLITE_PATH": str(db)})
    try:
        server.start()
        server.health()
        reply = post(server.url, {"question": QUESTION,
                                  "passage_ids": [chunk_passage_id("history/normandy.md", 0)]})
        assert reply.status == 200, reply.body
        best = reply.body["answers"][0]
        assert best["text"]
        if _real_artifact():
            assert "France" in best["text"], best
    finally:
        server.stop()
        server.close()
