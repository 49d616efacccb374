"""The index-term analyser both stores share: what a question and a passage are matched on."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from function.retrieval.bm25 import PassageTerms, idf
from function.retrieval.terms import MAX_QUERY_TERMS, STOP_WORDS, located_terms, query_terms, terms
from tests.support.fuzz import examples


def test_words_are_lower_cased_and_stop_words_dropped():
    assert terms("Who ruled the Duchy of Normandy's capital, Rouen, in 1066?") == [
        "ruled", "duchy", "normandy", "capital", "rouen", "1066"]
    assert terms("What is it, and where was it?") == []
    assert "won" in terms("Who won Super Bowl 50?")  # a content word, though NLTK lists it


def test_unicode_words_are_folded_and_split_on_punctuation_and_underscores():
    assert terms("Zürich ZURICH zurich") == ["zurich"] * 3
    assert terms("Super_Bowl_50 e-mail ﬁnance STRASSE straße") == [
        "super", "bowl", "50", "e", "mail", "finance", "strasse", "strasse"]
    assert terms("東京 Москва") == ["東京", "москва"]
    assert terms("x" * 65 + " ok") == ["ok"]


def test_a_question_searches_its_distinct_terms_in_order():
    assert query_terms("Normans, Normans and the Normandy normans") == ["normans", "normandy"]
    assert len(query_terms(" ".join(f"w{i}" for i in range(200)))) == MAX_QUERY_TERMS


def test_a_question_does_not_search_for_the_letters_of_e_g_and_i_e():
    assert query_terms("Which git commit option replaces the tip, e.g. to fix the last commit?") == [
        "git", "commit", "option", "replaces", "tip", "fix", "last"]
    assert query_terms("E.G. foo, I.e. bar, (e. g. baz)") == ["foo", "bar", "baz"]
    # only the abbreviation: a letter inside a word or a lone "e" is still a term, and passages keep theirs
    assert query_terms("size.e.g.x vitamin e") == ["size", "e", "g", "x", "vitamin"]
    assert terms("e.g. foo") == ["e", "g", "foo"]


def test_a_passage_counts_title_and_text_terms_apart():
    analysed = PassageTerms.of("Normans", "The Normans came to Normandy. Normans!")
    assert analysed.length == 5
    assert analysed.frequencies() == {"normans": (1, 2), "came": (0, 1), "normandy": (0, 1)}


def test_idf_is_fts5s_with_its_floor():
    assert abs(idf(100, 1) - 4.1946925) < 1e-6  # ln(99.5 / 1.5)
    assert idf(10, 5) == idf(10, 9) == 1e-6  # a term in half the passages or more


@settings(max_examples=examples(300), deadline=None)
@given(st.text(max_size=200))
def test_terms_are_safe_for_both_stores(text):
    # FTS5's 'ascii' tokenizer must see each term as one token, and a Firestore
    # document id "<term>#<k>" must be valid: letters and digits only.
    for t in terms(text):
        assert re.fullmatch(r"[^\W_]+", t) and not re.search(r"[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]", t)
        assert t == t.casefold() and t not in STOP_WORDS and 0 < len(t) <= 64


def test_located_terms_are_the_terms_with_the_words_they_came_from():
    text = "The Zürich_office, opened 1066: STRASSE."
    got = located_terms(text)
    assert [w for w, _, _ in got] == terms(text) == ["zurich", "office", "opened", "1066", "strasse"]
    assert [text[a:z] for _, a, z in got] == ["Zürich", "office", "opened", "1066", "STRASSE"]


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet=st.characters(codec="ascii"), max_size=200))
def test_located_terms_agree_with_terms_on_ascii_text(text):
    got = located_terms(text)
    assert [w for w, _, _ in got] == terms(text)
    assert all(text[a:z].casefold() == w for w, a, z in got)


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet=st.characters(codec="ascii"), max_size=200))
def test_ascii_text_is_folded_as_the_unicode_path_folds_it(text):
    from function.retrieval.terms import _fold, _unicode_fold

    assert _fold(text) == _unicode_fold(text)


def test_a_questions_return_raise_or_yield_is_also_searched_as_the_field_label():
    from function.retrieval.terms import search_terms

    assert search_terms("What does threshold_otsu return?") == ["threshold", "otsu", "return", "returns"]
    assert search_terms("Which error can open raise, and what does it yield?") == [
        "error", "open", "raise", "yield", "raises", "yields"]
    assert search_terms("What returns a list?") == ["returns", "list"]  # the label asked already: searched once
    assert search_terms("Who ruled Normandy?") == query_terms("Who ruled Normandy?")  # any other question as before
    # nothing but the verb to search ("now" is a stop-word): a passage full of "returns" would win, so no label
    assert search_terms("What does now return?") == ["return"]
    many = " ".join(f"w{i}" for i in range(MAX_QUERY_TERMS)) + " return"
    assert len(search_terms(many)) == MAX_QUERY_TERMS


def test_retrieval_finds_a_returns_section_for_a_question_that_asks_what_a_function_returns(tiny_artifact, tmp_path,
                                                                                           monkeypatch):
    from function.config import Settings
    from function.ingest.cli import main as ingest_main
    from function.service.pipeline import QAService
    from function.service.runtime import Runtime

    monkeypatch.setenv("QA_ARTIFACT_DIR", str(tiny_artifact.folder))
    monkeypatch.setenv("QA_STORE", "sqlite")
    monkeypatch.setenv("QA_SQLITE_PATH", str(tmp_path / "p.sqlite"))
    docs = tmp_path / "docs"
    docs.mkdir()
    # numpydoc as ingested: the summary line says "Return", the section that answers is headed "Returns"
    (docs / "summary.md").write_text("# Filters\n\nthreshold_otsu: Return a threshold.\n")
    (docs / "otsu.md").write_text("# threshold_otsu\n\nReturns:\n\nthreshold : float\n")
    assert ingest_main([str(docs), "--quiet"]) == 0
    service = QAService(Runtime(Settings.from_env()))
    asked = "What does threshold_otsu return?"
    assert [h.passage_id for h in service.retrieve(asked, 2)] == ["otsu.md#0000", "summary.md#0000"]
    from function.retrieval import terms

    monkeypatch.setattr(terms, "FIELD_LABELS", {})  # searched for its own words alone, the summary line wins
    assert [h.passage_id for h in service.retrieve(asked, 2)] == ["summary.md#0000", "otsu.md#0000"]
