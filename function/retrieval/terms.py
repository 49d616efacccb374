"""Index terms: lower-cased Unicode words without English stop-words. Stdlib only.

The same analysis runs at ingestion (passage title and text) and on the
question, in both stores, so what a question can match does not depend on
where the passages are kept. It is deliberately not the model's WordPiece
tokenizer: BM25 wants whole words, and the index must not change when the
model does.

    >>> terms("Who ruled the Duchy of Normandy's capital, Rouen, in 1066?")
    ['ruled', 'duchy', 'normandy', 'capital', 'rouen', '1066']

Steps: Unicode compatibility caseless folding (NFKD and case folding), combining
marks dropped (so "Zürich" and "Zurich" are one term), words are runs of
letters and digits (underscores and punctuation split), stop-words and words
longer than ``MAX_TERM_CHARS`` are dropped. A term therefore never holds a
space, '/', '#' or any ASCII punctuation, which the stores rely on.

A question is analysed the same way after its Latin abbreviations "e.g." and
"i.e." are dropped (``query_terms``): their letters would search for "e" and
"g", terms of no content that many passages hold ("e.g." in a documentation
question cost a git question its passage, ``docs/retrieval.md``
"Documentation"). Passages keep them, so no index changes.
"""

from __future__ import annotations

import re
import unicodedata

MAX_TERM_CHARS = 64  # longer "words" are noise (URLs, hashes); dropped
MAX_QUERY_TERMS = 64  # distinct terms of a question that are searched

_WORD = re.compile(r"[^\W_]+")
# "e.g." / "i.e." (any case, a space allowed inside), not inside a word ("the.g." is left alone)
_ABBREVIATION = re.compile(r"(?<![^\W_])(?:e\.\s?g|i\.\s?e)\.(?![^\W_])", re.IGNORECASE)

# NLTK's English list, without "won" (a content word in questions: "who won ...").
STOP_WORDS = frozenset("""
a about above after again against all am an and any are aren as at be because been before being below
between both but by can couldn d did didn do does doesn doing don down during each few for from further
had hadn has hasn have haven having he her here hers herself him himself his how i if in into is isn it
its itself just ll m ma me mightn more most mustn my myself needn no nor not now o of off on once only or
other our ours ourselves out over own re s same shan she should shouldn so some such t than that the their
theirs them themselves then there these they this those through to too under until up ve very was wasn we
were weren what when where which while who whom why will with wouldn y you your yours yourself yourselves
""".split())


def _fold(text: str) -> str:
    """Unicode's compatibility caseless form (NFKD(casefold(NFKD(casefold(x))))), without combining marks."""
    if text.isascii():  # the same for ASCII, at a tenth of the cost: casefold is lower(), NFKD changes nothing
        return text.lower()
    return _unicode_fold(text)


def _unicode_fold(text: str) -> str:
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", text.casefold()).casefold())
    return "".join(ch for ch in folded if not unicodedata.combining(ch))


def _is_term(word: str) -> bool:
    return word not in STOP_WORDS and len(word) <= MAX_TERM_CHARS


def terms(text: str) -> list[str]:
    """Index terms of ``text``, in order, repeats kept (term frequencies count them)."""
    return [w for w in _WORD.findall(_fold(text)) if _is_term(w)]


def without_abbreviations(question: str) -> str:
    """The question with its Latin abbreviations "e.g." and "i.e." blanked out (see the module docstring)."""
    return _ABBREVIATION.sub(" ", question)


def query_terms(question: str) -> list[str]:
    """Distinct terms of a question, in the order they first appear, at most ``MAX_QUERY_TERMS``; the question's
    "e.g." and "i.e." are not searched for (``without_abbreviations``)."""
    return list(dict.fromkeys(terms(without_abbreviations(question))))[:MAX_QUERY_TERMS]


# A question's verb and the label documentation heads the same thing with: numpydoc's and Google style's "Returns",
# "Raises" and "Yields" sections, Sphinx's "Returns:" field, Javadoc's "Returns:". Terms are not stemmed (a stemmer on
# every term lost documentation answers: docs/retrieval.md), so "What does threshold_otsu return?" found the summary
# line "Return threshold value ..." and not the passage under it that holds the "Returns:" section.
FIELD_LABELS = {"return": "returns", "raise": "raises", "yield": "yields"}


def search_terms(question: str) -> list[str]:
    """The terms retrieval searches a question for: ``query_terms``, and for a "return", "raise" or "yield" among
    them the field label documentation writes it as (``FIELD_LABELS``) after them, still at most
    ``MAX_QUERY_TERMS``; not where the verbs are all the question searches ("What does now return?": "now" is a
    stop-word, and a passage full of "returns" would win)."""
    asked = query_terms(question)
    if all(t in FIELD_LABELS or t in FIELD_LABELS.values() for t in asked):
        return asked
    labels = [FIELD_LABELS[t] for t in asked if t in FIELD_LABELS and FIELD_LABELS[t] not in asked]
    return (asked + labels)[:MAX_QUERY_TERMS]


def located_terms(text: str) -> list[tuple[str, int, int]]:
    """``terms`` of ``text`` with the character span of the word each came from (a word that folding turns
    into two terms gives both its span). Each word is folded on its own, so where folding would join or split
    words differently from ``terms`` (rare compatibility characters) the two can differ."""
    return [(w, m.start(), m.end()) for m in _WORD.finditer(text) for w in _WORD.findall(_fold(m.group()))
            if _is_term(w)]
