"""Hybrid retrieval in ``python -m bench scale``: dense vectors beside BM25 in a Lance table, fused.

At each size of ``--hybrid-sizes``:

1. **embed** every passage (``function.retrieval.hybrid.dense_text``) with the
   int8 sentence encoder (``function.retrieval.encoder``; exported by
   ``build_model.encoder_export`` if ``--encoder`` holds none) into the on-disk cache
   (``bench.embed_cache``: a cut-off run resumes where it stopped);
2. **build** a Lance table of the passages' terms and vectors
   (``LanceIndex(dim=...)``, 256 rows per upsert as ingestion writes them, then
   ``optimize``, which also builds the approximate vector index), timed
   without the embedding, and its size on disk;
3. **ask**, in a fresh process, every dev question: BM25's top ``DEPTH``, the
   dense top ``DEPTH`` through the approximate index and read exactly (every
   vector: what the index loses) and the mixed score the function reads by
   (``HybridIndex``); recall@5 and @20 of each, the question's embedding
   time, each search's time, the fusion's (its search for the BM25 scores of
   what only the vectors found), peak memory.

The end-to-end F1 of ``bench.scale_reading`` opens the function on the same
table with ``QA_INDEX_ENCODER`` set (``hybrid_env``): the question-alone path the
function serves, unchanged.
"""

from __future__ import annotations

import time
from pathlib import Path

from function.retrieval.hybrid import DEPTH
from harness.paths import REPO, SENTENCE_MODEL, SQUAD

CACHE = REPO / "build" / "scale" / "embeddings"
KS = (5, 20)  # recall@5 and @20, both from each ranking's DEPTH (the function's) passages
BATCH = 256


def ensure_encoder(folder: Path, data: Path = SQUAD) -> Path:
    """The encoder folder, exported from all-MiniLM-L6-v2 (``harness.paths.SENTENCE_MODEL``) first if it holds
    no model, its parity checked on ``data``'s dev questions."""
    from function.retrieval.encoder import MANIFEST_FILE

    if not (folder / MANIFEST_FILE).is_file():
        from build_model.encoder_export import main as export

        export(["--source", str(SENTENCE_MODEL), "--out", str(folder), "--data", str(data)])
    return folder


def encoder_size(folder: Path) -> dict:
    from function.retrieval.encoder import MODEL_FILE, TOKENIZER_FILE

    return {"model_bytes": (folder / MODEL_FILE).stat().st_size,
            "tokenizer_bytes": (folder / TOKENIZER_FILE).stat().st_size}


def embed(passages, encoder_folder: Path, cache_folder: Path, threads: int, note) -> dict:
    """Every passage's vector in the cache (computing only the missing ones); what that took."""
    from bench.embed_cache import EmbeddingCache
    from function.retrieval.encoder import SentenceEncoder
    from function.retrieval.hybrid import dense_text

    cache = EmbeddingCache(cache_folder, SentenceEncoder(encoder_folder, threads), note=note)
    return cache.fill(dense_text(p.title, p.text) for p in passages)


def build(path: Path, passages, encoder_folder: Path, cache_folder: Path) -> dict:
    """The hybrid table, written in batches from the cache; the writes and ``optimize`` timed."""
    from bench.embed_cache import EmbeddingCache
    from bench.util import batches, folder_bytes
    from function.retrieval.encoder import SentenceEncoder
    from function.retrieval.hybrid import dense_text
    from function.retrieval.lance_index import LanceIndex, index_rows

    encoder = SentenceEncoder(encoder_folder)
    cache = EmbeddingCache(cache_folder, encoder)
    index = LanceIndex(str(path), dim=encoder.dim)
    spent, rows = 0.0, 0
    for batch in batches(passages, BATCH):
        vectors = cache.get([dense_text(p.title, p.text) for p in batch])
        index_batch = index_rows(batch)
        t = time.perf_counter()
        index.upsert(index_batch, vectors)
        spent += time.perf_counter() - t
        rows += len(batch)
    t = time.perf_counter()
    index.optimize()
    finished = time.perf_counter() - t
    index.close()
    return {"rows": rows, "write_s": round(spent, 1), "optimize_s": round(finished, 1),
            "rows_per_s": round(rows / (spent + finished), 1), "bytes": folder_bytes(path)}


def ask(path: Path, encoder_folder: Path, data: Path, depth: int = DEPTH, threads: int = 0) -> dict:
    """Every dev question's three rankings (see the module docstring): recall, times, peak memory. Run in a fresh
    process (``bench.util.in_fresh_process``), so that the encoder's and the table's opening is a cold instance's."""
    from bench.scale_corpus import dev_questions
    from bench.stats import latency_summary
    from bench.util import peak_rss_mb
    from function.retrieval.encoder import SentenceEncoder
    from function.retrieval.hybrid import HybridIndex, Rankings
    from function.retrieval.lance_index import LanceIndex
    from function.retrieval.terms import query_terms

    path, encoder_folder, questions = Path(path), Path(encoder_folder), dev_questions(Path(data) / "dev.json")
    t0 = time.perf_counter()
    encoder = SentenceEncoder(encoder_folder, threads)
    index = LanceIndex(str(path), timeout_s=600.0, refresh_s=1e9, dim=encoder.dim)
    searcher = HybridIndex(index, encoder, depth)
    first_terms = query_terms(questions[0]["question"])
    searcher.search_question(questions[0]["question"], first_terms, 5)
    cold_ms = (time.perf_counter() - t0) * 1000
    found = {name: dict.fromkeys(KS, 0) for name in ("bm25", "dense", "dense_exact", "mixed")}
    times: dict[str, list[float]] = {"embed": [], "bm25": [], "dense": [], "dense_exact": [], "fuse": []}
    for q in questions:
        terms = query_terms(q["question"])
        t = time.perf_counter()
        bm25 = index.search(terms, depth) if terms else []
        times["bm25"].append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        vector = encoder.embed([q["question"]])[0]
        times["embed"].append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        dense = index.nearest(vector, depth)
        times["dense"].append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        exact = index.nearest(vector, depth, exact=True)
        times["dense_exact"].append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        mixed = [h.passage_id for h in searcher.fuse(terms, Rankings(bm25, dense), depth)]
        times["fuse"].append((time.perf_counter() - t) * 1000)
        for name, ids in (("bm25", [h.passage_id for h in bm25]), ("dense", [h.passage_id for h in dense]),
                          ("dense_exact", [h.passage_id for h in exact]), ("mixed", mixed)):
            for k in KS:
                found[name][k] += q["gold"] in ids[:k]
    n = len(questions)
    return {"questions": n, "depth": depth, "cold_ms": round(cold_ms, 1),
            "recall": {name: {f"@{k}": round(v / n, 4) for k, v in by_k.items()} for name, by_k in found.items()},
            "ms": {name: latency_summary(values) for name, values in times.items()},
            "peak_rss_mb": round(peak_rss_mb(), 1)}


def hybrid_env(env: dict, encoder_folder: Path) -> dict:
    """``env`` (whose ``QA_INDEX_URI`` names the hybrid table) with the encoder that made its vectors: the
    function then searches questions asked alone both ways, as it does deployed with ``QA_INDEX_ENCODER``."""
    return {**env, "QA_INDEX_ENCODER": str(encoder_folder)}
