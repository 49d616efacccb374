"""`make run DOCS=FOLDER`: that folder alone, in a store of its own, served and asked over HTTP; a re-run syncs it;
a folder that cannot be served stops with one line naming it. Runs what the Makefile runs (scripts/serve_local.py)
with the shipped model, on a free port, its store under a temporary folder."""

from __future__ import annotations

import json
import os
import queue
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.client import get, post
from harness.launch import free_port
from harness.paths import REPO
from scripts.serve_local import docs_settings, docs_store
from tests.support.quillpad import FAQ, write_docs


@pytest.fixture
def docs(tmp_path):
    return write_docs(tmp_path / "my docs")  # a space: the path travels quoted


def command(folder, data, *extra: str) -> list[str]:
    return [sys.executable, "-m", "scripts.serve_local", "--docs", str(folder), "--data", str(data), *extra]


def run_once(folder, data, question: str) -> tuple[subprocess.CompletedProcess, dict]:
    """One `--once` run: the process and the reply it printed."""
    done = subprocess.run(command(folder, data, "--once", "--port", str(free_port()), "--question", question),
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    printed = done.stdout.split("Ask it yourself:", 1)[1].split("Or ask from the page:", 1)[0]
    return done, json.loads(printed[printed.index("\n{"):])


def read_until(proc: subprocess.Popen, marker: str, timeout_s: float = 300.0) -> str:
    """The process's output up to the line holding ``marker`` (fails if it exits or takes longer)."""
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    seen, deadline = [], time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1.0)
        except queue.Empty:
            assert proc.poll() is None, "".join(seen)[-2000:]
            continue
        seen.append(line)
        if marker in line:
            return "".join(seen)
    raise AssertionError(f"no {marker!r} in {timeout_s:.0f} s: {''.join(seen)[-2000:]}")


def store_path(folder, data):
    """The SQLite file ``make run DOCS=folder`` serves (hybrid retrieval: its Lance index beside it)."""
    return Path(docs_settings(folder, data)["QA_SQLITE_PATH"])


def stored(folder, data) -> tuple[set[str], dict]:
    """(the document ids in the folder's store, its passages of the sample's first paragraph, by id)."""
    from function.store.sqlite import SqliteStore

    store = SqliteStore(store_path(folder, data))
    try:
        return {r.doc_id for r in store.documents_under("")}, store.get_many(["Normans-0000", "Normans-0001"])
    finally:
        store.close()


def texts_of(folder, data, doc_id: str) -> str:
    from function.store.sqlite import SqliteStore

    store = SqliteStore(store_path(folder, data))
    try:
        return " ".join(p.text for p in store.get_many(list(store.passages_of(doc_id))).values())
    finally:
        store.close()


def test_serves_the_folder_alone_answers_its_curl_and_syncs_on_a_rerun(docs, tmp_path):
    data = tmp_path / "data"
    port = free_port()
    proc = subprocess.Popen(command(docs, data, "--port", str(port), "--question", "Who wrote Quillpad?"), cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out = read_until(proc, "Ctrl-C stops it")
        assert f"Or ask from the page: http://127.0.0.1:{port}/ui" in out
        assert get(f"http://127.0.0.1:{port}/ui").status == 200  # make run turns the page on
        curl = next(line.strip() for line in out.splitlines() if line.strip().startswith("curl "))
        if shutil.which("curl"):  # the printed command itself
            reply = json.loads(subprocess.run(shlex.split(curl), capture_output=True, text=True, timeout=60).stdout)
        else:
            words = shlex.split(curl)
            reply = post(f"http://127.0.0.1:{port}/", json.loads(words[words.index("-d") + 1])).body
        assert reply["answers"][0]["text"] == "Marta Kowalski" and reply["cache"] == "hit"  # asked at start too
        assert reply["answers"][0]["document_id"] == "faq.txt"
        other = post(f"http://127.0.0.1:{port}/", {"question": "Which tool installs Quillpad?"})
        assert other.status == 200 and "pipx" in other.body["answers"][0]["text"]
        assert other.body["answers"][0]["document_id"] == "guide/install.md"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 128 + signal.SIGTERM  # stopped by the signal, its server with it
    documents, sample = stored(docs, data)
    assert documents == {"guide/install.md", "faq.txt", "about.html"}
    assert sample == {}  # the SQuAD sample is not in this store
    assert store_path(docs, data).parent.name.startswith("docs-")
    import lance  # hybrid retrieval: the folder's own Lance table beside its store, a vector for every passage

    from function.store.sqlite import SqliteStore

    table = lance.dataset(str(store_path(docs, data).parent / "index.lance"))
    store = SqliteStore(store_path(docs, data))
    try:
        assert table.count_rows() == store.count() > 0
        assert table.schema.field("vector").type.list_size == 384  # the shipped encoder's (encoder/)
    finally:
        store.close()

    (docs / "faq.txt").write_text(FAQ.replace("Marta Kowalski in 2019", "Jonas Berg in 2021"))
    (docs / "about.html").unlink()
    done, reply = run_once(docs, data, "Who wrote Quillpad?")  # its old answer is in the store's shared cache
    assert "1 documents written" in done.stdout and "1 unchanged skipped" in done.stdout and "1 deleted" in done.stdout
    assert reply["answers"][0]["text"] == "Jonas Berg" and reply["cache"] == "miss"
    assert stored(docs, data)[0] == {"guide/install.md", "faq.txt"}
    assert "Marta Kowalski" not in texts_of(docs, data, "faq.txt")


def test_a_first_question_it_abstains_on_says_so_and_what_to_ask_instead(docs, tmp_path):
    done, reply = run_once(docs, tmp_path / "data", "What is the capital of Peru?")
    assert reply["answers"] == [] and reply["no_answer"]["abstained"]
    assert "No answer: the model found none it trusts for 'What is the capital of Peru?'" in done.stdout
    assert reply["no_answer"]["missing_names"] == ["Peru"]  # what the question names and no document read mentions
    assert "the documents read do not mention 'Peru'" in done.stdout
    assert "spelt as the documents spell it" in done.stdout
    answered, _ = run_once(docs, tmp_path / "data", "Who wrote Quillpad?")
    assert "No answer" not in answered.stdout


def test_without_docs_it_serves_the_sample_as_before(tmp_path):
    store = tmp_path / "sample.sqlite"
    done = subprocess.run([sys.executable, "-m", "scripts.serve_local", "--once", "--port", str(free_port())], cwd=REPO,
                          capture_output=True, text=True, timeout=300, env={**os.environ, "QA_SQLITE_PATH": str(store)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert '"passage_ids": ["Normans-0000", "Normans-0001"]' in done.stdout  # the curl it prints
    assert '"text": "France"' in done.stdout
    assert store.is_file()


def test_two_folders_get_two_stores(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert docs_store(a, tmp_path) != docs_store(b, tmp_path)
    assert docs_store(a, tmp_path) == docs_store(tmp_path / "b" / ".." / "a", tmp_path)


def test_hybrid_by_default_each_encoder_and_bm25_alone_in_stores_of_their_own(tmp_path):
    """A store and its Lance index are made together, and vectors of one encoder are never searched by another:
    hybrid (the default), another encoder and BM25 alone each get their own store."""
    from harness.paths import ENCODER

    folder = tmp_path / "docs"
    hybrid = docs_settings(folder, tmp_path, environ={})
    assert hybrid["QA_INDEX_ENCODER"] == str(ENCODER.resolve())
    assert hybrid["QA_INDEX_URI"] == str(Path(hybrid["QA_SQLITE_PATH"]).parent / "index.lance")
    bm25 = docs_settings(folder, tmp_path, environ={}, retrieval="bm25")
    assert bm25["QA_INDEX_URI"] is None and bm25["QA_INDEX_ENCODER"] is None
    other = tmp_path / "other-encoder"
    shutil.copytree(ENCODER, other)
    (other / "encoder.json").write_text((other / "encoder.json").read_text().replace('"dim"', '"other": 1, "dim"'))
    mine = docs_settings(folder, tmp_path, environ={"QA_INDEX_ENCODER": str(other)})
    assert mine["QA_INDEX_ENCODER"] == str(other.resolve())
    assert len({hybrid["QA_SQLITE_PATH"], bm25["QA_SQLITE_PATH"], mine["QA_SQLITE_PATH"]}) == 3


def test_a_missing_encoder_stops_with_one_line_naming_it_and_the_way_round(docs, tmp_path):
    done = subprocess.run(command(docs, tmp_path / "data", "--once", "--port", str(free_port())), cwd=REPO,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "QA_INDEX_ENCODER": str(tmp_path / "no-encoder")})
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "sentence encoder file missing" in lines[0] and "RETRIEVAL=bm25" in lines[0], done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def unreadable(tmp_path):
    folder = tmp_path / "unreadable"
    folder.mkdir()
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    (folder / "blank.md").write_text("")
    return folder


def only_images(tmp_path):
    folder = tmp_path / "images"
    folder.mkdir()
    (folder / "logo.png").write_bytes(b"\x89PNG")
    return folder


@pytest.mark.parametrize("make, why", [
    (lambda tmp: tmp / "not-there", "no such folder"),
    (lambda tmp: (tmp / "empty").mkdir() or tmp / "empty", "nothing to ingest"),
    (only_images, "nothing to ingest"),
    (unreadable, "none of the 2 input files gave a document; first: "),
    (lambda tmp: (tmp / "one.txt").write_text("a file") and tmp / "one.txt", "not a folder"),
])
def test_a_folder_it_cannot_serve_stops_with_one_line_naming_it(tmp_path, make, why):
    folder = make(tmp_path)
    done = subprocess.run(command(folder, tmp_path / "data", "--once", "--port", str(free_port())), cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"make run: DOCS={folder}: ") and why in lines[0], done.stderr
    assert "Traceback" not in done.stderr + done.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_make_run_installs_serving_and_ingestion_only_and_passes_the_folder(tmp_path):
    def dry(*extra: str) -> str:
        venv = tmp_path / "venv"  # no venv there: make lists every step it would take
        # --no-print-directory: under `make test` this make is a sub-make, which would print where it runs
        return subprocess.run(["make", "--no-print-directory", "-n", "run", f"VENV={venv}", *extra], cwd=REPO,
                              capture_output=True, text=True, check=True).stdout

    with_docs = dry("DOCS=~/my docs")
    assert "-r requirements.txt" in with_docs and "-r requirements-ingest.txt -r requirements-lance.txt" in with_docs
    for heavy in ("build_model/requirements.txt", "requirements-test.txt"):
        assert heavy not in with_docs
    assert with_docs.rstrip().endswith("-m scripts.serve_local --port 8080 --docs '~/my docs'")
    assert dry("DOCS=d", "RETRIEVAL=bm25").rstrip().endswith("--docs 'd' --retrieval bm25")
    sample = dry()
    assert "requirements-ingest.txt" not in sample
    assert sample.rstrip().endswith("-m scripts.serve_local --port 8080")


def test_make_run_passes_a_folder_with_an_apostrophe_to_the_server_as_it_is(tmp_path):
    """``make run DOCS="/x/it's docs"`` failed in the shell ("Unterminated quoted string"): the Makefile quoted
    the folder in single quotes without escaping one inside it."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    folder = tmp_path / "it's my \"docs\""
    line = subprocess.run(["make", "-s", "-n", "run", f"DOCS={folder}", "PORT=8123"], cwd=Path(__file__).parents[1],
                          capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
    argv = shlex.split(line)
    assert argv[argv.index("--docs") + 1] == str(folder)
