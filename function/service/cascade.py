"""The cascade (``QA_CASCADE``): a question asked alone reads its best-ranked passage first, and the rest only
when that passage does not settle it.

Reading all retrieved passages costs one model window or more per passage; for
most questions the passage BM25 ranks first holds the answer and the model says
so plainly. So the first passage's windows run alone, and the answer is taken
from them when both

- the reader's own probability of its best span there (``p_start * p_end``, each
  window normalised over its [CLS] and its passage tokens: the score of a
  ``passage_ids`` answer) is at least ``MIN_SPAN_PROBABILITY``, or retrieval
  ranks that passage well ahead of the next (its score at least ``MIN_LEAD``
  times the second passage's: ``lead``), and
- the no-answer margin of those windows (``decode.null_score``: [CLS] against
  the best span, raw logits) is at most ``MAX_MARGIN`` and at most the
  artifact's no-answer threshold, so a first passage that looks unanswerable
  never settles a question: the others are read, and abstaining is decided on
  all of them as without the cascade.

A question whose plain names another passage holds more of than the first
(``may_stop_first``) reads every passage at once: the full read's span ranking
weighs that passage up, so the first passage alone would not answer as it does.
So does a question that asks to choose between the answers it offers
(``sentence.choice``: "Is it on or off by default?"): the full read's ranking
weighs up a passage that writes one of them (``reader.ALTERNATIVE``), and the
first passage, however sure of its span, may write none. And a question that
asks which function, class, property or other kind of name (``reader.KIND_QUESTION``):
its first passage is often a list of many names, the reader sure of one of them,
and the rules that find the entry the question means weigh every passage read
(docs/retrieval.md, "A passage holding more of the question's names"). And a question that names the entry it asks
about (``reader.owned_by``: "What is the default of ssl_ciphers?") where the first passage is not that entry's and
another passage retrieved is (``reader.names_entry``; ``OWNED``): the full read's owned-entry rule may choose the
entry's passage, the first alone never would.

Otherwise the remaining passages' windows run, and the answer is decoded from
every window's logits exactly as a full read decodes them (each window runs at
its own length, ``function.model.unpadded``, so its logits do not depend on what
ran beside it). The thresholds were chosen on the SQuAD dev questions asked
alone, and since 2026-11-30 the probability and the margin on the documentation
benchmark's dev part too, SQuAD's F1 held (figures and the commands in
docs/retrieval.md, "Reading less: the cascade"), so the dev F1 of the cascade
is not an unbiased figure on either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from function.model.windows import Batch

MIN_SPAN_PROBABILITY = 0.7
MAX_MARGIN = -6.0
MIN_LEAD = 1.3
OWNED = True  # a question naming an entry another passage is, not the first, reads them all (owned-reads-all)


def first_windows(batch: Batch) -> int:
    """How many windows the first passage has (build_batch puts each passage's windows together, in order)."""
    return int((batch.passage_index == 0).sum())


def may_stop_first(names: list[float] | None, question: str | None = None,
                   passages: list[tuple[str | None, str]] | None = None) -> bool:
    """Whether the first passage may settle the question alone: no other passage read holds a larger share of the
    question's plain names (``names``: ``span_bias.plain_name_shares``; None: the question gives none), and the
    ``question`` does not ask to choose between answers it offers (``sentence.choice``). Where one does, the span
    ranking of the full read weighs that passage up (``span_bias.NAME_WEIGHT``, ``reader.ALTERNATIVE``), so the first
    passage's answer, however sure, is not the full read's: every window is read at once. So is a question that asks
    for a kind of name (``reader.KIND_QUESTION``: "Which function sets ...?"), whose first passage may name many,
    and one naming the entry it asks about where, of the retrieved ``passages`` ((title, text) each), another is that
    entry's and the first is not (``owns_elsewhere``)."""
    from function.model import reader, sentence

    if question is not None and (sentence.choice(question) or reader.KIND_QUESTION.search(question)):
        return False
    if OWNED and question is not None and passages is not None and owns_elsewhere(question, passages):
        return False
    return not names or len(names) < 2 or names[0] >= max(names[1:])


def owns_elsewhere(question: str, passages: list[tuple[str | None, str]]) -> bool:
    """Whether the entry ``question`` asks about (``reader.asked_owner``) is a retrieved passage's other than the
    first's: the first passage ((title, text)) is not that entry's and another is (``reader.names_entry``)."""
    from function.model import reader

    owner = reader.asked_owner(question)
    if owner is None or len(passages) < 2 or reader.names_entry(passages[0][1], passages[0][0], owner):
        return False
    return any(reader.names_entry(text, title, owner) for title, text in passages[1:])


def settled(start_logits: np.ndarray, end_logits: np.ndarray, batch: Batch, max_answer_tokens: int,
            no_answer_threshold: float | None, min_probability: float = MIN_SPAN_PROBABILITY,
            max_margin: float = MAX_MARGIN, blocks: list[np.ndarray] | None = None,
            lead: float | None = None) -> bool:
    """Whether these windows (the first passage's) settle the question: the model is sure of a span in them,
    or retrieval put their passage ``lead`` >= ``MIN_LEAD`` times the second's score and the model sees an answer
    there (the margin). ``blocks``: the passage's tokens' paragraphs (``decode.paragraphs``), so that, as in the
    answer, a span across a blank line does not count."""
    from function.model.decode import best_spans, null_score

    spans = best_spans(start_logits, end_logits, batch, 1, max_answer_tokens, blocks=blocks)
    if not spans or (spans[0].score < min_probability and (lead is None or lead < MIN_LEAD)):
        return False
    margin = null_score(start_logits, end_logits, batch, max_answer_tokens).margin
    limit = max_margin if no_answer_threshold is None else min(max_margin, no_answer_threshold)
    return margin <= limit
