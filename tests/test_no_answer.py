"""Saying "no answer": the null score, SQuAD 2.0 metrics and threshold, the built unanswerable set,
the request option, the CLI that records the threshold, and the reply of a model that abstains."""

import copy
import itertools
import json
import math
import random
import shutil

import jsonschema
import numpy as np
import pytest
import requests
import yaml

from build_model import no_answer as cli
from build_model.evaluation.squad2 import (
    best_threshold,
    can_abstain,
    squad2_scores,
    two_fold_f1,
    unanswerable_questions,
)
from build_model.squad import Paragraph, Question, SquadSplit
from function.config import Settings
from function.errors import BadRequest
from function.http.parse import parse
from function.model.decode import best_spans, no_answer_probability, null_score, window_margins
from function.model.reader import PassageTokens, answers_from_logits, no_answer_verdict
from function.model.windows import WindowSpec, build_batch
from function.service.pipeline import abstains
from tests.support.tiny import set_no_answer

SPEC = WindowSpec(max_seq_len=16, stride=3, max_query_tokens=5, cls_id=101, sep_id=102, pad_id=0)


def logits(batch, start_hot=None, end_hot=None):
    start = np.zeros(batch.input_ids.shape, dtype=np.float32)
    end = np.zeros(batch.input_ids.shape, dtype=np.float32)
    for (w, pos), v in (start_hot or {}).items():
        start[w, pos] = v
    for (w, pos), v in (end_hot or {}).items():
        end[w, pos] = v
    return start, end


def brute_null_score(start, end, batch, max_len):
    """Per window, its [CLS] start + end and its best start + end of an allowed span; the window whose
    span beats its [CLS] by the most decides (the lowest [CLS] when no window has a span)."""
    cs, scored = batch.context_start, []
    for w in range(len(batch)):
        n, best = int(batch.context_len[w]), -math.inf
        for i, j in itertools.product(range(n), range(n)):
            if i <= j < i + max_len:
                best = max(best, float(start[w, cs + i]) + float(end[w, cs + j]))
        scored.append((float(start[w, 0]) + float(end[w, 0]), best))
    if all(best == -math.inf for _, best in scored):
        return min(null for null, _ in scored), -math.inf
    return min(scored, key=lambda ns: ns[0] - ns[1])


# -- the null score -------------------------------------------------------------

def test_the_margin_is_the_cls_score_minus_the_best_span_score():
    b = build_batch([11, 12], [np.arange(100, 108)], SPEC)  # one window, passage from position 4
    start, end = logits(b, {(0, 0): 5.0, (0, 4 + 2): 3.0}, {(0, 0): 4.0, (0, 4 + 5): 2.0})
    s = null_score(start, end, b, max_answer_tokens=30)
    assert (s.null, s.span, s.margin) == (9.0, 5.0, 4.0)
    assert null_score(start, end, b, max_answer_tokens=3).span == 3.0  # 2..5 is 4 tokens: too long now


def test_the_window_whose_span_beats_its_cls_by_the_most_decides():
    b = build_batch([11], [np.arange(100, 120), np.arange(200, 205)], SPEC)
    assert len(b) >= 3 and b.passage_index.tolist().count(0) >= 2
    last = len(b) - 1  # the second passage's window
    start, end = logits(b, {(0, 0): 6.0, (1, 0): 2.0, (last, 0): 9.0}, {(0, 0): 6.0, (1, 0): 1.0, (last, 0): 9.0})
    assert null_score(start, end, b).null == 3.0  # window 1: the one surest that an answer is there


def test_question_padding_and_reversed_positions_are_not_spans():
    b = build_batch([11, 12], [np.arange(100, 108), np.array([1, 2])], SPEC)
    # Huge logits on question tokens, separators and the short passage's padding; an end before a start.
    hot = {(0, 1): 50.0, (0, 3): 50.0, (1, 7): 50.0, (1, 10): 50.0}
    start, end = logits(b, {**hot, (0, 4 + 6): 20.0}, {**hot, (0, 4 + 1): 20.0})
    s = null_score(start, end, b)
    assert s.span == 20.0 and s.null == 0.0  # start 6 with an end >= 6 (0), or end 1 with a start <= 1
    assert brute_null_score(start, end, b, 30) == (s.null, s.span)


@pytest.mark.parametrize("seed", range(6))
def test_null_score_matches_brute_force_on_random_multi_window_batches(seed):
    rng = np.random.default_rng(seed)
    passages = [np.arange(int(rng.integers(1, 30))) + 100 for _ in range(int(rng.integers(1, 4)))]
    b = build_batch(list(range(11, 11 + int(rng.integers(1, 5)))), passages, SPEC)
    start = rng.normal(0, 3, b.input_ids.shape).astype(np.float32)
    end = rng.normal(0, 3, b.input_ids.shape).astype(np.float32)
    max_len = int(rng.integers(1, 8))
    s = null_score(start, end, b, max_len)
    null, span = brute_null_score(start, end, b, max_len)
    assert s.null == pytest.approx(null) and s.span == pytest.approx(span)
    # The best span decoded for the answer is the best raw span too (same constraints).
    [top] = best_spans(start, end, b, 1, max_len, passage_bias=np.zeros(len(passages)))
    cs = b.context_start
    raw = [float(start[w, cs + top.token_start - b.token_start[w]])
           + float(end[w, cs + top.token_end - b.token_start[w]])
           for w in range(len(b)) if b.passage_index[w] == top.passage
           and b.token_start[w] <= top.token_start and top.token_end < b.token_start[w] + b.context_len[w]]
    assert max(raw) == pytest.approx(window_margins(start, end, b, max_len)[1].max())


def test_spans_count_against_the_cls_score_of_their_own_window():
    """A passage sure that it holds no answer, beside one that holds a weak span: compared across
    windows (lowest [CLS] against highest span) the question looks answerable, window by window
    it does not, and the weak window's span is not offered where the request abstains."""
    b = build_batch([11], [np.arange(100, 105), np.arange(200, 205)], SPEC)
    assert len(b) == 2
    cs = b.context_start
    # window 0: [CLS] 10, span 9 (margin 1); window 1: [CLS] 0, span 0 (margin 0)
    start, end = logits(b, {(0, 0): 5.0, (0, cs + 1): 4.5}, {(0, 0): 5.0, (0, cs + 2): 4.5})
    s = null_score(start, end, b)
    assert (s.null, s.span, s.margin) == (0.0, 0.0, 0.0)  # across windows it would be 0 - 9 = -9
    v = no_answer_verdict(start, end, b, threshold=-3.0)
    assert v.above and not v.answering.any()
    v = no_answer_verdict(start, end, b, threshold=0.5)
    assert not v.above and v.answering.tolist() == [False, True]
    [only] = answers_from_logits(start, end, b, [PassageTokens(np.arange(5), np.stack([np.arange(5)] * 2, 1))] * 2,
                                 windows=v.answering)
    assert only.passage == 1
    [best] = answers_from_logits(start, end, b, [PassageTokens(np.arange(5), np.stack([np.arange(5)] * 2, 1))] * 2)
    assert best.passage == 0  # without the mask, the span that beats every other span


def test_the_probability_is_one_half_at_the_threshold_and_monotone():
    assert no_answer_probability(-2.0, -2.0) == 0.5
    ps = [no_answer_probability(m, 1.0) for m in (-1e6, -50, -1, 0, 1, 2, 50, 1e6, math.inf)]
    assert ps == sorted(ps) and ps[0] == 0.0 and ps[-1] == 1.0 and ps[3] < 0.5 < ps[5]
    assert no_answer_probability(3.0, 1.0) == pytest.approx(1 / (1 + math.exp(-2.0)))


# -- SQuAD 2.0 metrics and the threshold ------------------------------------------

def test_all_answerable_best_is_never_abstaining():
    golds = {"a": ("Paris",), "b": ("1066",), "c": ("blue",)}
    preds = {"a": "Paris", "b": "1066", "c": "red"}
    margins = {"a": -3.0, "b": 1.0, "c": 0.5}
    s = squad2_scores(preds, margins, golds)
    assert s["exact"] == s["f1"] == s["HasAns_f1"] == pytest.approx(200 / 3) and s["NoAns_total"] == 0
    assert s["best_f1"] == pytest.approx(200 / 3) and s["best_f1_thresh"] == 1.0  # answer everything
    assert s["f1_always_abstain"] == 0.0 and not can_abstain(s)


def test_all_unanswerable_best_is_abstaining_on_everything():
    golds = {"a": (), "b": (), "c": ()}
    preds = {"a": "x", "b": "y", "c": ""}  # an empty prediction is right even without abstaining
    margins = {"a": -1.0, "b": 2.0, "c": 0.0}
    s = squad2_scores(preds, margins, golds)
    assert s["f1"] == pytest.approx(100 / 3) and s["NoAns_exact"] == pytest.approx(100 / 3)
    assert s["best_f1"] == 100.0 and s["best_f1_thresh"] == -2.0  # one below the smallest margin
    assert s["at_best_f1"]["abstained"] == 3 and s["at_best_f1"]["NoAns_f1"] == 100.0


def test_mixed_questions_choose_the_threshold_that_maximises_the_sum():
    golds = {"qa": ("the Normans",), "qb": ("Rollo",), "qc": (), "qd": ()}
    preds = {"qa": "Normans", "qb": "Vikings", "qc": "France", "qd": "Seine"}
    margins = {"qa": -5.0, "qb": 1.0, "qc": 2.0, "qd": -1.0}
    s = squad2_scores(preds, margins, golds)
    assert s["f1"] == 25.0 and s["HasAns_f1"] == 50.0 and s["NoAns_f1"] == 0.0  # never abstaining
    assert (s["best_f1"], s["best_f1_thresh"]) == (75.0, -5.0)  # answer qa only
    at = s["at_best_f1"]
    assert (at["f1"], at["HasAns_f1"], at["NoAns_f1"], at["abstained"]) == (75.0, 50.0, 100.0, 3)
    assert s["f1_always_abstain"] == 50.0 and can_abstain(s)
    assert squad2_scores(preds, margins, golds, threshold=-5.0)["f1"] == 75.0


def test_questions_with_equal_margins_move_together():
    golds = {"right": ("x",), "wrong": ()}
    preds = {"right": "x", "wrong": "y"}
    margins = {"right": 0.0, "wrong": 0.0}  # no threshold answers one without the other
    s = squad2_scores(preds, margins, golds)
    assert (s["best_f1"], s["best_f1_thresh"]) == (50.0, -1.0)


@pytest.mark.parametrize("seed", range(5))
def test_the_best_threshold_is_the_best_of_every_threshold(seed):
    rng = random.Random(seed)
    golds, preds, margins = {}, {}, {}
    for i in range(40):
        answerable = rng.random() < 0.5
        golds[f"q{i}"] = ("alpha beta gamma",) if answerable else ()
        preds[f"q{i}"] = rng.choice(["alpha beta gamma", "alpha", "delta", ""])
        margins[f"q{i}"] = float(rng.randint(-4, 4))  # ties on purpose
    s = squad2_scores(preds, margins, golds)
    candidates = sorted(set(margins.values())) + [min(margins.values()) - 1.0]
    by_threshold = {t: squad2_scores(preds, margins, golds, t) for t in candidates}
    assert s["best_f1"] == pytest.approx(max(r["f1"] for r in by_threshold.values()))
    assert s["best_exact"] == pytest.approx(max(r["exact"] for r in by_threshold.values()))
    assert by_threshold[s["best_f1_thresh"]]["f1"] == pytest.approx(s["best_f1"])
    assert two_fold_f1(preds, margins, golds) <= s["best_f1"] + 1e-9


def test_best_threshold_needs_questions():
    with pytest.raises(ValueError):
        best_threshold({}, {}, {}, {})


def test_two_folds_keep_a_question_with_its_unanswerable_twin():
    golds = {f"q{i}": ("yes",) for i in range(6)} | {f"q{i}-noans": () for i in range(6)}
    preds = dict.fromkeys(golds, "yes")
    margins = {q: (5.0 if q.endswith("-noans") else -5.0) for q in golds}  # perfectly separable
    assert two_fold_f1(preds, margins, golds) == 100.0 == squad2_scores(preds, margins, golds)["best_f1"]


# -- the built unanswerable set ------------------------------------------------------

def split_of(articles: int = 3, paragraphs: int = 4) -> SquadSplit:
    paras = {f"{a}-{p}": Paragraph(f"{a}-{p}", f"T{a}", f"article {a} paragraph {p} word{a}x{p} shared answer")
             for a in range(articles) for p in range(paragraphs)}
    qs = [Question(f"id{a}{p}", f"{a}-{p}", f"what about {a} {p}?", (f"word{a}x{p}",), 0, f"word{a}x{p}")
          for a in range(articles) for p in range(paragraphs)]
    return SquadSplit(paras, qs)


def test_unanswerable_questions_are_asked_of_another_article_deterministically():
    split = split_of()
    built = unanswerable_questions(split, seed=3)
    assert len(built) == len(split.questions)
    for q, neg in zip(split.questions, built):
        assert neg.id == q.id + "-noans" and neg.question == q.question and neg.answers == ()
        assert split.article_of(neg.paragraph_id) != split.article_of(q.paragraph_id)
    assert [q.paragraph_id for q in built] == [q.paragraph_id for q in unanswerable_questions(split, seed=3)]
    assert [q.paragraph_id for q in built] != [q.paragraph_id for q in unanswerable_questions(split, seed=4)]


def test_a_paragraph_that_holds_the_gold_answer_is_drawn_again():
    split = split_of(articles=4, paragraphs=3)
    # Every paragraph of article 1 mentions article 0's answers: they are never chosen for those questions.
    paras = dict(split.paragraphs)
    for p in range(3):
        paras[f"1-{p}"] = Paragraph(f"1-{p}", "T1", "word0x0 word0x1 word0x2")
    split = SquadSplit(paras, split.questions)
    for seed in range(5):
        for neg in unanswerable_questions(split, seed)[:3]:
            assert split.article_of(neg.paragraph_id) in ("2", "3")


def test_the_harder_set_asks_another_paragraph_of_the_same_article():
    split = split_of()
    for q, neg in zip(split.questions, unanswerable_questions(split, seed=1, same_article=True)):
        assert neg.paragraph_id != q.paragraph_id
        assert split.article_of(neg.paragraph_id) == split.article_of(q.paragraph_id)


def test_one_article_cannot_make_unanswerable_questions():
    with pytest.raises(ValueError, match="two articles"):
        unanswerable_questions(split_of(articles=1))


# -- the request option -----------------------------------------------------------

S = Settings.from_env({})


def test_the_abstain_option_is_a_boolean_defaulting_to_the_artifact():
    def req(**extra):
        return parse(json.dumps({"question": "Who?", "context": "Him.", **extra}).encode(), S, 30)

    assert req().abstain is None and req(abstain=True).abstain is True and req(abstain=False).abstain is False
    assert req(abstain=None).abstain is None  # null is the same as leaving it out (openapi.yaml)
    supported = {"supported": True, "threshold": 0.0}
    assert abstains(req(), supported) and not abstains(req(), {**supported, "default": False})
    assert abstains(req(abstain=True), {**supported, "default": False}) and not abstains(req(abstain=False),
                                                                                          supported)


@pytest.mark.parametrize("value", ["1", "0", "\"true\"", "1.0", "[]", "{}"])
def test_an_abstain_that_is_not_a_json_boolean_is_a_400(value):
    body = f'{{"question": "q", "context": "x", "abstain": {value}}}'.encode()
    with pytest.raises(BadRequest, match="'abstain' must be true or false"):
        parse(body, S, 30)


# -- the CLI and a model that abstains ---------------------------------------------

@pytest.fixture
def artifact_copy(tiny_artifact, tmp_path):
    folder = tmp_path / "artifact"
    shutil.copytree(tiny_artifact.folder, folder)
    return folder


@pytest.fixture
def small_dev(repo, tmp_path):
    """The sample corpus cut down: the first 3 paragraphs of each of its two articles."""
    data = json.loads((repo / "samples" / "squad_sample.json").read_text())
    for article in data["data"]:
        article["paragraphs"] = article["paragraphs"][:3]
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(data))
    return path


def test_the_cli_measures_an_artifact_and_records_the_threshold(artifact_copy, small_dev, tmp_path, capsys):
    from function.model.artifact import load_manifest, verify

    before = load_manifest(artifact_copy)
    assert before.no_answer is None
    assert cli.main([str(artifact_copy), "--dev", str(small_dev), "--write", "--threads", "1",
                     "--json", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert "SQuAD v1.1" in out and "best threshold (F1)" in out and "can abstain" in out
    result = json.loads((tmp_path / "r.json").read_text())
    v2 = result["result"]["v2"]
    assert v2["HasAns_total"] == v2["NoAns_total"] == result["result"]["v1"]["questions"] > 0
    assert v2["best_f1"] >= max(v2["f1_never_abstain"], v2["f1_always_abstain"])
    after = load_manifest(artifact_copy)
    entry = after.raw["no_answer"]
    assert entry == result["no_answer"]
    assert entry["supported"] == result["result"]["can_abstain"] and isinstance(entry["threshold"], float)
    assert entry["chosen_on"]["file"] == "dev.json" and len(entry["chosen_on"]["sha256"]) == 64
    assert after.artifact_hash == before.artifact_hash  # the threshold does not change the model's identity
    verify(after)


def margins_of(folder, question: str, contexts: list[str]) -> list[float]:
    from function.model.artifact import load_manifest
    from function.model.load import load_model
    from function.model.reader import PassageTokens, prepare

    model, _ = load_model(load_manifest(folder), 1)
    q = model.tokenizer.encode(question).ids
    out = []
    for text in contexts:
        enc = model.tokenizer.encode(text)
        batch = prepare(q, [PassageTokens(enc.ids, enc.offsets)], model.spec)
        start, end = model.infer(batch)
        out.append(null_score(start, end, batch, 30).margin)
    return out


def response_validator(repo):
    doc = yaml.safe_load((repo / "function" / "http" / "openapi.yaml").read_text())

    def nullable(node):
        if isinstance(node, list):
            return [nullable(n) for n in node]
        if not isinstance(node, dict):
            return node
        node = {k: nullable(v) for k, v in node.items()}
        return {"anyOf": [node, {"type": "null"}]} if node.pop("nullable", False) else node

    components = nullable(copy.deepcopy(doc["components"]))
    return jsonschema.Draft7Validator({"$ref": "#/components/schemas/AnswerResponse", "components": components})


def test_a_model_that_abstains_says_no_answer_and_abstain_false_returns_the_span(artifact_copy, repo, tmp_path):
    from harness.launch import FunctionServer

    question = "Who ruled the duchy of Normandy?"
    contexts = [f"The {w} river flows past the old town of {w}ton, where {n} people lived in {y}."
                for w, n, y in (("Seine", "many", 1066), ("Loire", "few", 911), ("Rhine", "some", 1204),
                                ("Somme", "most", 1420), ("Meuse", "all", 1517), ("Orne", "none", 1944))]
    margins = margins_of(artifact_copy, question, contexts)
    order = np.argsort(margins)
    low, high = contexts[order[0]], contexts[order[-1]]
    assert margins[order[-1]] > margins[order[0]]
    threshold = (margins[order[0]] + margins[order[-1]]) / 2
    set_no_answer(artifact_copy, threshold)

    validate = response_validator(repo).validate
    srv = FunctionServer({"QA_ARTIFACT_DIR": str(artifact_copy), "QA_STORE": "sqlite",
                          "QA_SQLITE_PATH": str(tmp_path / "p.sqlite")}, tmp_path / "server.log").start()
    try:
        def ask(context, **extra):
            r = requests.post(srv.url, json={"question": question, "context": context, **extra}, timeout=30)
            assert r.status_code == 200, r.text
            validate(r.json())
            return r.json()

        none = ask(high)
        assert none["answers"] == [] and none["no_answer"]["abstained"] is True
        assert none["no_answer"]["probability"] > 0.5
        shown = ask(high, abstain=False)  # another cache key: the spans, with the same probability
        assert shown["cache"] == "miss" and shown["no_answer"] == {**none["no_answer"], "abstained": False}
        [answer] = shown["answers"]
        assert answer["text"] == high[answer["start"] : answer["end"]] and answer["text"]
        assert ask(high)["cache"] == "hit"

        found = ask(low)
        assert found["no_answer"]["abstained"] is False and found["no_answer"]["probability"] < 0.5
        assert len(found["answers"]) == 1
        bad = requests.post(srv.url, json={"question": question, "context": low, "abstain": "no"}, timeout=30)
        assert bad.status_code == 400 and "'abstain' must be true or false" in bad.json()["error"]["message"]
        logged = [line for line in srv.logs() if "abstained" in line]
        assert [line["abstained"] for line in logged] == [True, False, True, False]
    finally:
        srv.stop()


def test_a_model_without_no_answer_replies_as_before(tiny_artifact, tmp_path):
    from function.service.pipeline import QAService
    from function.service.qa_request import QARequest
    from function.service.runtime import Runtime

    service = QAService(Runtime(Settings.from_env({"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_CACHE": "0",
                                             "QA_SQLITE_PATH": str(tmp_path / "p.sqlite")})))
    for abstain in (None, True, False):
        payload = service.answer(QARequest("Who?", "Rollo, a Viking.", None, 1, 30, abstain=abstain)).payload
        assert set(payload) == {"answers", "model"} and len(payload["answers"]) == 1


def test_the_cli_refuses_to_record_a_threshold_chosen_on_the_same_article_set(artifact_copy, small_dev):
    with pytest.raises(SystemExit):
        cli.main([str(artifact_copy), "--dev", str(small_dev), "--write", "--same-article"])


def test_the_cli_records_a_moved_threshold_with_why_and_its_figures(artifact_copy, small_dev, tmp_path):
    """--shift: the F1-best threshold moved by a log-odds amount, recorded with where it came from and why."""
    import math

    from function.model.artifact import load_manifest

    assert cli.main([str(artifact_copy), "--dev", str(small_dev), "--write", "--threads", "1",
                     "--json", str(tmp_path / "best.json")]) == 0
    best = json.loads((tmp_path / "best.json").read_text())["no_answer"]
    assert cli.main([str(artifact_copy), "--dev", str(small_dev), "--write", "--threads", "1",
                     "--shift", str(-math.log(3)), "--shift-why", "records/x/RULE.md"]) == 0
    entry = load_manifest(artifact_copy).raw["no_answer"]
    assert entry["threshold"] == pytest.approx(best["threshold"] - math.log(3))
    assert entry["shifted"]["from"] == best["threshold"] and entry["shifted"]["why"] == "records/x/RULE.md"
    assert entry["metrics"] == best["metrics"]  # the best threshold's figures, as before
    moved = entry["shifted"]["at_threshold"]
    assert moved["total"] == 2 * best["chosen_on"]["answerable"] and 0 <= moved["f1"] <= 100
    with pytest.raises(SystemExit):  # a shift says why, and is recorded
        cli.main([str(artifact_copy), "--dev", str(small_dev), "--write", "--shift", "-1"])
    with pytest.raises(SystemExit):
        cli.main([str(artifact_copy), "--dev", str(small_dev), "--shift", "-1", "--shift-why", "x"])


# -- the threshold moved by retrieval's cosine (hybrid retrieval, questions asked alone) -----------------------

def test_the_no_answer_threshold_moves_with_the_best_cosine_of_the_passages_read():
    from function.retrieval.span_bias import NO_ANSWER_COSINE_AT, NO_ANSWER_COSINE_WEIGHT, no_answer_shift

    assert no_answer_shift([0.2, None, NO_ANSWER_COSINE_AT + 0.25]) == pytest.approx(NO_ANSWER_COSINE_WEIGHT * 0.25)
    assert no_answer_shift([NO_ANSWER_COSINE_AT - 0.1]) == pytest.approx(-NO_ANSWER_COSINE_WEIGHT * 0.1)
    assert no_answer_shift([None, None]) == 0.0 and no_answer_shift([]) == 0.0  # BM25 alone: no cosines


def test_the_share_of_the_question_s_terms_moves_it_further_where_the_cosine_moves_it():
    from function.retrieval.span_bias import NO_ANSWER_TERMS_AT, NO_ANSWER_TERMS_WEIGHT, no_answer_shift, term_share

    terms = ["normans", "ruled", "duchy", "1066"]
    passages = [("Normans", "The duchy was ruled from Rouen."), (None, "Nothing of it here, 1066 aside.")]
    assert term_share(terms, passages) == 0.75  # the best passage: three of the four, title included
    assert term_share(terms, [(None, "Rouen")]) == 0.0
    assert term_share([], passages) is None and term_share(terms, []) is None
    cosine = no_answer_shift([0.7])
    moved = cosine + NO_ANSWER_TERMS_WEIGHT * (0.75 - NO_ANSWER_TERMS_AT)
    assert no_answer_shift([0.7], share=0.75) == pytest.approx(moved)
    assert no_answer_shift([0.7], share=0.2) < cosine  # passages holding little of the question: refused sooner
    assert no_answer_shift([0.7], share=None) == cosine
    # where the cosine does not move it (BM25 alone), the share does not either
    assert no_answer_shift([None], share=1.0) == 0.0 and no_answer_shift([], share=1.0) == 0.0


def test_the_names_a_question_gives_are_identifiers_and_capitalised_words_after_its_first():
    from function.retrieval.span_bias import question_names

    assert question_names("How do I read a CSV file into a pandas DataFrame?") == ["CSV", "DataFrame"]
    assert question_names("What does os.getcwd() return?") == ["os.getcwd"]
    assert question_names("Which C++ flag enables HTTP2 in --max_size mode?") == ["C++", "HTTP2", "max_size"]
    assert question_names("Who sang with Beyonce in 2003?") == ["Beyonce", "2003"]
    # question words, "I" and a capitalised first word are not names; nor is a lower-case word
    assert question_names("Which function returns the current working directory?") == []
    assert question_names("How do I sign my commits? What is GPG?") == ["GPG"]
    assert question_names("Normans ruled which duchy?") == []
    # a question's "e.g." or "i.e." is no name (no passage need hold it), where a name holding one still is
    assert question_names("How do I switch off CSRF for one view, e.g. a webhook?") == ["CSRF"]
    assert question_names("Which flag sets the level, i.e. how much is logged?") == []
    assert question_names("What does numpy.e.g_func return?") == ["numpy.e.g_func"]


def test_a_name_the_passages_read_do_not_hold_lowers_the_threshold_where_the_cosine_moves_it():
    from function.retrieval.span_bias import NO_ANSWER_NAME_SHIFT, missing_name, no_answer_shift

    passages = [("Server settings", "The default port is 5000."), (None, "Set PORT=8080 to change it.")]
    assert missing_name("What is the default port of MySQL?", passages)
    assert not missing_name("What is the default PORT?", passages)  # case-folded: "port" is held
    assert not missing_name("What is the default port of the server?", passages)  # no name: nothing missing
    assert not missing_name("Which setting of Server settings holds the port?", passages)  # titles count
    assert not missing_name("What is the default port of MySQL?", [])
    # which names: as the question writes them, in its order; and back from their folded forms
    from function.retrieval.span_bias import as_written, missing_names

    assert missing_names("Is PORT the MySQL or the Postgres.app port?", passages) == ["MySQL", "Postgres.app"]
    assert missing_names("What is the default port of MySQL?", []) == []
    assert as_written("Is MySQL's port MySQL's?", {"mysql", "port"}) == ["MySQL"]  # names only, each once
    cosine = no_answer_shift([0.7], share=0.8)
    assert no_answer_shift([0.7], share=0.8, name_missing=True) == pytest.approx(cosine - NO_ANSWER_NAME_SHIFT)
    assert no_answer_shift([None], name_missing=True) == 0.0  # BM25 alone: nothing moves it


def test_a_shifted_threshold_decides_and_the_probability_follows_it():
    from function.service.pipeline import Reading, _no_answer
    from function.service.qa_request import QARequest

    b = build_batch([11, 12], [np.arange(100, 108)], SPEC)
    start, end = logits(b, {(0, 0): 5.0, (0, 4 + 2): 3.0}, {(0, 0): 4.0, (0, 4 + 5): 2.0})  # margin 4.0
    req = QARequest("q?", None, None, 1, 30, 5)
    for shift, abstained in [(0.0, True), (-1.0, True), (1.5, False)]:  # threshold 3.0 + shift against 4.0
        reading = Reading([], [], [], threshold_shift=shift)
        assert reading.threshold(None) is None  # an artifact without a threshold has nothing to move
        reply, windows = _no_answer(req, {"threshold": 3.0}, b, start, end, reading.threshold({"threshold": 3.0}))
        assert reply["abstained"] is abstained
        assert reply["probability"] == pytest.approx(no_answer_probability(4.0, 3.0 + shift), abs=1e-6)
        assert windows.tolist() == [not abstained]  # a window answers only at or below the moved threshold


def test_each_window_answers_by_its_own_threshold_where_it_has_one():
    """A threshold per window (a window whose document lacks a name the question gives answers by a lower one): a
    window sure of its span but below its own lower threshold does not answer, another does; where none does, the
    window nearest its own threshold says how sure "no answer" is."""
    b = build_batch([11], [np.arange(100, 105), np.arange(200, 205)], SPEC)
    assert len(b) == 2
    cs = b.context_start
    # window 0: [CLS] 0, best span 4 (margin -4); window 1: [CLS] 0, best span 2 (margin -2)
    start, end = logits(b, {(0, cs + 1): 2.0, (1, cs + 1): 1.0}, {(0, cs + 2): 2.0, (1, cs + 2): 1.0})
    one = no_answer_verdict(start, end, b, threshold=0.0)
    assert not one.above and one.answering.tolist() == [True, True]
    own = no_answer_verdict(start, end, b, threshold=np.array([-5.0, 0.0]))
    assert not own.above and own.answering.tolist() == [False, True]
    assert own.probability == pytest.approx(no_answer_probability(-2.0, 0.0))  # furthest below its own: window 1
    none = no_answer_verdict(start, end, b, threshold=np.array([-5.0, -2.5]))
    assert none.above and not none.answering.any()
    assert none.probability == pytest.approx(no_answer_probability(-2.0, -2.5))  # nearest its own: window 1
    same = no_answer_verdict(start, end, b, threshold=np.array([0.0, 0.0]))  # the same as one number
    assert (same.above, same.probability, same.answering.tolist()) == (one.above, one.probability, [True, True])


class _Searcher:
    """An index that holds the names in ``held`` ((document, term) pairs) and counts what it is asked."""

    def __init__(self, held=()):
        self.held, self.asked = set(held), []

    def document_holds(self, terms, doc_id, passage_id):
        self.asked.append((doc_id, tuple(terms)))
        return any((doc_id, t) in self.held for t in terms)


def _two_passages(lacking, named=False, held=()):
    from function.model.reader import PassageTokens
    from function.service.pipeline import DocumentNames, Reading

    b = build_batch([11], [np.arange(100, 105), np.arange(200, 205)], SPEC)
    cs = b.context_start
    start, end = logits(b, {(0, cs + 1): 2.0, (1, cs + 1): 1.0}, {(0, cs + 2): 2.0, (1, cs + 2): 1.0})  # -4, -2
    tokens = [PassageTokens(np.arange(5), np.stack([np.arange(5)] * 2, 1))] * 2
    searcher = _Searcher(held)
    reading = Reading(tokens, ["a", "b"], [{}, {}])
    reading.documents = DocumentNames(searcher, [("doc-a", "a#0000"), ("doc-b", "b#0000")], lacking, named)
    return reading, b, start, end, searcher


def test_a_window_whose_document_lacks_a_plain_name_the_question_gives_answers_by_a_lower_threshold():
    from function.retrieval.span_bias import NO_ANSWER_DOCUMENT_SHIFT, NO_ANSWER_NAME_SHIFT

    no_answer = {"threshold": 0.0}
    # passage 0 lacks "zanzibar" and so does its document: its window must clear the threshold by the shift
    reading, b, start, end, searcher = _two_passages([["zanzibar"], []])
    thresholds = reading.window_thresholds(no_answer, b, start, end, 30)
    assert thresholds.tolist() == [-NO_ANSWER_DOCUMENT_SHIFT, 0.0]
    assert searcher.asked == [("doc-a", ("zanzibar", "zanzibars", "zanzibares"))]  # plural forms count
    assert reading.documents.checks == 1
    assert no_answer_verdict(start, end, b, thresholds).answering.tolist() == [False, True]
    # ... where its document holds the name in another passage, it answers by the threshold as it was
    reading, b, start, end, searcher = _two_passages([["zanzibar"], []], held=[("doc-a", "zanzibars")])
    assert reading.window_thresholds(no_answer, b, start, end, 30) == 0.0
    # the question-wide rule moved every window by NO_ANSWER_NAME_SHIFT already: the rest is the document's, and a
    # window surer than that (margin -4 at the moved threshold - 4) is not asked about
    assert NO_ANSWER_DOCUMENT_SHIFT - NO_ANSWER_NAME_SHIFT == 4.0
    reading, b, start, end, searcher = _two_passages([["zanzibar"], ["zanzibar"]], named=True)
    thresholds = reading.window_thresholds(no_answer, b, start, end, 30)
    assert thresholds.tolist() == [0.0, -4.0] and searcher.asked == [("doc-b", ("zanzibar", "zanzibars", "zanzibares"))]
    # a passage that holds every name is never asked about; a window already refused neither
    reading, b, start, end, searcher = _two_passages([[], ["zanzibar"]])
    assert reading.window_thresholds({"threshold": -3.0}, b, start, end, 30) == -3.0 and searcher.asked == []


def test_a_question_s_plain_names_a_passage_lacks_and_the_terms_a_document_holding_one_has():
    from function.retrieval.span_bias import name_terms, plain_names_lacking

    passages = [("Doctor Who", "The series was revived in 2005."), (None, "Los Angeles hosted it.")]
    assert plain_names_lacking("Who produced the Doctor Who revival in Los Angeles?", passages) == [
        ["los", "angeles"], ["doctor"]]
    # a code-shaped name is left out ("String::len"): documentation writes a member apart from its owner
    assert plain_names_lacking("What does String::len return in Rust?", passages) == [["rust"], ["rust"]]
    assert plain_names_lacking("What does String::len return?", passages) is None
    # a name that starts with a capital is plain however it is cased inside ("MySQL": documents write it whole);
    # camelCase that starts lower-case is code ("getUser")
    assert plain_names_lacking("What is the default port of MySQL?", passages) == [["mysql"], ["mysql"]]
    assert plain_names_lacking("What does getUser return?", passages) is None
    assert plain_names_lacking("who won?", passages) is None
    assert name_terms("angeles") == ["angeles", "angeless", "angeleses"] and name_terms("jean-paul") == ["jean", "paul"]
