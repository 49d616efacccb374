"""A question alone that names a member with its owner reads first a retrieved passage that is that member's entry,
where none of the passages it would read is (``QAService._declared_first``, ``pipeline.DECLARED_FIRST``)."""

from __future__ import annotations

import pytest

from function.ingest.json_input import Record
from function.model.reader import declares, qualified_names
from function.service import pipeline
from tests.support.stores import read_ids as read
from tests.support.stores import records_service

VIEW = "int QStringView::length() const\n\nReturns the length of the string view, in characters; the length."
REF = "QStringRef::QStringRef(const QString *string, int position, int length)\n\nA reference to QString's part."
OWN = "int QString::length() const\n\nReturns the number of characters in this string. Equivalent to size()."
SUMMARY = "Methods of QString:\n\n- QString::length()\n- QString::size()"
SPHINX = "popitem(index=-1)\n\nRemove and return (key, value) pair at index from sorted dict."


@pytest.fixture
def service(tiny_artifact, tmp_path):
    return records_service(tiny_artifact.folder, tmp_path, [
        Record("view", "QStringView Class", "qstringview.html", VIEW),
        Record("ref", "QStringRef Class", "qstringref.html", REF),
        Record("own", "QString Class", "qstring.html", OWN),
        Record("summary", "QString overview", "overview.html", SUMMARY)])


def test_a_question_names_members_with_their_owners_and_not_files_or_abbreviations():
    assert qualified_names("What does QString::length return?") == ("QString::length",)
    assert qualified_names("What do os.path.join and Mock#expects do, and maps:find?") == (
        "os.path.join", "Mock#expects", "maps:find")
    assert qualified_names("Is setup.py or pyproject.toml read, e.g. on example.com in the U.S.?") == ()


def test_an_entry_declares_its_member_and_a_namesake_or_a_mention_does_not():
    assert declares(OWN, "QString Class", "QString::length")
    assert declares("os.path.join(path, *paths)\n\nJoin one or more path segments.", None, "os.path.join")
    assert declares("sortedcontainers.SortedDict.popitem(index=-1)", None, "SortedDict.popitem")
    assert declares(SPHINX, "Sorted Dict > SortedDict", "SortedDict.popitem")  # its last part, its owner in the title
    assert declares("#expects(method_name) ⇒ Expectation", "Class: Mocha::Mock", "Mock#expects")
    assert not declares(SPHINX, "Sorted List", "SortedDict.popitem")  # another owner's popitem
    assert not declares(VIEW, "QStringView Class", "QString::length")
    assert not declares(REF, "QStringRef Class", "QString::length")
    assert not declares(SUMMARY, "QString overview", "QString::length")  # a summary's list item
    assert not declares("Call QString::length to count them.", "QString Class", "QString::length")


def test_the_best_ranked_entry_of_the_member_is_read_first_in_place_of_the_last(service):
    assert read(service, "What does QString::length return?", "view", "ref", "summary", "own") == ["own", "view"]


def test_where_a_passage_read_declares_it_or_none_does_or_the_question_names_none_nothing_moves(service, monkeypatch):
    assert read(service, "What does QString::length return?", "view", "own", "ref") == ["view", "own"]
    assert read(service, "What does QString::length return?", "view", "ref", "summary") == ["view", "ref"]
    assert read(service, "What does length return?", "view", "ref", "own") == ["view", "ref"]
    monkeypatch.setattr(pipeline, "DECLARED_FIRST", False)
    assert read(service, "What does QString::length return?", "view", "ref", "own") == ["view", "ref"]
