"""The question page (GET /ui): served only with QA_UI=1, under a strict policy, and used in a real browser.

The browser tests drive Debian's headless Chromium through Selenium (``harness.browser``): they type a
question as a person would and read what the page shows. They are skipped, with the reason, only where
chromium or chromedriver is not installed; ``.ci/run`` installs both, so they run in CI.
"""

import base64
import hashlib
import json
import re

import pytest
import requests

from function.config import Settings
from function.http.ui import PAGE
from harness import browser
from harness.launch import FunctionServer, ingest

NO_BROWSER = browser.missing()
needs_browser = pytest.mark.skipif(bool(NO_BROWSER), reason=NO_BROWSER)

QUESTION = "What region of France did the Normans give their name to?"
SCRIPT = "<script>window.__xss=1</script>"
IMAGE = '<img src=x onerror="window.__xss=1">'
# A stored passage whose title and text hold markup that would run if the page took it as HTML.
HOSTILE = {"id": "hostile-0000", "title": f"Zorblax {IMAGE}",
           "text": f"The zorblax protocol was designed by {SCRIPT} Quentin Marsh in 1987. "
                   f"Its handshake is {IMAGE} three messages long, and zorblax servers listen on port 7117."}


@pytest.fixture(scope="module")
def ui_server(tiny_artifact, tmp_path_factory):
    """The tiny model with the page on, the sample corpus and the hostile passage stored."""
    folder = tmp_path_factory.mktemp("ui")
    env = {"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_STORE": "sqlite", "QA_UI": "1",
           "QA_SQLITE_PATH": str(folder / "p.sqlite")}
    (folder / "hostile.jsonl").write_text(json.dumps(HOSTILE) + "\n")
    ingest(env, "samples/squad_sample.json", "--quiet", check=True)
    ingest(env, str(folder / "hostile.jsonl"), "--quiet", check=True)
    with FunctionServer(env, folder / "server.log") as server:
        server.health()
        yield server


@pytest.fixture(scope="module")
def driver():
    with browser.chromium() as d:
        yield d


def sha256_source(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_the_page_is_off_unless_qa_ui_is_set(local_service):
    assert Settings.from_env({}).ui is False and Settings.from_env({"QA_UI": "1"}).ui is True
    r = requests.get(local_service + "ui", timeout=10)
    assert r.status_code == 404 and r.headers["Content-Type"] == "application/json"
    assert "QA_UI=1" in r.json()["error"]["message"]


def test_the_page_is_self_contained_under_a_policy_that_allows_only_its_own_blocks(ui_server):
    r = requests.get(ui_server.url + "ui", timeout=10)
    assert r.status_code == 200 and r.headers["Content-Type"] == "text/html; charset=utf-8"
    html = r.text
    assert html == PAGE.read_text()
    policy = dict(d.strip().split(" ", 1) for d in r.headers["Content-Security-Policy"].split(";"))
    (script,) = re.findall(r"<script>(.*?)</script>", html, re.S)
    (style,) = re.findall(r"<style>(.*?)</style>", html, re.S)
    assert policy == {"default-src": "'none'", "script-src": sha256_source(script), "style-src": sha256_source(style),
                      "connect-src": "'self'", "base-uri": "'none'", "form-action": "'none'",
                      "frame-ancestors": "'none'"}
    assert not re.search(r"\b(src|href)\s*=|<link|@import|url\(", html), "the page loads nothing from elsewhere"
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    head = requests.head(ui_server.url + "ui", timeout=10)
    assert head.status_code == 200 and not head.content
    post = requests.post(ui_server.url + "ui", json={}, timeout=10)
    assert post.status_code == 405 and post.headers["Allow"] == "GET, HEAD"


def test_the_script_never_writes_markup():
    (script,) = re.findall(r"<script>(.*?)</script>", PAGE.read_text(), re.S)
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "Function(",
                 "srcdoc", "setAttribute"):
        assert sink not in script, f"{sink}: reply text must enter the page as text"


def shown(driver) -> dict:
    """What the page shows: each answer's snippet and marked text, the verdict, passages and timings."""
    return driver.execute_script("""
        const text = (node) => (node ? node.textContent : null);
        return {
          answers: [...document.querySelectorAll("#answers > li")].map((li) => ({
            snippet: text(li.querySelector(".snippet")), marked: [...li.querySelectorAll("mark")].map(text),
            before: text(li.querySelector(".snippet").firstChild),
            meta: text(li.querySelector(".meta"))})),
          verdict: text(document.getElementById("verdict")),
          retrieved: [...document.querySelectorAll("#retrieved > li")].map((li) => ({
            line: text(li), meta: text(li.querySelector(".meta")), text: text(li.querySelector("details .snippet"))})),
          timings: text(document.getElementById("timings")),
          status: text(document.getElementById("status")),
          elements: document.querySelectorAll("#result script, #result img, #result [onerror]").length,
          xss: typeof window.__xss,
        };""")


def policy_violations(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if "Content Security Policy" in e["message"]]


@needs_browser
def test_a_question_alone_shows_its_answer_highlighted_in_its_snippet(ui_server, driver):
    browser.ask(driver, ui_server.url + "ui", QUESTION, fields={"top_k": 2})
    page = shown(driver)
    reply = requests.post(ui_server.url, json={"question": QUESTION, "top_k": 2, "top_k_passages": 5,
                                               "passages": True}, timeout=30).json()
    assert page["status"] == "" and len(page["answers"]) == len(reply["answers"]) == 2
    for seen, answer in zip(page["answers"], reply["answers"]):
        assert seen["marked"] == [answer["text"]]
        if "snippet" in answer:  # the answer marked at its offsets in the reply's snippet
            assert seen["snippet"] == answer["snippet"]["text"]
            assert seen["before"] == answer["snippet"]["text"][:answer["snippet"]["start"]]
        for part in (answer["title"], answer["passage_id"], f"{answer['score']:.3f}"):
            assert part in seen["meta"]
    assert len(page["retrieved"]) == len(reply["retrieved"]) > 0
    for seen, passage in zip(page["retrieved"], reply["retrieved"]):
        assert passage["passage_id"] in seen["meta"] and seen["text"] == passage.get("text")
    assert page["verdict"].startswith("Answered")
    assert re.fullmatch(r"(\w+ [\d.]+ ms · )*total [\d.]+ ms", page["timings"]) and "retrieve" in page["timings"]
    assert not policy_violations(driver)


@needs_browser
def test_a_question_alone_can_be_kept_within_documents(ui_server, driver):
    only = "Jacksonville,_Florida"  # the sample's other article: the question is about the Normans
    browser.ask(driver, ui_server.url + "ui", QUESTION, fields={"documents": only, "top_k_passages": 3})
    page = shown(driver)
    reply = requests.post(ui_server.url, json={"question": QUESTION, "top_k_passages": 3, "documents": [only]},
                          timeout=30).json()
    assert {r["passage_id"].rsplit("-", 1)[0] for r in reply["retrieved"]} == {only}
    assert len(page["retrieved"]) == len(reply["retrieved"]) == 3
    for seen, passage in zip(page["retrieved"], reply["retrieved"]):
        assert passage["passage_id"] in seen["meta"]
    assert all(only in seen["meta"] for seen in page["answers"])


@needs_browser
def test_a_pasted_text_is_answered_and_its_answer_highlighted(ui_server, driver):
    context = "Rollo was a Viking leader. He founded the duchy of Normandy in 911 on the lower Seine."
    browser.ask(driver, ui_server.url + "ui", "Who founded the duchy?", context=context)
    page = shown(driver)
    reply = requests.post(ui_server.url, json={"question": "Who founded the duchy?", "context": context, "top_k": 3},
                          timeout=30).json()
    (answer, *_) = reply["answers"]
    (seen, *_) = page["answers"]
    assert seen["marked"] == [answer["text"]]
    # The reply's snippet, or (without one) the whole of this short text: the answer marked at its offsets.
    snippet = answer.get("snippet", {"text": context, "start": answer["start"]})
    assert seen["snippet"] == snippet["text"] and seen["before"] == snippet["text"][:snippet["start"]]
    assert page["retrieved"] == [], "nothing is retrieved for a pasted text"


@needs_browser
def test_markup_in_a_stored_passage_shows_as_text_and_never_runs(ui_server, driver):
    browser.ask(driver, ui_server.url + "ui", "Who designed the zorblax protocol?", fields={"top_k": 3})
    page = shown(driver)
    assert page["xss"] == "undefined" and page["elements"] == 0
    first = page["retrieved"][0]
    assert HOSTILE["title"] in first["meta"] and "hostile-0000" in first["meta"]
    if first["text"] is not None:  # the server returns passages' text ("passages": true)
        assert first["text"] == HOSTILE["text"]
    for answer in page["answers"]:
        if "hostile-0000" in answer["meta"]:
            assert answer["marked"][0] in HOSTILE["text"]
    assert not policy_violations(driver)


@needs_browser
def test_no_answer_is_shown_with_its_reason(ui_server, driver):
    browser.ask(driver, ui_server.url + "ui", "xyzzy plugh?")
    page = shown(driver)
    reply = requests.post(ui_server.url, json={"question": "xyzzy plugh?"}, timeout=30).json()
    assert reply["no_answer"]["abstained"] and reply["answers"] == []
    assert page["answers"] == [] and page["verdict"].startswith("No answer: " + reply["no_answer"]["reason"])
    assert [r["line"] for r in page["retrieved"]] == ["No stored passage matched."]


@needs_browser
def test_an_error_is_shown_with_its_reason(ui_server, driver):
    browser.ask(driver, ui_server.url + "ui", "   ")
    page = shown(driver)
    assert page["status"] == "Error 400: 'question' must not be empty"
