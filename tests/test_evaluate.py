"""``python -m function.evaluate``: your questions asked alone through the function in process, with the shipped
model, on a folder of three documents, and over HTTP of that folder served; the figures, the rows, the file formats
and the errors that name a record; ``python -m bench evaluate`` runs the same command."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from function.evaluate.cli import main, refused, scored
from function.evaluate.questions import Question, QuestionsError, load_questions
from function.evaluate.scoring import as_written, figures, percentile
from harness.launch import FunctionServer, free_port
from harness.paths import ARTIFACT, REPO
from tests.support.quillpad import write_docs

QUESTIONS = [
    {"question": "Who wrote Quillpad?", "answers": ["Marta Kowalski"], "document_id": "faq.txt", "id": "author"},
    {"question": "Which tool installs Quillpad?", "answers": ["pipx"], "document_id": "guide/install.md"},
    {"question": "What is the default theme?", "answers": ["Monokai"]},  # the file says Solarized: scores 0
    {"question": "What is the capital of Peru?", "answers": []},  # no word of it in the folder: "no answer"
]


@pytest.fixture(autouse=True)
def shipped_model(monkeypatch):
    monkeypatch.setenv("QA_ARTIFACT_DIR", str(ARTIFACT))
    for name in ("QA_INDEX_URI", "QA_INDEX_ENCODER", "QA_TOP_K_PASSAGES", "QA_STORE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def docs(tmp_path):
    return write_docs(tmp_path / "docs")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(the server, its store): the three documents ingested into a SQLite store and served by functions-framework
    on a free port with the shipped model, its answer cache on as ``make run`` serves, and at most 8 passages a
    question (``QA_MAX_TOP_K_PASSAGES``)."""
    from function.ingest.cli import main as ingest

    folder = tmp_path_factory.mktemp("served")
    store = folder / "passages.sqlite"
    assert ingest([str(write_docs(folder / "docs")), "--sqlite-path", str(store), "--quiet"]) == 0
    env = {"QA_ARTIFACT_DIR": str(ARTIFACT), "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(store),
           "QA_MAX_TOP_K_PASSAGES": "8", "QA_INDEX_URI": None, "QA_INDEX_ENCODER": None, "QA_TOP_K_PASSAGES": None}
    with FunctionServer(env, folder / "server.log") as server:
        yield server, store


def write_jsonl(path, records) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def test_figures_and_rows_of_a_folder(docs, tmp_path, capsys):
    questions = write_jsonl(tmp_path / "q.jsonl", QUESTIONS)
    out = tmp_path / "figures.json"
    assert main([questions, "--docs", str(docs), "--show", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    result = json.loads(out.read_text())
    f = result["figures"]
    assert (f["questions"], f["answerable"], f["unanswerable"], f["errors"]) == (4, 3, 1, 0)
    assert f["exact_match"] == pytest.approx(200 / 3, abs=0.01)  # two right, "Monokai" wrong
    assert f["recall_at_k"] == 1.0 and f["with_document"] == 2 and f["k"] == 5
    assert f["no_answer_answerable"] == 0.0 and f["no_answer_unanswerable"] == 100.0
    assert f["server_ms_p50"] > 0
    rows = {r["id"]: r for r in result["rows"]}
    assert set(rows) == {"author", "line 2", "line 3", "line 4"}
    assert rows["author"]["answer"] == "Marta Kowalski" and rows["author"]["answer_document_id"] == "faq.txt"
    # where the answer came from: its passage, the passage's title and the snippet around the answer
    author = rows["author"]
    assert author["answer_passage_id"] == "faq.txt#0000" and author["answer_title"]
    snippet = author["answer_snippet"]
    assert snippet["text"][snippet["start"]:snippet["end"]] == "Marta Kowalski" and "2019" in snippet["text"]
    assert rows["line 4"]["answer_passage_id"] is None and rows["line 4"]["answer_snippet"] is None
    assert f["exact_match_as_written"] == pytest.approx(200 / 3, abs=0.01) and author["em_as_written"] == 1.0
    assert rows["line 2"]["document_retrieved"] is True and rows["line 3"]["document_retrieved"] is None
    assert rows["line 3"]["answer"] == "Solarized" and rows["line 3"]["em"] == 0.0
    assert rows["line 4"]["no_answer"] is True
    assert result["documents"] == 3 and result["docs"] == str(docs)
    assert "| author | 100 | 100 | 100 | no | yes |" in printed  # --show: a row per question
    assert "| faq.txt#0000 | Marta Kowalski |" in printed  # with the passage its answer came from
    assert "| EM, answerable questions | 66.7 |" in printed
    assert "| EM as written (case and punctuation kept), answerable questions | 66.7 |" in printed
    assert '| "no answer", unanswerable questions (right) | 100.0% (1 of 1) |' in printed
    assert '"severity"' not in printed  # the function's log lines go to stderr


def test_the_cold_start_logged_does_not_count_the_folder_s_ingestion_as_imports(docs, tmp_path, monkeypatch,
                                                                                 capsys):
    """--docs ingests before the model loads: its time lies between the imports and the load, not in import_ms."""
    import function.evaluate.cli as cli

    ingest = cli.ingest_folder

    def slow_ingest(folder, settings):
        time.sleep(2.0)  # an ingestion of 2 s at least
        ingest(folder, settings)

    monkeypatch.setattr(cli, "ingest_folder", slow_ingest)
    questions = write_jsonl(tmp_path / "q.jsonl", QUESTIONS[:1])
    assert main([questions, "--docs", str(docs), "--retrieval", "bm25"]) == 0
    logged = [json.loads(line) for line in capsys.readouterr().err.splitlines() if '"cold start"' in line]
    timings = logged[0]["cold_start_ms"]
    if timings["import_ms"] is None:  # no /proc here: nothing to tell
        pytest.skip("the process's age is read from /proc")
    assert timings["since_process_start_ms"] - timings["import_ms"] >= 2000


def test_a_folder_is_searched_as_make_run_serves_it_hybrid_unless_bm25_is_asked(docs, tmp_path, monkeypatch, capsys):
    """--docs: the folder's passages in a Lance index with the shipped encoder's vectors, questions searched both
    ways (as `make run DOCS=...` serves it); --retrieval bm25: the store's own index; a missing encoder: one line."""
    from function.retrieval.hybrid import HybridIndex

    searched = []
    search_question = HybridIndex.search_question
    monkeypatch.setattr(HybridIndex, "search_question",
                        lambda self, *a, **k: searched.append(self.encoder.folder) or search_question(self, *a, **k))
    questions = write_jsonl(tmp_path / "q.jsonl", QUESTIONS)
    results = {}
    for retrieval in ("hybrid", "bm25"):
        out = tmp_path / f"{retrieval}.json"
        assert main([questions, "--docs", str(docs), "--retrieval", retrieval, "--out", str(out)]) == 0
        results[retrieval] = json.loads(out.read_text())
    assert len(searched) == len(QUESTIONS) + 1 and set(searched) == {Path("encoder")}  # + the warm-up question
    assert "a Lance index beside it, BM25 and sentence embeddings mixed (encoder)" in results["hybrid"]["store"]
    assert results["bm25"]["store"] == f"a temporary SQLite store of {docs}"
    for result in results.values():
        assert result["figures"]["exact_match"] == pytest.approx(200 / 3, abs=0.01)
        assert result["figures"]["no_answer_unanswerable"] == 100.0
    # --retrieval stored: the store's own index, each passage's embedding beside it, no Lance index searched
    from function.service.pipeline import QAService

    cosines = []
    stored_cosines = QAService._stored_cosines
    monkeypatch.setattr(QAService, "_stored_cosines",
                        lambda self, *a: cosines.append(stored_cosines(self, *a)) or cosines[-1])
    out = tmp_path / "stored.json"
    assert main([questions, "--docs", str(docs), "--retrieval", "stored", "--out", str(out)]) == 0
    stored = json.loads(out.read_text())
    assert len(searched) == len(QUESTIONS) + 1
    assert stored["store"] == f"a temporary SQLite store of {docs}, each passage's embedding stored with it: stored " \
                              "cosines (encoder)"
    assert len(cosines) >= len(QUESTIONS) and all(c and all(-1.0 <= x <= 1.0 for x in c) for c in cosines)
    monkeypatch.setenv("QA_INDEX_ENCODER", str(REPO / "encoder"))  # the caller's encoder, alone (no QA_INDEX_URI)
    assert main([questions, "--docs", str(docs), "--out", str(tmp_path / "env.json")]) == 0
    assert searched[-1] == REPO / "encoder"
    capsys.readouterr()
    assert main([questions, "--docs", str(docs), "--encoder", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is not a sentence-encoder folder" in err and "--retrieval bm25" in err


def test_the_store_the_settings_name_without_docs(docs, tmp_path, monkeypatch, capsys):
    from function.ingest.cli import main as ingest

    store = tmp_path / "served.sqlite"
    assert ingest([str(docs), "--sqlite-path", str(store), "--quiet"]) == 0
    questions = write_jsonl(tmp_path / "q.jsonl", QUESTIONS[:1])
    assert main([questions, "--sqlite-path", str(store), "--out", str(tmp_path / "a.json")]) == 0
    result = json.loads((tmp_path / "a.json").read_text())
    assert result["store"] == f"sqlite:{store}" and result["figures"]["exact_match"] == 100.0
    capsys.readouterr()
    missing = tmp_path / "typo.sqlite"  # a store ingestion never made: named, not made empty
    monkeypatch.setenv("QA_SQLITE_PATH", str(missing))
    assert main([questions]) == 1
    assert f"the SQLite store {missing} does not exist: ingest documents" in capsys.readouterr().err
    assert not missing.exists()
    from function.store.sqlite import SqliteStore

    SqliteStore(tmp_path / "empty.sqlite").close()  # one ingestion made and left empty
    monkeypatch.setenv("QA_SQLITE_PATH", str(tmp_path / "empty.sqlite"))
    assert main([questions]) == 2
    assert "holds no passages" in capsys.readouterr().err


def test_a_question_the_function_refuses_is_reported_and_scores_0(docs, tmp_path, capsys):
    too_long = {"question": "Who wrote Quillpad? " * 60, "answers": ["Marta Kowalski"], "document_id": "faq.txt"}
    questions = write_jsonl(tmp_path / "q.jsonl", [QUESTIONS[0], too_long])
    assert main([questions, "--docs", str(docs), "--show", "--out", str(tmp_path / "a.json")]) == 0
    result = json.loads((tmp_path / "a.json").read_text())
    refused = result["rows"][1]
    assert "'question'" in refused["error"] and refused["answer"] == "" and refused["document_retrieved"] is False
    f = result["figures"]
    assert (f["errors"], f["exact_match"], f["recall_at_k"]) == (1, 50.0, 0.5)
    printed = capsys.readouterr().out
    assert "1 refused (see --show)" in printed and "| error: 'question'" in printed


def test_a_document_the_store_does_not_hold_is_named(docs, tmp_path, capsys):
    questions = write_jsonl(tmp_path / "q.jsonl", [{**QUESTIONS[0], "document_id": "faq.md"}])
    assert main([questions, "--docs", str(docs)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "q.jsonl: question author: document_id 'faq.md' is not in the store" in err
    assert "'about.html'" in err  # how its documents are named


def test_a_folder_that_is_not_there(tmp_path, capsys):
    questions = write_jsonl(tmp_path / "q.jsonl", QUESTIONS[:1])
    assert main([questions, "--docs", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"python -m function.evaluate: --docs {tmp_path / 'nowhere'}: no such folder"


@pytest.mark.parametrize("text, where, why", [
    ('{"question": "a?", "answers": ["b"]}\n{"question": "c?", answers: []}\n', "line 2", "not JSON"),
    ('{"question": "a?", "answers": ["b"]}\n{"answers": ["b"]}\n', "line 2", "'question' must be a non-empty string"),
    ('{"question": "a?", "answer": "b"}\n', "line 1", "unknown field 'answer'"),
    ('{"question": "a?", "answers": "b"}\n', "line 1", "'answers' must be a list of non-empty strings"),
    ('{"question": "a?", "answers": [""]}\n', "line 1", "'answers' must be a list of non-empty strings"),
    ('{"question": "a?", "answers": [], "answerable": true}\n', "line 1", "is true but 'answers' is empty"),
    ('{"question": "a?", "answers": ["b"], "answerable": false}\n', "line 1", "but 'answers' holds answers"),
    ('{"question": "a?", "document_id": 3}\n', "line 1", "'document_id' must be a non-empty string"),
    ('[{"question": "a?"}, {"question": "b?", "id": ["x"]}]', "#2", "'id' must be a non-empty string or an integer"),
    ('[{"question": "a?"}, 7]', "#2", "expected a JSON object"),
    ('[{"question": "a?"', "", "not JSON"),
    ('{"question": "a?", "id": "x"}\n{"question": "b?", "id": "x"}\n', "", "id 'x' is used twice"),
    ("\n\n", "", "no questions in it"),
    ('"just a string"', "", "expected JSON Lines, a JSON array of questions or a SQuAD file"),
])
def test_a_bad_questions_file_is_refused_naming_the_file_and_record(tmp_path, capsys, text, where, why):
    path = tmp_path / "my-questions.jsonl"
    path.write_text(text)
    assert main([str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith(f"python -m function.evaluate: {path}: " + (f"{where}: " if where else "")), err
    assert why in err


def test_a_questions_file_that_is_not_there(tmp_path, capsys):
    assert main([str(tmp_path / "missing.jsonl")]) == 2
    assert capsys.readouterr().err.strip().endswith("missing.jsonl: no such file")


def test_a_json_array_and_a_squad_file(tmp_path):
    array = tmp_path / "q.json"
    array.write_text(json.dumps([{"question": "Who?", "answers": ["Rollo"], "id": 7}, {"question": "Why?"}]))
    got = load_questions(array)
    assert [(q.id, q.answers, q.answerable) for q in got] == [("7", ("Rollo",), True), ("#2", (), False)]
    squad = tmp_path / "squad.json"
    squad.write_text(json.dumps({"version": "v2.0", "data": [{"title": "Normans", "paragraphs": [
        {"context": "x", "qas": []},
        {"context": "y", "qas": [
            {"id": "q1", "question": "Who led them?", "answers": [{"text": "Rollo", "answer_start": 0},
                                                                   {"text": "Rollo", "answer_start": 0}]},
            {"id": "q2", "question": "Who was king?", "answers": [], "is_impossible": True}]}]}]}))
    q1, q2 = load_questions(squad)
    assert (q1.id, q1.answers, q1.document_id) == ("q1", ("Rollo",), "Normans-0001")  # ingestion's id of it
    assert (q2.id, q2.answerable, q2.document_id) == ("q2", False, "Normans-0001")
    squad.write_text(json.dumps({"data": [{"title": "Normans", "paragraphs": [{"qas": [{"question": "x"}]}]}]}))
    with pytest.raises(QuestionsError, match=r"squad.json: data\[0\].paragraphs\[0\].qas\[0\]: "):
        load_questions(squad)


def row(answerable=True, em=0.0, f1=0.0, no_answer=False, retrieved=None, ms=10.0, error=None, strict=None) -> dict:
    return {"answerable": answerable, "em": em, "em_as_written": em if strict is None else strict, "f1": f1,
            "no_answer": no_answer, "document_retrieved": retrieved, "server_ms": ms, "error": error}


def test_figures_count_each_rate_over_its_own_questions():
    rows = [row(em=1.0, f1=1.0, retrieved=True, ms=10.0), row(f1=0.5, retrieved=False, ms=30.0),
            row(no_answer=True, ms=20.0), row(answerable=False, no_answer=True, ms=1.0),
            row(answerable=False, ms=40.0), row(no_answer=True, ms=None, error="'question' is 600 tokens")]
    f = figures(rows, 3)
    assert (f["questions"], f["answerable"], f["unanswerable"], f["errors"]) == (6, 4, 2, 1)
    assert f["exact_match"] == 25.0 and f["f1"] == 37.5
    assert f["recall_at_k"] == 0.5 and f["with_document"] == 2 and f["k"] == 3
    assert f["no_answer_answerable"] == 50.0 and f["no_answer_unanswerable"] == 50.0
    assert f["server_ms_p50"] == 20.0 and f["server_ms_p90"] == 36.0
    assert figures([row(answerable=False)], 5)["exact_match"] is None
    over_http = [{**row(ms=10.0), "client_ms": 12.0, "cache": "hit"}, {**row(ms=20.0), "client_ms": 25.0},
                 {**row(ms=None, error="'question' has 1200 characters"), "client_ms": 3.0}]
    f = figures(over_http, 5)
    assert (f["client_ms_p50"], f["client_ms_p90"], f["cache_hits"]) == (18.5, 23.7, 1)  # not the refused one's
    assert figures(rows, 3)["client_ms_p50"] is None  # asked in process: no round trip
    assert percentile([], 50) is None and percentile([7.0], 90) == 7.0


def test_em_as_written_keeps_the_punctuation_and_case_squad_normalisation_drops():
    """SQuAD's EM reads "a" as "-a" and "package+" as "package_" (punctuation dropped): EM as written, the
    documentation benchmark's own definition, tells them apart, and is a figure of its own beside EM."""
    q = Question(id="q", question="Which option shows all?", answers=("-a",), document_id="guide.txt")
    reply = {"answers": [{"text": "a", "score": 0.9, "start": 4, "end": 5, "passage_id": "guide.txt#0003",
                          "title": "Options", "document_id": "guide.txt",
                          "snippet": {"text": "Use -a to show all.", "start": 5, "end": 6}}],
             "retrieved": [{"passage_id": "guide.txt#0003", "title": "Options", "score": 3.0,
                            "document_id": "guide.txt"}]}
    r = scored(q, reply, 12.0, "miss")
    assert (r["em"], r["f1"], r["em_as_written"]) == (1.0, 1.0, 0.0)
    assert (r["answer_passage_id"], r["answer_title"]) == ("guide.txt#0003", "Options")
    assert r["answer_snippet"] == {"text": "Use -a to show all.", "start": 5, "end": 6}
    assert as_written("package+", ["package_"]) == 0.0 and as_written(" -a ", ["-a"]) == 1.0
    assert as_written("", [""]) == 0.0
    nothing = refused(q, "'question' is too long")
    assert nothing["em_as_written"] == 0.0 and nothing["answer_passage_id"] is None
    f = figures([r, row(em=1.0, f1=1.0)], 5)
    assert f["exact_match"] == 100.0 and f["exact_match_as_written"] == 50.0
    assert figures([row(answerable=False)], 5)["exact_match_as_written"] is None


TOO_LONG = {"question": "Who wrote Quillpad? " * 60, "answers": ["Marta Kowalski"], "document_id": "faq.txt"}
TIMES = ("server_ms_p50", "server_ms_p90", "client_ms_p50", "client_ms_p90")
SCORED = ("id", "answer", "answer_document_id", "answer_passage_id", "answer_title", "answer_snippet", "em",
          "em_as_written", "f1", "no_answer", "document_retrieved", "retrieved", "error")


def test_over_http_the_same_figures_and_rows_as_in_process(served, tmp_path, capsys):
    server, store = served
    questions = write_jsonl(tmp_path / "q.jsonl", [*QUESTIONS, TOO_LONG])
    assert main([questions, "--sqlite-path", str(store), "--out", str(tmp_path / "local.json")]) == 0
    assert main([questions, "--url", server.url, "--show", "--out", str(tmp_path / "http.json"),
                 "--md", str(tmp_path / "http.md")]) == 0
    printed = capsys.readouterr().out
    local, remote = (json.loads((tmp_path / name).read_text()) for name in ("local.json", "http.json"))
    f = remote["figures"]
    assert {k: v for k, v in f.items() if k not in TIMES} == {k: v for k, v in local["figures"].items()
                                                              if k not in TIMES}
    assert f["exact_match"] == pytest.approx(50.0) and f["recall_at_k"] == pytest.approx(2 / 3, abs=1e-4)
    assert (f["errors"], f["cache_hits"]) == (1, 0)  # the model was loaded by a request no question repeats
    assert [{k: r[k] for k in SCORED} for r in remote["rows"]] == [{k: r[k] for k in SCORED} for r in local["rows"]]
    assert remote["rows"][0]["answer"] == "Marta Kowalski" and "'question'" in remote["rows"][4]["error"]
    answered = [r for r in remote["rows"] if r["error"] is None]
    assert all(r["cache"] == "miss" and r["client_ms"] >= r["server_ms"] > 0 for r in answered)  # the round trip
    assert f["client_ms_p50"] >= f["server_ms_p50"] and local["figures"]["client_ms_p50"] is None
    assert remote["url"] == server.url and remote["store"] == f"the function at {server.url} (sqlite:{store})"
    assert remote["model"] == local["model"] and remote["passages"] is None
    markdown = (tmp_path / "http.md").read_text()
    assert "| EM, answerable questions | 50.0 |" in markdown and "| round trip p50 / p90 (this client) |" in markdown
    assert "| author | 100 | 100 | 100 | no | yes |" in markdown
    assert f"`python -m function.evaluate {questions}" in markdown
    assert "| round trip ms |" in printed and "| round trip ms |" in markdown


def test_over_http_answers_from_the_function_cache_are_counted(served, tmp_path, capsys):
    server, _ = served
    questions = write_jsonl(tmp_path / "q.jsonl", [{"question": "How often does Quillpad save your notes?",
                                                    "answers": ["every 30 seconds"]}])
    out = tmp_path / "a.json"
    hits = []
    for _ in range(2):
        assert main([questions, "--url", server.url, "--out", str(out)]) == 0
        hits.append(json.loads(out.read_text())["figures"]["cache_hits"])
    assert hits == [0, 1]
    assert "1 of 1 answers came from the function's answer cache" in capsys.readouterr().out


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_a_url_nothing_answers_on_is_one_line(tmp_path, capsys):
    url = f"http://127.0.0.1:{free_port()}/"
    assert main([write_jsonl(tmp_path / "q.jsonl", QUESTIONS), "--url", url]) == 1
    assert one_line_error(capsys).startswith(f"python -m function.evaluate: --url {url}: cannot reach it: ")


def test_a_url_that_is_not_the_function_is_one_line(served, tmp_path, capsys):
    server, _ = served
    url = server.url + "nowhere"
    assert main([write_jsonl(tmp_path / "q.jsonl", QUESTIONS), "--url", url]) == 1
    err = one_line_error(capsys)
    assert err.startswith(f"python -m function.evaluate: --url {url}: GET answered HTTP 404, not the function's ")
    assert "no such path '/nowhere'" in err


def test_a_question_the_function_answers_with_a_4xx_names_its_record(served, tmp_path, capsys):
    server, _ = served
    questions = write_jsonl(tmp_path / "q.jsonl", QUESTIONS)
    assert main([questions, "--url", server.url, "--top-k-passages", "10"]) == 1  # the server allows 8
    assert one_line_error(capsys) == (f"python -m function.evaluate: --url {server.url}: {questions}: question "
                                      "author: HTTP 400: 'top_k_passages' must be between 1 and 8, got 10")


class NotJson(BaseHTTPRequestHandler):
    """Health and the model's warm-up as the function answers them; a question, a proxy's HTML error page."""

    def do_GET(self):
        self.reply(200, {"model": {"name": "m"}, "store": {"kind": "sqlite", "path": "p"}})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if "context" in body:
            self.reply(200, {"answers": []})
        else:
            self.reply(502, "<html><body>Bad gateway</body></html>")

    def reply(self, status: int, body) -> None:
        data = (json.dumps(body) if isinstance(body, dict) else body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json" if isinstance(body, dict) else "text/html")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):  # no access log on the test's stderr
        pass


def test_a_reply_that_is_not_json_names_the_question(tmp_path, capsys):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), NotJson)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/"
        questions = write_jsonl(tmp_path / "q.jsonl", QUESTIONS)
        assert main([questions, "--url", url]) == 1
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert one_line_error(capsys) == (f"python -m function.evaluate: --url {url}: {questions}: question author: "
                                      "HTTP 502: not JSON: '<html><body>Bad gateway</body></html>'")


@pytest.mark.parametrize("extra, why", [
    (["--url", "localhost:8080"], "--url localhost:8080: expected http://HOST[:PORT]/"),
    (["--url", "http://127.0.0.1:8080/", "--sqlite-path", "p.sqlite"], "--sqlite-path is for asking in process"),
    (["--url", "http://127.0.0.1:8080/", "--docs", "docs"], "argument --docs: not allowed with argument --url"),
])
def test_url_options_that_do_not_go_together_are_refused(tmp_path, capsys, extra, why):
    with pytest.raises(SystemExit) as exit_:
        main([write_jsonl(tmp_path / "q.jsonl", QUESTIONS), *extra])
    assert exit_.value.code == 2 and why in capsys.readouterr().err


def test_python_m_bench_evaluate_is_this_command(tmp_path, capsys):
    from bench.cli import main as bench

    assert bench(["evaluate", write_jsonl(tmp_path / "q.jsonl", QUESTIONS), "--docs", str(tmp_path / "no")]) == 2
    assert one_line_error(capsys).endswith(f"--docs {tmp_path / 'no'}: no such folder")
    done = subprocess.run([sys.executable, "-m", "bench", "evaluate", "--help"], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and "--url URL" in done.stdout and "--md FILE" in done.stdout
