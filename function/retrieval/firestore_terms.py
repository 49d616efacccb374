"""BM25 index in Firestore: one document per term (split when large), corpus totals beside them.

``FirestoreStore`` opens it beside its passages (it writes a passage's postings
and the passage in the same ingestion batch, see below) and holds it as
``store.index``; it searches as every ``Searcher`` does.

Collection ``<passages>_terms``:

    <term>#0, <term>#1, ...   the term's postings, sorted by passage id and split so
                              that no document holds more than ``PART_BYTES``:
        ids       bytes   the passage ids, UTF-8, joined by NUL (ids never hold NUL)
        postings  bytes   per passage, little-endian: length (uint32, the passage's
                          index terms), tf in the title (uint16), tf in the text (uint16)
        gen       string  the same in every part written together
        parts, df int     on ``#0`` only: how many parts, how many passages hold the term
    #corpus                   passages (N) and length (total index terms): BM25's avgdl

Each passage document also keeps ``bm25_terms`` (its distinct terms, NUL-joined
bytes) and ``bm25_length``: what must be taken out of the index when it is
rewritten or deleted, even if the analysis has changed since.

A question reads ``#corpus`` and the ``#0`` documents of its terms in one
``get_all``, then any further parts in a second one (only terms held by tens
of thousands of passages have them): the cost follows the question's terms,
not the size of the corpus. If a part's ``gen`` differs from its ``#0`` (a
rewrite landed between the two reads) the term is read again.

A warm instance does not read the same documents again: ``cache_bytes`` of
what it read (``#corpus``, each term's parts, and that a term is absent) are
kept in an LRU keyed by the corpus generation the request is answered from
(``at(generation)``, from ``function.service.cache.CorpusGeneration``). Every
passage write replaces that token in the batch that also writes ``#corpus``,
after step 1 below has rewritten the postings: a document read under a
generation is at least as new as that generation, and whatever was kept under
it is unreachable once an instance reads the next one (within
``QA_CORPUS_CHECK_S``, as cached answers and passages). A search without a
generation (``at`` not called) reads everything, as before.

A filtered question (``filters.PassageFilter``) scores the same candidates,
then keeps the best ``k`` within the filter, which the postings cannot tell:
each part of the filter (its documents, its source prefix, its tags) is first
read as a set of passage ids, by a query on the passage documents' ``doc_id``
(``in``), ``source`` (a range) or ``tags`` (``array-contains-any``), up to
``FILTER_SET_MAX`` ids a part (one read each, one at least per query). When
every part fits, the candidates within all of them are ranked: exact, and
the whole cost. A part that matches more (a broad filter) is not read;
instead the candidates, best first (within the parts that fit), are read a
page at a time (their ``doc_id``, ``source`` and ``tags``: a read each) until
``k`` are within the filter: few pages, since a broad filter keeps many of
them. The values are field values in these queries, never part of a path.

Updates (``update``), for a batch of passages being written or deleted:

1. Every term the batch had (from ``bm25_terms``) or will have is rewritten,
   up to 100 terms and about 4 MiB of postings per transaction: read all its parts, drop every posting of the
   batch's passage ids, add the new postings, write the parts back, delete
   parts no longer needed. Removal is by id, so re-running a batch never counts
   a passage twice; transactions make parallel ingestion tasks that touch the
   same terms serialise instead of losing each other's postings.
2. Then the caller writes (or deletes) the passage documents with their
   ``bm25_*`` fields, in batches that also move ``#corpus``'s totals by exactly
   the batch's difference (``Increment``), so documents and totals agree.

A failure between 1 and 2 leaves postings for the new text while the passage
documents still describe the old: running the same ingestion again repairs it
(step 1 drops the ids' postings from the old and new terms alike). Two writers
must not write the same passage id at the same time (ingestion's task sharding
gives each id to one task). Rewriting a term costs its whole posting list, so
ingest in large batches; one term's postings must fit in one transaction
(10 MiB, about 350,000 passages holding the term).
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from function.retrieval import bm25
from function.retrieval.bm25 import Hit, PassageTerms
from function.retrieval.filters import PassageFilter
from function.retrieval.searcher import Searcher
from function.service.cache import LRU
from function.store import ops

POSTING = np.dtype([("length", "<u4"), ("title", "<u2"), ("text", "<u2")])
CORPUS_ID = "#corpus"
_ENTRY_BYTES = 256  # what a kept document costs beside its ids and postings (dict, key, small fields), about
_TF_MAX = np.iinfo(np.uint16).max


@dataclass
class Postings:
    """One term's postings: passage id -> (length, tf in title, tf in text)."""

    by_id: dict[str, tuple[int, int, int]]

    @classmethod
    def decode(cls, parts: list[dict]) -> Postings:
        by_id: dict[str, tuple[int, int, int]] = {}
        for part in parts:
            ids = part["ids"].decode("utf-8").split("\x00") if part["ids"] else []
            rows = np.frombuffer(part["postings"], dtype=POSTING)
            by_id.update(zip(ids, zip(rows["length"].tolist(), rows["title"].tolist(), rows["text"].tolist())))
        return cls(by_id)

    def encode(self, part_bytes: int) -> list[dict]:
        """Parts of at most about ``part_bytes`` each, ids in sorted order."""
        parts, ids, rows, size = [], [], [], 0
        for pid in sorted(self.by_id):
            need = len(pid.encode("utf-8")) + 1 + POSTING.itemsize
            if ids and size + need > part_bytes:
                parts.append(self._part(ids, rows))
                ids, rows, size = [], [], 0
            ids.append(pid)
            rows.append(self.by_id[pid])
            size += need
        if ids:
            parts.append(self._part(ids, rows))
        return parts

    @staticmethod
    def _part(ids: list[str], rows: list[tuple[int, int, int]]) -> dict:
        return {"ids": "\x00".join(ids).encode("utf-8"), "postings": np.array(rows, dtype=POSTING).tobytes()}


def _kept_bytes(value: dict | tuple[dict, ...]) -> int:
    """About what a kept ``#corpus`` (a dict) or a term's parts (a tuple of dicts) holds in memory."""
    parts = (value,) if isinstance(value, dict) else value
    return _ENTRY_BYTES + sum(_ENTRY_BYTES + len(p.get("ids", b"")) + len(p.get("postings", b"")) for p in parts)


def passage_postings(pid: str, analysed: PassageTerms) -> dict[str, tuple[str, tuple[int, int, int]]]:
    """term -> (passage id, posting) for one passage."""
    return {t: (pid, (analysed.length, min(title, _TF_MAX), min(text, _TF_MAX)))
            for t, (title, text) in analysed.frequencies().items()}


class TermIndex(Searcher):
    """The index in ``collection`` of ``client``'s database. A read that fails with one of ``errors`` raises
    what ``failed(what, error)`` makes of it: the store's ``StoreUnavailable``, after it has dropped a broken
    channel (``FirestoreStore._failed``); writes leave that to the store, which makes them."""

    PART_BYTES = 512 * 1024  # well inside Firestore's 1 MiB per document
    TERMS_PER_TRANSACTION = 100
    TRANSACTION_BYTES = 4 * 1024 * 1024  # a commit takes at most 10 MiB
    FILTER_SET_MAX = 2_000  # passages of one filter part read as a set of ids; more: candidates are checked instead
    FILTER_PAGE = 100  # candidates whose fields are read at once when checked against a broad filter
    IN_VALUES = 30  # Firestore's most values in one 'in' or 'array-contains-any'

    def __init__(self, client, collection: str, timeout_s: float, description: str = "",
                 errors: tuple[type[Exception], ...] = (), failed: Callable[[str, Exception], Exception] | None = None,
                 passages=None, cache_bytes: int = 0):
        from google.cloud import firestore

        self._firestore = firestore
        self.client = client
        self.terms = client.collection(collection)
        self.corpus = self.terms.document(CORPUS_ID)
        self.timeout_s = timeout_s
        self.description = description or f"firestore:{client.project}/{collection}"
        self._errors, self._failed = errors, failed
        self.passages = passages  # the passage documents' collection, which filtered searches query
        # (generation, "#corpus" or a term) -> its fields, or a term's parts (() where absent); see the module text
        self.cache = LRU(max_bytes=cache_bytes, sizeof=_kept_bytes) if cache_bytes > 0 else None
        self.generation: str | None = None  # what ``at`` gave: the key of what this view keeps

    def at(self, generation: str | None) -> TermIndex:
        """This index as of the corpus generation ``generation``: a view sharing the client and the cache,
        whose reads are kept and looked up under that generation (None, or no cache: this index itself)."""
        if generation is None or self.cache is None:
            return self
        view = copy.copy(self)
        view.generation = generation
        return view

    def _ref(self, term: str, part: int):
        return self.terms.document(f"{term}#{part}")

    # -- reading -----------------------------------------------------------

    def _get(self, refs: list) -> dict:
        """Document id -> snapshot (``get_all`` answers in no particular order)."""
        if not refs:
            return {}
        got = {snap.id: snap for snap in self.client.get_all(refs, retry=None, timeout=self.timeout_s)}
        ops.add(reads=len(refs))
        return got

    def _read_terms(self, terms: list[str]) -> tuple[dict, dict[str, list[dict]]]:
        """(#corpus fields, term -> its parts' fields), each term's parts from one rewrite; what this view's
        generation has kept is not read again, and what is read is kept (see the module docstring)."""
        keeps = self.cache is not None and self.generation is not None
        kept = {name: self.cache.get((self.generation, name)) for name in (CORPUS_ID, *terms)} if keeps else {}
        corpus = kept.get(CORPUS_ID)
        unread = [t for t in terms if kept.get(t) is None]
        corpus_read, found = self._read_unkept(unread, corpus is None)
        if keeps:
            if corpus is None:
                self.cache.put((self.generation, CORPUS_ID), corpus_read)
            for t in unread:
                self.cache.put((self.generation, t), tuple(found.get(t, ())))
        found.update((t, list(kept[t])) for t in terms if t not in unread and kept[t])
        return corpus_read if corpus is None else corpus, found

    def _read_unkept(self, terms: list[str], with_corpus: bool) -> tuple[dict, dict[str, list[dict]]]:
        """(#corpus fields if ``with_corpus``, term -> its parts' fields) as stored now."""
        if not terms and not with_corpus:
            return {}, {}
        snaps = self._get(([self.corpus] if with_corpus else []) + [self._ref(t, 0) for t in terms])
        corpus = snaps[CORPUS_ID].to_dict() if with_corpus and snaps[CORPUS_ID].exists else {}
        heads = {t: snaps[f"{t}#0"].to_dict() for t in terms if snaps[f"{t}#0"].exists}
        found: dict[str, list[dict]] = {}
        for _attempt in range(3):
            rest = self._get([self._ref(t, k) for t, head in heads.items() for k in range(1, head["parts"])])
            torn = []
            for t, head in heads.items():
                tail = [rest[f"{t}#{k}"] for k in range(1, head["parts"])]
                if all(part.exists and part.to_dict().get("gen") == head["gen"] for part in tail):
                    found[t] = [head] + [part.to_dict() for part in tail]
                else:
                    torn.append(t)
            if not torn:
                return corpus, found
            again = self._get([self._ref(t, 0) for t in torn])
            heads = {t: again[f"{t}#0"].to_dict() for t in torn if again[f"{t}#0"].exists}
        raise TimeoutError("the index's term documents kept changing while they were read")

    def _reading(self, what: str, read, *args):
        try:
            return read(*args)
        except self._errors as e:
            raise (self._failed(what, e) if self._failed else e) from None

    def search(self, terms: list[str], k: int, where: PassageFilter | None = None) -> list[Hit]:
        """The ``k`` passages with the highest BM25 score for any of ``terms``, within ``where``."""
        if not terms:
            return []
        if where and self.passages is None:
            raise ValueError("a filtered search needs the passages' collection (TermIndex(passages=...))")
        return self._reading("search", self._search, terms, k, where)

    def stats(self, terms: list[str]) -> dict:
        """``{"passages": N, "total_length": index terms of all passages, "df": {term: passages}}``."""
        return self._reading("index stats", self._stats, terms)

    def document_holds(self, terms: list[str], doc_id: str, passage_id: str) -> bool:
        """Whether a passage of ``doc_id`` holds any of ``terms``, told from the terms' postings (read with the
        question's terms, or kept) by their passage ids: a file's passages are ``ids.chunk_passage_id(doc_id, n)``.
        A filtered search would read every passage of the document; where ``passage_id`` (one of its passages) is
        not of that form (a JSON record's own id), the document is taken to hold them (no read, nothing moved)."""
        import re

        from function.store.ids import chunk_passage_id

        own = re.compile(re.escape(chunk_passage_id(doc_id, 0)[:-4]) + r"\d{4,9}")
        if not terms or not own.fullmatch(passage_id):
            return True
        _, found = self._reading("search", self._read_terms, terms)
        return any(own.fullmatch(pid) for t in terms for part in found.get(t, ()) if part["ids"]
                   for pid in part["ids"].decode("utf-8").split("\x00"))

    def warm(self) -> None:
        """Nothing to open: the store's client is the index's (``Runtime`` warms its channel)."""

    def _search(self, terms: list[str], k: int, where: PassageFilter | None = None) -> list[Hit]:
        corpus, found = self._read_terms(terms)
        n, total = int(corpus.get("passages", 0)), int(corpus.get("length", 0))
        if n <= 0 or not found:
            return []
        avgdl = total / n
        scores: dict[str, float] = {}
        for t in terms:  # question order: the sums are FTS5's
            if t not in found:
                continue
            ids, rows = [], []
            for part in found[t]:
                if part["ids"]:
                    ids.extend(part["ids"].decode("utf-8").split("\x00"))
                    rows.append(np.frombuffer(part["postings"], dtype=POSTING))
            rows = np.concatenate(rows)
            contribution = bm25.term_scores(bm25.idf(n, len(ids)), avgdl, rows["length"].astype(np.float64),
                                            rows["title"].astype(np.float64), rows["text"].astype(np.float64))
            for pid, value in zip(ids, contribution.tolist()):
                scores[pid] = scores.get(pid, 0.0) + value
        return self._within(scores, k, where) if where else bm25.best(scores, k)

    # -- filters (see the module docstring) ----------------------------------

    def _within(self, scores: dict[str, float], k: int, where: PassageFilter) -> list[Hit]:
        """The best ``k`` of the scored candidates that are within ``where``."""
        parts = [self._part_ids(query) for query in self._part_queries(where)]
        narrowed = [ids for ids in parts if ids is not None]
        for ids in narrowed:
            scores = {pid: score for pid, score in scores.items() if pid in ids}
        if len(narrowed) == len(parts):
            return bm25.best(scores, k)
        ranked = bm25.best(scores, len(scores))
        found: list[Hit] = []
        for start in range(0, len(ranked), self.FILTER_PAGE):
            page = ranked[start : start + self.FILTER_PAGE]
            fields = self._get_fields([h.passage_id for h in page])
            found += [h for h in page if h.passage_id in fields and where.matches(*fields[h.passage_id])]
            if len(found) >= k:
                break
        return found[:k]

    def _part_queries(self, where: PassageFilter) -> Iterator[list]:
        """Per part of ``where``: the queries whose results together are the passages within that part."""
        from google.cloud.firestore_v1.base_query import FieldFilter

        def chunks(values: tuple[str, ...]):
            return [list(values[c : c + self.IN_VALUES]) for c in range(0, len(values), self.IN_VALUES)]

        if where.documents is not None:
            yield [self.passages.where(filter=FieldFilter("doc_id", "in", chunk)) for chunk in chunks(where.documents)]
        if where.source_prefix is not None:  # every source from the prefix up to the prefix + the last code point
            prefix = where.source_prefix
            yield [self.passages.where(filter=FieldFilter("source", ">=", prefix))
                   .where(filter=FieldFilter("source", "<", prefix + "\U0010ffff"))]
        if where.tags is not None:
            yield [self.passages.where(filter=FieldFilter("tags", "array_contains_any", chunk))
                   for chunk in chunks(where.tags)]

    def _part_ids(self, queries: list) -> set[str] | None:
        """The ids the ``queries`` find together, or None if they find more than ``FILTER_SET_MAX``."""
        ids: set[str] = set()
        for query in queries:
            found = [snap.id for snap in query.select([]).limit(self.FILTER_SET_MAX + 1 - len(ids))
                     .stream(retry=None, timeout=self.timeout_s)]
            ops.add(reads=max(1, len(found)))  # a query is billed one read even when it finds nothing
            ids.update(found)
            if len(ids) > self.FILTER_SET_MAX:
                return None
        return ids

    def _get_fields(self, ids: list[str]) -> dict[str, tuple[str, str, list[str]]]:
        """Passage id -> (doc id, source, tags) of the passages among ``ids`` that exist."""
        refs = [self.passages.document(pid) for pid in ids]
        snaps = self.client.get_all(refs, field_paths=["doc_id", "source", "tags"], retry=None,
                                    timeout=self.timeout_s)
        ops.add(reads=len(refs))
        fields = {}
        for snap in snaps:
            if snap.exists:
                d = snap.to_dict()
                fields[snap.id] = (d.get("doc_id", ""), d.get("source", ""), d.get("tags", []))
        return fields

    def _stats(self, terms: list[str]) -> dict:
        corpus, found = self._read_terms(terms)
        df = {t: int(found[t][0]["df"]) if t in found else 0 for t in terms}
        return {"passages": int(corpus.get("passages", 0)), "total_length": int(corpus.get("length", 0)), "df": df}

    # -- writing -----------------------------------------------------------

    def update(self, old_terms: dict[str, list[str]], new: dict[str, PassageTerms]) -> None:
        """Step 1 of an update: the postings of passages ``old_terms | new`` become those of ``new``.

        ``old_terms``: passage id -> the terms it is indexed under now (from ``bm25_terms``);
        ``new``: passage id -> its new analysis (absent: the passage is being deleted).
        """
        ids = set(old_terms) | set(new)
        additions: dict[str, list[tuple[str, tuple[int, int, int]]]] = {}
        for pid, analysed in new.items():
            for term, posting in passage_postings(pid, analysed).items():
                additions.setdefault(term, []).append(posting)
        affected = sorted(set(additions).union(*old_terms.values()) if old_terms else set(additions))
        done = 0
        while done < len(affected):
            done += self._rewrite(affected[done : done + self.TERMS_PER_TRANSACTION], ids, additions)

    def _rewrite(self, terms: list[str], ids: set[str], additions: dict) -> int:
        """Rewrite the first of ``terms`` in one transaction, up to TRANSACTION_BYTES; returns how many."""
        firestore = self._firestore

        @firestore.transactional
        def run(transaction) -> int:
            def get(refs: list) -> dict:
                if not refs:
                    return {}
                ops.add(reads=len(refs))  # each attempt of a retried transaction is billed
                return {snap.id: snap for snap in self.client.get_all(refs, transaction=transaction)}

            heads = get([self._ref(t, 0) for t in terms])
            counts = {t: heads[f"{t}#0"].get("parts") if heads[f"{t}#0"].exists else 0 for t in terms}
            rest = get([self._ref(t, k) for t in terms for k in range(1, counts[t])])
            gen = uuid.uuid4().hex
            written = 0
            for done, t in enumerate(terms, 1):  # noqa: B007 (the count is returned: a transaction may stop early)
                stored = [heads[f"{t}#0"].to_dict()] if counts[t] else []
                stored += [rest[f"{t}#{k}"].to_dict() for k in range(1, counts[t]) if rest[f"{t}#{k}"].exists]
                postings = Postings.decode(stored)
                for pid in ids:
                    postings.by_id.pop(pid, None)
                postings.by_id.update(additions.get(t, []))
                parts = postings.encode(self.PART_BYTES)
                for k, part in enumerate(parts):
                    fields = {**part, "gen": gen}
                    if k == 0:
                        fields.update(parts=len(parts), df=len(postings.by_id))
                    transaction.set(self._ref(t, k), fields)
                for k in range(len(parts), counts[t]):
                    transaction.delete(self._ref(t, k))
                ops.add(writes=len(parts), deletes=max(0, counts[t] - len(parts)))
                written += sum(len(part["ids"]) + len(part["postings"]) for part in parts)
                if written >= self.TRANSACTION_BYTES:
                    break
            return done

        return run(self.client.transaction())

    def corpus_change(self, batch, passages: int, length: int) -> None:
        """Step 2's totals: add to a write batch that also writes the passages they describe."""
        if passages or length:
            increment = self._firestore.Increment
            batch.set(self.corpus, {"passages": increment(passages), "length": increment(length)}, merge=True)
