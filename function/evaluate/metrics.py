"""SQuAD v1.1 exact match and F1, with the official answer normalisation.

Normalisation: lower-case, remove punctuation, remove the articles a/an/the,
collapse white space. A prediction is scored against every gold answer and
keeps the best score; totals are percentages over questions.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

_PUNCT = set(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def exact_match(prediction: str, gold: str) -> float:
    return float(normalize_answer(prediction) == normalize_answer(gold))


def f1(prediction: str, gold: str) -> float:
    pred = normalize_answer(prediction).split()
    ref = normalize_answer(gold).split()
    if not pred or not ref:
        return float(pred == ref)
    common = Counter(pred) & Counter(ref)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision = same / len(pred)
    recall = same / len(ref)
    return 2 * precision * recall / (precision + recall)


def best_over_golds(metric, prediction: str, golds: Iterable[str]) -> float:
    return max(metric(prediction, g) for g in golds)


def squad_scores(predictions: Mapping[str, str], golds: Mapping[str, Sequence[str]]) -> dict:
    """EM and F1 (percent) over every question in ``golds``; a missing prediction scores 0."""
    if not golds:
        raise ValueError("no questions to score")
    em = f = 0.0
    for qid, answers in golds.items():
        pred = predictions.get(qid, "")
        em += best_over_golds(exact_match, pred, answers)
        f += best_over_golds(f1, pred, answers)
    n = len(golds)
    return {"exact_match": 100.0 * em / n, "f1": 100.0 * f / n, "questions": n}
