"""What an instance keeps of the store in memory: Firestore's index documents (``TermIndex``, QA_TERM_CACHE_BYTES)
and passages (QA_PASSAGE_CACHE_BYTES), both keyed by the corpus generation.

Counted reads (``function.store.ops``) drop for a term, the corpus totals and a passage read before; the caches
stay within their bytes; and nothing kept under one generation is used after an ingestion replaced it: the
answers come from the new text (answer cache off, so each one is computed from what the instance keeps).
"""

from __future__ import annotations

import pytest

from function.service.qa_request import QARequest
from function.store import ops
from tests.test_retrieval_index import CORPUS, passages
from tests.test_stale_answers import ALONE, BY_ID, NEW, OLD, ZEBRA_ID, from_text, ingest, instance

SHRIMP = QARequest("Where do they hunt grey shrimp?", None, None, 3, 30, 2, abstain=False)


def counted(call) -> tuple[object, int]:
    """(what ``call()`` returns, the Firestore reads it made)."""
    tally = ops.counting()
    result = call()
    return result, tally.reads


@pytest.fixture
def firestore_store(firestore_env):
    from function.store.firestore import FirestoreStore

    store = FirestoreStore(None, "(default)", "passages", "answers", timeout_s=10, term_cache_bytes=1 << 20)
    store.upsert_many(passages(CORPUS))
    yield store
    store.close()


@pytest.mark.firestore
def test_a_kept_term_and_the_corpus_totals_are_not_read_again(firestore_store):
    index = firestore_store.index.at(firestore_store.generation())
    first, reads = counted(lambda: index.search(["normandy", "rollo"], 3))
    assert reads == 3  # #corpus and the two terms
    again, reads = counted(lambda: index.search(["normandy", "rollo"], 3))
    assert (again, reads) == (first, 0)
    # a new question sharing a term reads only its other term; one in no passage is kept as absent too
    _, reads = counted(lambda: index.search(["normandy", "france", "zebrafish"], 3))
    assert reads == 2
    hits, reads = counted(lambda: index.search(["france", "zebrafish"], 3))
    assert reads == 0 and [h.passage_id for h in hits] == [h.passage_id for h in firestore_store.index.search(
        ["france", "zebrafish"], 3)]
    # without a generation nothing is kept or looked up: every search reads
    _, reads = counted(lambda: firestore_store.index.search(["normandy", "rollo"], 3))
    assert reads == 3


@pytest.mark.firestore
def test_what_was_kept_under_one_generation_is_not_used_under_the_next(firestore_store):
    before = firestore_store.generation()
    index = firestore_store.index.at(before)
    assert [h.passage_id for h in index.search(["zebrafish", "normandy"], 5)] == ["a", "b"]
    firestore_store.upsert_many(passages({"z": ("Zebrafish", "Zebrafish of Normandy.")}))
    after = firestore_store.generation()
    assert after != before
    # the old generation's view still answers from what it kept (no instance asks it once it read the new one)
    assert [h.passage_id for h in index.search(["zebrafish", "normandy"], 5)] == ["a", "b"]
    fresh, reads = counted(lambda: firestore_store.index.at(after).search(["zebrafish", "normandy"], 5))
    assert reads == 3 and fresh[0].passage_id == "z" and {h.passage_id for h in fresh} == {"z", "a", "b"}


@pytest.mark.firestore
def test_the_kept_documents_stay_within_their_bytes(firestore_env):
    from function.retrieval import firestore_terms
    from function.store.firestore import FirestoreStore

    corpus = {f"p{i}": ("", f"word{i} common") for i in range(40)}
    one_term = firestore_terms._kept_bytes(({"ids": b"p0", "postings": b"x" * 8},))
    store = FirestoreStore(None, "(default)", "passages", "answers", timeout_s=10, term_cache_bytes=8 * one_term)
    try:
        store.upsert_many(passages(corpus))
        index = store.index.at(store.generation())
        for i in range(40):
            index.search([f"word{i}"], 1)
        assert store.index.cache.bytes <= 8 * one_term and 1 < len(store.index.cache) <= 8
        _, reads = counted(lambda: index.search(["word39"], 1))  # the latest is kept
        assert reads == 0
        _, reads = counted(lambda: index.search(["word0"], 1))  # the first was evicted
        assert reads == 1
    finally:
        store.close()


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.firestore)])
def instance_env(request, tiny_artifact, tmp_path, monkeypatch):
    """An instance with the answer cache off and both store caches on; the generation read every time."""
    monkeypatch.setenv("QA_ARTIFACT_DIR", str(tiny_artifact.folder))
    monkeypatch.setenv("QA_CACHE", "0")
    monkeypatch.setenv("QA_CORPUS_CHECK_S", "0")
    monkeypatch.setenv("QA_PASSAGE_CACHE_BYTES", str(1 << 20))
    monkeypatch.setenv("QA_TERM_CACHE_BYTES", str(1 << 20))
    if request.param == "sqlite":
        monkeypatch.setenv("QA_STORE", "sqlite")
        monkeypatch.setenv("QA_SQLITE_PATH", str(tmp_path / "p.sqlite"))
    else:
        request.getfixturevalue("firestore_env")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "zebra.txt").write_text(OLD + "\n")
    return request.param, docs


def test_after_an_ingestion_nothing_kept_before_it_is_used(instance_env):
    kind, docs = instance_env
    ingest(str(docs))
    service = instance()
    for req in (ALONE, BY_ID):
        first = service.answer(req)
        again, reads = counted(lambda req=req: service.answer(req))
        assert again.cache == "miss" and again.payload == first.payload and from_text(first.payload, OLD)
        if kind == "firestore":
            assert reads == 1  # the corpus generation; the terms, #corpus and the passage were kept
    # words only the new text will hold: no passage now (kept as absent, in Firestore's index)
    assert service.answer(SHRIMP).payload["retrieved"] == []

    (docs / "zebra.txt").write_text(NEW + "\n")
    ingest(str(docs))
    for req in (ALONE, BY_ID):
        reply = service.answer(req).payload
        assert from_text(reply, NEW), (req, reply)
    assert [p["passage_id"] for p in service.answer(SHRIMP).payload["retrieved"]] == [ZEBRA_ID]


def test_without_the_store_caches_every_question_reads_again(instance_env, monkeypatch):
    kind, docs = instance_env
    if kind != "firestore":
        pytest.skip("SQLite reads are not billed")
    monkeypatch.setenv("QA_PASSAGE_CACHE_BYTES", "0")
    monkeypatch.setenv("QA_TERM_CACHE_BYTES", "0")
    ingest(str(docs))
    service = instance()
    _, first = counted(lambda: service.answer(ALONE))
    _, again = counted(lambda: service.answer(ALONE))
    assert first == again > 3  # #corpus, the question's terms, the passage (no generation read: nothing keyed)
