"""The BM25 index both stores keep beside the passages: exact counts, documented scores, same ranking."""

import json
import math

import pytest

from function.errors import StoreUnavailable
from function.ingest.json_input import Record, parse_text
from function.retrieval import bm25
from function.retrieval.bm25 import PassageTerms
from function.retrieval.terms import query_terms
from function.store.passage import Passage

CORPUS = {
    "a": ("Normans", "The Normans settled in Normandy, a region of France."),
    "b": ("Rollo", "Rollo was a Viking leader; Rollo founded Normandy."),
    "c": ("France", "Paris is the capital of France, and France is in Europe."),
}


def passage(pid: str, title: str, text: str) -> Passage:
    return Passage(pid, title, "doc", text, b"", "<u2", b"", 0, "fp")  # tokens do not matter here


def passages(corpus: dict) -> list[Passage]:
    return [passage(pid, title, text) for pid, (title, text) in corpus.items()]


def expected_stats(corpus: dict, terms: list[str]) -> dict:
    analysed = [PassageTerms.of(title, text) for title, text in corpus.values()]
    return {"passages": len(analysed), "total_length": sum(a.length for a in analysed),
            "df": {t: sum(t in a.frequencies() for a in analysed) for t in terms}}


def reference_scores(corpus: dict, terms: list[str]) -> dict[str, float]:
    """BM25 as bm25.py's docstring states it, written out independently."""
    analysed = {pid: PassageTerms.of(title, text) for pid, (title, text) in corpus.items()}
    n = len(analysed)
    avgdl = sum(a.length for a in analysed.values()) / n
    scores = {}
    for pid, a in analysed.items():
        freqs = a.frequencies()
        total = 0.0
        for t in terms:
            if t not in freqs:
                continue
            df = sum(t in b.frequencies() for b in analysed.values())
            idf = max(math.log((n - df + 0.5) / (df + 0.5)), 0) or 1e-6
            f = bm25.TITLE_WEIGHT * freqs[t][0] + bm25.TEXT_WEIGHT * freqs[t][1]
            total += idf * f * (bm25.K1 + 1) / (f + bm25.K1 * (1 - bm25.B + bm25.B * a.length / avgdl))
        if total:
            scores[pid] = total
    return scores


def open_store(kind: str, request, tmp_path):
    if kind == "sqlite":
        from function.store.sqlite import SqliteStore

        return SqliteStore(tmp_path / "p.sqlite")
    request.getfixturevalue("firestore_env")
    from function.store.firestore import FirestoreStore

    return FirestoreStore(None, "(default)", "passages", "answers", timeout_s=10)


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.firestore)])
def store(request, tmp_path):
    s = open_store(request.param, request, tmp_path)
    yield s
    s.close()


WATCHED = ["normandy", "france", "rollo", "settled", "vikings", "europe", "missing"]


def test_counts_stay_exact_through_reingest_add_and_delete(store):
    corpus = dict(CORPUS)
    assert store.index.stats(WATCHED) == expected_stats({}, WATCHED) == {
        "passages": 0, "total_length": 0, "df": dict.fromkeys(WATCHED, 0)}
    store.upsert_many(passages(corpus))
    assert store.index.stats(WATCHED) == expected_stats(corpus, WATCHED)
    assert store.index.stats(["normandy"])["df"] == {"normandy": 2}

    store.upsert_many(passages(corpus))  # re-ingesting the same passages counts nothing twice
    assert store.index.stats(WATCHED) == expected_stats(corpus, WATCHED)

    corpus["a"] = ("Normans", "Vikings from the north became the Normans.")  # no longer "settled" or "normandy"
    corpus["d"] = ("Europe", "Normandy is in Europe.")
    store.upsert_many(passages({k: corpus[k] for k in ("a", "d")}))
    stats = store.index.stats(WATCHED)
    assert stats == expected_stats(corpus, WATCHED) and stats["df"]["settled"] == 0 and stats["passages"] == 4

    assert store.delete_many(["b", "missing"]) == 1
    del corpus["b"]
    assert store.index.stats(WATCHED) == expected_stats(corpus, WATCHED)
    assert store.index.search(["rollo"], 5) == [] and store.count() == 3

    assert store.delete_many(list(corpus)) == 3
    assert store.index.stats(WATCHED) == expected_stats({}, WATCHED)
    assert store.index.search(["normandy", "france"], 5) == []


def test_scores_are_the_documented_bm25_best_first_ties_by_id(store):
    corpus = {**CORPUS, "e": ("Rollo", "Rollo was a Viking leader; Rollo founded Normandy.")}  # ties with "b"
    store.upsert_many(passages(corpus))
    for terms in (["normandy", "france"], ["rollo"], ["viking", "europe", "capital"], ["nothing"]):
        hits = store.index.search(terms, 10)
        expected = reference_scores(corpus, terms)
        assert [h.passage_id for h in hits] == sorted(expected, key=lambda p: (-expected[p], p))
        for h in hits:
            assert h.score == pytest.approx(expected[h.passage_id], rel=1e-12)
    assert [h.passage_id for h in store.index.search(["rollo"], 1)] == ["b"]


@pytest.mark.firestore
def test_both_stores_rank_the_sample_corpus_alike(repo, request, tmp_path):
    text = (repo / "samples" / "squad_sample.json").read_text()
    records = [r for r in parse_text("sample", text) if isinstance(r, Record)]
    sample = [passage(r.id, r.title, r.text) for r in records]
    questions = [q["question"] for a in json.loads(text)["data"] for p in a["paragraphs"] for q in p["qas"]]
    sqlite = open_store("sqlite", request, tmp_path)
    firestore = open_store("firestore", request, tmp_path)
    sqlite.upsert_many(sample)
    firestore.upsert_many(sample)
    vocabulary = sorted({t for q in questions for t in query_terms(q)})
    assert sqlite.index.stats(vocabulary) == firestore.index.stats(vocabulary)
    for q in questions:
        terms = query_terms(q)
        a, b = sqlite.index.search(terms, 10), firestore.index.search(terms, 10)
        assert [h.passage_id for h in a] == [h.passage_id for h in b], q
        assert [h.score for h in a] == pytest.approx([h.score for h in b], rel=1e-12), q
    sqlite.close()
    firestore.close()


@pytest.mark.firestore
def test_firestore_splits_large_postings_and_removes_parts_no_longer_needed(firestore_env, monkeypatch):
    from function.retrieval.firestore_terms import TermIndex
    from function.store.firestore import FirestoreStore

    monkeypatch.setattr(TermIndex, "PART_BYTES", 30)  # two postings (12 bytes each) per document
    monkeypatch.setattr(TermIndex, "TRANSACTION_BYTES", 100)  # a few terms per transaction
    store = FirestoreStore(None, "(default)", "passages", "answers", timeout_s=10)
    corpus = {f"p{i:02d}": ("Title", f"common words here, and rare{i}" + " common" * (i % 3)) for i in range(12)}
    store.upsert_many(passages(corpus))
    head = store.index.terms.document("common#0").get().to_dict()
    assert head["parts"] >= 5 and head["df"] == 12
    assert store.index.terms.document(f"common#{head['parts'] - 1}").get().exists
    expected = reference_scores(corpus, ["common", "rare7"])
    hits = store.index.search(["common", "rare7"], 12)
    assert [h.passage_id for h in hits] == sorted(expected, key=lambda p: (-expected[p], p))
    assert [h.score for h in hits] == pytest.approx([expected[h.passage_id] for h in hits], rel=1e-12)

    store.delete_many([f"p{i:02d}" for i in range(10)])
    left = store.index.terms.document("common#0").get().to_dict()
    assert left["df"] == 2 and left["parts"] < head["parts"]
    assert not store.index.terms.document(f"common#{head['parts'] - 1}").get().exists
    assert not store.index.terms.document("rare3#0").get().exists  # no postings: no document
    store.close()


@pytest.mark.firestore
def test_firestore_ingestion_that_failed_half_way_is_repaired_by_running_it_again(firestore_env, monkeypatch):
    from function.store.firestore import FirestoreStore

    store = FirestoreStore(None, "(default)", "passages", "answers", timeout_s=10)
    store.upsert_many(passages(CORPUS))
    changed = {**CORPUS, "a": ("Normans", "Vikings from the north became the Normans.")}

    def crash(*args, **kwargs):
        raise ConnectionError("the process died after the index, before the passages")

    with monkeypatch.context() as m:
        m.setattr(store, "_commit_in_batches", crash)
        with pytest.raises(StoreUnavailable):
            store.upsert_many(passages({"a": changed["a"]}))
    store.upsert_many(passages({"a": changed["a"]}))
    assert store.index.stats(WATCHED) == expected_stats(changed, WATCHED)
    store.close()


@pytest.mark.firestore
def test_firestore_search_refuses_postings_torn_between_two_rewrites(firestore_env, monkeypatch):
    from function.retrieval.firestore_terms import TermIndex
    from function.store.firestore import FirestoreStore

    monkeypatch.setattr(TermIndex, "PART_BYTES", 40)
    store = FirestoreStore(None, "(default)", "passages", "answers", timeout_s=10)
    store.upsert_many(passages({f"p{i}": ("T", "common") for i in range(6)}))
    store.index.terms.document("common#1").update({"gen": "another rewrite"})
    with pytest.raises(StoreUnavailable) as info:
        store.index.search(["common"], 3)
    assert info.value.http_status == 503
    store.close()


def test_every_index_answers_a_question_through_the_searcher_protocol(tmp_path):
    """The four indexes are ``Searcher``s; the BM25 ones read a question alone by its terms, as ``search`` does,
    which is what ``QAService.retrieve`` calls whatever index is configured."""
    from function.retrieval.firestore_terms import TermIndex
    from function.retrieval.fts5 import Fts5Index
    from function.retrieval.hybrid import HybridIndex
    from function.retrieval.lance_index import LanceIndex
    from function.retrieval.searcher import Searcher
    from function.store.sqlite import SqliteStore

    assert all(Searcher in kind.__mro__ for kind in (Fts5Index, TermIndex, LanceIndex, HybridIndex))
    assert HybridIndex.search_question is not Searcher.search_question  # it embeds the question too
    store = SqliteStore(tmp_path / "p.sqlite")
    store.upsert_many(passages(CORPUS))
    terms = query_terms("Who founded Normandy?")
    assert isinstance(store.index, Fts5Index) and store.index.description == store.description
    assert store.index.search_question("Who founded Normandy?", terms, 2) == store.index.search(terms, 2)
    assert [h.passage_id for h in store.index.search(terms, 2)] == ["b", "a"]
    store.close()
