"""Both stores keep the same contract: packed tokens, idempotent writes, the shared answer cache."""

import time

import numpy as np
import pytest

from function.store.ids import valid_passage_id
from function.store.passage import Passage, ids_dtype


def passage(pid="p1", n=5, vocab=30522, tokenizer="fp"):
    ids = np.arange(n) + vocab - n
    offsets = np.stack([np.arange(n) * 2, np.arange(n) * 2 + 1], axis=1)
    return Passage.from_tokens(pid, "Title", "doc", "x " * n, ids, offsets, tokenizer, vocab)


def test_tokens_pack_into_bytes_and_back():
    p = passage(vocab=30522)
    assert p.token_dtype == "<u2" and len(p.token_ids) == 10 and len(p.offsets) == 40
    assert p.ids.tolist() == list(range(30517, 30522))
    assert p.char_offsets.tolist() == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]
    with pytest.raises(ValueError, match="code marks"):  # a mark past the text's end
        Passage.from_tokens("m", "T", "d", "ab", [1], [[0, 2]], "fp", 30522, marks=[(1, 3)]).check()
    with pytest.raises(ValueError, match="code marks"):  # a code block's line past the text's end
        Passage.from_tokens("m", "T", "d", "ab", [1], [[0, 2]], "fp", 30522, lines=[(0, 3)]).check()
    big = passage(vocab=250_002)
    assert ids_dtype(250_002) == "<u4" and big.ids.tolist() == list(range(249_997, 250_002))
    p.check()
    assert p.vector is None and p.encoder == ""
    v = np.array([0.6, 0.8, 0.0], np.float32)  # a stored embedding: half precision, with the encoder that made it
    e = Passage.from_tokens("e", "T", "d", "ab", [1], [[0, 2]], "fp", 30522, vector=v, encoder="enc")
    assert len(e.embedding) == 6 and e.encoder == "enc" and np.allclose(e.vector, v, atol=1e-3)
    e.check()
    assert Passage.from_tokens("n", "T", "d", "ab", [1], [[0, 2]], "fp", 30522, encoder="enc").encoder == ""
    with pytest.raises(ValueError, match="embedding and the encoder"):  # an embedding nobody made
        Passage("x", "T", "d", "ab", e.token_ids, e.token_dtype, e.offsets, 1, "fp", embedding=e.embedding).check()


def test_passage_ids_that_firestore_cannot_hold_are_invalid():
    assert valid_passage_id("Normans-0001")
    for bad in ("", "a/b", ".", "..", "__x__", "x" * 501, 5, None, "a\x00b"):
        assert not valid_passage_id(bad)


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.firestore)])
def store(request, tmp_path):
    if request.param == "sqlite":
        from function.store.sqlite import SqliteStore

        s = SqliteStore(tmp_path / "p.sqlite")
    else:
        request.getfixturevalue("firestore_env")
        from function.store.firestore import FirestoreStore

        s = FirestoreStore(None, "(default)", "passages", "answers", timeout_s=5)
    yield s
    s.close()


def test_store_contract(store):
    assert store.count() == 0
    assert store.upsert_many([passage("a"), passage("b", n=3)]) == 2
    assert store.upsert_many([passage("a"), passage("b", n=3)]) == 2  # idempotent: same ids, same docs
    assert store.count() == 2
    got = store.get_many(["a", "b", "missing"])
    assert set(got) == {"a", "b"}
    assert got["b"].ids.tolist() == passage("b", n=3).ids.tolist()
    assert got["a"].char_offsets.tolist() == passage("a").char_offsets.tolist()
    assert got["a"].tokenizer == "fp" and got["a"].title == "Title" and got["a"].doc_id == "doc"
    store.upsert_many([passage("a", n=2, tokenizer="other")])  # re-ingesting replaces
    assert store.get_many(["a"])["a"].n_tokens == 2
    assert store.delete_many(["a", "missing"]) == 1
    assert store.count() == 1
    coded = Passage.from_tokens("c", "Title", "doc", "call opts() or x", [1, 2], [[0, 4], [5, 9]], "fp", 30522,
                                marks=[(5, 11), (15, 16)], lines=[(0, 11)])
    store.upsert_many([coded])  # inline code and code lines come back as stored, apart; a passage without has none
    assert store.get_many(["c"])["c"].code_spans.tolist() == [[5, 11], [15, 16]]
    assert store.get_many(["c"])["c"].line_spans.tolist() == [[0, 11]]
    assert store.get_many(["b"])["b"].code_spans.shape == store.get_many(["b"])["b"].line_spans.shape == (0, 2)
    v = np.linspace(-1, 1, 8).astype(np.float32)
    embedded = Passage.from_tokens("v", "Title", "doc", "ab", [1], [[0, 2]], "fp", 30522, vector=v, encoder="enc")
    store.upsert_many([embedded])  # a stored embedding comes back with the encoder that made it; none where none
    got = store.get_many(["v", "b"])
    assert got["v"].embedding == embedded.embedding and got["v"].encoder == "enc"
    assert got["b"].vector is None and got["b"].encoder == ""


def test_shared_answer_cache_respects_expiry(store):
    store.put_answer("k1", {"answers": [{"text": "x"}]}, time.time() + 60)
    store.put_answer("k2", {"answers": []}, time.time() - 1)
    assert store.get_answer("k1") == {"answers": [{"text": "x"}]}
    assert store.get_answer("k2") is None
    assert store.get_answer("nope") is None


@pytest.mark.firestore
def test_firestore_counts_the_operations_it_is_billed_for(firestore_env):
    import threading

    from function.store import ops
    from function.store.firestore import FirestoreStore

    s = FirestoreStore(None, "(default)", "passages", "answers", timeout_s=5)
    try:
        s.upsert_many([passage("a"), passage("b", n=3)])
        mine = ops.counting()
        before = ops.totals()
        s.get_many(["a", "b", "missing"])  # a read per document asked for, found or not
        s.get_answer("k")
        s.count()  # an aggregation: a read per 1,000 index entries, at least one
        assert mine.as_dict() == {"reads": 5, "writes": 0, "deletes": 0}
        worker = threading.Thread(target=s.put_answer, args=("k", {"answers": []}, time.time() + 60))
        worker.start()  # a thread of its own (the answer cache's write): the process's totals only
        worker.join()
        assert mine.writes == 0
        after = ops.totals()
        assert (after.reads - before.reads, after.writes - before.writes) == (5, 1)
        assert s.delete_many(["a"]) == 1
        assert mine.deletes >= 1 and mine.writes >= 1  # the passage, and its postings rewritten
    finally:
        s.close()


def test_count_reads_are_billed_per_thousand_index_entries():
    from function.store.ops import count_reads

    assert [count_reads(n) for n in (0, 1, 1000, 1001, 25_000)] == [1, 1, 1, 2, 25]


@pytest.mark.firestore
def test_an_unreachable_firestore_fails_fast_with_503(monkeypatch):
    from function.errors import StoreUnavailable
    from function.store.firestore import FirestoreStore
    from harness.launch import free_port

    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", f"127.0.0.1:{free_port()}")  # nothing listens there
    s = FirestoreStore("demo-qa-test", "(default)", "passages", "answers", timeout_s=1)
    t0 = time.monotonic()
    with pytest.raises(StoreUnavailable) as info:
        s.get_many(["a"])
    assert time.monotonic() - t0 < 10
    assert info.value.http_status == 503 and "Retry-After" in info.value.headers


@pytest.mark.firestore
def test_firestore_keeps_no_term_index_when_retrieval_has_its_own(firestore_env):
    """QA_INDEX_URI set: ``open_store`` gives Firestore no term index to write, read or delete from."""
    import os

    from function.config import Settings
    from function.store import open_store, ops

    env = {**os.environ, **firestore_env, "QA_INDEX_URI": "gs://bucket/index/bert-qa"}
    s = open_store(Settings.from_env(env))
    try:
        terms = s.client.collection("passages_terms")
        assert s.index is None
        mine = ops.counting()
        assert s.upsert_many([passage("a"), passage("b", n=3)]) == 2
        # the two documents and the corpus generation, nothing else
        assert mine.as_dict() == {"reads": 0, "writes": 3, "deletes": 0}
        assert list(terms.stream()) == []
        stored = s.passages.document("a").get().to_dict()
        assert "bm25_terms" not in stored and "bm25_length" not in stored
        assert s.get_many(["a"])["a"].n_tokens == 5
        mine = ops.counting()
        assert s.delete_many(["a", "missing"]) == 1
        # which exist; then the one deleted, with the corpus generation
        assert mine.as_dict() == {"reads": 2, "writes": 1, "deletes": 1}
        assert list(terms.stream()) == [] and s.count() == 1
    finally:
        s.close()
    # without it, the same store keeps its term index: postings and corpus totals
    s = open_store(Settings.from_env({**os.environ, **firestore_env}))
    try:
        assert s.index is not None
        s.upsert_many([passage("c")])
        assert {snap.id for snap in terms.stream()} >= {"#corpus", "title#0"}
        assert [h.passage_id for h in s.index.search(["title"], 5)] == ["c"]
    finally:
        s.close()


def test_the_function_opens_a_sqlite_store_ingestion_made_and_never_makes_one(tmp_path):
    """``open_store(..., create=False)`` (the function): a path ingestion never wrote, or a SQLite file without the
    passages table, is a 503 that names the path and says to ingest first; the path is left as it was. Ingestion's
    ``open_store(settings)`` still makes a new store, and the function then opens it."""
    import sqlite3

    from function.config import Settings
    from function.errors import StoreUnavailable
    from function.store import open_store

    typo = tmp_path / "typo" / "passages.sqlite"
    settings = Settings.from_env({"QA_STORE": "sqlite", "QA_SQLITE_PATH": str(typo)})
    with pytest.raises(StoreUnavailable) as missing:
        open_store(settings, create=False)
    assert str(typo) in missing.value.message and "does not exist" in missing.value.message
    assert f"python -m function.ingest DOCS --sqlite-path {typo}" in missing.value.message
    assert missing.value.http_status == 503 and not typo.parent.exists()  # neither the folder nor the file made

    other = tmp_path / "other.sqlite"  # some other SQLite file named by mistake: not written to
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE notes (x)")
    with pytest.raises(StoreUnavailable, match="holds no passages table: ingest documents into it first"):
        open_store(Settings.from_env({"QA_STORE": "sqlite", "QA_SQLITE_PATH": str(other)}), create=False)
    with sqlite3.connect(other) as db:
        assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["notes"]

    made = open_store(settings)  # ingestion's first run
    made.upsert_many([passage("a")])
    made.close()
    served = open_store(settings, create=False)
    assert served.count() == 1 and set(served.get_many(["a"])) == {"a"}
    served.close()
