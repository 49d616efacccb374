"""The retrieval index on Lance (``pylance``): BM25 full-text search over a folder or a Cloud Storage prefix.

The store keeps the passages, their tokens and their documents; this index
keeps what retrieval needs, one row per passage: ``id``, ``doc_id``, ``source``,
``tags`` (what a question may be filtered on) and ``terms``, the passage's
title and text as analysed index terms (``function.retrieval.terms``) joined by
spaces. Lance's inverted index is
built over ``terms`` with a whitespace tokenizer and no analysis of its own
(no lower-casing, stemming, stop-words or folding), so it indexes exactly the
terms the other stores index, and a question is searched with exactly its
analysed terms: words of letters and digits, which no query syntax reads as an
operator, at most ``MAX_QUERY_TERMS`` of them, and none at all never reaches
the engine.

Every serving instance reads the same table (a local folder, or ``gs://...``
on Cloud Run); ingestion tasks write to it concurrently: each write is a Lance
transaction, committed against the latest version, so parallel tasks do not
lose each other's rows (``tests/test_lance_index.py``). New rows are searched
at once (Lance scans fragments the index does not cover yet); ``optimize``
folds them into the index, incrementally, at the end of an ingestion.

Reads have the store's deadline: an index that does not answer in time, or
cannot be read, is a ``StoreUnavailable`` (503 with Retry-After) for the
question asked alone, and the next question tries again (with a table opened
afresh). A serving instance looks for a newer version at most every
``refresh_s`` (``LanceDataset.latest_version``: one listing of ``_versions/``,
one Class A request on Cloud Storage) and keeps the table it has when there is
none; when there is one, it checks it out from the open table
(``checkout_version``: the new manifest, a HEAD and a GET), which keeps the
open table's session, so the index and metadata already read are not read
again. Re-opening with ``lance.dataset`` instead costs what a cold open does:
46-103 requests on Cloud Storage (docs/cost.md, "The Lance index on Cloud Storage").
``import lance`` (about 0.2 s) happens on the first question asked alone, never
on a request that names its passages.

With ``dim`` (hybrid retrieval, ``function.retrieval.hybrid``) each row also
holds ``vector``, the passage's unit-length sentence embedding
(``function.retrieval.encoder``), searched by ``nearest`` (cosine); once the
table holds ``ANN_MIN_ROWS`` rows, ``optimize`` builds an approximate index over
it (IVF partitions of HNSW graphs over 8-bit scalar-quantised vectors), which
later folds extend like the inverted index. A table made without ``dim`` has no
such column and is read and written as before. A table made with ``encoder``
(``SentenceEncoder.identity``: the source model's weights) keeps it in the vector
column's metadata, and is neither written nor searched with another encoder's
vectors (their cosines would rank at random, with no error): the write fails and
a question alone gets a 409 naming the fix. A table stamped by none (made before
the stamp) is taken as it is.

A filtered question (``filters.PassageFilter``) is searched with the filter as
Lance's prefilter (``filter=..., prefilter=True``): the inverted index and the
vector search rank only the rows within it, so the ``k`` returned are the best
that match. The filter is a SQL expression (``where_clause``) whose values are
string literals with their quotes doubled (``quote``; DataFusion reads no other
escape in them), tested with quotes, ``' OR 1=1 --``, backslashes and Unicode
(tests/test_filters.py). A table made before ``source`` and ``tags`` were kept
gets both columns (empty) on its next write; until its rows are re-ingested
(``--force``) they have no source or tags to match, and a table never written
since matches no filter on them (the log says so once).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from function.errors import EncoderMismatch, QAError, StoreUnavailable
from function.retrieval.bm25 import Hit
from function.retrieval.filters import PassageFilter
from function.retrieval.searcher import Searcher

# Lance's inverted index over our analysed terms: split on white space, nothing else
TOKENIZER = {"base_tokenizer": "whitespace", "lower_case": False, "stem": False, "remove_stop_words": False,
             "ascii_folding": False, "with_position": False, "max_token_length": None}
ENCODER_KEY = "encoder"  # the vector column's metadata: the identity of the encoder that made the vectors
COMMIT_RETRIES = 20  # concurrent writers: a transaction that conflicts is tried again on the new version
# A writer folds its new rows into the indexes every this many rows: rows not yet indexed are scanned by every
# search and by every upsert's match on id, so a long ingestion would otherwise slow down as it goes.
FOLD_EVERY = 65_536
FRAGMENT_ROWS = 65_536  # compaction's target: fragments reaching it are not rewritten again
# An ingestion that leaves more delta indices than this merges them when it ends. A search reads each delta's
# postings of each of its terms: at 10^5 rows, two deltas took 25.8 reads (Cloud Storage GETs) a question and
# one 12.0 (Lance's io_stats on a local copy of a 10^5-row table, 300 dev questions: docs/retrieval.md); the
# merge rewrites the index once per run (1.1 s at 10^5 rows here). So every run ends with one, as a table created
# and filled in one run would otherwise keep the delta of its first fold beside the rest.
MAX_DELTAS = 1
# The dense column's approximate index: built once the table holds this many rows (below it a flat search reads
# every vector: about 20 ms at 10^4 rows here, 190 ms at 10^5, against 4 ms through the index), with a partition
# per this many rows.
ANN_MIN_ROWS = 5_000
ANN_ROWS_PER_PARTITION = 25_000
# How wide a search through it looks: the HNSW graph's candidate list (its default loses about a sixth of the
# gold paragraphs in the top 20 at 10^4 rows here; 300 keeps the exact search's recall within 0.01), and the
# partitions probed (Lance's ``nprobes``; its ``minimum_nprobes`` alone went on to probe every partition). At 10^6
# rows (40 partitions) 10 kept the fused recall@1 / @5 within 0.005 of probing all 40, at a third of the time (20.0
# against 63.9 ms p50; 5 lost 0.02 at 1): docs/retrieval.md, "How wide the vector search looks". Up to
# 2.5 * 10^5 rows it probes every partition. Tables much larger than 10^6 rows: measure again.
ANN_EF = 300
ANN_NPROBES = 10


FILTER_COLUMNS = ("source", "tags")  # columns added after the first release (``_add_filter_columns``)
# The table's scalar indexes (column, type, options): the inverted index that searches ``terms``, a B-tree on ``id``
# that upserts match rows by, and those a filter's prefilter reads instead of scanning its columns (at 10^5 rows
# they took a filtered search from 1.6-3.1x an unfiltered one's p50 to 0.8-1.3x: docs/retrieval.md, "Filters").
# ``optimize`` creates any a table lacks, so older tables get them at their next ingestion.
INDEXES = (("terms", "INVERTED", TOKENIZER), ("id", "BTREE", {}), ("doc_id", "BTREE", {}), ("source", "BTREE", {}),
           ("tags", "LABEL_LIST", {}))


@dataclass(frozen=True)
class IndexRow:
    id: str
    doc_id: str
    terms: str  # analysed title and text terms joined by spaces
    source: str = ""
    tags: tuple[str, ...] = ()


def quote(value: str) -> str:
    """A SQL string literal for Lance's filter expressions (DataFusion): quotes doubled."""
    return "'" + value.replace("'", "''") + "'"


def where_clause(where: PassageFilter) -> str:
    """The filter as a Lance (DataFusion SQL) expression over the rows' ``doc_id``, ``source`` and ``tags``."""
    parts = []
    if where.documents is not None:
        parts.append("doc_id IN (" + ", ".join(quote(d) for d in where.documents) + ")")
    if where.source_prefix is not None:
        parts.append(f"starts_with(source, {quote(where.source_prefix)})")
    if where.tags is not None:
        parts.append("array_has_any(tags, [" + ", ".join(quote(t) for t in where.tags) + "])")
    return " AND ".join(parts)


def index_rows(passages) -> list[IndexRow]:
    """The index's rows of passages: id, doc id, analysed title and text terms, and the source and tags of those
    that have them (stored passages do; a benchmark's synthetic corpus does not)."""
    from function.retrieval.terms import terms

    return [IndexRow(p.id, p.doc_id, " ".join(terms(p.title) + terms(p.text)), getattr(p, "source", ""),
                     tuple(getattr(p, "tags", ()))) for p in passages]


TABLE_THERE = "the table is there already"  # what a late creation fails with (``_first_version_only``)


@contextlib.contextmanager
def _first_version_only(version: int):
    """The commit lock of a table's creation: only its first version may be written (``LanceIndex._create``)."""
    from lance.commit import CommitConflictError

    if version != 1:
        raise CommitConflictError(f"{TABLE_THERE} (creation would commit version {version})", retryable=False)
    yield


class LanceIndex(Searcher):
    def __init__(self, uri: str, timeout_s: float = 3.0, refresh_s: float = 10.0,
                 storage_options: dict | None = None, dim: int | None = None, encoder: str | None = None):
        self.uri = uri
        self.dim = dim  # the dense vectors' dimension (hybrid retrieval), or None: no vector column
        self.encoder = encoder  # the identity of the encoder that makes the vectors (``SentenceEncoder.identity``)
        self._said_no_vectors = False
        self._said_no_filter_columns = False
        self.timeout_s = timeout_s
        self.refresh_s = refresh_s
        self.storage_options = storage_options or None
        self.description = f"lance:{uri}"
        self._dataset = None
        self._opened_at = 0.0
        self._lock = threading.Lock()
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="lance")
        self._since_fold = 0  # rows this writer wrote since it last folded them into the indexes
        self.ann_ef, self.ann_nprobes = ANN_EF, ANN_NPROBES  # how wide a search through the vector index looks
        # (table version, whether its vector index covers every row: ``_scores_halved``)
        self._vector_index_seen: tuple[int | None, bool] = (None, False)

    # -- reading (the function) -------------------------------------------------

    def _open(self):
        import lance

        try:
            return lance.dataset(self.uri, storage_options=self.storage_options)
        except ValueError as e:  # no table yet: nothing ingested
            if "not found" in str(e).lower() or "does not exist" in str(e).lower():
                return None
            raise

    @staticmethod
    def _newest(ds):
        """``ds`` if no version came after it, else the newest version, checked out from ``ds``: the same
        session, so what ``ds`` has read of the indexes and the metadata is not read again. ``ds`` itself
        is left as it is: a search on another thread may be reading it."""
        latest = ds.latest_version  # one listing of _versions/
        return ds if latest == ds.version else ds.checkout_version(latest)

    def _current(self):
        """The table to search: opened on first use (or after a failure), brought to its newest version
        at most every ``refresh_s``. Runs on the pool, inside the search's deadline; one thread at a time."""
        now = time.monotonic()
        with self._lock:
            if self._dataset is None:
                self._dataset = self._open()
                self._opened_at = now
            elif now - self._opened_at > self.refresh_s:
                # A failure here reaches search(), which forgets the table: the next question opens it afresh.
                self._dataset = self._newest(self._dataset)
                self._opened_at = now
            return self._dataset

    def _prefilter(self, ds, where: PassageFilter | None, among: tuple[str, ...] = ()) -> dict | None:
        """The ``to_table`` arguments that rank only the rows within ``where`` and ``among`` ({}: every row), or
        None where ``where`` needs columns ``ds`` lacks (a table made before them: nothing can match)."""
        if where and (where.source_prefix is not None or where.tags is not None) and \
                not set(FILTER_COLUMNS) <= set(ds.schema.names):
            if not self._said_no_filter_columns:
                from function.logs import log

                log("WARNING", "the retrieval index was made before passages' sources and tags were kept: "
                    "filters on them match nothing until the passages are ingested again (--force)", index_uri=self.uri)
                self._said_no_filter_columns = True
            return None
        clauses = ["id IN (" + ", ".join(quote(i) for i in among) + ")"] if among else []
        if where:
            clauses.append(where_clause(where))
        return {"filter": " AND ".join(clauses), "prefilter": True} if clauses else {}

    def corpus_changed(self) -> None:
        """Look for a newer version on the next search (the ingestion that changed the corpus wrote this table
        before it gave the store a new generation)."""
        self._opened_at = float("-inf")

    def _search(self, terms: list[str], k: int, among: tuple[str, ...] = (),
                where: PassageFilter | None = None) -> list[Hit]:
        ds = self._current()
        if ds is None:
            return []
        restrict = self._prefilter(ds, where, among)
        if restrict is None:
            return []
        try:
            table = ds.to_table(columns=["id", "_score"], full_text_query=" ".join(terms), limit=k, **restrict)
        except ValueError as e:  # created an instant ago, its (empty) index not yet committed: nothing to find
            if "INVERTED index has been created" not in str(e):
                raise
            return []
        ids, scores = table.column("id").to_pylist(), table.column("_score").to_pylist()
        ranked = sorted(zip(ids, scores), key=lambda hit: (-hit[1], hit[0]))
        return [Hit(pid, float(score)) for pid, score in ranked[:k]]

    def search(self, terms: list[str], k: int, where: PassageFilter | None = None,
               among: tuple[str, ...] = ()) -> list[Hit]:
        """The ``k`` passages with the best BM25 score for any of ``terms``, best first, ties by id, within
        ``where``; with ``among``, only those passages are scored. Restricted either way, the scores are those
        of an unrestricted search for rows the inverted index covers (its corpus statistics), not for rows
        written since the last ``optimize`` (a scan of the filtered rows alone)."""
        if not terms:
            return []
        restricted = (tuple(among), where) if among or where else ()
        return self._guarded(self._search, terms, k, *restricted)

    def _nearest(self, vector, k: int, exact: bool, where: PassageFilter | None = None) -> list[Hit]:
        ds = self._current()
        if ds is None:
            return []
        if "vector" not in ds.schema.names:  # a table made without vectors: BM25 ranks alone, and the log says so
            if not self._said_no_vectors:
                from function.logs import log

                log("WARNING", "the retrieval index holds no dense vectors: questions alone are ranked by BM25 "
                    "only (ingest into a new QA_INDEX_URI with QA_INDEX_ENCODER set)", index_uri=self.uri)
                self._said_no_vectors = True
            return []
        self._check_encoder(ds)
        restrict = self._prefilter(ds, where)
        if restrict is None:
            return []
        query = {"column": "vector", "q": vector, "k": k, "metric": "cosine", "use_index": not exact,
                 "ef": max(self.ann_ef, k), "nprobes": self.ann_nprobes}
        table = ds.to_table(columns=["id", "_distance"], nearest=query, **restrict)
        ids, distances = table.column("id").to_pylist(), table.column("_distance").to_pylist()
        ranked = sorted(zip(ids, distances), key=lambda hit: (hit[1], hit[0]))
        # a flat search, and one over a table with rows its index does not cover yet (Lance scores those hits again
        # exactly), report 1 - the cosine distance; the index alone the squared L2 distance of unit vectors, 2 - 2 x
        # the cosine (seen with pylance 0.40): both taken back to the cosine itself
        halved = not exact and self._scores_halved(ds)
        return [Hit(pid, 1.0 - float(distance) / (2.0 if halved else 1.0)) for pid, distance in ranked[:k]]

    def _scores_halved(self, ds) -> bool:
        """Whether a search of ``ds`` (a version of the table) through its approximate vector index reports squared
        L2 distances: it has one and it covers every row. Read once a version."""
        key = ds.version
        if self._vector_index_seen[0] != key:
            names = [index["name"] for index in ds.list_indices() if "vector" in index.get("fields", [])]
            covered = bool(names) and ds.stats.index_stats(names[0]).get("num_unindexed_rows", 1) == 0
            self._vector_index_seen = (key, covered)
        return self._vector_index_seen[1]

    def nearest(self, vector, k: int, exact: bool = False, where: PassageFilter | None = None) -> list[Hit]:
        """The ``k`` passages whose vectors are nearest ``vector``, best first, within ``where``; ``exact`` reads
        every vector instead of the approximate index. A hit's score is the question's cosine to the passage, read
        from Lance's distance as the search made it: 1 - the cosine distance from a flat search, or from a table with
        rows the index does not cover yet, 1 - half the squared L2 distance of unit vectors from the IVF_HNSW_SQ
        index alone (seen with pylance 0.40; within its 8-bit quantisation, about 0.01). Before 2026-11-30 the index's
        scores were left as 2 x cosine - 1, and the "no answer" threshold did not move by them."""
        if self.dim is None:
            raise ValueError("this index was opened without dense vectors (dim)")
        return self._guarded(self._nearest, vector, k, exact, where)

    def _guarded(self, work, *args) -> list[Hit]:
        """``work(*args)`` on the pool, within the deadline; a failure is a ``StoreUnavailable``."""
        import lance  # noqa: F401 - once per process, outside the deadline: a local cost, not the index's

        future = self._pool.submit(work, *args)
        try:
            return future.result(timeout=self.timeout_s)
        except QAError:  # the table is readable but not what the function is configured for: it says what to do
            raise
        except concurrent.futures.TimeoutError:
            raise StoreUnavailable(f"the retrieval index did not answer in {self.timeout_s:g} s; retry shortly",
                                   retry_after_s=1) from None
        except OSError as e:
            self._forget()
            raise StoreUnavailable(f"the retrieval index could not be read ({type(e).__name__}); retry shortly",
                                   retry_after_s=1) from None
        except Exception as e:  # noqa: BLE001 - Lance raises plain exceptions for I/O and corrupt files
            self._forget()
            raise StoreUnavailable(f"the retrieval index could not be read ({type(e).__name__}: "
                                   f"{str(e)[:200]}); retry shortly", retry_after_s=1) from None

    def warm(self) -> None:
        """Import Lance and open the table (at start-up, on a background thread), so that the first question
        asked alone does not pay for either; a failure here is reported by the first search, and a table whose
        vectors another encoder made is named here too (the start-up log)."""
        self._check_encoder(self._current())

    def _forget(self) -> None:
        with self._lock:
            self._dataset = None

    def count(self) -> int:
        ds = self._open()
        return 0 if ds is None else ds.count_rows()

    # -- writing (ingestion) ----------------------------------------------------

    def _schema(self):
        import pyarrow as pa

        fields = [("id", pa.string()), ("doc_id", pa.string()), ("terms", pa.string()), ("source", pa.string()),
                  ("tags", pa.list_(pa.string()))]
        if self.dim is not None:  # a new table's vector column names the encoder that made them
            fields.append(pa.field("vector", pa.list_(pa.float32(), self.dim),
                                   metadata={ENCODER_KEY: self.encoder} if self.encoder else None))
        return pa.schema(fields)

    def _check_encoder(self, ds) -> None:
        """Refuse to search ``ds``'s vectors with question embeddings of another encoder than the one that made
        them (their cosines would rank at random, silently): an ``EncoderMismatch`` (409) naming the fix."""
        made_by = self._foreign_encoder(ds)
        if made_by:
            raise EncoderMismatch(f"the retrieval index's vectors were made by another sentence encoder "
                                  f"({made_by[:12]}) than QA_INDEX_ENCODER's ({self.encoder[:12]}): set "
                                  "QA_INDEX_ENCODER to the encoder that made them, or ingest into a new QA_INDEX_URI")

    def _foreign_encoder(self, ds) -> str | None:
        """The identity stamped on ``ds``'s vectors where it is not this index's encoder's, else None (no table,
        no stamp, or no encoder named here: nothing to compare)."""
        made_by = self._made_by(ds) if ds is not None else None
        return made_by if made_by and self.encoder and made_by != self.encoder else None

    @staticmethod
    def _made_by(ds) -> str | None:
        """The identity of the encoder a table's vectors were made by, as stamped at its creation (None: a table
        made without one, or before tables were stamped; Lance keeps the creation's field metadata)."""
        field = ds.schema.field("vector") if "vector" in ds.schema.names else None
        stamp = (field.metadata or {}).get(ENCODER_KEY.encode()) if field is not None else None
        return stamp.decode() if stamp else None

    def _table(self, rows: list[IndexRow], vectors=None):
        import numpy as np
        import pyarrow as pa

        columns = {"id": [r.id for r in rows], "doc_id": [r.doc_id for r in rows], "terms": [r.terms for r in rows],
                   "source": [r.source for r in rows], "tags": [list(r.tags) for r in rows]}
        if self.dim is not None:
            flat = np.zeros((len(rows), self.dim), np.float32) if vectors is None else np.asarray(vectors, np.float32)
            if flat.shape != (len(rows), self.dim):
                raise ValueError(f"{len(rows)} rows need vectors of shape ({len(rows)}, {self.dim}), not {flat.shape}")
            columns["vector"] = pa.FixedSizeListArray.from_arrays(pa.array(flat.reshape(-1)), self.dim)
        return pa.table(columns, schema=self._schema())

    def _retrying(self, what: str, commit) -> None:
        """Run a commit, again on the latest version while it conflicts with a concurrent writer's."""
        for attempt in range(COMMIT_RETRIES):
            try:
                return commit()
            except OSError as e:  # Lance reports commit conflicts and I/O as OSError
                if attempt == COMMIT_RETRIES - 1 or "conflict" not in str(e).lower() and "retry" not in str(e).lower():
                    raise
                time.sleep(0.05 * (attempt + 1))
        raise AssertionError(what)  # unreachable

    def write(self, passages) -> int:
        """Ingestion's write: the rows of stored passages (``index_rows``), by id."""
        return self.upsert(index_rows(passages))

    def upsert(self, rows: Iterable[IndexRow], vectors=None) -> int:
        """Write rows by id: a row whose id is there replaces it. Creates the table on first use. With ``dim``,
        ``vectors`` holds each row's embedding (an array of ``len(rows)`` x ``dim``)."""
        rows = list(rows)
        if not rows:
            return 0
        if self.dim is not None and vectors is None:
            raise ValueError("an index with dense vectors needs each row's vector")
        table = self._table(rows, vectors)

        def commit():
            ds = self._open() or self._create()
            self._check_vectors(ds)
            ds = self._add_filter_columns(ds)
            ds.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(
                table.select(ds.schema.names))

        self._retrying("upsert", commit)
        self._since_fold += len(rows)
        if self._since_fold >= FOLD_EVERY:
            self._fold()
        return len(rows)

    def _add_filter_columns(self, ds):
        """``ds``, with the (empty) ``source`` and ``tags`` columns added if it was made before them."""
        missing = [name for name in FILTER_COLUMNS if name not in ds.schema.names]
        if not missing:
            return ds
        ds.add_columns([self._schema().field(name) for name in missing])
        return self._open()

    def check_writable(self) -> None:
        """Before an ingestion writes anything to the store: refuse a table whose vectors this index's rows would
        not match (``_check_vectors``), so that a refused run leaves the store as it was."""
        ds = self._open()
        if ds is not None:
            self._check_vectors(ds)

    def _check_vectors(self, ds) -> None:
        """Refuse to write rows whose vector column (or its absence, or its encoder) is not the table's, naming
        the fix: an ``EncoderMismatch`` (a ``ValueError``; ``python -m function.ingest`` prints its message)."""
        field = ds.schema.field("vector") if "vector" in ds.schema.names else None
        held = None if field is None else field.type.list_size
        if held == self.dim:
            made_by = self._foreign_encoder(ds)
            if made_by:
                raise EncoderMismatch(f"the retrieval index {self.uri} holds vectors of another sentence encoder "
                                      f"({made_by[:12]}) than QA_INDEX_ENCODER's ({self.encoder[:12]}): ingest into "
                                      "a new QA_INDEX_URI, or set QA_INDEX_ENCODER to the encoder that made them")
            return
        if held is None:
            raise EncoderMismatch(f"the retrieval index {self.uri} was made without dense vectors: unset "
                                  "QA_INDEX_ENCODER, or ingest into a new QA_INDEX_URI with it set")
        if self.dim is None:
            raise EncoderMismatch(f"the retrieval index {self.uri} holds {held}-dimensional dense vectors: set "
                                  "QA_INDEX_ENCODER to the sentence encoder that made them")
        raise EncoderMismatch(f"the retrieval index {self.uri} holds {held}-dimensional vectors, the sentence encoder "
                              f"makes {self.dim}: ingest into a new QA_INDEX_URI")

    def _fold(self, merge: int = 0) -> None:
        """Merge small fragments (every commit writes one) and index the rows not indexed yet, in a new
        delta index (``merge`` = 0: nothing indexed before is rewritten, so a fold costs the same at 10^4
        rows and at 10^6), or merged with the ``merge`` newest deltas."""
        self._retrying("compact", lambda: self._open().optimize.compact_files(target_rows_per_fragment=FRAGMENT_ROWS))
        self._retrying("optimize", lambda: self._open().optimize.optimize_indices(num_indices_to_merge=merge))
        self._since_fold = 0

    def _deltas(self) -> int:
        """How many delta indices the search structure over ``terms`` has now."""
        return sum("terms" in index.get("fields", []) for index in self._open().list_indices())

    def _create(self):
        """The table, created empty if it is not there. Lance's creation is an ``Overwrite`` that checks whether
        the table exists only before it writes: a creator that loses a race would commit its empty table *over*
        the winner's, with every row written since, as the next version (lance-format/lance#4451; it lost
        parallel ingestion tasks' rows: docs/retrieval.md). So the creation commits with
        ``_first_version_only``, which refuses any version but the first: a late creator fails and opens the table
        that is there. Two creators of version 1 at the same moment may both write it, and one survives, which
        loses nothing: it is empty, and rows go in later, as transactions."""
        import lance

        try:
            lance.write_dataset(self._table([]), self.uri, schema=self._schema(), mode="create",
                                storage_options=self.storage_options, commit_lock=_first_version_only)
        except (OSError, ValueError) as e:
            if "exist" not in str(e).lower() and TABLE_THERE not in str(e):
                raise
        else:  # opened again: the dataset write_dataset returns commits with its lock
            self._retrying("index", lambda: self._create_index(self._open()))
        return self._open()

    def _create_index(self, ds, columns: list[str] | None = None) -> None:
        """The ``INDEXES`` over ``columns`` (default: all of them)."""
        for column, kind, options in INDEXES:
            if columns is not None and column not in columns:
                continue
            try:
                ds.create_scalar_index(column, index_type=kind, **options)
            except (OSError, ValueError) as e:  # a concurrent writer created it
                if "exist" not in str(e).lower() and "conflict" not in str(e).lower():
                    raise
            ds = self._open()

    def _create_vector_index(self) -> None:
        """The dense column's approximate index, once there are rows enough to train its partitions on."""
        rows = self._open().count_rows()
        if rows < ANN_MIN_ROWS:
            return
        partitions = max(1, round(rows / ANN_ROWS_PER_PARTITION))
        self._retrying("vector index", lambda: self._open().create_index(
            "vector", index_type="IVF_HNSW_SQ", metric="cosine", num_partitions=partitions))

    def delete(self, ids: list[str]) -> None:
        """Delete rows by id (ids not there are ignored)."""
        if not ids:
            return
        for start in range(0, len(ids), 500):
            predicate = "id IN (" + ", ".join(quote(i) for i in ids[start : start + 500]) + ")"

            def commit(predicate=predicate):
                ds = self._open()
                if ds is not None:
                    ds.delete(predicate)

            self._retrying("delete", commit)

    def optimize(self) -> None:
        """Fold rows written since the last call into the inverted index (incrementally), and compact
        small fragments: what an ingestion does when it has written everything."""
        ds = self._open()
        if ds is None:
            return
        indexed = {field for index in ds.list_indices() for field in index.get("fields", [])}
        missing = [column for column, _, _ in INDEXES if column not in indexed and column in ds.schema.names]
        if missing:  # a table whose creator died before indexing it, or made before the filters' indexes
            self._create_index(ds, missing)
        if self.dim is not None and "vector" not in indexed:
            self._create_vector_index()  # later folds extend it
        self._fold()
        if (deltas := self._deltas()) > MAX_DELTAS:  # every search reads each: merged once per run
            self._fold(merge=deltas)
        # files of versions no reader should still be on (instances re-open every QA_INDEX_REFRESH_S)
        self._retrying("cleanup", lambda: self._open().cleanup_old_versions(older_than=timedelta(seconds=60)))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

