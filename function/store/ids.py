"""Which passage ids are valid: the ones a Firestore document id can be. Stdlib only (request path)."""

from __future__ import annotations

import re

# Firestore document ids: no '/', not '.' or '..', not __reserved__, at most 1,500 bytes.
_BAD_ID = re.compile(r"/|^\.\.?$|^__.*__$")
MAX_ID_BYTES = 500


def valid_passage_id(pid: object) -> bool:
    try:  # a lone surrogate (JSON "\ud800") is not UTF-8: no store can hold it as an id
        size = len(pid.encode("utf-8")) if isinstance(pid, str) else 0
    except UnicodeEncodeError:
        return False
    return 0 < size <= MAX_ID_BYTES and not _BAD_ID.search(pid) and "\x00" not in pid


_PATH_FORM = re.compile(r"(?P<doc>.*/.*)#(?P<chunk>\d{4,9})")


def as_stored(pid: object) -> object:
    """A file's passage id as stored: ``guide%2Finstall.md#0003`` for ``guide/install.md#0003``, the document's path
    written as it is (a user builds it from the answer's ``doc_id``); any other id as given."""
    m = _PATH_FORM.fullmatch(pid) if isinstance(pid, str) else None
    return chunk_passage_id(m.group("doc"), int(m.group("chunk"))) if m else pid


def _escape(text: str) -> str:
    """``%`` and ``/`` percent-encoded: reversible, readable, and never a Firestore path separator."""
    return text.replace("%", "%25").replace("/", "%2F")


def _shortened(text: str, limit: int, whole: str) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, with a hash of ``whole`` so cut ids stay distinct."""
    import hashlib

    if len(text.encode("utf-8")) <= limit:
        return text
    digest = hashlib.sha256(whole.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    cut = text.encode("utf-8")[: limit - 17].decode("utf-8", "ignore")
    return f"{cut}~{digest}"


def chunk_passage_id(doc_id: str, chunk: int) -> str:
    """The passage id of a document's ``chunk``: ``guide%2Finstall.md#0003`` for ``guide/install.md``.

    Document ids are paths, and a passage id cannot hold '/' (it is a Firestore document id), so
    '/' (and '%', to keep the encoding reversible) are percent-encoded; the chunk suffix keeps the
    id clear of Firestore's reserved '.', '..' and ``__x__`` names. Very long paths are cut and
    given a hash so the id stays within ``MAX_ID_BYTES``.
    """
    suffix = f"#{chunk:04d}"
    return _shortened(_escape(doc_id), MAX_ID_BYTES - len(suffix), doc_id) + suffix


def document_key(doc_id: str) -> str:
    """The Firestore document id of a document record (its ``doc_id`` is kept in a field)."""
    import hashlib

    key = _shortened(_escape(doc_id), MAX_ID_BYTES, doc_id)
    if valid_passage_id(key):
        return key
    return "doc~" + hashlib.sha256(doc_id.encode("utf-8", "surrogatepass")).hexdigest()  # ".", "__x__"
