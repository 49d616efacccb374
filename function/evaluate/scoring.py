"""A reply scored against its question, and the figures of a set of them.

One reading of a reply for every evaluation (``python -m function.evaluate`` and the documentation benchmark):
its answer is the first span's text; it said "no answer" when it holds no span (the model abstained, or no
passage matched the question); EM and F1 are SQuAD's (``function.evaluate.metrics``), best over the acceptable
answers, and a reply without an answer scores 0. EM as written (``as_written``) keeps the case and punctuation that
SQuAD's normalisation drops, for answers that are code ("a" is not "-a").
"""

from __future__ import annotations

import statistics


def answer_text(payload: dict) -> str:
    """The reply's best answer, or "" when it has none."""
    return payload["answers"][0]["text"] if payload.get("answers") else ""


def said_no_answer(payload: dict) -> bool:
    return not payload.get("answers") or bool((payload.get("no_answer") or {}).get("abstained"))


def score(prediction: str, answers) -> tuple[float, float]:
    """(EM, F1) of a prediction, best over the answer forms (SQuAD normalisation); no prediction scores 0."""
    from function.evaluate.metrics import best_over_golds, exact_match, f1

    if not prediction:
        return 0.0, 0.0
    return best_over_golds(exact_match, prediction, answers), best_over_golds(f1, prediction, answers)


def as_written(prediction: str, answers) -> float:
    """1.0 where the prediction is one of the answer forms as written, case and punctuation kept (white space
    collapsed): documentation's answers are code, where "-a" is not "a" and "%O" not "%o", which SQuAD's
    normalisation (lower case, no punctuation, no articles) reads alike; no prediction scores 0."""
    got = " ".join(prediction.split())
    return float(bool(got) and any(got == " ".join(form.split()) for form in answers))


def percent(flags: list) -> float | None:
    """The share of true values (or the mean of 0..1 scores) in percent, None for none."""
    return round(100.0 * sum(flags) / len(flags), 2) if flags else None


def percentile(values: list[float], q: int) -> float | None:
    """The q-th percentile (inclusive method: p50 is the median), None for no values."""
    if not values:
        return None
    if len(values) == 1:
        return round(values[0], 1)
    return round(statistics.quantiles(values, n=100, method="inclusive")[q - 1], 1)


def figures(rows: list[dict], k: int) -> dict:
    """The figures of a run: EM, EM as written and F1 over the answerable questions, recall@k of the answer's
    document over those that name it, the "no answer" rate of answerable and of unanswerable questions, server time
    p50/p90, and for questions asked over HTTP the client's round trip p50/p90 (of the same replies as the server
    time: not of refused questions) and the answers the function's cache gave.

    Each row: ``answerable``, ``em``, ``em_as_written``, ``f1``, ``no_answer``, ``document_retrieved`` (None when
    the question names no document), ``server_ms`` (None for a question the function refused), ``error``, and
    optionally ``client_ms`` (the round trip over HTTP) and ``cache`` (the reply's: "hit" or "miss")."""
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    named = [r for r in answerable if r["document_retrieved"] is not None]
    times = [r["server_ms"] for r in rows if r["server_ms"] is not None]
    trips = [r["client_ms"] for r in rows if r["server_ms"] is not None and r.get("client_ms") is not None]
    return {
        "questions": len(rows), "answerable": len(answerable), "unanswerable": len(unanswerable),
        "exact_match": percent([r["em"] for r in answerable]), "f1": percent([r["f1"] for r in answerable]),
        "exact_match_as_written": percent([r["em_as_written"] for r in answerable]),
        "k": k, "with_document": len(named),
        "recall_at_k": round(sum(r["document_retrieved"] for r in named) / len(named), 4) if named else None,
        "no_answer_answerable": percent([r["no_answer"] for r in answerable]),
        "no_answer_unanswerable": percent([r["no_answer"] for r in unanswerable]),
        "server_ms_p50": percentile(times, 50), "server_ms_p90": percentile(times, 90),
        "client_ms_p50": percentile(trips, 50), "client_ms_p90": percentile(trips, 90),
        "cache_hits": sum(r.get("cache") == "hit" for r in rows),
        "errors": sum(r["error"] is not None for r in rows),
    }
