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


def ids_dtype(vocab_size: int) -> str:
    return "<u2" if vocab_size <= 1 << 16 else "<u4"


@dataclass(frozen=True)
class Passage:
    id: str
    title: str
    doc_id: str
    text: str
    token_ids: bytes
    token_dtype: str
    offsets: bytes
    n_tokens: int
    tokenizer: str  # fingerprint of the tokenizer that made the tokens

    @classmethod
    def from_tokens(cls, pid: str, title: str, doc_id: str, text: str, ids: np.ndarray,
                    offsets: np.ndarray, tokenizer: str, vocab_size: int) -> Passage:
        dtype = ids_dtype(vocab_size)
        return cls(pid, title, doc_id, text, np.asarray(ids).astype(dtype).tobytes(), dtype,
                   np.asarray(offsets).astype(OFFSETS_DTYPE).tobytes(), int(len(ids)), tokenizer)

    @property
    def ids(self) -> np.ndarray:
        return np.frombuffer(self.token_ids, dtype=self.token_dtype)

    @property
    def char_offsets(self) -> np.ndarray:
        return np.frombuffer(self.offsets, dtype=OFFSETS_DTYPE).reshape(-1, 2)

    @property
    def nbytes(self) -> int:
        return len(self.token_ids) + len(self.offsets) + 2 * len(self.text) + len(self.title) + 200

    def check(self) -> None:
        """Raise ValueError if the packed fields disagree with each other."""
        width = np.dtype(self.token_dtype).itemsize
        if len(self.token_ids) != self.n_tokens * width or len(self.offsets) != self.n_tokens * 8:
            raise ValueError(f"passage {self.id!r}: packed tokens do not match n_tokens={self.n_tokens}")
