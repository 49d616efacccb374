"""The evidence shown with an answer: a stretch of its passage around it, cut at word boundaries.

A client that shows an answer in its context would otherwise have to read the
store for the passage. The snippet is bounded (``SNIPPET_CHARS``) so that a
reply stays small whatever the passages' length, and it is taken verbatim from
the passage (white space as it is there), so ``snippet["text"][start:end]`` is
always the answer's text. Stdlib only.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

SNIPPET_CHARS = 300  # the most characters a snippet holds, unless the answer alone is longer

# Characters that belong to the one before them (or, for the joiner, to both sides): a cut never falls
# just before one (nor just after a zero-width joiner), so an accented letter or an emoji sequence stays whole.
_JOINER = "\u200d"
_ATTACHED = frozenset("\u200d\ufe0e\ufe0f") | {chr(c) for c in range(0x1F3FB, 0x1F400)}  # + emoji skin tones


def snippet(text: str, start: int, end: int, bound: int = SNIPPET_CHARS) -> dict:
    """``{"text", "start", "end"}``: at most ``bound`` characters of ``text`` around ``text[start:end]``.

    Context is added a whole word at a time (words are runs of non-space
    characters), to the side that has less so far, while it fits. A word longer
    than ``bound`` on its own is the one thing cut inside, by characters. The
    answer's own edges stay where they are, even inside a word; an answer of
    ``bound`` characters or more is its own snippet.
    """
    lo, hi = start, end
    left, right = _cuts_before(text, start, bound), _cuts_after(text, end, bound)
    next_lo, next_hi = next(left, None), next(right, None)
    while True:
        fits_lo = next_lo is not None and hi - next_lo <= bound
        fits_hi = next_hi is not None and next_hi - lo <= bound
        if fits_lo and (not fits_hi or start - lo <= hi - end):
            lo, next_lo = next_lo, next(left, None)
        elif fits_hi:
            hi, next_hi = next_hi, next(right, None)
        else:  # the window only grows: a cut that does not fit now never will
            break
    return {"text": text[lo:hi], "start": start - lo, "end": end - lo}


def _cuts_before(text: str, start: int, bound: int) -> Iterator[int]:
    """Where a snippet may begin, nearest ``start`` first: each earlier word's first character (or,
    inside a word longer than ``bound``, each character that begins a new one)."""
    i = start
    while i > 0:
        word_end, gap_floor = i, max(0, i - bound)
        while word_end > gap_floor and text[word_end - 1].isspace():
            word_end -= 1
        floor = max(0, word_end - bound - 1)  # a longer word is cut by characters: no need to find its start
        word_start = word_end
        while word_start > floor and not text[word_start - 1].isspace():
            word_start -= 1
        if word_start == word_end:  # only white space before, or more of it than a snippet holds
            return
        long_word = word_end - word_start > bound
        if long_word:
            yield from (j for j in range(word_end - 1, word_start - 1, -1) if _between_characters(text, j))
            return  # beyond it lies only what a longer snippet than ``bound`` could hold
        yield word_start
        i = word_start


def _cuts_after(text: str, end: int, bound: int) -> Iterator[int]:
    """Where a snippet may end, nearest ``end`` first: the end of each later word (or, inside a word
    longer than ``bound``, after each character not followed by one it carries)."""
    i, n = end, len(text)
    while i < n:
        word_start, gap_ceiling = i, min(n, i + bound)
        while word_start < gap_ceiling and text[word_start].isspace():
            word_start += 1
        ceiling = min(n, word_start + bound + 1)
        word_end = word_start
        while word_end < ceiling and not text[word_end].isspace():
            word_end += 1
        if word_end == word_start:
            return
        if word_end - word_start > bound:
            yield from (j for j in range(word_start + 1, word_end + 1) if _between_characters(text, j))
            return
        yield word_end
        i = word_end


def _between_characters(text: str, i: int) -> bool:
    """Whether a cut at ``i`` leaves every character whole: not before a combining mark, a variation
    selector or a skin tone, nor on either side of a zero-width joiner."""
    if i <= 0 or i >= len(text):
        return True
    after, before = text[i], text[i - 1]
    return not (after in _ATTACHED or before == _JOINER or unicodedata.category(after).startswith("M"))
