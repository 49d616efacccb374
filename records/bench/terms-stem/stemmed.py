"""Run a benchmark with every index term stemmed (Snowball English), at ingestion and on the question alike.

    PYTHONPATH=.:SNOWBALL python records/bench/terms-stem/stemmed.py docs --part dev --out DIR
    PYTHONPATH=.:SNOWBALL python records/bench/terms-stem/stemmed.py cascade --questions 0 --timed 0 --hybrid ...
    ... stemmed.py docs --sentence-only ...      # the sentence term's stems alone (RULE.md's addendum)
    ... stemmed.py docs --sentence-only --s-stemmer ...   # the same with a final "s" dropped only (addendum 2)

(SNOWBALL: a folder holding `snowballstemmer` 3.0.1, `pip install --target`.) ``terms``, ``query_terms`` and
``located_terms`` all read the module's ``_WORD`` pattern at call time: a stand-in whose ``findall`` stems what it
finds (``finditer`` is the pattern's own: ``located_terms`` stems each word through ``findall``). A stop-word is
left as it is, so ``_is_term`` still drops it ("does" would stem to "doe", "having" to "have").
"""

import functools
import sys

import snowballstemmer

from function.retrieval import terms as T

_STEMMER = snowballstemmer.stemmer("english")
_PATTERN = T._WORD


@functools.lru_cache(maxsize=1 << 20)
def stem(word: str) -> str:
    return word if word in T.STOP_WORDS else _STEMMER.stemWord(word)


def s_stem(word: str) -> str:
    """Harman's S-stemmer (1991): a plural's or a third person's final "s" only."""
    if len(word) <= 3 or word in T.STOP_WORDS:
        return word
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word


class Stemming:
    def findall(self, text):
        return [stem(w) for w in _PATTERN.findall(text)]

    def finditer(self, text):
        return _PATTERN.finditer(text)


def stem_sentence_term_only(stem=stem) -> None:
    """``--sentence-only``: the stems in ``function.model.sentence``'s term alone (its question terms and the terms it
    reads of each sentence), retrieval and every other use of ``terms`` as they are."""
    from function.model import sentence

    question_terms, located_terms = sentence.question_terms, sentence.located_terms

    def stemmed_question_terms(question):
        return frozenset(stem(t) for t in question_terms(question))

    def stemmed_located_terms(text):
        return [(stem(w), a, z) for w, a, z in located_terms(text)]

    sentence.question_terms = stemmed_question_terms
    sentence.located_terms = stemmed_located_terms


if __name__ == "__main__":
    which, argv = sys.argv[1], sys.argv[2:]
    if "--sentence-only" in argv:
        argv.remove("--sentence-only")
        light = "--s-stemmer" in argv
        if light:
            argv.remove("--s-stemmer")
        stem_sentence_term_only(s_stem if light else stem)
    else:
        T._WORD = Stemming()
    if which == "docs":
        from bench.docs import main
    else:
        from bench.cascade import main
    sys.exit(main(argv))
