"""No stale answers: an ingestion that changes, adds or deletes passages makes the answers cached before it
unreachable, in process and in the shared tier, on both stores, on every instance that shares the store.

A document is changed, re-ingested and the same questions asked again (alone and by passage id): the replies
must come from the new text. The new text is upper case where the old one is lower case, so no answer span can
read the same in both; the tiny model's answers are arbitrary spans, but always spans of what it read.
"""

from __future__ import annotations

import json
import threading
import time

import pytest

from function.ingest.cli import main as ingest_main
from function.service.cache import CorpusGeneration
from function.service.qa_request import QARequest

OLD = "zebrafish eat red worms at dawn in the reef, said the keeper."
NEW = "AT NOON OUR ZEBRAFISH HUNT FOR SMALL GREY SHRIMP NEAR THE ROCKS"
OTHER = "Otters sleep on their backs and hold hands while they drift."
QUESTION = "What do zebrafish eat?"
ZEBRA_ID = "zebra.txt#0000"  # function.store.ids.chunk_passage_id: the document's first (only) passage


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.firestore)])
def kind(request, tiny_artifact, tmp_path, monkeypatch):
    """The environment of both the ingestion and the instances: one store, the generation read every time."""
    monkeypatch.setenv("QA_ARTIFACT_DIR", str(tiny_artifact.folder))
    monkeypatch.setenv("QA_CORPUS_CHECK_S", "0")
    if request.param == "sqlite":
        monkeypatch.setenv("QA_STORE", "sqlite")
        monkeypatch.setenv("QA_SQLITE_PATH", str(tmp_path / "p.sqlite"))
    else:
        request.getfixturevalue("firestore_env")
    return request.param


@pytest.fixture
def docs(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "zebra.txt").write_text(OLD + "\n")
    (root / "otter.txt").write_text(OTHER + "\n")
    return root


def instance():
    """One serving instance (its own in-process caches) on the store the environment names."""
    from function.config import Settings
    from function.service.pipeline import QAService
    from function.service.runtime import Runtime

    return QAService(Runtime(Settings.from_env()))


def ingest(*args: str) -> None:
    assert ingest_main([*args, "--quiet"]) == 0


ALONE = QARequest(QUESTION, None, None, 3, 30, 2, abstain=False)
BY_ID = QARequest(QUESTION, None, (ZEBRA_ID,), 3, 30, abstain=False)


def ask(service, req: QARequest) -> tuple[dict, str]:
    result = service.answer(req)
    return result.payload, result.cache


def from_text(reply: dict, text: str) -> bool:
    """Whether every answer of ``reply`` is a span of ``text`` at its offsets (and there is one)."""
    zebra = [a for a in reply["answers"] if a["passage_id"] == ZEBRA_ID]
    return bool(zebra) and all(text[a["start"] : a["end"]] == a["text"] for a in zebra)


def test_the_texts_share_no_span():
    """What the tests below rely on: an answer read from one text cannot be read at the same offsets in the
    other, so an answer from the old text is never mistaken for one from the new."""
    assert [i for i, (a, b) in enumerate(zip(OLD, NEW)) if a == b and a.isalnum()] == []


def test_a_changed_document_is_answered_from_its_new_text(kind, docs):
    ingest(str(docs))
    service = instance()
    for req in (ALONE, BY_ID):
        first, _ = ask(service, req)
        again, cache = ask(service, req)
        assert cache == "hit" and again == first and from_text(first, OLD)

    ingest(str(docs))  # unchanged: nothing written, the cached answers stay (same hit rate)
    assert [ask(service, req)[1] for req in (ALONE, BY_ID)] == ["hit", "hit"]

    (docs / "zebra.txt").write_text(NEW + "\n")
    ingest(str(docs))
    for req in (ALONE, BY_ID):
        reply, cache = ask(service, req)
        assert cache == "miss" and from_text(reply, NEW), (req, reply)
        assert ask(service, req) == (reply, "hit")  # and the new answer is cached in turn


def test_a_document_deleted_by_sync_is_no_longer_answered_from(kind, docs):
    ingest(str(docs))
    service = instance()
    before, _ = ask(service, ALONE)
    assert ZEBRA_ID in [p["passage_id"] for p in before["retrieved"]]
    assert ask(service, BY_ID)[1] == "miss" and ask(service, BY_ID)[1] == "hit"

    (docs / "zebra.txt").unlink()
    ingest(str(docs), "--sync")
    reply, cache = ask(service, ALONE)
    assert cache == "miss" and ZEBRA_ID not in [p["passage_id"] for p in reply.get("retrieved", [])]
    assert all(a["passage_id"] != ZEBRA_ID for a in reply["answers"])
    from function.errors import NotFound

    with pytest.raises(NotFound):  # not the answer cached before the deletion
        service.answer(BY_ID)


def test_an_instance_sharing_the_store_sees_the_change_too(kind, docs):
    """Two instances on one store: both cached the old answers (the second partly from the shared tier); an
    ingestion run elsewhere changes the document; both answer from the new text."""
    ingest(str(docs))
    first, second = instance(), instance()
    for service in (first, second):
        for req in (ALONE, BY_ID):
            ask(service, req)
            reply, cache = ask(service, req)
            assert cache == "hit" and from_text(reply, OLD)

    (docs / "zebra.txt").write_text(NEW + "\n")
    ingest(str(docs))
    for req in (ALONE, BY_ID):
        reply, cache = ask(second, req)
        assert cache == "miss" and from_text(reply, NEW), (req, reply)
        # the first instance: its own answer, or the one the second just shared (questions alone)
        assert from_text(ask(first, req)[0], NEW)


def test_the_store_replaces_its_generation_with_every_passage_write_and_deletion(kind, tmp_path):
    from function.config import Settings
    from function.store import open_store
    from tests.test_store import passage

    store = open_store(Settings.from_env())
    try:
        assert store.generation() == ""  # nothing written yet
        store.upsert_many([passage("a"), passage("b")])
        seen = [store.generation()]
        store.get_many(["a"])
        store.delete_many(["missing"])  # nothing deleted: nothing changed
        assert store.generation() == seen[-1] != ""
        for change in (lambda: store.upsert_many([passage("a", n=3)]), lambda: store.delete_many(["b"]),
                       store.new_generation):
            change()
            seen.append(store.generation())
        assert len(set(seen)) == len(seen)
    finally:
        store.close()


def test_with_a_separate_index_a_new_generation_brings_the_instance_its_newest_version(tiny_artifact, docs, tmp_path,
                                                                                       monkeypatch):
    """Lance: an instance keeps the version of the table it opened for QA_INDEX_REFRESH_S (an hour here); a new
    corpus generation makes it look for a newer one at once, so it finds what the ingestion added."""
    for name, value in {"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_CORPUS_CHECK_S": "0",
                        "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(tmp_path / "p.sqlite"),
                        "QA_INDEX_URI": str(tmp_path / "index.lance"), "QA_INDEX_REFRESH_S": "3600"}.items():
        monkeypatch.setenv(name, value)
    ingest(str(docs))
    service = instance()
    quokka = QARequest("Where do quokkas live?", None, None, 3, 30, 2, abstain=False)
    assert ask(service, quokka)[0]["answers"] == []  # no passage holds the word yet
    (docs / "quokka.txt").write_text("Quokkas live on Rottnest Island near Perth.\n")
    ingest(str(docs))
    reply, cache = ask(service, quokka)
    assert cache == "miss" and [p["passage_id"] for p in reply["retrieved"]] == ["quokka.txt#0000"]


def test_ingestion_gives_a_new_generation_after_writing_a_separate_index(tiny_artifact, tmp_path):
    """The store's write comes first, the separate index's second: an answer computed between the two (new
    passages, the index's old rows) would be keyed by the store write's generation, so another follows."""
    from function.ingest.documents import Recipe, from_records
    from function.ingest.ingestion import Ingestion
    from function.ingest.json_input import parse_text
    from function.model.artifact import load_manifest
    from function.model.tokenizer import QATokenizer
    from function.store.sqlite import SqliteStore

    store, seen = SqliteStore(tmp_path / "p.sqlite"), []

    class Index:  # a separate index: notes the store's generation when the ingestion writes to it
        def write(self, passages):
            seen.append(store.generation())

    tokenizer = QATokenizer(load_manifest(tiny_artifact.folder).tokenizer_path)
    records = list(parse_text("z.jsonl", json.dumps({"id": "z", "title": "Z", "text": OLD})))
    job = Ingestion(store, tokenizer, index=Index())
    job.add_and_flush(from_records("z.jsonl", records, Recipe(tokenizer.fingerprint, 0, 0, 20000)))
    assert len(seen) == 1 and "" != seen[0] != store.generation() != ""
    store.close()


# -- how long an instance keeps the generation ------------------------------------------------


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_generation_is_read_again_once_older_than_its_bound():
    stored, reads, changes, clock = ["g1"], [], [], Clock()

    def read() -> str:
        reads.append(clock.now)
        return stored[0]

    generation = CorpusGeneration(read, max_age_s=1.0, on_change=lambda: changes.append(stored[0]), clock=clock)
    assert generation.current() == "g1" and len(reads) == 1
    stored[0] = "g2"  # an ingestion: within the bound the instance still keys by what it read
    clock.now += 0.9
    assert generation.current() == "g1" and len(reads) == 1 and changes == []
    clock.now += 0.1  # the bound is counted from when the read began
    assert generation.current() == "g2" and len(reads) == 2 and changes == ["g2"]

    every_time = CorpusGeneration(read, max_age_s=0, clock=clock)
    assert [every_time.current() for _ in range(3)] == ["g2"] * 3 and len(reads) == 5


def test_requests_waiting_for_a_read_share_it_and_its_failure():
    """While the store hangs, requests do not queue up to read it one after another."""
    arrived, reads, errors = [], [], []

    def read() -> str:
        reads.append(1)
        while len(arrived) < 4:  # every request has come (the others to wait for this read)
            time.sleep(0.01)
        time.sleep(0.2)
        raise ConnectionError("store down")

    generation = CorpusGeneration(read, max_age_s=5.0)

    def ask_generation():
        arrived.append(1)
        try:
            generation.current()
        except ConnectionError as e:
            errors.append(e)

    threads = [threading.Thread(target=ask_generation) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(reads) == 1 and len(errors) == 4  # one read; every request told the store failed
