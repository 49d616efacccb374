"""SQuAD 2.0-style evaluation: answerable and unanswerable questions, and the no-answer threshold.

There is no SQuAD 2.0 data here, so the unanswerable questions are built from
the v1.1 split: each question is asked again against a paragraph of *another
article* (seeded, so the set is the same on every run). Such a pairing is far
easier to spot than SQuAD 2.0's unanswerable questions, which crowd workers
wrote against the paragraph itself to look answerable; figures on this set are
an upper bound on what the model would do on SQuAD 2.0.

Scoring follows the SQuAD 2.0 evaluation: an unanswerable question scores 1
when the model abstains and 0 otherwise, an answerable one scores its EM/F1,
or 0 when the model abstains. Each question has a no-answer score (here
``function.model.reader.no_answer_margin``: null score minus best span score);
the model abstains where it is above a threshold, and the threshold that
maximises F1 over the set is the one the artifact records.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from build_model.evaluation.metrics import best_over_golds, exact_match, f1, normalize_answer
from build_model.squad import Question, SquadSplit

NO_ANSWER_SUFFIX = "-noans"
SWEEP_OFFSETS = (-2.0, -1.0, 0.0, 1.0, 2.0, 4.0)  # thresholds around the chosen one, to show the trade-off


def unanswerable_questions(split: SquadSplit, seed: int = 0, tries: int = 20,
                           same_article: bool = False) -> list[Question]:
    """Each question of ``split`` against a paragraph of another article, with no gold answer.

    The paragraph is drawn with ``random.Random(seed)``, in question order, so the
    set depends only on the split and the seed. A drawn paragraph whose text holds
    one of the question's gold answers (normalised) is drawn again, up to
    ``tries`` times, so that few of the "unanswerable" questions can in fact be
    answered from their paragraph. Ids are the question's id + ``-noans``.

    ``same_article``: another paragraph of the question's own article instead, a
    harder set (same topic, same names), for a second figure only: such a
    paragraph more often answers the question after all.
    """
    by_article: dict[str, list[str]] = {}
    for pid in split.paragraphs:
        by_article.setdefault(split.article_of(pid), []).append(pid)
    if not same_article and len(by_article) < 2:
        raise ValueError("unanswerable questions need paragraphs of at least two articles")
    paragraph_ids = list(split.paragraphs)
    normalised = {pid: f" {normalize_answer(p.context)} " for pid, p in split.paragraphs.items()}
    rng = random.Random(seed)
    out = []
    for q in split.questions:
        own = split.article_of(q.paragraph_id)
        if same_article:
            candidates = [pid for pid in by_article[own] if pid != q.paragraph_id]
            if not candidates:
                raise ValueError(f"article {own} has one paragraph: no other paragraph to ask {q.id} of")
        else:
            candidates = paragraph_ids
        golds = [f" {g} " for g in (normalize_answer(a) for a in q.answers) if g]
        chosen = None
        for _ in range(tries):
            pid = rng.choice(candidates)
            if split.article_of(pid) == own and not same_article:
                continue
            chosen = pid
            if not any(g in normalised[pid] for g in golds):
                break
        if chosen is None:  # only possible with very few foreign paragraphs: take the first one
            chosen = next(pid for pid in paragraph_ids if split.article_of(pid) != own)
        out.append(replace(q, id=q.id + NO_ANSWER_SUFFIX, paragraph_id=chosen, answers=(),
                           answer_start=-1, answer_text=""))
    return out


# -- metrics ------------------------------------------------------------------

def _raw_scores(predictions: Mapping[str, str], golds: Mapping[str, Sequence[str]]) -> dict[str, tuple[float, float]]:
    """Question id -> (EM, F1) of its prediction when the model answers (does not abstain)."""
    scores = {}
    for qid, answers in golds.items():
        pred = predictions.get(qid, "")
        if answers:
            scores[qid] = (best_over_golds(exact_match, pred, answers), best_over_golds(f1, pred, answers))
        else:  # unanswerable: only saying nothing is right
            scores[qid] = (float(not pred), float(not pred))
    return scores


def _at_threshold(scores: dict[str, tuple[float, float]], margins: Mapping[str, float],
                  golds: Mapping[str, Sequence[str]], threshold: float) -> dict:
    """EM/F1 (percent) overall, on answerable (HasAns) and on unanswerable (NoAns) questions."""
    sums = {"all": [0.0, 0.0, 0], "HasAns": [0.0, 0.0, 0], "NoAns": [0.0, 0.0, 0]}
    abstained = 0
    for qid, answers in golds.items():
        abstain = margins[qid] > threshold
        abstained += abstain
        em, f = (float(not answers),) * 2 if abstain else scores[qid]
        for group in ("all", "HasAns" if answers else "NoAns"):
            sums[group][0] += em
            sums[group][1] += f
            sums[group][2] += 1
    out: dict = {}
    for group, (em, f, n) in sums.items():
        prefix = "" if group == "all" else f"{group}_"
        out[f"{prefix}total"] = n
        if n:
            out[f"{prefix}exact"] = 100.0 * em / n
            out[f"{prefix}f1"] = 100.0 * f / n
    out["abstained"] = abstained
    return out


def best_threshold(scores: Mapping[str, float], margins: Mapping[str, float],
                   golds: Mapping[str, Sequence[str]], answered: Mapping[str, bool]) -> tuple[float, float]:
    """The threshold on ``margins`` that maximises the summed score, and that score in percent.

    The model abstains where ``margin > threshold``. Sweeping the questions by
    increasing margin, each threshold answers those up to it and abstains on the
    rest; starting from abstaining on everything (every unanswerable question
    right), answering one more question adds its score if it is answerable, and
    takes a point away if it is unanswerable and the model gave a span. Questions
    with equal margins move together. The smallest best threshold wins; "abstain
    on everything" is reported as a threshold one below the smallest margin.
    ``answered[qid]`` is whether the model gave a (non-empty) span.
    """
    if not golds:
        raise ValueError("no questions to score")
    order = sorted(golds, key=lambda q: margins[q])
    total = sum(1.0 for q in golds if not golds[q])
    best, best_thresh = total, margins[order[0]] - 1.0
    i = 0
    while i < len(order):
        m = margins[order[i]]
        while i < len(order) and margins[order[i]] == m:
            q = order[i]
            total += scores[q] if golds[q] else -float(answered[q])
            i += 1
        if total > best:
            best, best_thresh = total, m
    return 100.0 * best / len(golds), best_thresh


def squad2_scores(predictions: Mapping[str, str], margins: Mapping[str, float],
                  golds: Mapping[str, Sequence[str]], threshold: float = math.inf) -> dict:
    """SQuAD 2.0 metrics of predictions (the best span of each question) and their no-answer margins.

    ``golds[qid]`` is the question's gold answers, empty for an unanswerable one.
    ``exact``/``f1`` and the ``HasAns_``/``NoAns_`` figures are at ``threshold``
    (default: never abstain); ``best_exact``/``best_f1`` at the threshold that
    maximises each (``best_exact_thresh``/``best_f1_thresh``), and the figures at
    ``best_f1_thresh`` under ``at_best_f1``; ``f1_never_abstain`` and
    ``f1_always_abstain`` are the two trivial policies' F1.
    """
    raw = _raw_scores(predictions, golds)
    answered = {q: bool(predictions.get(q, "")) for q in golds}
    best_em, em_thresh = best_threshold({q: s[0] for q, s in raw.items()}, margins, golds, answered)
    best_f1, f1_thresh = best_threshold({q: s[1] for q, s in raw.items()}, margins, golds, answered)
    never = _at_threshold(raw, margins, golds, math.inf)
    return {**_at_threshold(raw, margins, golds, threshold),
            "f1_never_abstain": never["f1"], "f1_always_abstain": 100.0 * never["NoAns_total"] / len(golds),
            "best_exact": best_em, "best_exact_thresh": em_thresh,
            "best_f1": best_f1, "best_f1_thresh": f1_thresh,
            "at_best_f1": _at_threshold(raw, margins, golds, f1_thresh)}


def two_fold_f1(predictions: Mapping[str, str], margins: Mapping[str, float],
                golds: Mapping[str, Sequence[str]]) -> float:
    """F1 with the threshold chosen on the other half of the questions.

    ``best_f1`` chooses the threshold on the questions it scores, which flatters
    it; this is the same choice made out of sample. The halves alternate over
    the sorted question ids with ``-noans`` removed, so that a question and its
    unanswerable twin fall in the same half and both halves hold both kinds.
    """
    base = sorted({q.removesuffix(NO_ANSWER_SUFFIX) for q in golds})
    half = {b: i % 2 for i, b in enumerate(base)}
    halves = [[q for q in golds if half[q.removesuffix(NO_ANSWER_SUFFIX)] == h] for h in (0, 1)]
    if not all(halves):
        raise ValueError("two folds need at least two questions (and their twins)")
    got = 0.0
    for own, other in (halves, halves[::-1]):
        thresh = squad2_scores(predictions, margins, {q: golds[q] for q in other})["best_f1_thresh"]
        got += squad2_scores(predictions, margins, {q: golds[q] for q in own}, thresh)["f1"] * len(own)
    return got / len(golds)


def can_abstain(scores: Mapping) -> bool:
    """Whether abstaining at the best threshold beats both trivial policies: never and always abstaining.

    Beating "never" alone proves nothing: on a set that is half unanswerable,
    abstaining on everything already scores 50.
    """
    return scores["best_f1"] > max(scores["f1_never_abstain"], scores["f1_always_abstain"])


# -- running a model ----------------------------------------------------------

@dataclass(frozen=True)
class Prediction:
    text: str  # the best span ("" when the decoder found none)
    margin: float  # null score - best span score (``function.model.reader.no_answer_margin``)


def predict_with_margins(split: SquadSplit, questions: Sequence[Question], tok, spec, infer,
                         max_answer_tokens: int = 30) -> dict[str, Prediction]:
    """Question id -> its best span and no-answer margin, each question read against its paragraph."""
    from build_model.evaluation.evaluate import read_questions
    from function.model.reader import no_answer_margin

    return {r.question.id: Prediction(r.text, no_answer_margin(r.start_logits, r.end_logits, r.batch,
                                                               max_answer_tokens))
            for r in read_questions(split, questions, tok, spec, infer, max_answer_tokens)}


def evaluate_v2(split: SquadSplit, tok, spec, infer, max_answer_tokens: int = 30, seed: int = 0,
                same_article: bool = False, threshold: float | None = None) -> dict:
    """v1.1 EM/F1 on the split, and SQuAD 2.0 metrics with one unanswerable question per question.

    ``infer``: a ``Batch -> (start, end)`` callable (``build_model.evaluation.evaluate.Infer``).
    Returns ``{"v1": ..., "v2": ..., "threshold", "can_abstain", ...}``; ``threshold``
    is the F1-best one, the value the manifest records. With ``threshold`` given,
    ``at_given_threshold`` holds the figures at it (an artifact's recorded one, say).
    """
    from build_model.evaluation.metrics import squad_scores

    t0 = time.perf_counter()
    negatives = unanswerable_questions(split, seed, same_article=same_article)
    preds = predict_with_margins(split, [*split.questions, *negatives], tok, spec, infer, max_answer_tokens)
    texts = {q: p.text for q, p in preds.items()}
    margins = {q: p.margin for q, p in preds.items()}
    golds = {q.id: q.answers for q in split.questions} | {q.id: () for q in negatives}
    v1 = squad_scores({q.id: texts[q.id] for q in split.questions}, {q.id: q.answers for q in split.questions})
    v2 = squad2_scores(texts, margins, golds)
    v2["f1_two_fold"] = two_fold_f1(texts, margins, golds)
    sweep = []
    for offset in SWEEP_OFFSETS:
        at = squad2_scores(texts, margins, golds, v2["best_f1_thresh"] + offset)
        sweep.append({"offset": offset, "threshold": v2["best_f1_thresh"] + offset,
                      **{k: at[k] for k in ("exact", "f1", "HasAns_exact", "HasAns_f1", "NoAns_f1", "abstained")},
                      "HasAns_abstained": sum(margins[q.id] > v2["best_f1_thresh"] + offset for q in split.questions)})
    given = None
    if threshold is not None:
        given = {"threshold": threshold, **squad2_scores(texts, margins, golds, threshold)}
        for key in ("best_exact", "best_exact_thresh", "best_f1", "best_f1_thresh", "at_best_f1"):
            given.pop(key)
    return {
        "v1": {"exact_match": v1["exact_match"], "f1": v1["f1"], "questions": v1["questions"]},
        "at_given_threshold": given,
        "v2": v2,
        "threshold": v2["best_f1_thresh"],
        "can_abstain": can_abstain(v2),
        "sweep": sweep,
        "unanswerable": {"built_from": "each question against " + ("another paragraph of its article"
                                                                     if same_article else
                                                                     "a paragraph of another article"),
                         "seed": seed, "questions": len(negatives)},
        "max_answer_tokens": max_answer_tokens,
        "seconds": round(time.perf_counter() - t0, 1),
    }
