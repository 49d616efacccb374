"""Reading a request's JSON body under its size limit and validating it into the service's ``QARequest``.

Stdlib only: nothing heavy on this path."""

from __future__ import annotations

import json

from function.config import Settings
from function.errors import BadRequest, PayloadTooLarge, UnsupportedMediaType
from function.retrieval.filters import PassageFilter
from function.service.qa_request import QARequest
from function.store.ids import as_stored, valid_passage_id

FILTER_FIELDS = ("documents", "source_prefix", "tags")  # retrieval's filter (function.retrieval.filters)
FIELDS = ("question", "context", "passage_ids", "top_k_passages", "top_k", "max_answer_tokens", "abstain",
          "passages", *FILTER_FIELDS)


def check_encoding(content_encoding: str | None) -> None:
    """A compressed body (``Content-Encoding: gzip``, ``br``...) is a 415 before it is read: its bytes are not the
    JSON, and reading them as UTF-8 would blame the text. ``identity`` (no coding) is the only one accepted."""
    codings = [c.strip().lower() for c in (content_encoding or "").split(",")]
    if any(c not in ("", "identity") for c in codings):
        raise UnsupportedMediaType(
            f"request body has Content-Encoding {content_encoding.strip()[:40]!r}, which this function does not "
            "decode; send the JSON uncompressed, without a Content-Encoding header",
            headers={"Accept-Encoding": "identity"}, log_message="request body has a Content-Encoding")


def read_body(stream, content_length: int | None, limit: int) -> bytes:
    """The request body, refused with 413 before it is read past ``limit`` bytes."""
    if content_length is not None and content_length > limit:
        raise PayloadTooLarge(f"request body is {content_length} bytes; the limit is {limit}")
    body = stream.read(limit + 1)
    if len(body) > limit:
        raise PayloadTooLarge(f"request body is over the limit of {limit} bytes")
    return body


def _reject_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


def _object(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object whose keys are each given once: with a key given twice, which one was meant is unknown
    (``json.loads`` would keep the last silently)."""
    data = dict(pairs)
    if len(data) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise BadRequest(f"request body gives the key {key[:50]!r} more than once; give each field once",
                                 log_message="request body gives a key more than once")
            seen.add(key)
    return data


def _text(value, name: str, limit: int) -> str:
    if not isinstance(value, str):
        raise BadRequest(f"'{name}' must be a string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadRequest(f"'{name}' is not valid Unicode (unpaired surrogate)") from None
    if not value.strip():
        raise BadRequest(f"'{name}' must not be empty")
    if len(value) > limit:
        raise PayloadTooLarge(f"'{name}' has {len(value)} characters; the limit is {limit}")
    return value


def _integer(body: dict, name: str, default: int, high: int) -> int:
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(f"'{name}' must be an integer")
    if not 1 <= value <= high:
        raise BadRequest(f"'{name}' must be between 1 and {high}, got {value}")
    return value


def _boolean(body: dict, name: str) -> bool | None:
    """A JSON ``true``/``false``, or None when absent (or null): 1 or "true" are refused, not guessed at."""
    if name not in body:
        return None
    value = body[name]
    if not isinstance(value, bool):
        raise BadRequest(f"'{name}' must be true or false, got {json.dumps(value)[:40]}")
    return value


def _filter_value(value, name: str, limit: int) -> str:
    """One filter value: a non-empty string of at most ``limit`` characters that any store can hold."""
    if not isinstance(value, str) or not value:
        raise BadRequest(f"'{name}' must hold non-empty strings")
    if len(value) > limit:
        raise BadRequest(f"a value of '{name}' has {len(value)} characters; the limit is {limit}")
    if "\x00" in value:
        raise BadRequest(f"a value of '{name}' holds a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadRequest(f"a value of '{name}' is not valid Unicode (unpaired surrogate)") from None
    return value


def _filter_values(data: dict, name: str, settings: Settings) -> tuple[str, ...] | None:
    """A filter's array of values, de-duplicated in the caller's order, or None when absent."""
    if name not in data:
        return None
    values = data[name]
    if not isinstance(values, list) or not values:
        raise BadRequest(f"'{name}' must be a non-empty array of strings")
    if len(values) > settings.max_filter_values:
        raise BadRequest(f"'{name}' has {len(values)} values; the limit is {settings.max_filter_values}")
    return tuple(dict.fromkeys(_filter_value(v, name, settings.max_filter_chars) for v in values))


def _filter(data: dict, settings: Settings) -> PassageFilter | None:
    """What retrieval is restricted to (``documents``, ``source_prefix``, ``tags``), or None: everything."""
    prefix = data.get("source_prefix")
    where = PassageFilter(
        _filter_values(data, "documents", settings),
        None if prefix is None else _filter_value(prefix, "source_prefix", settings.max_filter_chars),
        _filter_values(data, "tags", settings))
    return where or None


def parse(body: bytes, settings: Settings, default_max_answer_tokens: int) -> QARequest:
    if body.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise BadRequest("request body is UTF-16 (it starts with a UTF-16 byte order mark); send it as UTF-8")
    try:
        text = body.decode("utf-8")  # RFC 8259: JSON between systems is UTF-8
    except UnicodeDecodeError as e:
        raise BadRequest(f"request body is not valid UTF-8 (byte {e.start})") from None
    text = text.removeprefix("\ufeff")  # a UTF-8 byte order mark (RFC 8259 lets a parser ignore it): harmless
    try:
        data = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_object)
    except RecursionError:
        raise BadRequest("request body is nested too deeply") from None
    except ValueError as e:  # JSONDecodeError, and integers too long to convert
        raise BadRequest(f"request body is not valid JSON: {str(e)[:200]}") from None
    if not isinstance(data, dict):
        raise BadRequest("request body must be a JSON object")
    unknown = sorted(k for k in data if k not in FIELDS)
    if unknown:
        raise BadRequest(f"unknown field(s): {', '.join(repr(k[:50]) for k in unknown[:5])}; "
                         f"expected {', '.join(FIELDS)}", log_message=f"{len(unknown)} unknown field(s)")
    if "question" not in data:
        raise BadRequest("'question' is required")
    # The contract (openapi.yaml): every optional field may be null, and null means the same as leaving the
    # field out. ``question`` is required and never null.
    data = {k: v for k, v in data.items() if v is not None or k == "question"}
    question = _text(data["question"], "question", settings.max_question_chars)

    has_context = "context" in data
    has_ids = "passage_ids" in data
    if has_context and has_ids:
        raise BadRequest("give at most one of 'context' or 'passage_ids' (neither: the passages are retrieved)")
    context = passage_ids = top_k_passages = None
    for name in ("top_k_passages", "passages", *FILTER_FIELDS):
        if (has_context or has_ids) and name in data:
            raise BadRequest(f"'{name}' is for questions without 'context' or 'passage_ids'")
    if not (has_context or has_ids):
        top_k_passages = _integer(data, "top_k_passages", settings.top_k_passages, settings.max_top_k_passages)
    elif has_context:
        context = _text(data["context"], "context", settings.max_context_chars)
    else:
        ids = data["passage_ids"]
        if not isinstance(ids, list) or not ids:
            raise BadRequest("'passage_ids' must be a non-empty array of strings")
        if len(ids) > settings.max_passage_ids:
            raise PayloadTooLarge(f"'passage_ids' has {len(ids)} ids; the limit is {settings.max_passage_ids}")
        ids = [as_stored(i) for i in ids]  # "docs/guide.md#0003" as the store writes it, "docs%2Fguide.md#0003"
        bad = [i for i in ids if not valid_passage_id(i)]
        if bad:
            shown = ", ".join(repr(b)[:60] for b in bad[:5])
            raise BadRequest(f"invalid passage id(s): {shown} (ids are non-empty strings without '/', but for a "
                             "file's passage, written PATH#0003 or with its '/' as %2F)",
                             log_message=f"{len(bad)} invalid passage id(s)")
        passage_ids = tuple(dict.fromkeys(ids))

    top_k = _integer(data, "top_k", 1, settings.max_top_k)
    max_tokens = _integer(data, "max_answer_tokens", default_max_answer_tokens, settings.max_answer_tokens)
    return QARequest(question, context, passage_ids, top_k, max_tokens, top_k_passages, _boolean(data, "abstain"),
                     _filter(data, settings), passages=bool(_boolean(data, "passages")))
