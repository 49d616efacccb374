"""Filters on questions asked alone (``documents``, ``source_prefix``, ``tags``), on every index.

Each index filters inside its search: the passages returned are the best that match, even where better
passages outside the filter would fill the top k; hostile values are matched literally; a filter nothing
matches is a 200 "no answer" with its reason; tags given at ingestion reach every store and index.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from function.config import Settings
from function.errors import BadRequest, PayloadTooLarge
from function.http.parse import parse
from function.retrieval.filters import PassageFilter
from function.store.passage import Passage

HOSTILE_DOC = "x' OR 1=1 --"
HOSTILE_SOURCE = 'other/it\'s "NEAR(a b)" *^:%_\\ü/page.md'
HOSTILE_TAGS = ("NEAR", '"', "it's", "ü", "a*", "^x:y")
STRONG = "Normandy, Normandy, Normandy: the Normans settled in Normandy."
WEAK = ("Among many words about steam engines, coal, rivers, bridges, canals, harbours, trains, mills and "
        "looms, the region of Normandy appears once.")


def passage(pid: str, doc: str, source: str, tags: tuple[str, ...], text: str) -> Passage:
    return Passage(pid, "", doc, text, b"", "<u2", b"", 0, "fp", source=source, tags=tags)  # tokens do not matter


CORPUS = [
    *(passage(f"a{i:02d}", "A", "docs/a/guide.md", ("alpha",), STRONG) for i in range(20)),
    passage("b00", "B", "docs/b/notes.md", ("beta",), WEAK),
    passage("h00", HOSTILE_DOC, HOSTILE_SOURCE, HOSTILE_TAGS, "Normandy, once, in a hostile document."),
    passage("u00", "C", "docs/c.md", (), WEAK + " Untagged."),
]
TERMS = ["normandy"]


class NormandyEncoder:
    """A stand-in sentence encoder: the question and A's strong passages point one way, every other text another,
    so that the vectors, like BM25, put A's passages first."""

    dim = 4

    def embed(self, texts):
        return np.array([[1.0, 0, 0, 0] if "Normans settled" in t or t.startswith("Where") else [0, 1.0, 0, 0]
                         for t in texts], np.float32)

    def embed_one(self, text):
        return self.embed([text])[0]


INDEXES = ["sqlite", pytest.param("firestore", marks=pytest.mark.firestore), "lance", "hybrid"]


def _index(request, tmp_path, corpus: list[Passage]):
    """The index of the kind ``request.param`` names (its store's own, for SQLite and Firestore) holding ``corpus``."""
    kind = request.param
    if kind in ("sqlite", "firestore"):
        if kind == "sqlite":
            from function.store.sqlite import SqliteStore

            store = SqliteStore(tmp_path / "p.sqlite")
        else:
            request.getfixturevalue("firestore_env")
            from function.store.firestore import FirestoreStore

            store = FirestoreStore(None, "(default)", "passages", "answers", timeout_s=10)
        request.addfinalizer(store.close)
        store.upsert_many(corpus)
        return store.index
    else:
        from function.retrieval.hybrid import HybridIndex
        from function.retrieval.lance_index import LanceIndex

        if kind == "lance":
            searcher = LanceIndex(str(tmp_path / "ix"), refresh_s=0)
        else:
            encoder = NormandyEncoder()
            searcher = HybridIndex(LanceIndex(str(tmp_path / "ix"), refresh_s=0, dim=encoder.dim), encoder)
        request.addfinalizer(searcher.close)
        searcher.write(corpus)
        searcher.optimize()
        return searcher


@pytest.fixture(params=INDEXES)
def search(request, tmp_path):
    """``search(where, k) -> [passage ids]`` on one index holding ``CORPUS``, best first."""
    searcher = _index(request, tmp_path, CORPUS)

    def run(where: PassageFilter | None, k: int = 5) -> list[str]:
        hits = searcher.search_question("Where is Normandy?", TERMS, k, where)
        return [h.passage_id for h in hits]

    return run


@pytest.fixture(params=INDEXES)
def index(request, tmp_path):
    """An index holding two files' passages (ids as ingestion gives them) and a JSON record's."""
    from function.store.ids import chunk_passage_id

    files = [("guide/a.md", "Rollo led the Normans."), ("guide/a.md", "Nothing of him here."),
             ("guide/b.md", "Normandy without its first duke."), ("guide/a.md#0001", "A Rollo elsewhere.")]
    corpus = [passage(chunk_passage_id(doc, i), doc, doc, (), text) for i, (doc, text) in enumerate(files)]
    return request.param, _index(request, tmp_path, [*corpus, passage("record-1", "R", "", (), "Normandy alone.")])


def test_a_document_holds_a_term_where_any_of_its_passages_does(index):
    """``Searcher.document_holds``, which the "no answer" threshold asks about a name the question gives: Firestore's
    term index tells a file's passages from its postings' ids (no filtered query, which would read every passage of
    the document), a JSON record's not at all, so there it says "held" and nothing moves."""
    from function.store.ids import chunk_passage_id

    kind, searcher = index
    read = chunk_passage_id("guide/a.md", 1)  # the passage read lacks "rollo"; another of its document holds it
    assert searcher.document_holds(["rollo"], "guide/a.md", read)
    assert searcher.document_holds(["rollos", "rollo"], "guide/a.md", read)  # any of the terms
    assert not searcher.document_holds(["rollo"], "guide/b.md", chunk_passage_id("guide/b.md", 2))
    assert not searcher.document_holds(["zanzibar"], "guide/a.md", read)
    assert not searcher.document_holds(["elsewhere"], "guide/a.md", read)  # "guide/a.md#0001"'s passage is not a's
    assert searcher.document_holds(["rollo"], "R", "record-1") == (kind == "firestore")  # an id of no file form


def test_the_best_matching_passages_come_back_though_better_ones_do_not_match(search):
    assert set(search(None)) <= {f"a{i:02d}" for i in range(20)}  # unfiltered, A's strong passages fill the top 5
    assert search(PassageFilter(documents=("B",))) == ["b00"]
    assert search(PassageFilter(source_prefix="docs/b/")) == ["b00"]
    assert search(PassageFilter(tags=("beta",))) == ["b00"]
    assert sorted(search(PassageFilter(documents=("B", "C")))) == ["b00", "u00"]
    assert sorted(search(PassageFilter(tags=("beta", "no-such-tag", "NEAR")))) == ["b00", "h00"]  # any of the tags
    many = tuple(f"d{i}" for i in range(99)) + ("B",)  # more than one query's worth of values (Firestore: 30)
    assert search(PassageFilter(documents=many, tags=tuple(f"t{i}" for i in range(99)) + ("beta",))) == ["b00"]


def test_top_k_is_full_when_enough_passages_match(search):
    assert len(search(PassageFilter(documents=("A",)), k=20)) == 20
    within = search(PassageFilter(source_prefix="docs/"), k=23)
    assert len(within) == 22 and "h00" not in within  # every passage but the one from elsewhere
    assert search(PassageFilter(source_prefix="docs/"), k=21)[-1] in ("b00", "u00")  # A's 20 first, then the weak


def test_every_part_of_a_filter_must_match(search):
    assert search(PassageFilter(documents=("A", "B"), tags=("beta",))) == ["b00"]
    assert search(PassageFilter(documents=("A",), tags=("beta",))) == []
    assert search(PassageFilter(documents=("B",), source_prefix="docs/a/")) == []
    assert search(PassageFilter(source_prefix="docs/", tags=("alpha",)), k=25) == search(
        PassageFilter(documents=("A",)), k=25)


def test_a_filter_nothing_matches_finds_nothing(search):
    assert search(PassageFilter(documents=("no-such-document",))) == []
    assert search(PassageFilter(source_prefix="gs://elsewhere/")) == []
    assert search(PassageFilter(tags=("no-such-tag",))) == []


@pytest.mark.parametrize("where, expected", [
    (PassageFilter(documents=(HOSTILE_DOC,)), ["h00"]),  # the quote is part of the id, not of a query
    (PassageFilter(documents=("' OR 1=1 --",)), []),
    (PassageFilter(documents=("A' OR '1'='1",)), []),
    (PassageFilter(documents=('A" OR "1"="1',)), []),
    (PassageFilter(documents=("A') OR ('1'='1",)), []),
    (PassageFilter(documents=("%", "*", "_", "NEAR", "A*", "a")), []),  # wildcards and operators are plain text
    (PassageFilter(source_prefix=HOSTILE_SOURCE[:14]), ["h00"]),
    (PassageFilter(source_prefix=HOSTILE_SOURCE), ["h00"]),
    (PassageFilter(source_prefix=HOSTILE_SOURCE + "x"), []),
    (PassageFilter(source_prefix="%"), []),
    (PassageFilter(source_prefix="docs/_"), []),
    (PassageFilter(source_prefix="docs/%"), []),
    (PassageFilter(source_prefix="DOCS/B/"), []),  # case counts
    (PassageFilter(source_prefix="' OR 1=1 --"), []),
    (PassageFilter(source_prefix="docs/b/notes.md' OR '1'='1"), []),
    (PassageFilter(tags=("NEAR",)), ["h00"]),
    (PassageFilter(tags=('"',)), ["h00"]),
    (PassageFilter(tags=("it's",)), ["h00"]),
    (PassageFilter(tags=("^x:y",)), ["h00"]),
    (PassageFilter(tags=("ü",)), ["h00"]),
    (PassageFilter(tags=("u",)), []),  # no folding: "ü" is not "u"
    (PassageFilter(tags=("a",)), []),  # "a*" is a tag, not a prefix
    (PassageFilter(tags=("*",)), []),
    (PassageFilter(tags=("it''s",)), []),
    (PassageFilter(tags=("alpha' OR 1=1 --", "beta') OR ('1'='1")), []),
    (PassageFilter(tags=("OR", "AND", "NOT", "NEAR/2", "title:x")), []),
    (PassageFilter(documents=("A\\",)), []),  # a backslash escapes nothing
])
def test_hostile_values_are_matched_literally(search, where, expected):
    assert search(where) == expected


@pytest.mark.firestore
def test_firestore_checks_the_best_candidates_against_a_filter_too_broad_to_read_whole(firestore_env, monkeypatch):
    from function.retrieval.firestore_terms import TermIndex
    from function.store import ops
    from function.store.firestore import FirestoreStore

    store = FirestoreStore(None, "(default)", "passages", "answers", timeout_s=10)
    try:
        store.upsert_many(CORPUS)
        monkeypatch.setattr(TermIndex, "FILTER_SET_MAX", 3)
        monkeypatch.setattr(TermIndex, "FILTER_PAGE", 4)

        def ids(where, k=5):
            return [h.passage_id for h in store.index.search(TERMS, k, where)]

        assert ids(PassageFilter(source_prefix="docs/", tags=("beta",))) == ["b00"]  # tags narrow, source broad
        assert sorted(ids(PassageFilter(documents=("B", "C", HOSTILE_DOC, "A")))) == sorted(ids(None))
        assert sorted(ids(PassageFilter(source_prefix="docs/"), k=22)) == sorted(p.id for p in CORPUS if p.id != "h00")
        monkeypatch.setattr(TermIndex, "FILTER_SET_MAX", 1)
        counted = ops.counting()
        assert sorted(ids(PassageFilter(documents=("B", "C")))) == ["b00", "u00"]
        assert counted.reads > 20  # the candidates were checked, best first: the two matching ones rank last
    finally:
        store.close()


# -- the request ----------------------------------------------------------------------


S = Settings.from_env({})


def ask(body: dict):
    return parse(json.dumps({"question": "Where is Normandy?", **body}).encode(), S, 30)


def test_the_request_carries_the_filter_and_null_means_none():
    r = ask({"documents": ["A", "B", "A"], "source_prefix": "docs/", "tags": ["x", "x", "y"]})
    assert r.where == PassageFilter(("A", "B"), "docs/", ("x", "y"))
    assert ask({"documents": None, "source_prefix": None, "tags": None}).where is None
    assert ask({}).where is None
    assert ask({"tags": [HOSTILE_TAGS[0], "' OR 1=1 --", "ü"]}).where.tags == ("NEAR", "' OR 1=1 --", "ü")


@pytest.mark.parametrize("body, words", [
    ({"documents": []}, "non-empty array"),
    ({"documents": "A"}, "non-empty array"),
    ({"tags": [1]}, "non-empty strings"),
    ({"tags": [""]}, "non-empty strings"),
    ({"source_prefix": ""}, "non-empty strings"),
    ({"source_prefix": ["docs/"]}, "non-empty strings"),
    ({"documents": [f"d{i}" for i in range(101)]}, "101 values; the limit is 100"),
    ({"documents": [f"d{i}" for i in range(10_000)]}, "10000 values; the limit is 100"),
    ({"tags": [f"t{i}" for i in range(101)]}, "the limit is 100"),
    ({"tags": ["t" * 513]}, "513 characters; the limit is 512"),
    ({"source_prefix": "s" * 513}, "513 characters; the limit is 512"),
    ({"documents": ["a\u0000b"]}, "NUL"),
    ({"documents": ["\ud800"]}, "unpaired surrogate"),
    ({"context": "Normandy is in France.", "tags": ["x"]}, "'tags' is for questions without"),
    ({"passage_ids": ["p"], "documents": ["A"]}, "'documents' is for questions without"),
    ({"context": "Normandy is in France.", "source_prefix": "docs/"}, "'source_prefix' is for questions without"),
])
def test_bad_filters_are_a_clear_400(body, words):
    with pytest.raises(BadRequest, match=words.replace("(", r"\(")):
        ask(body)


def test_a_megabyte_value_is_refused_before_it_is_read():
    from function.http.parse import read_body

    body = json.dumps({"question": "q", "source_prefix": "x" * 1_000_000}).encode()
    with pytest.raises(PayloadTooLarge):
        import io

        read_body(io.BytesIO(body), len(body), S.max_body_bytes)


def test_over_http_a_bad_filter_is_a_400_and_one_nothing_matches_a_200_no_answer(local_service):
    import requests

    too_many = requests.post(local_service, json={"question": "Where is Normandy?", "tags": ["t"] * 101}, timeout=60)
    assert too_many.status_code == 400
    assert "'tags' has 101 values; the limit is 100" in too_many.json()["error"]["message"]
    hostile = {"question": "Where is Normandy?", "documents": ["' OR 1=1 --"], "source_prefix": '"NEAR*^:',
               "tags": ["ü", "it's"]}
    reply = requests.post(local_service, json=hostile, timeout=60)
    assert reply.status_code == 200 and reply.json()["answers"] == []
    assert "no stored passage within the filter" in reply.json()["no_answer"]["reason"]


def test_limits_are_settings():
    tight = Settings.from_env({"QA_MAX_FILTER_VALUES": "2", "QA_MAX_FILTER_CHARS": "3"})
    with pytest.raises(BadRequest, match="3 values; the limit is 2"):
        parse(json.dumps({"question": "q", "tags": ["a", "b", "c"]}).encode(), tight, 30)
    with pytest.raises(BadRequest, match="the limit is 3"):
        parse(json.dumps({"question": "q", "source_prefix": "abcd"}).encode(), tight, 30)


# -- ingestion and the service ----------------------------------------------------------


@pytest.fixture
def folders(tmp_path):
    """Two folders: ``a`` with 20 passages strongly about Normandy, ``b`` with one weak mention."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for i in range(20):
        (tmp_path / "a" / f"guide{i:02d}.md").write_text(f"# Normandy {i}\n\n{STRONG}\n")
    (tmp_path / "b" / "notes.md").write_text(f"# Notes\n\n{WEAK}\n")
    return tmp_path


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.firestore), "lance"])
def ingest_env(request, tiny_artifact, tmp_path, monkeypatch):
    """The environment of one store (and for ``lance``, a Lance index beside SQLite), set for the process."""
    monkeypatch.setenv("QA_ARTIFACT_DIR", str(tiny_artifact.folder))
    monkeypatch.setenv("QA_CACHE", "1")
    monkeypatch.setenv("QA_CACHE_SHARED", "0")
    if request.param == "firestore":
        request.getfixturevalue("firestore_env")
        monkeypatch.setenv("QA_STORE", "firestore")
    else:
        monkeypatch.setenv("QA_STORE", "sqlite")
        monkeypatch.setenv("QA_SQLITE_PATH", str(tmp_path / "p.sqlite"))
    if request.param == "lance":
        monkeypatch.setenv("QA_INDEX_URI", str(tmp_path / "index.lance"))
    return request.param


def _service():
    from function.service.pipeline import QAService
    from function.service.runtime import Runtime

    return QAService(Runtime(Settings.from_env()))


def _tags(kind: str, service) -> dict[str, tuple[str, ...]]:
    """Passage id -> tags, as the store holds them (and the Lance index, which must agree)."""
    store = service.rt.store()
    ids = [pid for record in store.documents_under("") for pid in record.passage_ids]
    held = {pid: p.tags for pid, p in store.get_many(ids).items()}
    if kind == "lance":
        import lance

        rows = lance.dataset(service.rt.settings.index_uri).to_table(columns=["id", "tags"]).to_pylist()
        assert {r["id"]: tuple(r["tags"]) for r in rows} == held
    return held


def test_tags_go_through_ingestion_and_a_question_finds_the_weak_match_within_them(ingest_env, folders):
    from function.ingest.cli import main as ingest_main
    from function.service.qa_request import QARequest

    assert ingest_main([str(folders / "a"), "--tag", "alpha", "--tag", "guide", "--quiet"]) == 0
    assert ingest_main([str(folders / "b"), "--tag", "beta", "--quiet"]) == 0
    service = _service()
    tags = _tags(ingest_env, service)
    assert len(tags) == 21 and tags["notes.md#0000"] == ("beta",)
    assert all(t == ("alpha", "guide") for pid, t in tags.items() if pid.startswith("guide"))

    question = "Where did the Normans settle in Normandy?"
    everything = service.answer(QARequest(question, None, None, 1, 30, 5)).payload
    assert "notes.md#0000" not in [r["passage_id"] for r in everything["retrieved"]]
    within = service.answer(QARequest(question, None, None, 1, 30, 5, where=PassageFilter(tags=("beta",))))
    assert within.cache == "miss"  # the unfiltered answer is cached under another key
    assert [r["passage_id"] for r in within.payload["retrieved"]] == ["notes.md#0000"]
    assert all(a["passage_id"] == "notes.md#0000" for a in within.payload["answers"])
    by_doc = service.answer(QARequest(question, None, None, 1, 30, 20, where=PassageFilter(documents=("notes.md",))))
    assert [r["passage_id"] for r in by_doc.payload["retrieved"]] == ["notes.md#0000"]
    again = service.answer(QARequest(question, None, None, 1, 30, 5, where=PassageFilter(tags=("beta",))))
    assert again.cache == "hit" and again.payload == within.payload

    # re-ingested with other tags, an unchanged document is rewritten with them
    assert ingest_main([str(folders / "b"), "--tag", "gamma", "--quiet"]) == 0
    assert _tags(ingest_env, _service())["notes.md#0000"] == ("gamma",)


def test_a_filter_nothing_matches_is_a_200_no_answer_with_its_reason(ingest_env, folders):
    from function.ingest.cli import main as ingest_main
    from function.service.qa_request import QARequest

    assert ingest_main([str(folders / "b"), "--tag", "beta", "--quiet"]) == 0
    service = _service()
    for where in (PassageFilter(tags=("alpha",)), PassageFilter(documents=("' OR 1=1 --",)),
                  PassageFilter(source_prefix="/nowhere/")):
        payload = service.answer(QARequest("Where is Normandy?", None, None, 1, 30, 5, where=where)).payload
        assert payload["answers"] == [] and payload["retrieved"] == []
        assert payload["no_answer"]["abstained"] is True
        assert "no stored passage within the filter" in payload["no_answer"]["reason"]
        assert where.describe() in payload["no_answer"]["reason"]


def test_a_bad_tag_is_refused_by_the_command_line(tiny_artifact, tmp_path, monkeypatch, capsys):
    from function.ingest.cli import main as ingest_main

    monkeypatch.setenv("QA_ARTIFACT_DIR", str(tiny_artifact.folder))
    monkeypatch.setenv("QA_SQLITE_PATH", str(tmp_path / "p.sqlite"))
    (tmp_path / "d.md").write_text("Normandy.\n")
    with pytest.raises(SystemExit):
        ingest_main([str(tmp_path / "d.md"), "--tag", " "])
    assert ingest_main([str(tmp_path / "d.md"), "--tag", "t" * 513]) == 2
    assert "QA_MAX_FILTER_CHARS" in capsys.readouterr().err


# -- data stored before tags ---------------------------------------------------------------


def test_a_sqlite_file_from_before_tags_is_read_and_filtered(tmp_path):
    from function.store.sqlite import SqliteStore

    store = SqliteStore(tmp_path / "p.sqlite")
    store.upsert_many(CORPUS[19:22])  # a19, b00, h00
    store.close()
    db = sqlite3.connect(tmp_path / "p.sqlite")
    db.execute("ALTER TABLE passages DROP COLUMN tags")  # the file as an older version left it
    db.close()
    store = SqliteStore(tmp_path / "p.sqlite")
    try:
        assert {p.tags for p in store.get_many(["a19", "b00", "h00"]).values()} == {()}
        assert store.index.search(TERMS, 5, PassageFilter(tags=("beta",))) == []  # no tags: none match
        assert [h.passage_id for h in store.index.search(TERMS, 5, PassageFilter(documents=("B",)))] == ["b00"]
        store.upsert_many([CORPUS[20]])  # re-ingested: its tags are kept
        assert [h.passage_id for h in store.index.search(TERMS, 5, PassageFilter(tags=("beta",)))] == ["b00"]
    finally:
        store.close()


def test_a_lance_table_from_before_sources_and_tags_is_read_and_filled_in(tmp_path):
    import lance
    import pyarrow as pa

    from function.retrieval.lance_index import TOKENIZER, LanceIndex

    uri = str(tmp_path / "ix")
    old = pa.table({"id": ["a19", "b00"], "doc_id": ["A", "B"], "terms": ["normandy normandy", "normandy coal"]})
    lance.write_dataset(old, uri).create_scalar_index("terms", index_type="INVERTED", **TOKENIZER)
    index = LanceIndex(uri, refresh_s=0)
    assert [h.passage_id for h in index.search(TERMS, 5, PassageFilter(documents=("B",)))] == ["b00"]
    assert index.search(TERMS, 5, PassageFilter(tags=("beta",))) == []  # no such column yet: nothing matches
    assert index.search(TERMS, 5, PassageFilter(source_prefix="docs/")) == []
    index.write([CORPUS[20]])  # b00 again, with its source and tags: the columns are added
    assert [h.passage_id for h in index.search(TERMS, 5, PassageFilter(tags=("beta",)))] == ["b00"]
    assert [h.passage_id for h in index.search(TERMS, 5, PassageFilter(source_prefix="docs/b"))] == ["b00"]
    assert sorted(h.passage_id for h in index.search(TERMS, 5)) == ["a19", "b00"]  # the old row is still there
    index.optimize()  # the end of an ingestion: the filters' indexes are made
    indexed = {field for ix in lance.dataset(uri).list_indices() for field in ix["fields"]}
    assert {"doc_id", "source", "tags"} <= indexed
    assert [h.passage_id for h in index.search(TERMS, 5, PassageFilter(source_prefix="docs/b"))] == ["b00"]
    assert [h.passage_id for h in index.search(TERMS, 5, PassageFilter(documents=("A",)))] == ["a19"]
    index.close()


@pytest.mark.firestore
def test_a_firestore_passage_from_before_tags_has_none(firestore_env):
    from google.cloud import firestore

    from function.store.firestore import FirestoreStore

    store = FirestoreStore(None, "(default)", "passages", "answers", timeout_s=10)
    try:
        store.upsert_many(CORPUS[19:21])
        store.passages.document("b00").update({"tags": firestore.DELETE_FIELD})  # as written before tags
        assert store.get_many(["b00"])["b00"].tags == ()
        assert store.index.search(TERMS, 5, PassageFilter(tags=("beta",))) == []
        assert [h.passage_id for h in store.index.search(TERMS, 5, PassageFilter(documents=("B",)))] == ["b00"]
    finally:
        store.close()
