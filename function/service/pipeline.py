"""The answer pipeline: cache -> tokenize -> [retrieve] -> fetch passages -> one model run -> spans.

The answer cache is consulted before anything is loaded: its key needs only
the manifest (cheap) and, for stored passages, the store's corpus generation
(read at most every ``QA_CORPUS_CHECK_S``: ``cache.CorpusGeneration``), so a
cached answer is served even by an instance whose model is not loaded yet, and
none cached before an ingestion changed the passages is served once the
generation read is newer than it. A question with neither ``context`` nor
``passage_ids`` first retrieves the passages with the best BM25 scores from the
store's index (a passage whose text repeats a better-ranked one's is skipped:
``QAService.distinct``), then reads them all in the same model run; with
``QA_CASCADE`` on (the default) it stops after the first one where the model is
sure of an answer there (``function.service.cascade``).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from function.errors import BadRequest, NotFound, NothingMatched, PayloadTooLarge, TokenizerMismatch
from function.logs import log
from function.retrieval.bm25 import Hit
from function.retrieval.filters import PassageFilter
from function.retrieval.terms import query_terms, search_terms
from function.service.cache import LRU, AnswerCache, CorpusGeneration, answer_key, normalize_question
from function.service.qa_request import QARequest
from function.service.runtime import Runtime
from function.service.snippet import snippet

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np

    from function.model.load import Model
    from function.model.reader import Answer, PassageTokens
    from function.model.windows import Batch
    from function.store.passage import Passage

# A question alone searches at least this many hits, so that the passages read can skip copies (``QAService.distinct``);
# the hybrid fusion's own depth (``function.retrieval.hybrid.DEPTH``), so its order does not move. (Searching deeper
# where copies fill them was measured and not kept: docs/retrieval.md, "No text read twice".)
SEARCH_DEPTH = 20
# A question alone that asks what something is ("What is a working set?": ``sentence.defined``) and none of whose
# passages read introduces it ("working set\n A collection of ...", "A blob object is ...":
# ``sentence.introduces_somewhere``) reads first the best-ranked other hit of the ``SEARCH_DEPTH`` that does, in place
# of its last passage: such short questions share their terms with every passage of a page. One switch, kept by a
# rule written first (docs/documents.md).
DEFINITION_FIRST = True
# A question alone that names a member with its owner ("What does QString::length return?": ``reader.qualified_names``)
# and none of whose passages read is that member's entry (``reader.declares``) reads first the best-ranked other hit of
# the ``SEARCH_DEPTH`` that is, in place of its last passage: a manual of many classes documents members of one name on
# many pages (QStringView's and QStringRef's ``length()`` outranked QString's). One switch, kept by a rule written
# first (docs/documents.md).
DECLARED_FIRST = True
STAGES = ("tokenize", "fetch", "queue", "inference", "postprocess")
RETRIEVAL_STAGES = ("tokenize", "retrieve", "fetch", "queue", "inference", "postprocess")


@dataclass
class Timer:
    """Milliseconds per stage: ``lap`` adds the time since the previous lap (or the start) to one."""

    ms: dict = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))
    mark: float = field(default_factory=time.perf_counter)

    @classmethod
    def of(cls, req: QARequest) -> Timer:
        return cls(dict.fromkeys(RETRIEVAL_STAGES if req.retrieves else STAGES, 0.0))

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.ms[stage] += (now - self.mark) * 1000
        self.mark = now

    def move(self, source: str, target: str, ms: float) -> None:
        """Count ``ms`` of what was lapped as ``source`` as ``target`` instead."""
        ms = min(ms, self.ms[source])
        self.ms[source] -= ms
        self.ms[target] += ms


@dataclass
class Result:
    payload: dict  # answers + model
    cache: str  # "hit" or "miss"
    timings_ms: dict
    passages_read: int | None = None  # a question asked alone: how many retrieved passages the model read


class SentenceCosines:
    """A question's cosine to sentences, by the sentence encoder (``reader.SENTENCE_COSINE``), each sentence embedded
    once (``SentenceEncoder.embed_one``; the question's own embedding is retrieval's); ``ms``: the time it took. One
    by one, not in one batch: the int8 encoder quantises its activations per run (dynamic), so a sentence embedded
    beside others would not get its own embedding, and a cosine would depend on its neighbours (docs/retrieval.md)."""

    def __init__(self, encoder, question: str):
        self.encoder, self.question, self.ms = encoder, question, 0.0

    def __call__(self, sentences) -> list[float]:
        t0 = time.perf_counter()
        q = self.encoder.embed_one(self.question)
        out = [float(self.encoder.embed_one(t) @ q) for t in sentences]
        self.ms += (time.perf_counter() - t0) * 1000
        return out


class DocumentNames:
    """Which documents of a question alone's passages lack a plain name the question gives
    (``span_bias.plain_names_lacking``), asked of the index within each document (``Searcher.document_holds``;
    ``passages``: each passage's document id and its own id); ``lacking``: per passage read, the plain names it lacks
    (made only where one lacks some); ``named``: the question-wide rule moved the threshold already
    (``span_bias.missing_name``); ``ms`` and ``checks``: the time and the index searches it took; ``lacked``: the
    names a document was found to lack, for the reply's ``missing_names``."""

    def __init__(self, searcher, passages: list[tuple[str, str]], lacking: list[list[str]], named: bool):
        self.searcher, self.passages, self.lacking, self.named = searcher, passages, lacking, named
        self.ms, self.checks = 0.0, 0
        self._held: dict[tuple[str, str], bool] = {}
        self.lacked: set[str] = set()  # folded

    def document_lacks(self, passage: int) -> bool:
        """Whether no stored passage of ``passage``'s document holds one of the plain names the passage lacks."""
        lacked = [name for name in self.lacking[passage] if not self._holds(*self.passages[passage], name)]
        self.lacked.update(lacked)
        return bool(lacked)

    def _holds(self, doc: str, pid: str, name: str) -> bool:
        from function.retrieval.span_bias import name_terms

        key = (doc, name)
        if key not in self._held:
            found = name_terms(name)
            t0 = time.perf_counter()
            self._held[key] = not found or self.searcher.document_holds(found, doc, pid)
            self.ms += (time.perf_counter() - t0) * 1000
            self.checks += bool(found)
        return self._held[key]


@dataclass
class Reading:
    """The passages one request reads, in the order the model gets them."""

    tokens: list[PassageTokens]  # their token ids and character offsets
    texts: list[str]  # the texts the answers' offsets point into
    meta: list[dict]  # what each answer says about its passage (id and title; nothing for a context)
    bias: np.ndarray | None = None  # retrieval: the passages' BM25 scores, added to their spans' logits
    retrieved: list[dict] | None = None  # retrieval: what the reply says about the passages
    doc_starts: list[int | None] | None = None  # where each passage starts in its document's text, if known
    marks: list[np.ndarray] | None = None  # each passage's inline code spans (``Passage.code_spans``), if stored
    lines: list[np.ndarray] | None = None  # each passage's code blocks' lines (``Passage.line_spans``), if stored
    scores: list[float] | None = None  # retrieval: the passages' scores as the index gave them (the reply rounds)
    threshold_shift: float = 0.0  # retrieval: how far the "no answer" threshold moves (``span_bias.no_answer_shift``)
    pages: list[tuple[str, int] | None] | None = None  # each stored passage's (document id, chunk), where it has one
    names: list[float] | None = None  # retrieval: each passage's share of the question's plain names, if it gives any
    cosines: SentenceCosines | None = None  # a question alone with the sentence encoder: its cosine to sentences
    documents: DocumentNames | None = None  # a question alone giving plain names, the threshold moved: their documents
    missing: list[str] | None = None  # the question's names no passage read holds, where they moved the threshold

    @classmethod
    def of_stored(cls, stored: list[Passage], retrieved: list[dict] | None = None,
                  bias: np.ndarray | None = None, scores: list[float] | None = None,
                  threshold_shift: float = 0.0, names: list[float] | None = None) -> Reading:
        from function.model.reader import PassageTokens

        return cls([PassageTokens(p.ids, p.char_offsets) for p in stored], [p.text for p in stored],
                   [_passage_meta(p) for p in stored], bias, retrieved, [p.start for p in stored],
                   [p.code_spans for p in stored], [p.line_spans for p in stored], scores, threshold_shift,
                   [None if p.chunk is None else (p.doc_id, p.chunk) for p in stored], names)

    def threshold(self, no_answer: dict | None) -> float | None:
        """The "no answer" threshold for this reading: the artifact's (``no_answer``, None: it has none) moved by
        ``threshold_shift``; the verdict and the cascade's stop both decide by it."""
        return None if no_answer is None else float(no_answer["threshold"]) + self.threshold_shift

    def window_thresholds(self, no_answer: dict | None, batch: Batch, start_logits: np.ndarray,
                          end_logits: np.ndarray, max_answer_tokens: int) -> float | np.ndarray | None:
        """``threshold``, or one per window of ``batch`` where a window whose passage lacks a plain name the question
        gives would answer by it and not by one ``NO_ANSWER_DOCUMENT_SHIFT`` lower in all: such a window's threshold
        falls that far where its document holds the name nowhere (``DocumentNames``). Only those windows' documents
        are asked about: for most questions no index search runs."""
        import numpy as np

        from function.model.decode import window_margins
        from function.retrieval.span_bias import NO_ANSWER_DOCUMENT_SHIFT, NO_ANSWER_NAME_SHIFT

        threshold = self.threshold(no_answer)
        names = self.documents
        if threshold is None or names is None:
            return threshold
        extra = NO_ANSWER_DOCUMENT_SHIFT - (NO_ANSWER_NAME_SHIFT if names.named else 0.0)
        null, span = window_margins(start_logits, end_logits, batch, max_answer_tokens)
        with np.errstate(invalid="ignore"):
            margin = null - span
            turning = np.isfinite(span) & (margin <= threshold) & (margin > threshold - extra)
        passages = sorted({int(batch.passage_index[w]) for w in np.flatnonzero(turning)})
        lower = [i for i in passages if names.lacking[i] and names.document_lacks(i)]
        if not lower:
            return threshold
        shift = np.zeros(len(self.tokens))
        shift[lower] = extra
        return threshold - shift[batch.passage_index]

    def missing_names(self, question: str) -> list[str]:
        """The names ``question`` gives that moved its "no answer" threshold, as it writes them: those no passage read
        holds (``missing``), and those a document of a passage it would have answered from lacks (``documents``)."""
        from function.retrieval.span_bias import as_written

        lacked = self.documents.lacked if self.documents is not None else ()
        return as_written(question, [*(self.missing or ()), *lacked])

    def lead(self) -> float | None:
        """How far retrieval put the first passage ahead: its score over the second's (None: fewer than two
        passages, or a second scored 0)."""
        s = self.scores or []
        return s[0] / s[1] if len(s) > 1 and s[1] > 0 else None

    def located(self, passage: int, start: int, end: int) -> dict:
        """The answer's offsets in its document's extracted text, where the passage records its span."""
        offset = self.doc_starts[passage] if self.doc_starts else None
        return {} if offset is None else {"document_start": offset + start, "document_end": offset + end}


def _collapsed(text: str) -> str:
    """A passage's text with its white space collapsed: two passages so alike are copies (``QAService.distinct``)."""
    return " ".join(text.split())


def _passage_meta(p: Passage) -> dict:
    """What an answer says about its stored passage: ids, title, and the document it came from."""
    meta = {"passage_id": p.id, "title": p.title, "document_id": p.doc_id}
    if p.source:
        meta["source"] = p.source
    return meta


def abstains(req: QARequest, no_answer: dict) -> bool:
    """Whether this request may be answered "no answer": its ``abstain``, else the artifact's default."""
    return req.abstain if req.abstain is not None else bool(no_answer.get("default", True))


def _no_answer(req: QARequest, no_answer: dict, batch: Batch, start_logits: np.ndarray,
               end_logits: np.ndarray, threshold: float) -> tuple[dict, np.ndarray | None]:
    """The reply's ``no_answer`` (whether it abstained, and the probability behind the decision), and
    the windows its answers may come from (None: all).

    The probability is given even when the request turned abstention off, so a
    caller can apply a threshold of its own; ``abstained`` is the exact decision
    (margin > threshold), which the rounded probability only mirrors. Where the
    request abstains and some window holds an answer, the answers come from the
    windows that say so (``function.model.decode``). ``threshold``: the artifact's, as
    this question's reading moves it (``Reading.threshold``).
    """
    from function.model.reader import no_answer_verdict

    verdict = no_answer_verdict(start_logits, end_logits, batch, threshold, req.max_answer_tokens)
    abstaining = abstains(req, no_answer)
    reply = {"abstained": abstaining and verdict.above, "probability": round(verdict.probability, 6)}
    return reply, (verdict.answering if abstaining else None)


def spans(req: QARequest, reading: Reading, batch: Batch, start_logits: np.ndarray, end_logits: np.ndarray,
          windows: np.ndarray | None = None) -> list[Answer]:
    """The request's best spans, best first, in the windows' logits, as ``POST /`` ranks them: the
    reading's span bias, the question, the passages' titles, code marks, lines and pages; ``windows``: the ones the
    answers may come from (None: all). Benchmarks that decode one model run several ways call it with a
    ``Reading`` whose ``bias`` they change."""
    from function.model.reader import answers_from_logits
    from function.retrieval.span_bias import NULL_WEIGHT

    return answers_from_logits(
        start_logits, end_logits, batch, reading.tokens, req.top_k, req.max_answer_tokens, reading.bias,
        texts=reading.texts, windows=windows, null_weight=NULL_WEIGHT,  # used with a retrieval bias only
        question=req.question, titles=[m.get("title") for m in reading.meta], marks=reading.marks,
        lines=reading.lines, pages=reading.pages, cosines=reading.cosines)


def _unmatched(model: Model, why: NothingMatched) -> dict:
    """The reply to a question asked alone that no stored passage matches: no answer, and why."""
    return {"answers": [], "no_answer": {"abstained": True, "probability": 1.0, "reason": why.message},
            "retrieved": [], "model": model.manifest.summary()}


class QAService:
    def __init__(self, runtime: Runtime):
        self.rt = runtime
        s = runtime.settings
        # keyed by (corpus generation, passage id): a passage read before an ingestion is not read after it
        self.passage_cache = LRU(max_bytes=s.passage_cache_bytes, sizeof=lambda p: p.nbytes)
        self._answers: AnswerCache | None = None
        self._told_unembedded = False  # stored cosines: passages without embeddings were logged (once)
        self._generation = CorpusGeneration(lambda: self.rt.store().generation(), s.corpus_check_s,
                                            on_change=self.rt.corpus_changed)

    def answer_cache(self) -> AnswerCache | None:
        s = self.rt.settings
        if not s.cache:
            return None
        if self._answers is None:
            shared = None
            if s.cache_shared:  # some request kinds use the shared tier
                try:
                    shared = self.rt.store()
                except Exception as e:  # noqa: BLE001 - run without the shared tier
                    log("WARNING", f"shared answer cache off: {e}")
            self._answers = AnswerCache(s.cache_entries, s.cache_ttl_s, shared,
                                        on_error=lambda m: log("WARNING", m))
        return self._answers

    def _corpus(self, req: QARequest, cache: AnswerCache | None) -> str | None:
        """The corpus generation a request for stored passages is answered from, if anything is cached:
        part of the keys of its answer, its passages and the index documents it reads (``CorpusGeneration``).
        None for a ``context``."""
        s = self.rt.settings
        if req.context is not None or (cache is None and not s.passage_cache_bytes and not s.term_cache_bytes):
            return None
        return self._generation.current()

    def _key(self, req: QARequest, corpus: str | None) -> str:
        manifest = self.rt.manifest()
        if req.context is not None:
            source = {"context_sha256": hashlib.sha256(req.context.encode("utf-8")).hexdigest()}
        elif req.passage_ids is not None:
            source = {"passage_ids": sorted(req.passage_ids), "corpus": corpus}
        else:
            source = {"retrieve": "bm25", "top_k_passages": req.top_k_passages, "corpus": corpus}
            if req.where:
                source["filter"] = req.where.key()
        question = normalize_question(req.question, manifest.lowercase)
        params: dict = {"top_k": req.top_k, "max_answer_tokens": req.max_answer_tokens}
        no_answer = manifest.no_answer
        if no_answer is not None:  # the threshold is not part of the artifact hash: a new one is a new key
            params["no_answer"] = {"abstain": abstains(req, no_answer), "threshold": no_answer["threshold"]}
        if req.passages:  # the reply also carries the retrieved passages' texts
            params["passages"] = True
        return answer_key(manifest.artifact_hash, question, source, params)

    def retrieve(self, question: str, k: int, where: PassageFilter | None = None,
                 corpus: str | None = None) -> list[Hit]:
        """The ``k`` stored passages with the best BM25 scores for ``question``, best first; with ``where``, the
        best ``k`` of the passages within it (each index filters inside its search); ``corpus``: the generation
        what the index keeps in memory must belong to (``Searcher.at``)."""
        terms = search_terms(question)
        if not terms:
            raise NothingMatched("the question has no words to search the passages for (only stop-words); "
                                 "ask with more words, or give 'passage_ids' or a 'context'", {"terms": []})
        # a hybrid index (QA_INDEX_ENCODER) also embeds the question; the others search its terms alone
        hits = self.rt.searcher().at(corpus).search_question(question, terms, k, where)
        if not hits and where:
            raise NothingMatched(f"no stored passage within the filter ({where.describe()}) holds any of the "
                                 "question's words: check the document ids, source prefix or tags, or ask without "
                                 "them", {"terms": terms, "filter": where.key()})
        if not hits:
            raise NothingMatched("no stored passage holds any of the question's words; give a 'context', "
                                 "or ingest passages with `python -m function.ingest`", {"terms": terms})
        return hits

    def hits_to_read(self, question: str, k: int, where: PassageFilter | None = None,
                     corpus: str | None = None) -> list[Hit]:
        """``retrieve``'s hits for a question alone that reads ``k`` passages: ``SEARCH_DEPTH`` of them (at least
        ``k``), so that ``_read_retrieved(..., k=k)`` can skip copies and still read ``k``."""
        return self.retrieve(question, max(k, SEARCH_DEPTH), where, corpus)

    def read_question(self, question: str, k: int, n_question: int,
                      model: Model) -> tuple[list[Hit], list[Passage], Reading]:
        """The hits for a question alone (``hits_to_read``), the ``k`` passages it reads of them (``_read_retrieved``)
        and their ``Reading`` (span bias, names, threshold shift), as a request without filter or texts reads them:
        for benchmarks that score the reader on what retrieval gives it."""
        hits = self.hits_to_read(question, k)
        return (hits, *self._read_retrieved(hits, n_question, model, k=k, question_terms=query_terms(question),
                                            question=question))

    def _fetch(self, ids: tuple[str, ...], fingerprint: str, missing_ok: bool = False,
               corpus: str | None = None) -> list[Passage]:
        found = {}
        missing = []
        for pid in ids:
            p = self.passage_cache.get((corpus, pid))
            if p is None:
                missing.append(pid)
            else:
                found[pid] = p
        if missing:
            fetched = self.rt.store().get_many(missing)
            for pid, p in fetched.items():
                self.passage_cache.put((corpus, pid), p)
            found.update(fetched)
        unknown = [pid for pid in ids if pid not in found]
        if missing_ok:  # retrieved while an ingestion was writing: read the others
            ids = tuple(pid for pid in ids if pid in found)
        elif unknown:
            raise NotFound(f"{len(unknown)} unknown passage id(s): {', '.join(unknown[:10])}",
                           {"unknown_ids": unknown}, log_message=f"{len(unknown)} unknown passage id(s)")
        stale = [pid for pid in ids if found[pid].tokenizer != fingerprint]
        if stale:
            raise TokenizerMismatch(
                f"{len(stale)} passage(s) were tokenised by a different tokenizer than the loaded "
                f"model's ({fingerprint[:12]}): re-ingest them with `python -m function.ingest` "
                f"using this artifact",
                {"passage_ids": stale[:50], "model_tokenizer": fingerprint},
            )
        return [found[pid] for pid in ids]

    def answer(self, req: QARequest) -> Result:
        """The cached answer, else: the question, the passages it is asked about, one model run, the spans."""
        started = time.perf_counter()
        cache = self.answer_cache()
        corpus = self._corpus(req, cache)
        key = self._key(req, corpus) if cache is not None else None
        shared = req.kind in self.rt.settings.cache_shared
        hit = cache.get(key, shared)[0] if cache is not None else None
        if hit is not None:
            return Result(hit, "hit", self._totals(Timer.of(req), started))

        model = self.rt.model()
        timer = Timer.of(req)
        question = self._question_ids(req.question, model)
        try:
            reading = self._read_passages(req, len(question), model, timer, corpus)
        except NothingMatched as e:  # an ordinary outcome for a question asked alone: "no answer"
            timer.lap("retrieve")
            return Result(_unmatched(model, e), "miss", self._totals(timer, started))
        batch = self._batch(question, reading, model, req)
        timer.lap("tokenize")  # building the batch is input preparation
        batch, start_logits, end_logits, queue_ms = self._run(req, model, reading, batch)
        timer.lap("inference")
        timer.move("inference", "queue", queue_ms)  # waiting for the model is not the model's time
        payload = self._payload(req, model, reading, batch, start_logits, end_logits)
        timer.lap("postprocess")
        if reading.cosines is not None and reading.cosines.ms:  # the answers' sentences embedded: its own figure
            timer.ms["sentences"] = 0.0
            timer.move("postprocess", "sentences", reading.cosines.ms)
        if reading.documents is not None and reading.documents.checks:  # documents asked for names: its own figure
            timer.ms["names"] = 0.0
            timer.move("postprocess", "names", reading.documents.ms)
        if cache is not None:
            cache.put(key, payload, shared)
        read = int(batch.passage_index.max()) + 1 if req.retrieves else None
        return Result(payload, "miss", self._totals(timer, started), read)

    def _run(self, req: QARequest, model: Model, reading: Reading,
             batch: Batch) -> tuple[Batch, np.ndarray, np.ndarray, float]:
        """The windows the model read, their logits and the time spent waiting for the model: every window;
        or, for a question asked alone with ``QA_CASCADE`` on, the first passage's windows alone where they
        settle it, else every window (``function.service.cascade``, ``Inference.run_first``); every window at once
        where another passage holds more of the question's plain names or is the entry the question names, or the
        question asks to choose or for a kind of name (``cascade.may_stop_first``)."""
        from function.service import cascade

        if not (self.rt.settings.cascade and req.retrieves and len(reading.tokens) > 1
                and cascade.may_stop_first(reading.names, req.question,
                                           [(m.get("title"), t) for m, t in zip(reading.meta, reading.texts)])):
            ran = self.rt.inference.run(model, batch)
            return batch, ran.start_logits, ran.end_logits, ran.queue_ms
        from function.model.decode import paragraphs

        n = cascade.first_windows(batch)
        first = batch.rows(slice(0, n))
        threshold = reading.threshold(model.manifest.no_answer)
        blocks = [paragraphs(reading.texts[0], reading.tokens[0].offsets)]
        lead = reading.lead()
        ran, stopped = self.rt.inference.run_first(
            model, batch, n, lambda start, end: cascade.settled(start, end, first, req.max_answer_tokens, threshold,
                                                                blocks=blocks, lead=lead))
        return first if stopped else batch, ran.start_logits, ran.end_logits, ran.queue_ms

    @staticmethod
    def _question_ids(question: str, model: Model) -> np.ndarray:
        """The question's token ids; a question the model cannot read, or too long for it, is refused."""
        ids = model.tokenizer.encode(question).ids
        if len(ids) == 0:
            raise BadRequest("'question' has no words the model can read")
        if len(ids) > model.spec.max_query_tokens:
            raise PayloadTooLarge(f"'question' is {len(ids)} tokens; the model reads at most "
                                  f"{model.spec.max_query_tokens}")
        return ids

    def _read_passages(self, req: QARequest, n_question: int, model: Model, timer: Timer,
                       corpus: str | None = None) -> Reading:
        """The request's own ``context``, tokenised now; else its stored ``passage_ids``, or retrieved ones
        (``corpus``: the generation their cached copies must belong to)."""
        if req.context is not None:
            reading = self._context(req.context, model)
            timer.lap("tokenize")
            return reading
        timer.lap("tokenize")
        if req.passage_ids is not None:
            reading = Reading.of_stored(self._fetch(req.passage_ids, model.tokenizer.fingerprint, corpus=corpus))
        else:
            hits = self.hits_to_read(req.question, req.top_k_passages, req.where, corpus)
            timer.lap("retrieve")
            _, reading = self._read_retrieved(hits, n_question, model, req.passages, corpus,
                                              question_terms=query_terms(req.question), question=req.question,
                                              timer=timer, k=req.top_k_passages)
        timer.lap("fetch")
        return reading

    @staticmethod
    def _context(context: str, model: Model) -> Reading:
        from function.model.reader import PassageTokens

        enc = model.tokenizer.encode(context)
        if len(enc.ids) == 0:
            raise BadRequest("'context' has no words the model can read")
        return Reading([PassageTokens(enc.ids, enc.offsets)], [context], [{}])

    def _batch(self, question: np.ndarray, reading: Reading, model: Model, req: QARequest | None = None) -> Batch:
        """Every window of every passage, as one model run; more windows than QA_MAX_WINDOWS are refused, saying
        what made them (``req``: the request's ``context``, its ``passage_ids``) and what to send instead."""
        from function.model.reader import prepare

        batch = prepare(question, reading.tokens, model.spec)
        n, limit = len(batch), self.rt.settings.max_windows
        if n > limit:
            if req is not None and req.context is not None:
                # the windows grow with the context's tokens: this share of its characters makes about ``limit``
                fits = len(req.context) * limit // n
                raise PayloadTooLarge(f"the context makes {n} model windows; the limit is {limit} per request: "
                                      f"shorten it (to about {fits} characters of text like this one) or split it "
                                      "across requests")
            if req is not None and req.passage_ids is not None:
                raise PayloadTooLarge(f"the {len(req.passage_ids)} passages make {n} model windows; the limit is "
                                      f"{limit} per request: ask about fewer of them at a time")
            raise PayloadTooLarge(f"the passages make {n} model windows; the limit is {limit} per request")
        return batch

    @staticmethod
    def _payload(req: QARequest, model: Model, reading: Reading, batch: Batch,
                 start_logits: np.ndarray, end_logits: np.ndarray) -> dict:
        """The reply: the best spans as text with their offsets and passages, the model, what was retrieved."""
        no_answer = model.manifest.no_answer
        threshold = reading.window_thresholds(no_answer, batch, start_logits, end_logits, req.max_answer_tokens)
        verdict, windows = (None, None) if no_answer is None else _no_answer(req, no_answer, batch, start_logits,
                                                                           end_logits, threshold)
        abstained = verdict is not None and verdict["abstained"]
        missing = reading.missing_names(req.question) if abstained else []
        if missing:  # why it is surer there is no answer; a misspelt name shows here too
            verdict["missing_names"] = missing
        found = [] if abstained else spans(req, reading, batch, start_logits, end_logits, windows)
        answers = [
            {"text": reading.texts[a.passage][a.start : a.end], "score": round(a.score, 6),
             "start": a.start, "end": a.end, "snippet": snippet(reading.texts[a.passage], a.start, a.end),
             **reading.meta[a.passage], **reading.located(a.passage, a.start, a.end)}
            for a in found
        ]
        payload: dict = {"answers": answers, "model": model.manifest.summary()}
        if verdict is not None:
            payload["no_answer"] = verdict
        if req.retrieves:
            payload["retrieved"] = reading.retrieved
        return payload

    def _read_retrieved(self, hits: list[Hit], n_question: int, model: Model, with_texts: bool = False,
                        corpus: str | None = None, question_terms: list[str] | None = None,
                        question: str | None = None, timer: Timer | None = None,
                        k: int | None = None) -> tuple[list[Passage], Reading]:
        """The retrieved passages, best first: of the first ``k`` whose texts differ (``distinct``; None: of every
        hit), as many as fit one model run (QA_MAX_WINDOWS; at least one); and their ``Reading``:
        what the reply says about them (``with_texts``: also their texts and documents, for a client that shows
        them), their spans' bias (``function.retrieval.span_bias``), the hits' own scores and how far the "no
        answer" threshold moves (``question_terms``: the question's analysed terms, of which the passages' share
        moves it where the cosine does). With the ``question`` and stored cosines (``Runtime.passage_encoder``),
        hits that carry no cosine get one from the passages' stored embeddings (``_stored_cosines``; its time
        counted as retrieval's in ``timer``)."""
        from function.model.windows import window_starts
        from function.retrieval import span_bias

        stored, missing = self.distinct(hits, len(hits) if k is None else k, model.tokenizer.fingerprint, corpus)
        if DEFINITION_FIRST and question is not None and k is not None and len(hits) > k:
            stored = self._definition_first(question, stored, hits, model.tokenizer.fingerprint, corpus)
        if DECLARED_FIRST and question is not None and k is not None and len(hits) > k:
            stored = self._declared_first(question, stored, hits, model.tokenizer.fingerprint, corpus)
        if missing:  # the index is ahead of the store (or the store behind it): read the others
            log("WARNING", "retrieved passages missing from the store were skipped", missing=missing[:20])
        if not stored:
            raise NothingMatched("none of the passages the index matched is in the store (an ingestion or a "
                                 "deletion under way?)", {"passage_ids": [h.passage_id for h in hits]})
        budget = model.spec.passage_budget(n_question)
        kept, windows = [], 0
        for p in stored:
            windows += len(window_starts(p.n_tokens, budget, model.spec.stride))
            if kept and windows > self.rt.settings.max_windows:
                break
            kept.append(p)
        hit = {h.passage_id: h for h in hits}  # a hit's cosine: hybrid retrieval's (None: BM25 alone)
        scores, cosines = [hit[p.id].score for p in kept], [hit[p.id].cosine for p in kept]
        offset = 0.0  # stored cosines' own raise of the moved threshold (``NO_ANSWER_STORED_OFFSET``)
        if question is not None and all(c is None for c in cosines):
            stored_cosines = self._stored_cosines(question, kept, timer)
            if stored_cosines is not None:
                cosines, offset = stored_cosines, span_bias.NO_ANSWER_STORED_OFFSET
        retrieved = [{"passage_id": p.id, "title": p.title, "score": round(score, 4),
                      **({"cosine": round(cosine, 4)} if cosine is not None else {}),
                      **({**_passage_meta(p), "text": p.text} if with_texts else {})}
                     for p, score, cosine in zip(kept, scores, cosines, strict=True)]
        cosined = all(c is not None for c in cosines)  # the share moves the threshold where the cosine does
        pairs = [(p.title, p.text) for p in kept]
        texts = pairs if cosined else []  # BM25 alone: neither signal moves it
        share = span_bias.term_share(question_terms, texts) if question_terms and texts else None
        missing = span_bias.missing_names(question, texts) if texts and question is not None else []
        named = bool(missing)
        shift = span_bias.no_answer_shift(cosines, share=share, offset=offset, name_missing=named)
        names = None if question is None else span_bias.plain_name_shares(question, pairs)
        bias = span_bias.passage_bias(scores, cosines=cosines, names=names)
        reading = Reading.of_stored(kept, retrieved, bias, scores, shift, names)
        reading.missing = missing or None
        lacking = span_bias.plain_names_lacking(question, texts) if texts and question is not None else None
        if lacking is not None and any(lacking):
            reading.documents = DocumentNames(self.rt.searcher().at(corpus), [(p.doc_id, p.id) for p in kept], lacking,
                                              named)
        encoder = None if question is None else self.rt.question_encoder()
        if encoder is not None:  # its answers ranked by their sentences' meaning too (``reader.SENTENCE_COSINE``)
            reading.cosines = SentenceCosines(encoder, question)
        return kept, reading

    def _definition_first(self, question: str, stored: list[Passage], hits: list[Hit], fingerprint: str,
                          corpus: str | None) -> list[Passage]:
        """``stored`` (the first distinct passages of ``hits``), or, where the question asks what something is
        (``sentence.defined``, not a default) and none of them introduces it (``sentence.introduces_somewhere``), the
        best-ranked other hit that does first (``_read_first``; ``DEFINITION_FIRST``)."""
        from function.model import sentence

        subject = sentence.defined(question)
        if subject is None or sentence.asks_default(question) or not stored:
            return stored
        return self._read_first(stored, hits, fingerprint, corpus,
                                lambda p: sentence.introduces_somewhere(p.text, subject))

    def _declared_first(self, question: str, stored: list[Passage], hits: list[Hit], fingerprint: str,
                        corpus: str | None) -> list[Passage]:
        """``stored``, or, where the question names a member with its owner (``reader.qualified_names``) and none of
        ``stored`` is its entry (``reader.declares``), the best-ranked other hit that is first (``_read_first``;
        ``DECLARED_FIRST``)."""
        from function.model import reader

        names = reader.qualified_names(question)
        if not names or not stored:
            return stored
        return self._read_first(stored, hits, fingerprint, corpus,
                                lambda p: any(reader.declares(p.text, p.title, name) for name in names))

    def _read_first(self, stored: list[Passage], hits: list[Hit], fingerprint: str, corpus: str | None,
                    wanted: Callable[[Passage], bool]) -> list[Passage]:
        """``stored`` where one of them is ``wanted``; else the best-ranked other hit that is (not a copy of one of
        them) first and ``stored`` after it, less its last; ``stored`` where none is."""
        if any(wanted(p) for p in stored):
            return stored
        have = {p.id for p in stored}
        rest = tuple(h.passage_id for h in hits if h.passage_id not in have)
        texts = {_collapsed(p.text) for p in stored}
        try:
            others = self._fetch(rest, fingerprint, missing_ok=True, corpus=corpus)
        except TokenizerMismatch:  # a hit it would not have read is stale: read what it would have, as before
            return stored
        for p in others:
            if wanted(p) and _collapsed(p.text) not in texts:
                return [p] + stored[:-1]
        return stored

    def distinct(self, hits: list[Hit], k: int, fingerprint: str,
                 corpus: str | None = None) -> tuple[list[Passage], list[str]]:
        """The first ``k`` stored passages of ``hits`` (best first) whose texts differ, white space collapsed, and the
        ids of hits missing from the store. A passage repeating a better-ranked one's text (a block every page of a
        site carries, a footer, an option documented alike on several pages) would take one of the ``k`` places read
        and add nothing: it is skipped, and the next hit read instead. Fetched ``k`` at a time, so where nothing
        repeats, one fetch of the first ``k``, as before."""
        kept: list[Passage] = []
        seen: set[str] = set()
        missing: list[str] = []
        at = 0
        while len(kept) < k and at < len(hits):
            ids = tuple(h.passage_id for h in hits[at : at + k - len(kept)])
            at += len(ids)
            fetched = self._fetch(ids, fingerprint, missing_ok=True, corpus=corpus)
            found = {p.id for p in fetched}
            missing += [pid for pid in ids if pid not in found]
            for p in fetched:
                text = _collapsed(p.text)
                if text not in seen:
                    seen.add(text)
                    kept.append(p)
        return kept, missing

    def _stored_cosines(self, question: str, kept: list[Passage], timer: Timer | None) -> list[float] | None:
        """The question's cosine to each passage in ``kept``, from the embeddings ingestion stored with them (stored
        cosines: ``QA_INDEX_ENCODER`` without ``QA_INDEX_URI``); None without that encoder, or where a passage has no
        embedding of it (ingested before it was set, or by another encoder: BM25 alone then, as before it)."""
        encoder = self.rt.passage_encoder()
        if encoder is None:
            return None
        missing = [p.id for p in kept if not (p.embedding and p.encoder == encoder.identity)]
        if missing:
            if not self._told_unembedded:  # once per process: every such question would say it again
                self._told_unembedded = True
                log("WARNING", "stored cosines: passages without an embedding of QA_INDEX_ENCODER's encoder are read "
                    "with BM25 alone (ingest them again with it set; said once)", passage_ids=missing[:20])
            return None
        if timer is not None:
            timer.lap("fetch")
        vector = encoder.embed_one(question)
        cosines = [float(p.vector @ vector) for p in kept]
        if timer is not None:
            timer.lap("retrieve")  # the question's embedding, as hybrid retrieval's is counted
        return cosines

    @staticmethod
    def _totals(timer: Timer, started: float) -> dict:
        ms = {k: round(v, 2) for k, v in timer.ms.items()}
        ms["total"] = round((time.perf_counter() - started) * 1000, 2)
        return ms
