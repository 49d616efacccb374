"""A question alone that asks what something is reads first a retrieved passage that introduces it, where none of the
passages it would read does (``QAService._definition_first``, ``pipeline.DEFINITION_FIRST``)."""

from __future__ import annotations

import pytest

from function.ingest.json_input import Record
from function.model.sentence import introduces_somewhere
from function.service import pipeline
from tests.support.stores import read_ids as read
from tests.support.stores import records_service

USES = "The working set is scanned when a project is installed, and the working set may hold many eggs."
MORE = "Plugins add to the working set at run time; a working set can be replaced by another one."
GLOSSARY = "working set\nA collection of distributions actually available on the current system."
PROSE = "A working set is a collection of distributions available to a process."
OTHER = "Entry points are how a package advertises its commands."


@pytest.fixture
def service(tiny_artifact, tmp_path):
    return records_service(tiny_artifact.folder, tmp_path, [
        Record("uses", "Uses", "uses.html", USES), Record("more", "More", "more.html", MORE),
        Record("glossary", "Glossary", "glossary.html", GLOSSARY), Record("prose", "Prose", "prose.html", PROSE),
        Record("other", "Other", "other.html", OTHER)])


def test_a_glossary_entry_or_a_sentence_introduces_a_subject_and_a_mere_mention_does_not():
    assert introduces_somewhere(GLOSSARY, "working set") and introduces_somewhere(PROSE, "working set")
    assert not introduces_somewhere(USES, "working set") and not introduces_somewhere(MORE, "working set")


def test_the_best_ranked_passage_that_introduces_it_is_read_first_in_place_of_the_last(service):
    assert read(service, "What is a working set?", "uses", "more", "other", "glossary", "prose") == ["glossary", "uses"]


def test_where_a_passage_read_introduces_it_or_the_question_asks_no_definition_nothing_moves(service, monkeypatch):
    assert read(service, "What is a working set?", "uses", "prose", "glossary") == ["uses", "prose"]
    assert read(service, "Which files hold a working set?", "uses", "more", "glossary") == ["uses", "more"]
    assert read(service, "What is the default working set?", "uses", "more", "glossary") == ["uses", "more"]
    assert read(service, "What is a working set?", "uses", "more", "other") == ["uses", "more"]  # none introduces it
    monkeypatch.setattr(pipeline, "DEFINITION_FIRST", False)
    assert read(service, "What is a working set?", "uses", "more", "glossary") == ["uses", "more"]


def test_one_passage_read_gives_its_place_and_a_copy_skipped_is_not_taken_for_it(service):
    assert read(service, "What is a working set?", "uses", "glossary", k=1) == ["glossary"]
    assert read(service, "What is a working set?", "uses", "uses", "more", "glossary", k=2) == ["glossary", "uses"]


def test_a_stale_hit_it_would_not_have_read_fails_nothing(service, monkeypatch):
    from function.errors import TokenizerMismatch

    fetch = service._fetch

    def stale_beyond_the_first(ids, *args, **kwargs):
        if "glossary" in ids:
            raise TokenizerMismatch("stale", {})
        return fetch(ids, *args, **kwargs)

    monkeypatch.setattr(service, "_fetch", stale_beyond_the_first)
    assert read(service, "What is a working set?", "uses", "more", "glossary") == ["uses", "more"]
