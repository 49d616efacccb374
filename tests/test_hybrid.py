"""Hybrid retrieval: the sentence encoder, vectors in the Lance table, the fusion of BM25 and cosine, the
embedding cache, and ``python -m bench scale``'s dense and end-to-end measurements, on tiny models made here."""

from __future__ import annotations

import json

import numpy as np
import pytest

from function.retrieval.bm25 import Hit
from function.retrieval.hybrid import HybridIndex, Rankings, mixed_scores
from function.retrieval.lance_index import IndexRow, LanceIndex


@pytest.fixture(scope="module")
def encoder_folder(tmp_path_factory, squad):
    """A tiny random BERT exported by ``build_model.encoder_export`` (fused, int8, parity-checked)."""
    from build_model.encoder_export import main
    from tests.support.tiny_build import tiny_teacher

    source = tiny_teacher(tmp_path_factory.mktemp("encoder-source"), hidden=32)
    out = tmp_path_factory.mktemp("encoder") / "tiny-int8"
    assert main(["--source", str(source), "--out", str(out), "--max-tokens", "24", "--data", str(squad)]) == 0
    return out


class FakeEncoder:
    """Vectors looked up by text; counts its calls (the cache must not repeat work)."""

    dim = 4

    def __init__(self, table: dict[str, list[float]] | None = None, fingerprint: str = "f" * 64):
        self.table, self.fingerprint, self.calls, self.fail_after = table or {}, fingerprint, 0, None

    def embed(self, texts):
        self.calls += 1
        if self.fail_after is not None and self.calls > self.fail_after:
            raise KeyboardInterrupt("the session was cut off")
        out = np.array([self.table.get(t, [len(t), 1.0, 0.0, 0.0]) for t in texts], np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def embed_one(self, text):
        return self.embed([text])[0]


# -- fusion ------------------------------------------------------------------------------


def test_the_mixed_score_puts_bm25_over_its_best_beside_the_cosine_scaled_per_question():
    bm25, cosine = {"a": 8.0, "b": 2.0, "c": 0.0}, {"a": 0.5, "c": 0.9}
    mixed = mixed_scores(bm25, cosine, alpha=0.3)
    # cosines scaled between the lowest (0) and the highest (1); b, which the vectors did not find, scores 0 there
    assert mixed == [("c", pytest.approx(0.7)), ("a", pytest.approx(0.3)), ("b", pytest.approx(0.3 * 0.25))]
    # the scale Lance reports cosines on (2 * cos - 1 through its index alone) changes nothing
    assert mixed_scores(bm25, {p: 2 * c - 1 for p, c in cosine.items()}, alpha=0.3) == mixed
    assert mixed_scores({"x": 1.0, "y": 1.0}, {"x": 0.4, "y": 0.4}, alpha=0.5) == [("x", 1.0), ("y", 1.0)]  # equal
    assert [p for p, _ in mixed_scores({"y": 0.0, "x": 0.0}, {"y": 0.2, "x": 0.5})] == ["x", "y"]  # no term shared


def test_a_passage_far_ahead_on_one_side_keeps_its_place_where_reciprocal_ranks_would_drop_it():
    """BM25 scores x far above the rest, the vectors put it last: reciprocal ranks (1 / (60 + rank), summed) see
    only two ranks and put y, middling in both, first; the mix keeps how far ahead x is."""
    bm25 = [Hit("x", 10.0), Hit("y", 3.0), Hit("w", 2.95), Hit("z", 2.9)]
    dense = [Hit("z", 0.80), Hit("y", 0.79), Hit("w", 0.78), Hit("x", 0.50)]
    no_table = type("NoTable", (), {"dim": FakeEncoder.dim})()  # every passage is in both lists: no search needed
    fused = HybridIndex(no_table, FakeEncoder(), depth=4).fuse(["t"], Rankings(bm25, dense), 4)
    assert [h.passage_id for h in fused] == ["x", "z", "y", "w"] and [h.score for h in fused] == [10.0, 2.9, 3.0, 2.95]
    assert [h.cosine for h in fused] == [0.50, 0.80, 0.79, 0.78]  # each passage's cosine, for the span bias


def test_a_passage_only_bm25_found_carries_the_vector_list_s_lowest_cosine_and_no_vectors_none():
    """Its own cosine is not read; being outside the nearest ``depth``, it is at most the list's last one."""
    bm25 = [Hit("x", 10.0), Hit("y", 3.0)]
    dense = [Hit("y", 0.7), Hit("z", 0.6)]
    no_table = type("NoTable", (), {"dim": FakeEncoder.dim, "search": lambda self, *a, **k: []})()
    fused = HybridIndex(no_table, FakeEncoder(), depth=2).fuse(["t"], Rankings(bm25, dense), 3)
    assert {h.passage_id: h.cosine for h in fused} == {"x": 0.6, "y": 0.7, "z": 0.6}
    # a table without vectors (nothing from the vector search): no cosine, so the span bias is BM25's alone
    assert [h.cosine for h in HybridIndex(no_table, FakeEncoder()).fuse(["t"], Rankings(bm25, []), 2)] == [None, None]


def test_the_span_bias_adds_the_cosine_only_where_every_passage_has_one():
    from function.retrieval.span_bias import BM25_WEIGHT, COSINE_WEIGHT, passage_bias

    bm25 = passage_bias([4.0, 2.0])
    assert bm25.tolist() == [BM25_WEIGHT, BM25_WEIGHT / 2]
    assert passage_bias([4.0, 2.0], cosines=[0.5, 0.25]).tolist() == pytest.approx(
        [BM25_WEIGHT + COSINE_WEIGHT * 0.5, BM25_WEIGHT / 2 + COSINE_WEIGHT * 0.25])
    assert passage_bias([4.0, 2.0], cosines=[0.5, None]).tolist() == bm25.tolist()
    assert passage_bias([4.0, 2.0], cosines=None).tolist() == bm25.tolist()



@pytest.mark.parametrize("question, shares", [
    ("Which NFL team won Super Bowl 50?", [1.0, 0.5, 0.0]),  # "NFL", "Super", "Bowl", "50": plain names
    ("What does SortedDict.copy return?", None),  # code-shaped: documentation writes it apart, so not weighed
    ("How do I read a CSV into a DataFrame with max_size set?", [0.0, 0.0, 1.0]),  # "CSV" only
    ("What does copy return?", None),  # no name at all
])
def test_the_span_bias_weighs_the_share_of_the_questions_plain_names_a_passage_holds(question, shares):
    from function.retrieval.span_bias import plain_name_shares

    passages = [("Super Bowl 50", "The NFL's championship game."), (None, "Super Bowl 49 was played in 2015."),
                ("SortedDict", "copy() Return a shallow copy. A CSV file.")]
    assert plain_name_shares(question, passages) == shares


def test_a_question_s_name_is_held_as_a_word_not_inside_another_one():
    from function.retrieval.span_bias import missing_name, plain_name_shares

    passages = [(None, "Founded in 1950, the NFLX fund."), (None, "The NFL's 50 teams; the Bowls.")]
    # "NFL" is not in "NFLX", nor "50" in "1950"; a plural and a possessive count as the word
    assert plain_name_shares("Which NFL team won Bowl 50?", passages) == [0.0, 1.0]
    assert missing_name("Which NFL team won in 50?", passages[:1])
    assert not missing_name("Which NFL team won in 50?", passages[1:])
    assert not missing_name("What does os.getcwd return?", [(None, "os.getcwd() Return the directory.")])


def test_the_span_bias_adds_the_plain_names_share_where_the_question_gives_one():
    from function.retrieval.span_bias import BM25_WEIGHT, NAME_WEIGHT, passage_bias

    assert passage_bias([4.0, 4.0, 2.0], names=[1.0, 0.5, 0.0]).tolist() == pytest.approx(
        [BM25_WEIGHT + NAME_WEIGHT, BM25_WEIGHT + NAME_WEIGHT / 2, BM25_WEIGHT / 2])
    assert NAME_WEIGHT > 0
    assert passage_bias([4.0, 2.0], names=None).tolist() == passage_bias([4.0, 2.0]).tolist()


# -- the encoder ---------------------------------------------------------------------------


def test_the_encoder_mean_pools_unmasked_tokens_to_unit_length(encoder_folder, squad):
    from transformers import BertModel

    from build_model.encoder_export import torch_embeddings
    from function.retrieval.encoder import SentenceEncoder, mean_pooled

    manifest = json.loads((encoder_folder / "encoder.json").read_text())
    assert manifest["parity"]["min_cosine"] >= manifest["parity"]["required"] and manifest["max_tokens"] == 24
    encoder = SentenceEncoder(encoder_folder, threads=1)
    texts = ["Who ruled Normandy?", "The Normans were the people who in the 10th and 11th centuries gave "
             "their name to Normandy, a region in France.", "Rollo"]
    together = encoder.embed(texts, batch_size=3)  # padded to the longest: the padding must not count
    alone = np.stack([encoder.embed([t])[0] for t in texts])
    assert together.shape == (3, encoder.dim) and np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert np.allclose(together, alone, atol=2e-3)
    source = BertModel.from_pretrained(manifest["source"], attn_implementation="eager").eval()
    reference = torch_embeddings(source, encoder_folder / "tokenizer.json", texts, 24)
    assert ((reference * together).sum(axis=1) > 0.97).all()  # int8 against fp32, the same pooling
    assert encoder.embed([]).shape == (0, encoder.dim)
    hidden = np.array([[[0.0, 0.0], [6.0, 8.0], [100.0, 100.0]]])
    assert np.allclose(mean_pooled(hidden, np.array([[1, 1, 0]])), [[0.6, 0.8]])  # the mean (3, 4), unit length


def test_the_encoder_keeps_its_last_texts_embeddings_for_their_next_use(encoder_folder, monkeypatch):
    from function.retrieval import encoder as module
    from function.retrieval.encoder import SentenceEncoder

    monkeypatch.setattr(module, "RECENT", 2)
    encoder = SentenceEncoder(encoder_folder, threads=1)
    runs = []
    embed = encoder.embed
    monkeypatch.setattr(encoder, "embed", lambda texts: runs.append(list(texts)) or embed(texts))
    first = encoder.embed_one("Who ruled Normandy?")
    assert np.allclose(first, embed(["Who ruled Normandy?"])[0])
    assert encoder.embed_one("Who ruled Normandy?") is first and runs == [["Who ruled Normandy?"]]  # kept
    encoder.embed_one("Rollo")
    encoder.embed_one("France")  # a third text: the oldest goes
    encoder.embed_one("Who ruled Normandy?")
    assert runs[-1] == ["Who ruled Normandy?"] and len(runs) == 4


def test_the_encoder_s_threads_do_not_spin_after_a_run(encoder_folder):
    """The reader runs right after the question's embedding: spinning threads here would take its CPUs."""
    from function.retrieval.encoder import SentenceEncoder

    encoder = SentenceEncoder(encoder_folder, threads=2)
    encoder.load()
    options = encoder._session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_a_missing_encoder_file_is_named(tmp_path):
    from function.retrieval.encoder import SentenceEncoder

    with pytest.raises(FileNotFoundError, match="model.onnx"):
        SentenceEncoder(tmp_path)


# -- vectors in the Lance table ------------------------------------------------------------


def unit(*values):
    v = np.array(values, np.float32)
    return v / np.linalg.norm(v)


def table(tmp_path, dim=4):
    index = LanceIndex(str(tmp_path / "ix"), refresh_s=0, dim=dim)
    index.upsert([IndexRow("a", "d", "normans ruled normandy"), IndexRow("b", "d", "steam engines burn coal"),
                  IndexRow("c", "d", "coal normandy coal"), IndexRow("e", "d", "nothing shared")],
                 np.stack([unit(1, 0, 0, 0), unit(0, 1, 0, 0), unit(1, 1, 0, 0), unit(0.9, 0, 0.1, 0)]))
    index.optimize()  # as an ingestion run ends: the rows folded into the inverted index
    return index


def test_rows_carry_vectors_searched_by_cosine(tmp_path):
    index = table(tmp_path)
    hits = index.nearest(unit(1, 0, 0, 0), 3)
    assert [h.passage_id for h in hits] == ["a", "e", "c"] and hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert index.nearest(unit(1, 0, 0, 0), 3, exact=True) == hits
    assert [h.passage_id for h in index.search(["coal"], 5)] == ["c", "b"]  # BM25 as before
    restricted = index.search(["coal", "normandy"], 5, among=("a", "e"))
    assert [h.passage_id for h in restricted] == ["a"]  # "e" holds neither term
    assert restricted[0].score == pytest.approx({h.passage_id: h.score for h in
                                                 index.search(["coal", "normandy"], 5)}["a"])
    with pytest.raises(ValueError, match="vector"):
        index.upsert([IndexRow("f", "d", "x")])
    with pytest.raises(ValueError, match="dense"):
        LanceIndex(str(tmp_path / "ix")).nearest(unit(1, 0, 0, 0), 1)


def test_optimize_builds_the_approximate_vector_index_once_there_are_rows_enough(tmp_path, monkeypatch):
    import lance

    from function.retrieval import lance_index

    monkeypatch.setattr(lance_index, "ANN_MIN_ROWS", 200)
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((300, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = LanceIndex(str(tmp_path / "ix"), refresh_s=0, dim=8)
    index.upsert([IndexRow(f"p{i}", "d", f"word{i % 7}") for i in range(150)], vectors[:150])
    index.optimize()  # too few rows to train partitions on: flat search only
    assert not any("vector" in i["fields"] for i in lance.dataset(str(tmp_path / "ix")).list_indices())
    flat = index.nearest(vectors[42], 3)
    assert flat[0].score == pytest.approx(1.0, abs=1e-5)
    index.upsert([IndexRow(f"p{i}", "d", f"word{i % 7}") for i in range(150, 300)], vectors[150:])
    index.optimize()
    assert any("vector" in i["fields"] for i in lance.dataset(str(tmp_path / "ix")).list_indices())
    [hit] = index.nearest(vectors[42], 1)
    assert hit.passage_id == "p42"
    # the approximate index alone reports the squared L2 distance of unit vectors (pylance 0.40), 2 - 2 x cosine: its
    # scores are taken back to the cosines, so the "no answer" threshold moves by them as by a flat search's
    query = rng.standard_normal(8).astype(np.float32)
    query /= np.linalg.norm(query)
    approximate = index.nearest(query, 5)
    assert [h.score for h in approximate] == pytest.approx([float(vectors[int(h.passage_id[1:])] @ query)
                                                          for h in approximate], abs=0.02)  # 8-bit quantised
    assert hit.score == pytest.approx(1.0, abs=0.02)
    far = index.nearest(-vectors[42], 300)[-1]  # the farthest vector: cosine -1 (read as -3 before 2026-11-30)
    assert far.score == pytest.approx(-1.0, abs=0.05)
    # rows the index does not cover yet: Lance scores every hit again exactly, 1 - the cosine distance
    extra = rng.standard_normal((10, 8)).astype(np.float32)
    extra /= np.linalg.norm(extra, axis=1, keepdims=True)
    index.upsert([IndexRow(f"q{i}", "d", "w") for i in range(10)], extra)
    mixed = index.nearest(query, 5)
    every = {**{f"p{i}": v for i, v in enumerate(vectors)}, **{f"q{i}": v for i, v in enumerate(extra)}}
    assert [h.score for h in mixed] == pytest.approx([float(every[h.passage_id] @ query) for h in mixed], abs=1e-5)


def test_the_vector_search_probes_as_many_partitions_as_it_is_told(tmp_path, monkeypatch):
    """``ann_nprobes`` reaches Lance: one partition of 8 misses true neighbours that probing all 8 finds (Lance's
    ``minimum_nprobes``, which the index passed before, went on to probe every partition whatever it said)."""
    from function.retrieval import lance_index

    monkeypatch.setattr(lance_index, "ANN_MIN_ROWS", 200)
    monkeypatch.setattr(lance_index, "ANN_ROWS_PER_PARTITION", 100)
    rng = np.random.default_rng(1)
    vectors = rng.standard_normal((800, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = LanceIndex(str(tmp_path / "ix"), refresh_s=0, dim=16)
    index.upsert([IndexRow(f"p{i}", "d", "w") for i in range(800)], vectors)
    index.optimize()
    queries = rng.standard_normal((20, 16)).astype(np.float32)

    def overlap(nprobes: int) -> float:
        index.ann_nprobes = nprobes
        found = [{h.passage_id for h in index.nearest(q, 10)} for q in queries]
        exact = [{h.passage_id for h in index.nearest(q, 10, exact=True)} for q in queries]
        return sum(len(f & e) for f, e in zip(found, exact)) / (10 * len(queries))

    assert overlap(1) < 0.8 * overlap(8)


# -- the hybrid index ---------------------------------------------------------------------


def test_fusion_reads_what_either_ranking_finds_with_each_passage_s_bm25_score(tmp_path):
    index = table(tmp_path)
    encoder = FakeEncoder({"who ruled normandy": [1, 0, 0, 0]})
    searcher = HybridIndex(index, encoder, depth=3)
    ranked = searcher.rankings("who ruled normandy", ["ruled", "normandy"])
    assert [h.passage_id for h in ranked.bm25] == ["a", "c"] and [h.passage_id for h in ranked.dense] == ["a", "e", "c"]
    fused = searcher.search_question("who ruled normandy", ["ruled", "normandy"], 3)
    bm25 = {h.passage_id: h.score for h in ranked.bm25}
    cosine = {h.passage_id: h.score for h in ranked.dense}
    expected = mixed_scores({**bm25, "e": 0.0}, cosine)
    assert [h.passage_id for h in fused] == [p for p, _ in expected]
    assert fused[0].score == pytest.approx(bm25["a"]) and {h.passage_id: h.score for h in fused}["e"] == 0.0
    both = HybridIndex(index, encoder, depth=1).fuse(["coal"], Rankings(index.search(["coal"], 1),
                                                                          index.nearest(unit(1, 1, 0, 0), 1)), 2)
    assert [h.passage_id for h in both] == ["c"]  # both rankings' first: one passage
    # a passage only the vectors found: its BM25 score comes from the search restricted to it
    only_dense = HybridIndex(index, encoder).fuse(["coal"], Rankings([], index.nearest(unit(0, 1, 0, 0), 1)), 1)
    assert only_dense[0].passage_id == "b" and only_dense[0].score == pytest.approx(
        {h.passage_id: h.score for h in index.search(["coal"], 5)}["b"])


def test_a_passage_only_bm25_found_scores_nothing_on_the_vectors_side(tmp_path):
    index = table(tmp_path)
    ranked = Rankings(index.search(["coal"], 2), index.nearest(unit(1, 0, 0, 0), 2))  # BM25 c, b; vectors a, e
    assert [h.passage_id for h in ranked.bm25] == ["c", "b"] and [h.passage_id for h in ranked.dense] == ["a", "e"]
    fused = HybridIndex(index, FakeEncoder(), depth=2, alpha=0.6).fuse(["coal"], ranked, 4)
    bm25 = {h.passage_id: h.score for h in ranked.bm25}
    expected = mixed_scores({"c": bm25["c"], "b": bm25["b"], "a": 0.0, "e": 0.0},
                            {"a": ranked.dense[0].score, "e": ranked.dense[1].score}, alpha=0.6)
    assert [h.passage_id for h in fused] == [pid for pid, _ in expected]
    assert fused[0].passage_id == "c" and fused[-1].passage_id == "e"  # e: the nearer list's last, no term shared


# -- the embedding cache -------------------------------------------------------------------


def test_the_embedding_cache_resumes_a_cut_off_run_and_embeds_nothing_twice(tmp_path):
    from bench.embed_cache import CHUNK, EmbeddingCache

    texts = [f"passage {i}" for i in range(CHUNK * 3 + 10)]
    encoder = FakeEncoder()
    encoder.fail_after = 2  # cut off during the third chunk
    cache = EmbeddingCache(tmp_path, encoder, checkpoint_s=0.0)  # a shard after every chunk
    with pytest.raises(KeyboardInterrupt):
        cache.fill(texts)
    assert len(EmbeddingCache(tmp_path, encoder)) == 2 * CHUNK  # what was saved survives
    encoder.fail_after, encoder.calls = None, 0
    resumed = EmbeddingCache(tmp_path, encoder)
    done = resumed.fill(texts + texts[:5])  # repeats are not embedded again either
    assert done["embedded"] == CHUNK + 10 and done["cached"] == 2 * CHUNK + 5 and encoder.calls == 2
    again = EmbeddingCache(tmp_path, encoder)
    assert again.fill(texts)["embedded"] == 0 and encoder.calls == 2
    assert np.allclose(again.get(texts[:3] + texts[-2:]), encoder.embed(texts[:3] + texts[-2:]), atol=1e-3)
    assert not list(tmp_path.rglob("*.partial.npz"))
    other = EmbeddingCache(tmp_path, FakeEncoder(fingerprint="0" * 64))  # another model: its own shards
    assert len(other) == 0


# -- python -m bench scale: dense recall and F1 end to end ----------------------------------


def test_bench_scale_measures_hybrid_recall_and_end_to_end_f1(squad, encoder_folder, tiny_artifact, tmp_path):
    """``bench scale`` at 40 passages with hybrid and F1."""
    from bench.scale import main

    out = tmp_path / "out"
    assert main(["--sizes", "40", "--backends", "lance", "sqlite", "--data", str(squad), "--no-brown",
                 "--work", str(tmp_path / "w"), "--out", str(out), "--f1-sizes", "40", "--hybrid-sizes", "40",
                 "--artifact", str(tiny_artifact.folder), "--encoder", str(encoder_folder),
                 "--embed-cache", str(tmp_path / "cache"), "--threads", "1"]) == 0
    result = json.loads((out / "scale.json").read_text())
    [hybrid] = result["hybrid"]
    assert hybrid["embed"]["embedded"] == 40 and hybrid["build"]["rows"] == 40
    recall = hybrid["ask"]["recall"]
    assert set(recall) == {"bm25", "dense", "dense_exact", "mixed"}
    assert all(0 <= r["@5"] <= r["@20"] <= 1 for r in recall.values()) and hybrid["ask"]["ms"]["embed"]["n"] > 0
    assert [r["retrieval"] for r in result["f1"]] == ["sqlite", "lance", "hybrid"]
    questions = result["rows"][0]["query"]["questions"]
    for row in result["f1"]:
        assert row["questions"] == questions and row["store"]["passages"] == 40
        assert 0 <= row["with_retrieval"]["f1"] <= 100 and row["gold_paragraph"] == result["f1"][0]["gold_paragraph"]


# -- the function with hybrid retrieval (QA_INDEX_ENCODER) ---------------------------------------


@pytest.fixture
def hybrid_env(tiny_artifact, encoder_folder, tmp_path):
    """The sample corpus ingested by the command line into SQLite and a Lance table with vectors beside it."""
    from harness.launch import ingest
    from harness.paths import SAMPLE

    env = {"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_STORE": "sqlite",
           "QA_SQLITE_PATH": str(tmp_path / "p.sqlite"), "QA_INDEX_URI": str(tmp_path / "index.lance"),
           "QA_INDEX_ENCODER": str(encoder_folder), "QA_CACHE": "0", "QA_INDEX_REFRESH_S": "0.01"}
    done = ingest(env, str(SAMPLE), "--quiet", check=True)
    assert "holds 66 rows" in done.stderr
    return env


def test_ingestion_stores_each_passage_s_embedding_and_questions_alone_are_fused(hybrid_env):
    import lance

    from bench.in_process import open_service
    from function.retrieval.encoder import SentenceEncoder
    from function.retrieval.hybrid import HybridIndex, dense_text
    from function.retrieval.terms import query_terms
    from function.service.qa_request import QARequest

    service = open_service(hybrid_env)
    searcher = service.rt.searcher()
    assert isinstance(searcher, HybridIndex)
    table = lance.dataset(hybrid_env["QA_INDEX_URI"]).to_table(columns=["id", "vector"])
    stored = dict(zip(table.column("id").to_pylist(), np.array(table.column("vector").to_pylist())))
    passages = service.rt.store().get_many(sorted(stored)[:3])
    encoder = SentenceEncoder(hybrid_env["QA_INDEX_ENCODER"])
    expected = encoder.embed([dense_text(p.title, p.text) for p in passages.values()])
    # batched with other passages at ingestion: int8 activations quantised per batch move it by ~1e-4
    np.testing.assert_allclose([stored[pid] for pid in passages], expected, atol=2e-3)

    asked = []
    fused = searcher.search_question
    searcher.search_question = lambda question, terms, k, where: asked.append(question) or fused(question, terms, k,
                                                                                                 where)
    reply = service.answer(QARequest("Who ruled Normandy?", None, None, 1, 30, 3)).payload
    assert asked == ["Who ruled Normandy?"]
    terms = query_terms("Who ruled Normandy?")
    ranked = searcher.rankings("Who ruled Normandy?", terms)
    bm25 = {h.passage_id: h.score for h in searcher.index.search(terms, 100)}  # every passage holding a term
    candidates = {h.passage_id for h in ranked.bm25 + ranked.dense}
    expected_ids = [pid for pid, _ in mixed_scores({p: bm25.get(p, 0.0) for p in candidates},
                                                   {h.passage_id: h.score for h in ranked.dense})[:3]]
    assert [r["passage_id"] for r in reply["retrieved"]] == expected_ids
    assert all(-1.0 <= r["cosine"] <= 1.0 for r in reply["retrieved"])  # shown beside the BM25 score

    # the reader's span bias: each passage's BM25 over the best + COSINE_WEIGHT x its cosine to the question
    from function.retrieval.span_bias import passage_bias

    hits = fused("Who ruled Normandy?", terms, 3)
    assert all(h.cosine is not None for h in hits)
    model = service.rt.model()
    kept, reading = service._read_retrieved(hits, 8, model)
    bias = reading.bias
    assert [p.id for p in kept] == [h.passage_id for h in hits]
    assert reading.scores == [h.score for h in hits]  # the hits' own scores, for the cascade's lead
    assert bias.tolist() == pytest.approx(passage_bias([h.score for h in hits], cosines=[h.cosine for h in hits]))
    assert not np.allclose(bias, passage_bias([h.score for h in hits]))
    # and the "no answer" threshold moves with the best cosine of the passages read
    from function.retrieval.span_bias import no_answer_shift

    assert reading.threshold_shift == pytest.approx(no_answer_shift([h.cosine for h in hits])) != 0.0
    # ... and, as the pipeline reads a question, with the share of its terms the passages hold too
    from function.retrieval.span_bias import term_share

    _, asked_alone = service._read_retrieved(hits, 8, model, question_terms=terms)
    share = term_share(terms, [(p.title, p.text) for p in kept])
    assert share is not None and 0.0 < share <= 1.0
    assert asked_alone.threshold_shift == pytest.approx(no_answer_shift([h.cosine for h in hits], share=share))
    assert asked_alone.threshold_shift != pytest.approx(reading.threshold_shift)
    # ... and lower where a name the question gives is in none of them
    from function.retrieval.span_bias import NO_ANSWER_NAME_SHIFT

    _, held = service._read_retrieved(hits, 8, model, question_terms=terms, question="Who ruled Normandy?")
    away = "Who ruled Normandy from Zanzibar?"
    _, named = service._read_retrieved(hits, 8, model, question_terms=terms, question=away)
    assert held.threshold_shift == pytest.approx(asked_alone.threshold_shift)  # "Normandy" is read
    assert named.threshold_shift == pytest.approx(asked_alone.threshold_shift - NO_ANSWER_NAME_SHIFT)


def test_the_encoder_needs_a_complete_folder_and_without_a_lance_index_means_stored_cosines(tmp_path,
                                                                                          encoder_folder):
    from function.config import ConfigError, Settings
    from function.retrieval import open_index, stored_encoder

    alone = Settings.from_env({"QA_INDEX_ENCODER": str(encoder_folder)})
    assert open_index(alone) is None and stored_encoder(alone).folder == encoder_folder
    with pytest.raises(ConfigError, match="no encoder.json, model.onnx, tokenizer.json"):
        Settings.from_env({"QA_INDEX_ENCODER": str(tmp_path)})
    with pytest.raises(ConfigError, match="no encoder.json, model.onnx, tokenizer.json"):
        Settings.from_env({"QA_INDEX_ENCODER": str(tmp_path), "QA_INDEX_URI": str(tmp_path / "ix")})
    settings = Settings.from_env({"QA_INDEX_ENCODER": str(encoder_folder), "QA_INDEX_URI": str(tmp_path / "ix")})
    assert settings.index_encoder == str(encoder_folder) and stored_encoder(settings) is None


# -- stored cosines: QA_INDEX_ENCODER without QA_INDEX_URI ------------------------------------------------------


@pytest.fixture
def stored_env(tiny_artifact, encoder_folder, tmp_path):
    """The sample corpus ingested by the command line into SQLite, each passage with its embedding."""
    from harness.launch import ingest
    from harness.paths import SAMPLE

    env = {"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_STORE": "sqlite",
           "QA_SQLITE_PATH": str(tmp_path / "p.sqlite"), "QA_INDEX_ENCODER": str(encoder_folder), "QA_CACHE": "0"}
    done = ingest(env, str(SAMPLE), check=True)
    assert "stored cosines" in done.stderr
    return env


def test_a_question_alone_ranks_its_answers_by_their_sentence_s_meaning_and_a_passage_id_does_not(hybrid_env):
    from bench.in_process import open_service
    from function.service.pipeline import SentenceCosines
    from function.service.qa_request import QARequest

    service = open_service(hybrid_env)
    question = "Who ruled Normandy?"
    alone = service.answer(QARequest(question, None, None, 1, 30, 3, abstain=False))
    assert alone.payload["answers"] and alone.timings_ms["sentences"] > 0  # its sentences embedded, counted apart
    assert list(alone.timings_ms)[-2:] == ["sentences", "total"]
    first = (alone.payload["retrieved"][0]["passage_id"],)
    given = service.answer(QARequest(question, None, first, 1, 30, abstain=False))
    assert given.payload["answers"] and "sentences" not in given.timings_ms  # a passage named by id reads as before

    # only the choice of passage is weighed so, not the answer within the passage chosen
    from function.model import reader

    stages = []
    by_sentence = reader._by_sentence

    def spy(found, question, texts, weight, titles=None, marks=None, lines=None, cosines=None, pages=None, code=None):
        stages.append(("choice" if titles is None else "within", cosines is not None))
        return by_sentence(found, question, texts, weight, titles, marks, lines, cosines, pages, code)

    with pytest.MonkeyPatch.context() as m:
        m.setattr(reader, "_by_sentence", spy)
        service.answer(QARequest("Who were the Normans?", None, None, 1, 30, 3, abstain=False))
    assert ("choice", True) in stages and ("within", False) in stages and ("within", True) not in stages

    encoder = service.rt.question_encoder()
    assert encoder is service.rt.searcher().encoder  # the hybrid index's
    hits = service.retrieve(question, 3)
    _, reading = service._read_retrieved(hits, 8, service.rt.model(), question=question)
    assert isinstance(reading.cosines, SentenceCosines)
    sentence = "Rollo ruled the Normans."
    assert reading.cosines([sentence]) == pytest.approx([float(encoder.embed([sentence])[0] @
                                                               encoder.embed([question])[0])], abs=1e-5)
    assert reading.cosines.ms > 0
    _, unasked = service._read_retrieved(hits, 8, service.rt.model())  # no question: nothing to compare with
    assert unasked.cosines is None


def test_stored_cosines_weigh_a_question_alone_s_spans_and_move_its_threshold(stored_env):
    from bench.in_process import open_service
    from function.retrieval.encoder import SentenceEncoder
    from function.retrieval.hybrid import dense_text
    from function.retrieval.span_bias import (
        NO_ANSWER_STORED_OFFSET,
        no_answer_shift,
        passage_bias,
        plain_name_shares,
        term_share,
    )
    from function.retrieval.terms import query_terms
    from function.service.qa_request import QARequest

    service = open_service(stored_env)
    store = service.rt.store()
    encoder = SentenceEncoder(stored_env["QA_INDEX_ENCODER"])
    question = "Who ruled Normandy?"
    hits = service.retrieve(question, 3)
    assert all(h.cosine is None for h in hits)  # the store's own index retrieves: BM25
    passages = [store.get_many([h.passage_id])[h.passage_id] for h in hits]
    assert all(p.encoder == encoder.identity for p in passages)
    # each passage stored with what hybrid retrieval would embed (half precision; batched at ingestion)
    np.testing.assert_allclose([p.vector for p in passages],
                               encoder.embed([dense_text(p.title, p.text) for p in passages]), atol=3e-3)
    cosines = [float(p.vector @ encoder.embed([question])[0]) for p in passages]

    reply = service.answer(QARequest(question, None, None, 1, 30, 3)).payload
    assert [r["passage_id"] for r in reply["retrieved"]] == [h.passage_id for h in hits]
    assert [r["cosine"] for r in reply["retrieved"]] == pytest.approx(cosines, abs=1e-4)

    model = service.rt.model()
    terms = query_terms(question)
    kept, bm25_alone = service._read_retrieved(hits, 8, model, question_terms=terms)  # no question: no cosines
    _, reading = service._read_retrieved(hits, 8, model, question_terms=terms, question=question)
    names = plain_name_shares(question, [(p.title, p.text) for p in kept])  # "Normandy": a name the question gives
    assert names is not None
    assert reading.bias.tolist() == pytest.approx(passage_bias([h.score for h in hits], cosines=cosines, names=names),
                                                  abs=1e-4)
    assert not np.allclose(reading.bias, bm25_alone.bias)
    share = term_share(terms, [(p.title, p.text) for p in kept])
    assert reading.threshold_shift == pytest.approx(no_answer_shift(cosines, share=share) + NO_ANSWER_STORED_OFFSET,
                                                    abs=1e-4)
    assert bm25_alone.threshold_shift == 0.0 != reading.threshold_shift
    # and its answers are ranked by their sentences' meaning with the same encoder
    assert reading.cosines is not None and reading.cosines.encoder is service.rt.passage_encoder()
    assert "sentences" in service.answer(QARequest(question, None, None, 1, 30, 3, abstain=False)).timings_ms


def test_passages_stored_without_the_encoder_are_read_with_bm25_alone_until_ingested_again(stored_env, capsys):
    from bench.in_process import open_service
    from function.service.qa_request import QARequest
    from harness.launch import ingest
    from harness.paths import SAMPLE

    bare = {k: v for k, v in stored_env.items() if k != "QA_INDEX_ENCODER"}
    bare["QA_SQLITE_PATH"] = stored_env["QA_SQLITE_PATH"] + ".bare"
    first = ingest(bare, str(SAMPLE), check=True)
    assert "stored cosines" not in first.stderr and ", 0 unchanged skipped" in first.stderr
    with_encoder = {**bare, "QA_INDEX_ENCODER": stored_env["QA_INDEX_ENCODER"]}
    question = QARequest("Who ruled Normandy?", None, None, 1, 30, 3)
    reply = open_service(with_encoder).answer(question).payload
    assert reply["answers"] and all("cosine" not in r for r in reply["retrieved"])  # answered as before
    service = open_service(with_encoder)
    assert service.answer(question).payload == reply and service.answer(question).payload == reply
    logged = capsys.readouterr()
    assert (logged.out + logged.err).count("passages without an embedding of QA_INDEX_ENCODER's encoder") == 2
    # the encoder's identity is part of each document's recorded hash: the next run rewrites them all
    again = ingest(with_encoder, str(SAMPLE), check=True)
    assert "ingest: 0 documents written" not in again.stderr and ", 0 unchanged skipped" in again.stderr
    reply = open_service(with_encoder).answer(question).payload
    assert all(-1.0 <= r["cosine"] <= 1.0 for r in reply["retrieved"])


def test_a_table_and_an_encoder_that_do_not_match_are_refused_by_name(tmp_path, capsys):
    plain = LanceIndex(str(tmp_path / "plain"))
    plain.upsert([IndexRow("a", "d", "alpha beta")])
    with_vectors = LanceIndex(str(tmp_path / "plain"), dim=4)
    with pytest.raises(ValueError, match="made without dense vectors: unset QA_INDEX_ENCODER"):
        with_vectors.upsert([IndexRow("b", "d", "gamma")], np.ones((1, 4)))
    # searched with an encoder, a table without vectors ranks by BM25 alone, and the log says so
    assert with_vectors.nearest(np.ones(4, np.float32), 5) == [] and [h.passage_id for h in
                                                                      with_vectors.search(["alpha"], 5)] == ["a"]
    assert "holds no dense vectors" in capsys.readouterr().out

    dense = LanceIndex(str(tmp_path / "dense"), dim=4)
    dense.upsert([IndexRow("a", "d", "alpha")], np.ones((1, 4)))
    with pytest.raises(ValueError, match="holds 4-dimensional dense vectors: set QA_INDEX_ENCODER"):
        LanceIndex(str(tmp_path / "dense")).upsert([IndexRow("b", "d", "beta")])
    with pytest.raises(ValueError, match="holds 4-dimensional vectors, the sentence encoder makes 8"):
        LanceIndex(str(tmp_path / "dense"), dim=8).upsert([IndexRow("b", "d", "beta")], np.ones((1, 8)))


def test_a_table_stamped_by_one_encoder_is_neither_written_nor_searched_with_another(tmp_path):
    from function.errors import EncoderMismatch

    uri = str(tmp_path / "dense")
    made = LanceIndex(uri, dim=4, encoder="a" * 64)
    made.upsert([IndexRow("a", "d", "alpha")], np.ones((1, 4)))
    assert [h.passage_id for h in LanceIndex(uri, dim=4, encoder="a" * 64).nearest(unit(1, 1, 1, 1), 5)] == ["a"]

    other = LanceIndex(uri, dim=4, encoder="b" * 64)
    with pytest.raises(ValueError, match=r"vectors of another sentence encoder \(aaaaaaaaaaaa\) than "
                                         r"QA_INDEX_ENCODER's \(bbbbbbbbbbbb\): ingest into a new QA_INDEX_URI"):
        other.upsert([IndexRow("b", "d", "beta")], np.ones((1, 4)))
    with pytest.raises(EncoderMismatch, match="set QA_INDEX_ENCODER to the encoder that made them") as raised:
        other.nearest(unit(1, 1, 1, 1), 5)
    assert raised.value.http_status == 409  # a configuration to mend, not a store to retry (503)
    with pytest.raises(EncoderMismatch):
        other.warm()  # named at start-up too
    assert [h.passage_id for h in other.search(["alpha"], 5)] == ["a"]  # BM25 does not depend on the encoder
    assert LanceIndex(uri, dim=4, encoder="a" * 64).count() == 1  # nothing was written

    # a table made before the stamp (or by a caller naming no encoder) is taken as it is, and stays unstamped
    unstamped = str(tmp_path / "old")
    LanceIndex(unstamped, dim=4).upsert([IndexRow("a", "d", "alpha")], np.ones((1, 4)))
    later = LanceIndex(unstamped, dim=4, encoder="b" * 64)
    later.upsert([IndexRow("b", "d", "beta")], np.ones((1, 4)))
    assert sorted(h.passage_id for h in later.nearest(unit(1, 1, 1, 1), 5)) == ["a", "b"]


def test_the_function_stamps_the_table_with_the_encoder_s_source_weights(hybrid_env, encoder_folder):
    import lance

    from function.retrieval.encoder import SentenceEncoder

    manifest = json.loads((encoder_folder / "encoder.json").read_text())
    field = lance.dataset(hybrid_env["QA_INDEX_URI"]).schema.field("vector")
    assert field.metadata[b"encoder"].decode() == manifest["source_sha256"] == SentenceEncoder(encoder_folder).identity


def test_a_question_alone_against_another_encoder_s_vectors_is_refused_by_name(hybrid_env, encoder_folder, tmp_path):
    import shutil

    from bench.in_process import open_service
    from function.errors import EncoderMismatch
    from function.service.qa_request import QARequest

    other = tmp_path / "other-encoder"
    shutil.copytree(encoder_folder, other)
    manifest = json.loads((other / "encoder.json").read_text())
    manifest["source_sha256"] = "c" * 64  # another model's export: same dimension, other vectors
    (other / "encoder.json").write_text(json.dumps(manifest))
    service = open_service({**hybrid_env, "QA_INDEX_ENCODER": str(other)})
    with pytest.raises(EncoderMismatch, match="made by another sentence encoder"):
        service.answer(QARequest("Who ruled Normandy?", None, None, 1, 30, 3))
    # ingesting with it fails with the message, not a stack trace, and writes nothing
    import sqlite3

    from harness.launch import ingest
    from harness.paths import SAMPLE

    def stored():
        with sqlite3.connect(hybrid_env["QA_SQLITE_PATH"]) as db:
            return db.execute("SELECT COUNT(*), MAX(updated) FROM passages").fetchone()  # a write moves updated

    before = stored()
    done = ingest({**hybrid_env, "QA_INDEX_ENCODER": str(other)}, str(SAMPLE), "--quiet", "--force")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert stored() == before  # refused before the store was written
    assert "ingestion failed: the retrieval index" in done.stderr and "another sentence encoder" in done.stderr
    # a passage named by id needs no vector and is still answered
    import lance

    pid = lance.dataset(hybrid_env["QA_INDEX_URI"]).to_table(columns=["id"]).column("id")[0].as_py()
    assert "answers" in service.answer(QARequest("Who ruled Normandy?", None, (pid,), 1, 30)).payload


def test_a_document_holds_a_name_where_any_of_its_passages_does_as_its_index_finds(hybrid_env):
    """``DocumentNames`` asks the index within one document: "Rollo" is in some passages of the Normans article and
    in none of Jacksonville's. The same answers from SQLite's own FTS5 index as from the Lance table."""
    from bench.in_process import open_service
    from function.retrieval.span_bias import _held, _holds
    from function.service.pipeline import DocumentNames

    service = open_service(hybrid_env)
    store = service.rt.store()
    pids = ["Normans-0000", "Jacksonville,_Florida-0000"]
    first = store.get_many(pids)
    docs = [first[pid].doc_id for pid in pids]
    texts = {d: [_held(p.title, p.text) for p in store.get_many(list(store.passages_of(d))).values()] for d in docs}
    assert [any(_holds("rollo", t) for t in texts[d]) for d in docs] == [True, False]  # what the index must say
    assert not all(_holds("rollo", t) for t in texts[docs[0]])  # a passage of it lacks the name its document holds
    for searcher in (service.rt.searcher(), service.rt.searcher().index, store.index):
        names = DocumentNames(searcher, list(zip(docs, pids)), [["rollo"], ["rollo"]], False)
        assert [names.document_lacks(0), names.document_lacks(1)] == [False, True]
        assert names.document_lacks(1) and names.checks == 2  # asked once per document and name


def test_an_abstention_names_what_the_question_names_and_the_documents_read_do_not(hybrid_env, tmp_path, monkeypatch,
                                                                                   repo):
    """Asked alone, a "no answer" says which names of the question moved it (``missing_names``, as the question writes
    them: a misspelt name shows there); the index was asked about the documents (``timings_ms.names``); the reply
    validates against openapi.yaml; an answer says nothing of them."""
    import shutil

    import yaml

    from bench.in_process import open_service
    from function.retrieval import span_bias
    from function.service.qa_request import QARequest
    from tests.support.tiny import set_no_answer
    from tests.test_openapi import validator

    every = set_no_answer(shutil.copytree(hybrid_env["QA_ARTIFACT_DIR"], tmp_path / "answers-all"), 1e6)
    service = open_service({**hybrid_env, "QA_ARTIFACT_DIR": str(every)})
    monkeypatch.setattr(span_bias, "NO_ANSWER_DOCUMENT_SHIFT", 1e9)  # every window that answers asks its document
    question = "Who ruled Normandy from Zanzibar?"
    refused = service.answer(QARequest(question, None, None, 1, 30, 3))
    verdict = refused.payload["no_answer"]
    assert verdict["abstained"] and refused.payload["answers"] == []
    assert verdict["missing_names"] == ["Zanzibar"]  # "Normandy" is read
    assert refused.timings_ms["names"] >= 0.0
    spec = yaml.safe_load((repo / "function" / "http" / "openapi.yaml").read_text())
    validator(spec, "NoAnswer").validate(verdict)
    validator(spec, "Timings").validate(refused.timings_ms)
    monkeypatch.setattr(span_bias, "NO_ANSWER_DOCUMENT_SHIFT", 8.0)
    answered = service.answer(QARequest(question, None, None, 1, 30, 3))
    assert not answered.payload["no_answer"]["abstained"] and "missing_names" not in answered.payload["no_answer"]
    assert "names" not in answered.timings_ms  # a threshold a million above the margins: no window turns
