"""Configuration: environment variables, read once into a frozen ``Settings``.

Every variable is listed in ``VARIABLES`` with its default and meaning; the
README's configuration table is generated from (and tested against) this list.
Relative paths are relative to the working directory: the image's ``/app``
(whose Dockerfile sets the artifact's path explicitly too), a staged Cloud
Functions source, or the checkout for ``make run``. Nothing here depends on
where the code itself is installed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Variable:
    name: str
    default: str
    meaning: str


VARIABLES: tuple[Variable, ...] = (
    Variable("QA_ARTIFACT_DIR", "artifact",
             "Folder with the model (model.onnx or model.ort), tokenizer.json and manifest.json (the build "
             "stage's output); a relative path is from the working directory (the image sets `/app/artifact`)."),
    Variable("QA_STORE", "sqlite", "Passage store: `sqlite` (embedded file) or `firestore`."),
    Variable("QA_SQLITE_PATH", ".data/passages.sqlite", "SQLite file of the embedded store (a relative path is "
             "from the working directory; the image sets `/tmp/qa/passages.sqlite`). Ingestion creates it; the "
             "function does not: while it is not there, requests by passage id and questions asked alone get a 503 "
             "naming it and saying to ingest documents first (requests with a `context` are answered)."),
    Variable("QA_FIRESTORE_PROJECT", "", "Google Cloud project of the Firestore database "
             "(empty: `GOOGLE_CLOUD_PROJECT`, then the client's default)."),
    Variable("QA_FIRESTORE_DATABASE", "(default)", "Firestore database id."),
    Variable("QA_PASSAGES_COLLECTION", "passages", "Collection of pre-tokenised passages."),
    Variable("QA_ANSWERS_COLLECTION", "answers", "Collection of the shared answer cache."),
    Variable("QA_STORE_TIMEOUT_S", "3", "Deadline of one store call; a request whose store call misses it gets 503 "
             "(with the shared answer cache on, a request can wait out two: the cache read, then the passages)."),
    Variable("QA_INDEX_URI", "", "Retrieval index of questions asked alone: empty for the store's own (SQLite FTS5, "
             "or Firestore's term documents), else a Lance table shared by every instance: a folder, or "
             "`gs://BUCKET/PATH` on Cloud Storage (needs `requirements-lance.txt`; docs/retrieval.md). Ingestion "
             "writes passages to the store and their terms to it."),
    Variable("QA_INDEX_ENCODER", "", "A sentence-encoder folder (the shipped `encoder/`, or `python -m "
             "build_model.encoder_export`'s). With `QA_INDEX_URI`, hybrid retrieval: ingestion stores each passage's "
             "embedding in the Lance table, and a question asked alone is searched by its terms (BM25) and by its "
             "embedding, the two rankings' scores mixed (docs/retrieval.md: +2.5 F1 at 10^6 passages, +1.1 at 10^5, "
             "+0.4 at 10^4, +2.8 on documentation). Without it, stored cosines: ingestion stores each passage's "
             "embedding with the passage, the store's own index still retrieves (BM25), and the question's cosine to "
             "each passage retrieved weighs its spans and moves the \"no answer\" threshold as hybrid retrieval's "
             "does (docs/no_answer.md). Empty: BM25 alone. The Lance images and `make run DOCS=...` set it to the "
             "shipped encoder."),
    Variable("QA_INDEX_REFRESH_S", "10", "With `QA_INDEX_URI`: how often an instance looks for what ingestion has "
             "added to the index (seconds)."),
    Variable("QA_CACHE", "1", "Answer cache on (1) or off (0)."),
    Variable("QA_CACHE_ENTRIES", "2048", "Answers kept in the in-process LRU."),
    Variable("QA_CACHE_SHARED", "0", "Which requests also keep their answers in the store's shared cache "
             "(Firestore `answers`): `0` (none: each instance's own cache only), `retrieval` (questions alone), `1` "
             "(every kind), or kinds separated by commas (`context`, `passage_ids`, `retrieval`). A shared read and "
             "write per miss cost more than the model run they save unless the shared tier adds about 30 (a new "
             "instance) to 45-60 (a warm one) points of hit rate over the instances' own caches (docs/cost.md)."),
    Variable("QA_CACHE_TTL_S", "604800", "Lifetime of a shared cached answer (its `expires_at` field)."),
    Variable("QA_CORPUS_CHECK_S", "1", "How long an instance keeps the store's corpus generation before reading "
             "it again (seconds; a Firestore read): answers and passages cached before an ingestion that changed "
             "passages are served for at most this long after it; 0: read for every request by passage id or "
             "question alone."),
    Variable("QA_PASSAGE_CACHE_BYTES", "33554432", "Bytes of recently used passages kept in memory."),
    Variable("QA_TERM_CACHE_BYTES", "16777216", "Bytes of recently read Firestore index documents (terms' postings "
             "and the corpus totals) kept in memory, keyed by the corpus generation like the passage cache: a warm "
             "instance does not read a frequent term again (docs/cost.md). 0: read them for every question."),
    Variable("QA_EAGER_LOAD", "0", "Load the tokenizer, model and store at start-up instead of on "
             "the first request (for minimum instances)."),
    Variable("QA_THREADS", "0", "ONNX Runtime intra-op threads (0: the CPUs this container may use)."),
    Variable("QA_INFERENCE_CONCURRENCY", "0", "Model runs at a time (0: 1 for `serial` and `batch`, the CPUs this "
             "container may use for `parallel`, `pool` and `adaptive`)."),
    Variable("QA_INFERENCE_MODE", "adaptive", "How concurrent requests share the model: `serial` (one run at a time "
             "with every CPU), `batch` (requests that arrive while a run is in progress go into the next run "
             "together), `parallel` (several runs of one session at a time, 1 intra-op thread each unless "
             "`QA_THREADS` says), `pool` (as `parallel`, one session per run: more memory) or `adaptive` (a request "
             "alone runs as in `serial`, with every CPU; while it runs, others run beside it as in `parallel`; "
             "docs/benchmarks.md#throughput-under-concurrency)."),
    Variable("QA_SECOND_SESSION", "1", "`adaptive` mode with more than one CPU: run a request that arrives while "
             "another runs on a second ONNX Runtime session with 1 intra-op thread, loaded in the background the "
             "first time requests overlap (`1`: the weights held twice from then on, about 25-37 MB), or on the "
             "model's own session (`0`: 0.87-0.92x the requests/s on 384-token windows at 2-8 clients; "
             "docs/benchmarks.md#one-session-or-two)."),
    Variable("QA_SPREAD_WINDOWS", "0", "`adaptive` mode with more than one CPU: `1` runs the windows of a request "
             "that runs alone (a question asked alone reads 5 passages) concurrently across the cores where that is "
             "predicted to finish sooner; `0` runs them one after another with every CPU. On a quiet 2-CPU Intel "
             "host one after another took 0.86x the server time (p50) with the cascade, 0.90x without "
             "(docs/benchmarks.md#windows-without-padding, which says how to measure your host)."),
    Variable("QA_MEMORY_TRIM", "1", "Hand the memory that concurrent model runs freed back to the system once a "
             "burst of overlapping requests is over (glibc's `malloc_trim`, 0.5 s after the last one ends, off the "
             "request path; requests one at a time never trigger it). `0`: keep it, as glibc does by default "
             "(docs/benchmarks.md#against-the-onnx-pipeline-peer-optimums-path)."),
    Variable("QA_BATCH_MAX_WINDOWS", "64", "`batch` mode: most windows in one model run (a request with more "
             "still runs, alone)."),
    Variable("QA_BATCH_WAIT_MS", "0", "`batch` mode: how long a run waits for more requests before it starts "
             "(0: it takes only those already waiting, so a lone request never waits)."),
    Variable("QA_MAX_BODY_BYTES", "262144", "Largest request body; larger is 413, refused before reading."),
    Variable("QA_MAX_QUESTION_CHARS", "1000", "Longest question (characters)."),
    Variable("QA_MAX_CONTEXT_CHARS", "20000", "Longest `context`, and longest passage ingestion accepts (characters)."),
    Variable("QA_MAX_PASSAGE_IDS", "50", "Most `passage_ids` in one request."),
    Variable("QA_MAX_FILTER_VALUES", "100", "Most `documents`, and most `tags`, a question asked alone may be "
             "filtered on (docs/retrieval.md, \"Filters\")."),
    Variable("QA_MAX_FILTER_CHARS", "512", "Longest filter value: a document id, the `source_prefix`, a tag."),
    Variable("QA_MAX_WINDOWS", "64", "Most model windows in one request (one batch)."),
    Variable("QA_MAX_TOP_K", "10", "Largest `top_k`."),
    Variable("QA_TOP_K_PASSAGES", "5", "Passages retrieved and read for a question without `context` or "
             "`passage_ids`, when the request does not say (`top_k_passages`)."),
    Variable("QA_MAX_TOP_K_PASSAGES", "20", "Largest `top_k_passages`."),
    Variable("QA_CASCADE", "1", "A question asked alone reads its best-ranked passage first and the others only "
             "when the model is not sure of an answer there, nor sees one in a passage retrieval put well ahead "
             "(1), or reads them all at once (0) "
             "(docs/retrieval.md, \"Reading less: the cascade\")."),
    Variable("QA_MAX_ANSWER_TOKENS", "64", "Largest `max_answer_tokens`."),
    Variable("QA_LOG_TEXT_CHARS", "100", "Characters of the question written to logs (0: none)."),
    Variable("QA_UI", "0", "Serve the question page at `GET /ui` (1; `make run` turns it on): a self-contained "
             "HTML page to ask from and see the answers in their passages (docs/ui.md). Off: `/ui` is a 404."),
    Variable("GOOGLE_CLOUD_PROJECT", "", "Project for the Cloud Logging trace field and the Firestore client."),
)

_DEFAULTS = {v.name: v.default for v in VARIABLES}
INFERENCE_MODES = ("serial", "batch", "parallel", "pool", "adaptive")
CONCURRENT_MODES = ("parallel", "pool", "adaptive")  # several runs at a time, by default one per CPU


class ConfigError(ValueError):
    """An environment variable has a value that cannot be used."""


REQUEST_KINDS = ("context", "passage_ids", "retrieval")


def parse_kinds(name: str, value: str) -> tuple[str, ...]:
    """Request kinds: a comma-separated list of ``REQUEST_KINDS``, or a flag (1: every kind, 0: none)."""
    words = [w.strip() for w in value.strip().lower().split(",") if w.strip()]
    if len(words) == 1 and words[0] not in REQUEST_KINDS:
        try:
            return REQUEST_KINDS if parse_flag(name, words[0]) else ()
        except ConfigError:
            pass
    unknown = [w for w in words if w not in REQUEST_KINDS]
    if unknown or not words:
        raise ConfigError(f"{name} must be 1, 0 or request kinds separated by commas "
                          f"({', '.join(REQUEST_KINDS)}), got {value!r}")
    return tuple(k for k in REQUEST_KINDS if k in words)


def parse_flag(name: str, value: str) -> bool:
    """An on/off variable: 1/true/yes/on or 0/false/no/off, any case."""
    v = value.strip().lower()
    if v in ("1", "true", "yes", "on"):
        return True
    if v in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name} must be 1 or 0, got {value!r}")


def index_encoder(folder: str) -> str:
    """QA_INDEX_ENCODER: empty, or a folder holding a sentence encoder (with ``index_uri`` its vectors live in the
    Lance table, without it beside each passage in the store)."""
    if not folder:
        return ""
    from function.retrieval.encoder import MANIFEST_FILE, MODEL_FILE, TOKENIZER_FILE

    missing = [name for name in (MANIFEST_FILE, MODEL_FILE, TOKENIZER_FILE) if not (Path(folder) / name).is_file()]
    if missing:
        raise ConfigError(f"QA_INDEX_ENCODER={folder!r} is not a sentence-encoder folder: no {', '.join(missing)} "
                          "(make one with `python -m build_model.encoder_export --source MODEL --out FOLDER "
                          "--data dev.json`)")
    return folder


@dataclass(frozen=True)
class Settings:
    artifact_dir: Path
    store: str
    sqlite_path: Path
    firestore_project: str
    firestore_database: str
    passages_collection: str
    answers_collection: str
    store_timeout_s: float
    cache: bool
    cache_entries: int
    cache_shared: tuple[str, ...]  # request kinds whose answers also go to the store's shared cache
    cache_ttl_s: int
    passage_cache_bytes: int
    eager_load: bool
    threads: int
    inference_concurrency: int
    inference_mode: str
    second_session: bool  # adaptive: a 1-thread session beside the wide one
    spread_windows: bool  # adaptive: a lone request's windows across the cores
    memory_trim: bool  # malloc_trim once a burst of overlapping requests is over
    batch_max_windows: int
    batch_wait_ms: float
    max_body_bytes: int
    max_question_chars: int
    max_context_chars: int
    max_passage_ids: int
    max_windows: int
    max_top_k: int
    top_k_passages: int
    max_top_k_passages: int
    cascade: bool  # a question asked alone reads its first passage, then the others only if it is unsure
    max_answer_tokens: int
    log_text_chars: int
    project: str
    ui: bool  # GET /ui serves the question page
    index_uri: str = ""  # a Lance table for retrieval; "": the store's own index
    index_refresh_s: float = 10.0
    corpus_check_s: float = 1.0  # how long the corpus generation read last is used (cache.CorpusGeneration)
    index_encoder: str = ""  # a sentence-encoder folder: hybrid (with index_uri) or stored cosines; "": BM25 alone
    max_filter_values: int = 100  # most documents, and most tags, in one question's filter
    max_filter_chars: int = 512  # longest filter value
    term_cache_bytes: int = 16 * 1024 * 1024  # Firestore's term documents kept in memory (firestore_terms.TermIndex)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env

        def raw(name: str) -> str:
            return env.get(name, "") or _DEFAULTS[name]

        def integer(name: str, low: int = 0) -> int:
            try:
                value = int(raw(name))
            except ValueError:
                raise ConfigError(f"{name} must be an integer, got {raw(name)!r}") from None
            if value < low:
                raise ConfigError(f"{name} must be >= {low}, got {value}")
            return value

        def number(name: str, zero: bool = False) -> float:
            try:
                value = float(raw(name))
            except ValueError:
                raise ConfigError(f"{name} must be a number, got {raw(name)!r}") from None
            if value < 0 or (value == 0 and not zero):
                raise ConfigError(f"{name} must be {'>= 0' if zero else '> 0'}, got {value}")
            return value

        def flag(name: str) -> bool:
            return parse_flag(name, raw(name))

        store = raw("QA_STORE").strip().lower()
        if store not in ("sqlite", "firestore"):
            raise ConfigError(f"QA_STORE must be 'sqlite' or 'firestore', got {store!r}")
        project = env.get("GOOGLE_CLOUD_PROJECT", "")
        mode = raw("QA_INFERENCE_MODE").strip().lower()
        if mode not in INFERENCE_MODES:
            raise ConfigError(f"QA_INFERENCE_MODE must be one of {', '.join(INFERENCE_MODES)}, got {mode!r}")
        wait_ms = raw("QA_BATCH_WAIT_MS")
        try:
            batch_wait_ms = float(wait_ms)
        except ValueError:
            raise ConfigError(f"QA_BATCH_WAIT_MS must be a number, got {wait_ms!r}") from None
        if not 0 <= batch_wait_ms <= 1000:
            raise ConfigError(f"QA_BATCH_WAIT_MS must be between 0 and 1000, got {batch_wait_ms}")
        top_k_passages, max_top_k_passages = integer("QA_TOP_K_PASSAGES", 1), integer("QA_MAX_TOP_K_PASSAGES", 1)
        if top_k_passages > max_top_k_passages:
            raise ConfigError(f"QA_TOP_K_PASSAGES ({top_k_passages}) must not be more than "
                              f"QA_MAX_TOP_K_PASSAGES ({max_top_k_passages})")
        return cls(
            artifact_dir=Path(raw("QA_ARTIFACT_DIR")),
            store=store,
            sqlite_path=Path(raw("QA_SQLITE_PATH")),
            firestore_project=env.get("QA_FIRESTORE_PROJECT", "") or project,
            firestore_database=raw("QA_FIRESTORE_DATABASE"),
            passages_collection=raw("QA_PASSAGES_COLLECTION"),
            answers_collection=raw("QA_ANSWERS_COLLECTION"),
            store_timeout_s=number("QA_STORE_TIMEOUT_S"),
            cache=flag("QA_CACHE"),
            cache_entries=integer("QA_CACHE_ENTRIES", 1),
            cache_shared=parse_kinds("QA_CACHE_SHARED", raw("QA_CACHE_SHARED")),
            cache_ttl_s=integer("QA_CACHE_TTL_S", 1),
            passage_cache_bytes=integer("QA_PASSAGE_CACHE_BYTES"),
            term_cache_bytes=integer("QA_TERM_CACHE_BYTES"),
            eager_load=flag("QA_EAGER_LOAD"),
            threads=integer("QA_THREADS"),
            inference_concurrency=integer("QA_INFERENCE_CONCURRENCY"),
            inference_mode=mode,
            second_session=flag("QA_SECOND_SESSION"),
            spread_windows=flag("QA_SPREAD_WINDOWS"),
            memory_trim=flag("QA_MEMORY_TRIM"),
            batch_max_windows=integer("QA_BATCH_MAX_WINDOWS", 1),
            batch_wait_ms=batch_wait_ms,
            max_body_bytes=integer("QA_MAX_BODY_BYTES", 1024),
            max_question_chars=integer("QA_MAX_QUESTION_CHARS", 1),
            max_context_chars=integer("QA_MAX_CONTEXT_CHARS", 1),
            max_passage_ids=integer("QA_MAX_PASSAGE_IDS", 1),
            max_filter_values=integer("QA_MAX_FILTER_VALUES", 1),
            max_filter_chars=integer("QA_MAX_FILTER_CHARS", 1),
            max_windows=integer("QA_MAX_WINDOWS", 1),
            max_top_k=integer("QA_MAX_TOP_K", 1),
            top_k_passages=top_k_passages,
            max_top_k_passages=max_top_k_passages,
            cascade=flag("QA_CASCADE"),
            max_answer_tokens=integer("QA_MAX_ANSWER_TOKENS", 1),
            log_text_chars=integer("QA_LOG_TEXT_CHARS"),
            ui=flag("QA_UI"),
            project=project,
            index_uri=env.get("QA_INDEX_URI", "").strip(),
            index_refresh_s=number("QA_INDEX_REFRESH_S"),
            corpus_check_s=number("QA_CORPUS_CHECK_S", zero=True),
            index_encoder=index_encoder(env.get("QA_INDEX_ENCODER", "").strip()),
        )

    def model_runs(self, cpus: int) -> int:
        """Model runs at a time: QA_INFERENCE_CONCURRENCY, else 1 (serial, batch) or ``cpus`` (parallel, pool)."""
        if self.inference_concurrency:
            return self.inference_concurrency
        return cpus if self.inference_mode in CONCURRENT_MODES else 1

    def run_threads(self, cpus: int) -> int:
        """Intra-op threads of one run: QA_THREADS, else ``cpus`` (serial, batch; adaptive's lone run) or 1
        (parallel, pool; adaptive's runs beside another)."""
        if self.threads:
            return self.threads
        return 1 if self.inference_mode in ("parallel", "pool") else cpus


def markdown_table() -> str:
    """The README's configuration table (``python -m function.config``)."""
    rows = ["| Variable | Default | Meaning |", "|---|---|---|"]
    for v in VARIABLES:
        rows.append(f"| `{v.name}` | {f'`{v.default}`' if v.default else ''} | {v.meaning} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(markdown_table())
