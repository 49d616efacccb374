"""Benchmark passages: SQuAD text cut so that question + passage fill one window of a given length.

A window is ``[CLS] question [SEP] passage [SEP]``, so a passage for an
``L``-token window has at most ``L - len(question) - 3`` tokens; the text is
cut after the last whole word that fits (a cut at white space tokenises to
exactly the first tokens of the uncut text), so each passage is one window of
about ``L`` tokens, never two.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from harness.paths import SAMPLE  # SQuAD v1.1 excerpt, CC BY-SA 4.0

QUESTION = "In what country is Normandy located?"  # its answer (France) is in the first sentence
ARTICLE = "Normans"


def whole_word_tokens(offsets: Sequence[Sequence[int]], limit: int) -> int:
    """The most tokens, at most ``limit``, that end at a word boundary.

    Token ``k`` starts a new word when white space separates it from token
    ``k - 1`` (word pieces and punctuation start where the previous token ends).
    """
    n = min(limit, len(offsets))
    for k in range(n, 0, -1):
        if k == len(offsets) or offsets[k][0] > offsets[k - 1][1]:
            return k
    raise ValueError(f"no word boundary within the first {limit} tokens")


def article_text(sample: Path = SAMPLE, title: str = ARTICLE) -> str:
    from build_model.squad import load_squad

    return "\n\n".join(p.context for p in load_squad(sample).paragraphs.values() if p.title == title)


def make_passages(tokenizer, question: str, text: str, window_lengths: Sequence[int],
                  title: str = ARTICLE) -> list[dict]:
    """One passage per window length; ``tokenizer`` is a ``function.model.tokenizer.QATokenizer``."""
    n_question = len(tokenizer.encode(question).ids)
    offsets = tokenizer.encode(text).offsets.tolist()
    out = []
    for length in window_lengths:
        budget = length - n_question - 3
        if budget < 1:
            raise ValueError(f"a {length}-token window has no room for a passage next to the question")
        if budget > len(offsets):
            raise ValueError(f"the text has {len(offsets)} tokens, fewer than a {length}-token window needs")
        k = whole_word_tokens(offsets, budget)
        out.append({"id": f"bench-w{length}", "title": title, "text": text[: offsets[k - 1][1]],
                    "window_tokens": n_question + 3 + k, "passage_tokens": k, "question_tokens": n_question})
    return out


def write_jsonl(passages: list[dict], path: Path) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for p in passages:
            f.write(json.dumps({"id": p["id"], "title": p["title"], "text": p["text"]}, ensure_ascii=False) + "\n")
    return path
