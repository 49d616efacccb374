"""The artifact's Rust tokenizer: passages -> token ids + character offsets.

A passage is tokenised on its own, without special tokens; BERT's WordPiece
pre-tokenisation splits on white space and punctuation first, so these ids are
exactly the ids the passage gets inside a ``[CLS] q [SEP] p [SEP]`` pair, and
passages can be tokenised once, at ingestion, and stored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# The parts of tokenizer.json that decide ids and offsets. Padding, truncation
# and post-processing settings do not change what a stored passage holds.
_FINGERPRINT_KEYS = ("added_tokens", "normalizer", "pre_tokenizer", "model")


def tokenizer_fingerprint(tokenizer_json: dict) -> str:
    """sha256 of the canonical JSON of the parts that decide ids and offsets."""
    parts = {k: tokenizer_json.get(k) for k in _FINGERPRINT_KEYS}
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Encoded:
    ids: np.ndarray  # [n] token ids
    offsets: np.ndarray  # [n, 2] character offsets (start, end) into the text


class QATokenizer:
    """Loads ``tokenizer.json`` once; encodes questions and passages.

    ``fingerprint``: the file's known fingerprint, for a file whose sha256 was
    just checked against a manifest that records both (the function's load);
    without it the fingerprint is computed, which parses the JSON a second time
    (about 60 ms and 8 MB for BERT's 30,522-token vocabulary).
    """

    def __init__(self, path: str | Path, fingerprint: str | None = None):
        from tokenizers import Tokenizer

        raw = Path(path).read_text(encoding="utf-8")
        self.fingerprint = fingerprint or tokenizer_fingerprint(json.loads(raw))
        self._tok = Tokenizer.from_str(raw)
        self._tok.no_truncation()
        self._tok.no_padding()
        self.vocab_size = self._tok.get_vocab_size(with_added_tokens=True)

    @property
    def lowercase(self) -> bool:
        """Whether the tokenizer folds case (an uncased vocabulary): asked of its normalizer, not assumed.

        The answer cache folds a question's case only for such a model; a cased one must not.
        """
        normalizer = self._tok.normalizer
        return normalizer is not None and normalizer.normalize_str("QA") == "qa"

    def token_id(self, token: str) -> int:
        tid = self._tok.token_to_id(token)
        if tid is None:
            raise KeyError(f"token {token!r} is not in the tokenizer's vocabulary")
        return tid

    def pair_layout(self) -> dict:
        """How the tokenizer's own post-processor joins a (question, passage) pair.

        Read from the tokenizer, never assumed: ``[CLS] q [SEP] p [SEP]`` for BERT
        gives one separator between the pair, ``<s> q </s></s> p </s>`` (RoBERTa,
        MPNet) two. Only layouts of that shape (one leading token, separators
        between, one trailing separator) are supported. A tokenizer without a
        post-processor gets BERT's layout when it has ``[CLS]`` and ``[SEP]``.
        """
        enc = self._tok.encode("q", "p", add_special_tokens=True)
        seq = enc.sequence_ids  # None marks the special tokens the post-processor added
        if None not in seq and self._tok.post_processor is None:
            enc = self._tok.encode("[CLS] q [SEP] p [SEP]", add_special_tokens=False)
            seq = [None if t in ("[CLS]", "[SEP]") else 0 for t in enc.tokens]
            first_passage = enc.tokens.index("[SEP]") + 1
            seq = [s if s is None or i < first_passage else 1 for i, s in enumerate(seq)]
        # "q" and "p" may each be more than one token ("▁", "q" in a Unigram vocabulary without "▁q")
        question = [i for i, s in enumerate(seq) if s == 0]
        passage = [i for i, s in enumerate(seq) if s == 1]
        shape_ok = (question and passage and question[0] == 1 and seq[0] is None and passage[-1] == len(seq) - 2
                    and seq[-1] is None and question == list(range(1, question[-1] + 1))
                    and passage == list(range(passage[0], len(seq) - 1)))
        if not shape_ok:
            raise ValueError(f"unsupported pair layout {enc.tokens}: expected one token before the "
                             "question, separators between, and one after the passage")
        seps = enc.ids[question[-1] + 1 : passage[0]]
        if not seps or len(set(seps)) != 1 or enc.ids[-1] != seps[0]:
            raise ValueError(f"unsupported pair layout {enc.tokens}: the separators differ")
        specials = {t.content: i for i, t in self._tok.get_added_tokens_decoder().items() if t.special}
        pad = next((specials[t] for t in ("[PAD]", "<pad>") if t in specials), None)
        if pad is None:
            raise ValueError("the tokenizer has no special [PAD] or <pad> token")
        return {"cls_id": enc.ids[0], "sep_id": seps[0], "pair_seps": len(seps), "pad_id": pad}

    def encode_many(self, texts: Sequence[str]) -> list[Encoded]:
        """Token ids and character offsets of each text (the Rust side runs in parallel)."""
        encodings = self._tok.encode_batch(list(texts), add_special_tokens=False)
        out = []
        for enc in encodings:
            ids = np.asarray(enc.ids, dtype=np.int64)
            offsets = np.asarray(enc.offsets, dtype=np.int64).reshape(-1, 2)
            out.append(Encoded(ids, offsets))
        return out

    def encode(self, text: str) -> Encoded:
        return self.encode_many([text])[0]
