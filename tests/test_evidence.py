"""Evidence in every answer: each answer's ``snippet`` holds it at its offsets, and a question asked alone
can have the retrieved passages' texts (``"passages": true``).

First the cutting (``function.service.snippet``) on its own, then every path through the service (a
tiny model, an embedded store), a cached reply against a fresh one, and the request's rules.
"""

from __future__ import annotations

import json
import re

import pytest
import requests
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from function.config import Settings
from function.errors import BadRequest
from function.http.parse import parse
from function.service.qa_request import QARequest
from function.service.snippet import SNIPPET_CHARS, snippet
from tests.support.fuzz import examples

LONG_WORD = "x" * 400  # longer than the bound, and one [UNK] token: an answer longer than the bound
CORPUS = {  # passage id -> text; every passage mentions Normandy, so a question alone retrieves them all
    "normans": " ".join(["The Normans were the people who in the 10th and 11th centuries gave their name to",
                         "Normandy, a region in France. They were descended from Norse raiders and pirates",
                         "from Denmark, Iceland and Norway who, under their leader Rollo, agreed to swear",
                         "fealty to King Charles III of West Francia."] * 3),
    "unicode": ("Caf\u00e9 cre\u0300me in Normandy \U0001f9c0, fromage \u00e0 la cre\u0301me; "
                "\u0627\u0644\u0646\u0648\u0631\u0645\u0627\u0646\u062f\u064a; \u8bfa\u66fc\u5e95; "
                "\U0001f469\u200d\U0001f469\u200d\U0001f467 family\u00a0trip\tto  Rouen.\n" * 4),
    "short": "Rollo ruled Normandy.",
    "long-word": f"Rollo of Normandy {LONG_WORD} ruled",
}


def located(answer: dict, source: str) -> None:
    """The answer's snippet is the stretch of ``source`` around it, bounded, with the answer at its offsets."""
    s = answer["snippet"]
    assert set(s) == {"text", "start", "end"}
    assert s["text"][s["start"] : s["end"]] == answer["text"] == source[answer["start"] : answer["end"]]
    begin = answer["start"] - s["start"]
    assert begin >= 0 and source[begin : begin + len(s["text"])] == s["text"]
    assert len(s["text"]) <= max(SNIPPET_CHARS, len(answer["text"]))


def cut_at(text: str, lo: int, hi: int) -> tuple[bool, bool]:
    """Whether a snippet ``text[lo:hi]`` begins and ends between words (or at the text's edges)."""
    return (lo == 0 or text[lo - 1].isspace()) and not text[lo].isspace(), \
        (hi == len(text) or text[hi].isspace()) and not text[hi - 1].isspace()


# ---- the cutting ------------------------------------------------------------------------------

def test_a_passage_shorter_than_the_bound_is_its_own_snippet():
    text = CORPUS["short"]
    assert snippet(text, 6, 11) == {"text": text, "start": 6, "end": 11}
    assert snippet(text, 0, len(text)) == {"text": text, "start": 0, "end": len(text)}


def test_an_answer_at_the_very_start_or_end_of_a_long_passage():
    text = CORPUS["normans"]
    first = snippet(text, 0, 3)  # "The"
    assert first["start"] == 0 and first["text"].startswith("The Normans") and cut_at(text, 0, len(first["text"]))[1]
    assert SNIPPET_CHARS - 12 <= len(first["text"]) <= SNIPPET_CHARS  # the budget goes to the side there is
    last = snippet(text, len(text) - 8, len(text))  # "Francia."
    lo = len(text) - len(last["text"])
    assert text.endswith(last["text"]) and last["text"][last["start"] : last["end"]] == "Francia."
    assert cut_at(text, lo, len(text))[0] and SNIPPET_CHARS - 12 <= len(last["text"]) <= SNIPPET_CHARS


def test_context_is_shared_between_both_sides_and_cut_between_words():
    text = CORPUS["normans"]
    start = text.index("Rollo", 300)
    s = snippet(text, start, start + 5)
    lo = start - s["start"]
    before, after = s["start"], len(s["text"]) - s["end"]
    assert abs(before - after) <= 12 and SNIPPET_CHARS - 12 <= len(s["text"]) <= SNIPPET_CHARS
    assert cut_at(text, lo, lo + len(s["text"])) == (True, True)


def test_an_answer_at_the_bound_or_longer_is_its_own_snippet():
    text = "a b " + "w" * 500 + " c d"
    assert snippet(text, 4, 504) == {"text": "w" * 500, "start": 0, "end": 500}
    exact = "a " + "y" * 10 + " b"
    assert snippet(exact, 2, 12, bound=10) == {"text": "y" * 10, "start": 0, "end": 10}


def test_only_a_word_longer_than_the_bound_is_cut_inside_and_never_inside_a_character():
    text = "Rollo " + "e\u0301" * 300 + " ruled"  # one word of 600 code points: e + combining acute
    s = snippet(text, 0, 5)
    assert s["text"].startswith("Rollo e\u0301") and len(s["text"]) <= SNIPPET_CHARS
    assert s["text"][-1] == "\u0301"  # cut inside the long word, after a whole accented letter
    family = "\U0001f469\u200d\U0001f467"  # woman, joiner, girl: one emoji
    text = "Rollo " + family * 200
    s = snippet(text, 0, 5)
    assert s["text"].endswith("\U0001f467") and len(s["text"]) <= SNIPPET_CHARS
    # a word that would fit on its own but not beside the answer stays whole: it is left out
    text = "answer " + "z" * 295
    assert snippet(text, 0, 6)["text"] == "answer"


words = st.lists(st.text(st.characters(blacklist_categories=["Cs", "Zs", "Zl", "Zp", "Cc"]), min_size=1,
                         max_size=14), min_size=1, max_size=120)
gaps = st.sampled_from([" ", "  ", "\n", "\t", "\u00a0", " \n "])


@settings(max_examples=examples(300), deadline=None)
@given(words=words, gap=gaps, data=st.data())
def test_any_text_keeps_the_answer_at_its_offsets_and_cuts_between_words(words, gap, data):
    text = gap.join(words)
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    s = snippet(text, start, end)
    located({"text": text[start:end], "start": start, "end": end, "snippet": s}, text)
    lo, hi = start - s["start"], start - s["start"] + len(s["text"])
    begins, ends = cut_at(text, lo, hi)  # words of at most 14 characters are never cut, but the answer may be
    assert begins or lo == start
    assert ends or hi == end
    if end - start < SNIPPET_CHARS and (lo > 0 or hi < len(text)):  # text left out: the next word did not fit
        assert len(s["text"]) > SNIPPET_CHARS - (14 + len(gap))


# ---- every path through the service -------------------------------------------------------------

@pytest.fixture(scope="module")
def store_env(tiny_artifact, tmp_path_factory):
    from function.ingest.cli import main as ingest_main

    folder = tmp_path_factory.mktemp("evidence")
    corpus = folder / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": pid, "title": pid.title(), "doc_id": f"doc-{pid}", "text": text},
                                         ensure_ascii=False) + "\n" for pid, text in CORPUS.items()))
    env = {"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_STORE": "sqlite",
           "QA_SQLITE_PATH": str(folder / "p.sqlite")}
    assert ingest_main([str(corpus), "--quiet", "--store", "sqlite", "--sqlite-path", env["QA_SQLITE_PATH"],
                        "--artifact", env["QA_ARTIFACT_DIR"]]) == 0
    return env


def service_of(env: dict, **overrides: str):
    from function.service.pipeline import QAService
    from function.service.runtime import Runtime

    return QAService(Runtime(Settings.from_env({**env, **overrides})))


@pytest.fixture(scope="module")
def service(store_env):
    return service_of(store_env, QA_CACHE="0")


def ask(service, question: str, **fields) -> dict:
    fields.setdefault("top_k", 10)
    body = json.dumps({"question": question, **fields}).encode()
    return service.answer(parse(body, service.rt.settings, 30)).payload


def stored(service, ids) -> dict[str, str]:
    return {pid: p.text for pid, p in service.rt.store().get_many(list(ids)).items()}


def test_answers_from_stored_passages_carry_their_snippets(service):
    texts = stored(service, CORPUS)
    assert texts == CORPUS
    payload = ask(service, "Who ruled Normandy?", passage_ids=list(CORPUS), max_answer_tokens=8)
    assert len(payload["answers"]) == 10
    for answer in payload["answers"]:
        located(answer, texts[answer["passage_id"]])


def test_answers_to_a_question_alone_carry_their_snippets(service):
    payload = ask(service, "Who ruled Normandy?", top_k_passages=4)
    assert {r["passage_id"] for r in payload["retrieved"]} == set(CORPUS)
    assert payload["answers"] and all("text" not in r for r in payload["retrieved"])  # texts only when asked
    for answer in payload["answers"]:
        located(answer, CORPUS[answer["passage_id"]])


@settings(max_examples=examples(40), deadline=None)
@given(context=st.lists(st.sampled_from(["Rollo", "ruled", "Normandy", "caf\u00e9", "cre\u0300me", "\U0001f9c0",
                                         "\U0001f469\u200d\U0001f467", "\u0627\u0644\u0646\u0648\u0631",
                                         "\u8bfa\u66fc\u5e95", "\u00a0", "\t", "x" * 120, "a.b,c"]),
                        max_size=80).map(lambda words: " ".join(["Rollo", *words])))
def test_answers_from_a_context_carry_their_snippets_whatever_its_characters(service, context):
    for answer in ask(service, "Who ruled Normandy?", context=context, max_answer_tokens=12)["answers"]:
        located(answer, context)


def test_answers_at_either_edge_of_a_passage_and_an_answer_longer_than_the_bound(service):
    context = "Rollo ruled"
    answers = ask(service, "Who?", context=context)["answers"]
    assert {(a["start"], a["end"]) for a in answers} == {(0, 5), (6, 11), (0, 11)}  # every span of two words
    assert all(a["snippet"] == {"text": context, "start": a["start"], "end": a["end"]} for a in answers)
    [answer] = ask(service, "Who?", context=LONG_WORD, top_k=1)["answers"]  # one [UNK] token of 400 characters
    assert answer["text"] == LONG_WORD and answer["snippet"] == {"text": LONG_WORD, "start": 0, "end": 400}


def test_passages_true_returns_the_stored_passages_texts_and_documents(service):
    payload = ask(service, "Who ruled Normandy?", top_k_passages=4, passages=True)
    retrieved = payload["retrieved"]
    assert {r["passage_id"] for r in retrieved} == set(CORPUS)
    assert {r["passage_id"]: r["text"] for r in retrieved} == stored(service, CORPUS)
    assert all(r["document_id"] == f"doc-{r['passage_id']}" and r["title"] == r["passage_id"].title()
               for r in retrieved)
    plain = ask(service, "Who ruled Normandy?", top_k_passages=4)
    assert [{k: r[k] for k in ("passage_id", "title", "score")} for r in retrieved] == plain["retrieved"]
    assert payload["answers"] == plain["answers"]


def test_a_cached_reply_equals_a_fresh_one_and_passages_is_part_of_its_key(store_env):
    service = service_of(store_env, QA_CACHE="1", QA_CACHE_SHARED="0")
    for fields in ({"context": CORPUS["normans"]}, {"passage_ids": ["normans", "unicode"]}, {}):
        fresh, again = (service.answer(parse(json.dumps({"question": "Who ruled Normandy?", **fields}).encode(),
                                             service.rt.settings, 30)) for _ in range(2))
        assert (fresh.cache, again.cache) == ("miss", "hit") and again.payload == fresh.payload
        assert fresh.payload["answers"] and all("snippet" in a for a in fresh.payload["answers"])
    request = {"question": "Who ruled Normandy?", "passages": True}
    with_texts = service.answer(parse(json.dumps(request).encode(), service.rt.settings, 30))
    assert with_texts.cache == "miss" and all("text" in r for r in with_texts.payload["retrieved"])
    assert service.answer(parse(json.dumps(request).encode(), service.rt.settings, 30)).payload == with_texts.payload


# ---- the request's rules, and the contract -----------------------------------------------------

S = Settings.from_env({})


@pytest.mark.parametrize("fields", [{"context": "Him."}, {"passage_ids": ["a"]}])
@pytest.mark.parametrize("value", [True, False])
def test_passages_is_refused_with_a_context_or_passage_ids(fields, value):
    body = json.dumps({"question": "Who?", **fields, "passages": value}).encode()
    with pytest.raises(BadRequest, match="'passages' is for questions without 'context' or 'passage_ids'") as e:
        parse(body, S, 30)
    assert e.value.http_status == 400


def test_passages_is_a_nullable_boolean_off_by_default():
    def request(**fields) -> QARequest:
        return parse(json.dumps({"question": "Who?", **fields}).encode(), S, 30)

    assert request().passages is False and request(passages=None) == request()
    assert request(passages=True).passages is True
    assert request(context="Him.", passages=None).passages is False
    for bad in ("true", 1, [True]):
        with pytest.raises(BadRequest, match="'passages' must be true or false"):
            request(passages=bad)


def test_over_http_an_answer_has_its_snippet_and_passages_with_a_context_is_a_json_400(local_service):
    context = "Rollo, a Viking leader, ruled Normandy."
    ok = requests.post(local_service, json={"question": "Who ruled?", "context": context, "top_k": 3}, timeout=60)
    assert ok.status_code == 200
    for answer in ok.json()["answers"]:
        located(answer, context)
    bad = requests.post(local_service, json={"question": "Who?", "context": context, "passages": True}, timeout=60)
    assert bad.status_code == 400 and bad.headers["Content-Type"] == "application/json"
    assert bad.json()["error"]["status"] == "INVALID_ARGUMENT" and "'passages'" in bad.json()["error"]["message"]


def test_the_contract_states_the_snippets_bound_and_requires_it(repo):
    schemas = yaml.safe_load((repo / "function" / "http" / "openapi.yaml").read_text())["components"]["schemas"]
    assert "snippet" in schemas["Answer"]["required"]
    assert re.search(rf"\bAt most {SNIPPET_CHARS} characters\b", schemas["Snippet"]["description"])
    passages = schemas["AnswerRequest"]["properties"]["passages"]
    assert (passages["type"], passages["nullable"], passages["default"]) == ("boolean", True, False)
    assert {"text", "document_id", "source"} <= set(schemas["Retrieved"]["properties"])
