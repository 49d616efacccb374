"""SQuAD v1.1 EM/F1 on hand-made cases (the official normalisation and max over golds)."""

from __future__ import annotations

import pytest

from build_model.evaluation.metrics import best_over_golds, exact_match, f1, normalize_answer, squad_scores


@pytest.mark.parametrize("text, expected", [
    ("The Eiffel Tower", "eiffel tower"),  # case and the article "the"
    ("an apple, a pear.", "apple pear"),  # articles and punctuation
    ("  New\tYork \n City ", "new york city"),  # white space collapses
    ("Theatre and Anthem", "theatre and anthem"),  # articles only as whole words
    ("U.S.A.", "usa"),
    ("", ""),
    ("the a an", ""),
])
def test_normalisation(text, expected):
    assert normalize_answer(text) == expected


def test_exact_match_ignores_case_punctuation_and_articles():
    assert exact_match("The Normans.", "normans") == 1.0
    assert exact_match("Normans of France", "Normans") == 0.0


def test_f1_counts_shared_tokens():
    # prediction "rollo the viking" -> [rollo, viking]; gold "rollo" -> precision 1/2, recall 1
    assert f1("Rollo the Viking", "Rollo") == pytest.approx(2 * 0.5 * 1.0 / 1.5)
    assert f1("in 911", "911 AD") == pytest.approx(0.5)
    assert f1("north france", "Normandy") == 0.0


def test_f1_counts_repeated_tokens_once_per_match():
    # common = min(counts): "paris paris" vs "paris" shares one token
    assert f1("paris paris", "paris") == pytest.approx(2 * 0.5 * 1.0 / 1.5)


def test_empty_strings():
    assert f1("", "") == 1.0
    assert f1("", "Rollo") == 0.0
    assert f1("Rollo", "") == 0.0
    assert f1("the", "a") == 1.0  # both normalise to nothing
    assert exact_match("", "") == 1.0


def test_best_over_golds_keeps_the_best_score():
    golds = ["Denmark, Iceland and Norway", "Denmark", "Iceland"]
    assert best_over_golds(exact_match, "denmark", golds) == 1.0
    assert best_over_golds(f1, "Norway", golds) == pytest.approx(2 * 1.0 * 0.25 / 1.25)


def test_squad_scores_are_percentages_and_missing_predictions_score_zero():
    golds = {"q1": ["Rollo"], "q2": ["in 911", "911"], "q3": ["Normandy"]}
    preds = {"q1": "Rollo", "q2": "911 AD"}  # q3 missing
    scores = squad_scores(preds, golds)
    assert scores["questions"] == 3
    assert scores["exact_match"] == pytest.approx(100 / 3)
    # q1: 1, q2: max(f1("911 ad", "in 911") = 0.5, f1("911 ad", "911") = 2/3), q3: 0
    assert scores["f1"] == pytest.approx(100 * (1 + 2 / 3) / 3)


def test_squad_scores_needs_questions():
    with pytest.raises(ValueError):
        squad_scores({}, {})
