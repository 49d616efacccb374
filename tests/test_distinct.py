"""A question asked alone reads passages whose texts differ: a copy of a better-ranked passage's text (a block every
page of a site carries, a shared footer) is skipped and the next hit read in its place (``QAService.distinct``)."""

from __future__ import annotations

import pytest

from function.ingest.json_input import Record
from function.retrieval.bm25 import Hit
from function.service.qa_request import QARequest
from tests.support.stores import records_service

NORMANDY = "The Normans gave their name to Normandy, a region in France, in the 10th and 11th centuries."
COPY = "The  Normans gave their name to Normandy,\na region in France, in the 10th and 11th centuries."
ROLLO = "Rollo was the first ruler of Normandy; the Normans descended from his Viking followers."
OTHER = "The duchy of Normandy was ruled by dukes who were also kings of England after 1066."


@pytest.fixture
def service(tiny_artifact, tmp_path):
    return records_service(tiny_artifact.folder, tmp_path, [
        Record("page-a", "Page A", "a.html", NORMANDY),
        Record("page-b", "Page B", "b.html", COPY),  # the same text, its white space aside
        Record("page-c", "Page C", "c.html", NORMANDY),
        Record("rollo", "Rollo", "rollo.html", ROLLO),
        Record("duchy", "Duchy", "duchy.html", OTHER)])


def hits(*ids: str) -> list[Hit]:
    return [Hit(pid, 10.0 - i) for i, pid in enumerate(ids)]


class Counting:
    """Wraps ``QAService._fetch`` to record the ids of each fetch."""

    def __init__(self, service):
        self.calls: list[tuple[str, ...]] = []
        self.fetch = service._fetch

    def __call__(self, ids, *args, **kwargs):
        self.calls.append(tuple(ids))
        return self.fetch(ids, *args, **kwargs)


def test_copies_of_a_better_ranked_text_are_skipped_and_the_next_hits_read_instead(service):
    fingerprint = service.rt.model().tokenizer.fingerprint
    kept, missing = service.distinct(hits("page-b", "page-a", "page-c", "rollo", "duchy"), 2, fingerprint)
    assert [p.id for p in kept] == ["page-b", "rollo"] and missing == []
    kept, _ = service.distinct(hits("page-b", "page-a", "page-c", "rollo", "duchy"), 3, fingerprint)
    assert [p.id for p in kept] == ["page-b", "rollo", "duchy"]


def test_where_nothing_repeats_the_first_k_are_fetched_once_as_before(service, monkeypatch):
    spy = Counting(service)
    monkeypatch.setattr(service, "_fetch", spy)
    fingerprint = service.rt.model().tokenizer.fingerprint
    kept, _ = service.distinct(hits("rollo", "page-a", "duchy", "page-b", "page-c"), 3, fingerprint)
    assert [p.id for p in kept] == ["rollo", "page-a", "duchy"]
    assert spy.calls == [("rollo", "page-a", "duchy")]


def test_copies_cost_one_more_fetch_of_only_the_places_left(service, monkeypatch):
    spy = Counting(service)
    monkeypatch.setattr(service, "_fetch", spy)
    fingerprint = service.rt.model().tokenizer.fingerprint
    service.distinct(hits("page-a", "page-b", "page-c", "rollo", "duchy"), 3, fingerprint)
    assert spy.calls == [("page-a", "page-b", "page-c"), ("rollo", "duchy")]


def test_an_id_the_store_lacks_is_reported_and_the_next_hit_read(service):
    fingerprint = service.rt.model().tokenizer.fingerprint
    kept, missing = service.distinct(hits("ghost", "page-a", "rollo"), 2, fingerprint)
    assert [p.id for p in kept] == ["page-a", "rollo"] and missing == ["ghost"]


def test_a_question_alone_reads_no_text_twice(service):
    reply = service.answer(QARequest("Who gave their name to Normandy?", None, None, 1, 30, 3,
                                     abstain=False, passages=True)).payload
    texts = [" ".join(r["text"].split()) for r in reply["retrieved"]]
    assert len(texts) == 3 and len(set(texts)) == 3
    assert {r["passage_id"] for r in reply["retrieved"]} & {"page-a", "page-b", "page-c"}
    assert {"rollo", "duchy"} <= {r["passage_id"] for r in reply["retrieved"]}



def test_a_question_alone_searches_deeper_than_it_reads_so_that_copies_leave_room(service, monkeypatch):
    from function.service.pipeline import SEARCH_DEPTH

    depths = []
    retrieve = service.retrieve

    def spy(question, k, where=None, corpus=None):
        depths.append(k)
        return retrieve(question, k, where, corpus)

    monkeypatch.setattr(service, "retrieve", spy)
    service.answer(QARequest("Who gave their name to Normandy?", None, None, 1, 30, 3, abstain=False))
    assert depths == [SEARCH_DEPTH]
