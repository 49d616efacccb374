"""The cascade (QA_CASCADE): a question asked alone reads its first passage first and stops there only when the
model is sure of a span in it; otherwise it reads the others and answers as reading them all at once does."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bench.in_process import ingest_into, open_service
from function.config import Settings
from function.http.parse import parse
from function.model.windows import WindowSpec, build_batch
from function.service import cascade
from function.service.inference import Ran
from tests.support.tiny import SAMPLE, sample_records, set_no_answer

SPEC = WindowSpec(max_seq_len=16, stride=3, max_query_tokens=5, cls_id=101, sep_id=102, pad_id=0)
THRESHOLD = 0.0  # the test artifact's no-answer threshold


@pytest.fixture(scope="module")
def artifact(tiny_artifact, tmp_path_factory):
    """The tiny artifact with a no-answer threshold, so that the cascade's margin rule and abstaining both apply."""
    import shutil

    folder = tmp_path_factory.mktemp("cascade") / "artifact"
    shutil.copytree(tiny_artifact.folder, folder)
    return set_no_answer(folder, THRESHOLD)


@pytest.fixture(scope="module")
def records():
    return sample_records()


@pytest.fixture(scope="module")
def questions(records):
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))["data"]
    return [qa["question"] for a in data for p in a["paragraphs"] for qa in p["qas"]][::7][:10]


@pytest.fixture
def services(artifact, tmp_path, records):
    """The cascade off and on, over one store; serial runs on one thread, so a window's logits are the same
    whichever run it is in."""
    env = {"QA_ARTIFACT_DIR": str(artifact), "QA_CACHE": "0", "QA_STORE": "sqlite",
           "QA_SQLITE_PATH": str(tmp_path / "p.sqlite"), "QA_INFERENCE_MODE": "serial", "QA_THREADS": "1"}
    off, on = open_service({**env, "QA_CASCADE": "0"}), open_service({**env, "QA_CASCADE": "1"})
    ingest_into(off, records)
    return off, on


def ask(service, question: str, **body):
    return service.answer(parse(json.dumps({"question": question, **body}).encode(), service.rt.settings, 30))


class Spy:
    """Stands in for ``Inference.run``: logits that say what each test wants of each passage, and which windows
    (by passage) every run was given."""

    def __init__(self, first: str, others: str = "unsure"):
        self.kinds = {0: first}
        self.others = others
        self.runs: list[list[int]] = []

    def __call__(self, model, batch):
        self.runs.append(batch.passage_index.tolist())
        start = np.zeros(batch.input_ids.shape, dtype=np.float32)
        end = np.zeros(batch.input_ids.shape, dtype=np.float32)
        cs = batch.context_start
        for w, p in enumerate(batch.passage_index.tolist()):
            kind = self.kinds.get(p, self.others)
            if kind == "sure":  # one span, far above [CLS] and every other token: p ~ 1, margin ~ -40
                start[w, cs], end[w, cs + 1] = 20.0, 20.0
            elif kind == "unanswerable":  # [CLS] far above every span: margin ~ +20
                start[w, 0], end[w, 0] = 10.0, 10.0
            elif kind == "unsure":  # a span, but the mass spread over two: p < 0.5, margin ~ -2 (answers)
                start[w, cs], start[w, cs + 1], end[w, cs + 1] = 1.0, 1.0, 1.0
            elif kind == "sure_but_empty":  # a sure span whose [CLS] is surer still: margin ~ +10
                start[w, 0], end[w, 0] = 25.0, 25.0
                start[w, cs], end[w, cs + 1] = 20.0, 20.0
        return Ran(start, end, 0.0)


def several_passages(service, questions) -> str:
    """A sample question that retrieves more than one passage (the cascade has something to skip), and whose first
    passage may settle it (no other holds more of its plain names: ``cascade.may_stop_first``)."""
    from function.retrieval.span_bias import plain_name_shares

    for q in questions:
        retrieved = ask(service, q, passages=True).payload["retrieved"]
        if len(retrieved) > 1 and cascade.may_stop_first(
                plain_name_shares(q, [(r["title"], r["text"]) for r in retrieved]), q):
            return q
    raise AssertionError("no sample question retrieves two passages with the first allowed to stop")


def read_at_once(off, on, question: str) -> None:
    """With a sure first passage and sure others, the cascade reads ``question``'s every window in one run, as the full
    read does, and answers as it does."""
    spy_on, spy_off = Spy("sure", "sure"), Spy("sure", "sure")
    on.rt.inference.run, off.rt.inference.run = spy_on, spy_off
    cascaded, full = ask(on, question), ask(off, question)
    assert spy_on.runs == spy_off.runs and len(spy_on.runs) == 1  # one run of every window, as the full read
    assert cascaded.passages_read == full.passages_read > 1
    assert cascaded.payload == full.payload


def test_the_setting_is_on_unless_turned_off():
    assert Settings.from_env({}).cascade is True
    assert Settings.from_env({"QA_CASCADE": "0"}).cascade is False


def test_a_confident_first_passage_is_read_alone(services, questions):
    off, on = services
    question = several_passages(off, questions)
    spy = on.rt.inference.run = Spy("sure")
    result = ask(on, question)
    assert spy.runs == [[0] * len(spy.runs[0])]  # one run, of the first passage's windows only
    assert result.passages_read == 1
    [top] = result.payload["answers"][:1]
    assert top["passage_id"] == result.payload["retrieved"][0]["passage_id"]
    assert result.payload["no_answer"]["abstained"] is False
    assert len(result.payload["retrieved"]) > 1  # the reply still lists every passage retrieved


@pytest.mark.parametrize("names, may_stop", [
    (None, True),  # the question gives no plain name
    ([1.0], True),  # one passage
    ([0.5, 0.5, 0.0], True),  # none holds more than the first
    ([0.5, 1.0, 0.0], False),  # the second holds more: the full read would weigh it up
    ([0.0, 0.0, 0.5], False),
])
def test_the_first_passage_may_stop_only_where_no_other_holds_more_of_the_question_s_plain_names(names, may_stop):
    assert cascade.may_stop_first(names) is may_stop


@pytest.mark.parametrize("question, may_stop", [
    ("Is SO_REUSEADDR on or off by default?", False),  # the full read weighs up a passage that writes one
    ("Are the bounds of irange inclusive or exclusive?", False),
    ("What does abs return for an int or a float?", True),  # offers words, asks no choice
    ("When is address reuse turned on?", True),
])
def test_a_question_that_asks_to_choose_reads_every_passage_at_once(question, may_stop):
    assert cascade.may_stop_first(None, question) is may_stop
    assert cascade.may_stop_first([1.0, 0.0], question) is may_stop


@pytest.mark.parametrize("question, may_stop", [
    ("Which function sets the swap interval for the current OpenGL context?", False),  # an API page names many
    ("Which property of a release object names the plugin that published it?", False),
    ("What option turns address reuse on?", False),
    ("Which setup() keyword maps command names to Command subclasses?", False),  # a call before the kind's noun
    ("Which country hosted the 1998 World Cup?", True),  # asks for no kind of name
    ("What does SortedDict.setdefault return?", True),
])
def test_a_question_that_asks_for_a_kind_of_name_reads_every_passage_at_once(question, may_stop):
    assert cascade.may_stop_first(None, question) is may_stop
    assert cascade.may_stop_first([1.0, 0.0], question) is may_stop


SSL = [("SSL Settings", "ssl_prefer_server_ciphers (boolean)\nSpecifies whether ... The default value is false."),
       ("SSL Settings", "ssl_ciphers (string)\nSpecifies a list of SSL cipher suites ... The default value is HIGH."),
       ("Release 3.4.23", "Add new configuration option ssl_prefer_server_ciphers.")]


@pytest.mark.parametrize("question, passages, may_stop", [
    ("What is the default of ssl_ciphers?", SSL, False),  # the second passage is the entry's, the first is not
    ("What is the default of ssl_ciphers?", [SSL[1], SSL[0]], True),  # the first is the entry's
    ("What is the default of ssl_ciphers?", [SSL[0], SSL[2]], True),  # no passage is the entry's
    ("What is the default of ssl_ciphers?", SSL[:1], True),  # one passage
    ("What is the default value of ssl_ciphers?", [("Settings", "ssl_ecdh_curve (string)"), ("ssl_ciphers", "...")],
     False),  # the entry named by a word of a title
    ("What does ssl_ciphers specify?", SSL, True),  # names no entry it asks a default or member of
])
def test_a_question_naming_an_entry_another_passage_is_reads_every_passage_at_once(question, passages, may_stop):
    assert cascade.may_stop_first(None, question, passages) is may_stop
    assert cascade.may_stop_first([1.0, 0.0, 0.0][:len(passages)], question, passages) is may_stop


def test_the_named_entry_s_reading_on_is_switched_off_with_owned(monkeypatch):
    monkeypatch.setattr(cascade, "OWNED", False)
    assert cascade.may_stop_first(None, "What is the default of ssl_ciphers?", SSL) is True


def test_a_sure_first_passage_reads_every_passage_at_once_where_another_is_the_entry_named(
        services, questions, monkeypatch):
    off, on = services
    question = several_passages(off, questions)
    seen = []

    def owns_elsewhere(q, passages):
        seen.append((q, passages))
        return True

    monkeypatch.setattr(cascade, "owns_elsewhere", owns_elsewhere)
    read_at_once(off, on, question)
    retrieved = ask(on, question, passages=True).payload["retrieved"]  # with each passage's text
    assert seen[0] == (question, [(r["title"], r["text"]) for r in retrieved])  # the passages read, titled


def test_a_sure_first_passage_reads_every_passage_at_once_where_another_holds_more_of_the_names(
        services, questions, monkeypatch):
    from function.retrieval import span_bias

    off, on = services
    question = several_passages(off, questions)
    monkeypatch.setattr(span_bias, "plain_name_shares", lambda q, passages: [0.0] + [1.0] * (len(passages) - 1))
    read_at_once(off, on, question)


@pytest.mark.parametrize("first", ["unsure", "unanswerable", "sure_but_empty"])
def test_an_unsure_first_passage_reads_on_and_answers_as_the_full_read(services, questions, first):
    off, on = services
    question = several_passages(off, questions)
    spy_on, spy_off = Spy(first, "sure"), Spy(first, "sure")
    on.rt.inference.run, off.rt.inference.run = spy_on, spy_off
    cascaded, full = ask(on, question), ask(off, question)
    assert len(spy_on.runs) == 2 and set(spy_on.runs[0]) == {0} and 0 not in spy_on.runs[1]
    assert spy_on.runs[0] + spy_on.runs[1] == spy_off.runs[0]  # every window, each once, in the full read's order
    assert cascaded.passages_read == full.passages_read == len(full.payload["retrieved"]) > 1
    assert cascaded.payload == full.payload
    assert full.payload["answers"][0]["passage_id"] != full.payload["retrieved"][0]["passage_id"]


def test_abstention_still_works_with_the_cascade_on(services, questions):
    off, on = services
    question = several_passages(off, questions)
    spy = on.rt.inference.run = Spy("unanswerable", "unanswerable")
    off.rt.inference.run = Spy("unanswerable", "unanswerable")
    cascaded, full = ask(on, question), ask(off, question)
    assert len(spy.runs) == 2  # the first passage looked unanswerable: the others were read too
    assert cascaded.payload["no_answer"]["abstained"] is True and cascaded.payload["answers"] == []
    assert cascaded.payload == full.payload
    # asked not to abstain, the best span is given, from every passage read
    assert ask(on, question, abstain=False).payload["answers"]


def test_with_the_tiny_model_the_cascade_answers_as_the_full_read_or_reads_one_passage(services, questions,
                                                                                        monkeypatch):
    off, on = services
    for question in questions:
        full = ask(off, question)
        assert ask(on, question).passages_read in (1, full.passages_read)
        monkeypatch.setattr(cascade, "settled", lambda *args, **kwargs: False)  # never sure: always reads on
        try:
            cascaded = ask(on, question)
        finally:
            monkeypatch.undo()
        assert cascaded.passages_read == full.passages_read
        assert [(a["text"], a["passage_id"]) for a in cascaded.payload["answers"]] == \
               [(a["text"], a["passage_id"]) for a in full.payload["answers"]]
        assert cascaded.payload["no_answer"] == pytest.approx(full.payload["no_answer"])


def test_settled_needs_a_likely_span_and_a_margin_below_both_limits():
    b = build_batch([11, 12], [np.arange(100, 108)], SPEC)
    cs = b.context_start
    start, end = np.zeros(b.input_ids.shape), np.zeros(b.input_ids.shape)
    start[0, cs], end[0, cs + 1] = 20.0, 20.0  # p ~ 1, margin -40
    assert cascade.settled(start, end, b, 30, THRESHOLD)
    assert not cascade.settled(start, end, b, 30, -50.0)  # the artifact's threshold is the stricter limit
    assert not cascade.settled(start, end, b, 30, None, max_margin=-50.0)
    assert not cascade.settled(start, end, b, 1, THRESHOLD)  # that span is too long: no sure span is left
    flat = np.zeros(b.input_ids.shape)
    assert not cascade.settled(flat, flat, b, 30, THRESHOLD)  # mass spread over every span
    # the same sure span, but across a blank line of its passage: as the answer would not, it does not settle
    across = [np.array([0, 0, 1, 1, 1, 1, 1, 1])]  # tokens 0-1 are one paragraph, 2-7 the next
    start[0, cs], end[0, cs + 1] = 0.0, 0.0
    start[0, cs + 1], end[0, cs + 2] = 20.0, 20.0
    assert cascade.settled(start, end, b, 30, THRESHOLD)
    assert not cascade.settled(start, end, b, 30, THRESHOLD, blocks=across)
    assert cascade.settled(start, end, b, 30, THRESHOLD, blocks=[np.zeros(8, dtype=np.int64)])


def test_a_first_passage_well_ahead_in_retrieval_settles_with_a_less_likely_span_but_never_a_no_answer_one():
    b = build_batch([11, 12], [np.arange(100, 108)], SPEC)
    cs = b.context_start
    start, end = np.zeros(b.input_ids.shape), np.zeros(b.input_ids.shape)
    start[0, cs:cs + 2], end[0, cs + 1:cs + 3] = 12.0, 12.0  # two likely starts and ends: p ~ 0.25, margin -24
    assert not cascade.settled(start, end, b, 30, THRESHOLD)
    assert not cascade.settled(start, end, b, 30, THRESHOLD, lead=cascade.MIN_LEAD - 0.01)
    assert cascade.settled(start, end, b, 30, THRESHOLD, lead=cascade.MIN_LEAD)
    start[0, 0], end[0, 0] = 40.0, 40.0  # [CLS] above every span: looks unanswerable, whatever retrieval says
    assert not cascade.settled(start, end, b, 30, THRESHOLD, lead=10.0)


def test_rows_and_first_windows_cut_a_batch_at_its_first_passage():
    b = build_batch([11], [np.arange(100, 120), np.arange(200, 205)], SPEC)
    n = cascade.first_windows(b)
    assert n >= 2 and b.passage_index[:n].tolist() == [0] * n and 0 not in b.passage_index[n:]
    first = b.rows(slice(0, n))
    assert len(first) == n and first.context_start == b.context_start
    assert np.array_equal(first.input_ids, b.input_ids[:n])


def test_a_lone_request_spread_over_the_cores_stops_or_reads_on_as_the_full_read(artifact, tmp_path, records,
                                                                                  questions, monkeypatch):
    """adaptive mode, 2 threads: the first passage's windows and the others' start together; a settled question
    keeps the first passage's answer, an unsettled one the full read's."""
    env = {"QA_ARTIFACT_DIR": str(artifact), "QA_CACHE": "0", "QA_STORE": "sqlite",
           "QA_SQLITE_PATH": str(tmp_path / "p.sqlite"), "QA_INFERENCE_MODE": "adaptive", "QA_THREADS": "2",
           "QA_SPREAD_WINDOWS": "1"}
    off, on = open_service({**env, "QA_CASCADE": "0"}), open_service({**env, "QA_CASCADE": "1"})
    ingest_into(off, records)
    on.rt.model()
    for question in questions:
        full = ask(off, question)
        monkeypatch.setattr(cascade, "settled", lambda *args, **kwargs: False)
        cascaded = ask(on, question)
        monkeypatch.setattr(cascade, "settled", lambda *args, **kwargs: True)
        monkeypatch.setattr(cascade, "may_stop_first", lambda *args: True)  # whatever names the passages hold
        stopped = ask(on, question)
        monkeypatch.undo()
        assert [(a["text"], a["passage_id"]) for a in cascaded.payload["answers"]] == \
               [(a["text"], a["passage_id"]) for a in full.payload["answers"]]
        assert cascaded.payload["no_answer"]["abstained"] == full.payload["no_answer"]["abstained"]
        assert cascaded.passages_read == full.passages_read
        assert stopped.passages_read == 1
        assert all(a["passage_id"] == stopped.payload["retrieved"][0]["passage_id"]
                   for a in stopped.payload["answers"])
    assert on.rt.inference.spread_runs  # some of them ran spread over the cores


def test_the_lead_is_the_first_retrieval_score_over_the_second_as_the_index_gave_them_not_as_the_reply_rounds():
    from function.service.pipeline import Reading

    tiny = Reading([], [], [], retrieved=[{"score": 0.0001}, {"score": 0.0001}], scores=[0.00013, 0.0001])
    assert tiny.lead() == pytest.approx(1.3)  # the reply's rounded scores would say 1.0
    assert Reading([], [], [], scores=[2.0]).lead() is None  # one passage: nothing to be ahead of
    assert Reading([], [], [], scores=[2.0, 0.0]).lead() is None
    assert Reading([], [], []).lead() is None  # a context or passage ids: no retrieval
