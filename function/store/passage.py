"""A stored passage and how its tokens are packed into bytes.

Token ids are little-endian unsigned integers, 2 bytes each when the
vocabulary fits (BERT's 30,522 does), else 4; character offsets are
little-endian uint32 (start, end) pairs. Unpacking is a zero-copy view of the
stored bytes: the only copy on the way to the model is into the batch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

OFFSETS_DTYPE = "<u4"
EMBEDDING_DTYPE = "<f2"  # a stored sentence embedding: half precision (768 bytes for 384 dimensions)


def ids_dtype(vocab_size: int) -> str:
    return "<u2" if vocab_size <= 1 << 16 else "<u4"


def pack_spans(spans) -> bytes:
    """(start, end) character pairs as ``Passage.marks`` bytes."""
    return np.asarray(list(spans), dtype=np.int64).reshape(-1, 2).astype(OFFSETS_DTYPE).tobytes()


@dataclass(frozen=True)
class Passage:
    """One stored passage. Four fields say where it comes from, so an answer can point into
    the original: ``source`` (the file's path or ``gs://`` URI; "" for passages stored before it was
    recorded), ``chunk`` (its index among its document's passages) and ``start``/``end`` (its character
    span in the document's extracted text; None for records given as JSON, which are their own text).
    ``tags`` are its document's, given at ingestion (``--tag``) for questions filtered on them; none for
    passages stored before tags were recorded. ``marks`` are the passage's inline code (``code_spans``:
    (start, end) character pairs in ``text``, packed like ``offsets``) and ``lines`` its code blocks' lines
    that read as one piece of code each (``line_spans``, packed alike), found by extraction in documentation
    pages; none for plain text, JSON records and passages stored before they were recorded (passages stored
    before ``lines`` was, ingestion version 17 and 18, hold their blocks' lines in ``marks``). ``embedding``
    is the passage's unit-length sentence embedding (``vector``: float16, little-endian) made by the sentence
    encoder ``encoder`` names (its identity), stored where ingestion had ``QA_INDEX_ENCODER`` without a
    separate index; none otherwise."""

    id: str
    title: str
    doc_id: str
    text: str
    token_ids: bytes
    token_dtype: str
    offsets: bytes
    n_tokens: int
    tokenizer: str  # fingerprint of the tokenizer that made the tokens
    source: str = ""
    chunk: int | None = None
    start: int | None = None
    end: int | None = None
    tags: tuple[str, ...] = ()
    marks: bytes = b""
    embedding: bytes = b""
    encoder: str = ""  # identity of the sentence encoder that made ``embedding`` ("" where there is none)
    lines: bytes = b""

    @classmethod
    def from_tokens(cls, pid: str, title: str, doc_id: str, text: str, ids: np.ndarray,
                    offsets: np.ndarray, tokenizer: str, vocab_size: int, source: str = "",
                    chunk: int | None = None, start: int | None = None, end: int | None = None,
                    tags: tuple[str, ...] = (), marks=(), vector: np.ndarray | None = None,
                    encoder: str = "", lines=()) -> Passage:
        dtype = ids_dtype(vocab_size)
        embedding = b"" if vector is None else np.asarray(vector).astype(EMBEDDING_DTYPE).tobytes()
        return cls(pid, title, doc_id, text, np.asarray(ids).astype(dtype).tobytes(), dtype,
                   np.asarray(offsets).astype(OFFSETS_DTYPE).tobytes(), int(len(ids)), tokenizer,
                   source, chunk, start, end, tuple(tags), pack_spans(marks), embedding, encoder if embedding else "",
                   pack_spans(lines))

    @property
    def ids(self) -> np.ndarray:
        return np.frombuffer(self.token_ids, dtype=self.token_dtype)

    @property
    def char_offsets(self) -> np.ndarray:
        return np.frombuffer(self.offsets, dtype=OFFSETS_DTYPE).reshape(-1, 2)

    @property
    def code_spans(self) -> np.ndarray:
        """``marks`` unpacked: an (n, 2) array of character spans of inline code in ``text``."""
        return np.frombuffer(self.marks or b"", dtype=OFFSETS_DTYPE).reshape(-1, 2)

    @property
    def line_spans(self) -> np.ndarray:
        """``lines`` unpacked: an (n, 2) array of character spans of code blocks' lines in ``text``."""
        return np.frombuffer(self.lines or b"", dtype=OFFSETS_DTYPE).reshape(-1, 2)

    @property
    def vector(self) -> np.ndarray | None:
        """``embedding`` unpacked (float32), or None where the passage has none."""
        return np.frombuffer(self.embedding, dtype=EMBEDDING_DTYPE).astype(np.float32) if self.embedding else None

    @property
    def nbytes(self) -> int:
        return (len(self.token_ids) + len(self.offsets) + len(self.marks) + len(self.lines) + len(self.embedding)
                + 2 * len(self.text) + len(self.title) + 200)

    def check(self) -> None:
        """Raise ValueError if the packed fields disagree with each other."""
        width = np.dtype(self.token_dtype).itemsize
        if len(self.token_ids) != self.n_tokens * width or len(self.offsets) != self.n_tokens * 8:
            raise ValueError(f"passage {self.id!r}: packed tokens do not match n_tokens={self.n_tokens}")
        for packed in (self.marks, self.lines):
            spans = np.frombuffer(packed, dtype=OFFSETS_DTYPE).reshape(-1, 2) if len(packed or b"") % 8 == 0 else None
            if spans is None or ((spans[:, 0] >= spans[:, 1]) | (spans[:, 1] > len(self.text))).any():
                raise ValueError(f"passage {self.id!r}: its code marks are not spans of its text")
        width = np.dtype(EMBEDDING_DTYPE).itemsize
        if len(self.embedding or b"") % width or bool(self.embedding) != bool(self.encoder):
            raise ValueError(f"passage {self.id!r}: its embedding and the encoder that made it disagree")


@dataclass(frozen=True)
class DocumentRecord:
    """What the store remembers of an ingested document, to skip, replace, delete and sync it.

    ``sha256`` is the hash of the document's content together with what its passages were made with
    (tokenizer, split budget): an unchanged document with the same hash is skipped. ``passage_ids``
    are the passages its last complete ingestion wrote (for people; deletion finds a document's
    passages by their ``doc_id``, so passages of an interrupted run are found too).
    """

    doc_id: str
    source: str
    sha256: str
    passage_ids: tuple[str, ...]
    updated: float = 0.0
