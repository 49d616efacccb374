"""Sentence embeddings for dense retrieval: an int8 ONNX sentence encoder run by ONNX Runtime and ``tokenizers``.

The encoder folder (made by ``python -m build_model.encoder_export`` from
all-MiniLM-L6-v2) holds ``model.onnx`` (a BERT encoder whose output is the last
hidden state), ``tokenizer.json`` and ``encoder.json`` (how it was made: the
source model's hash, ``max_tokens``, ``dim``, the quantisation, the parity with
PyTorch). A text's embedding is what sentence-transformers computes for that
model: the mean of its tokens' last hidden states (padding excluded), scaled to
unit length, so a dot product is a cosine. Texts longer than ``max_tokens``
word pieces are truncated, as sentence-transformers truncates them (256 for
all-MiniLM-L6-v2).

No PyTorch at run time, nothing loaded at import: a serving instance would pay
the session's creation on the first question asked alone, as for the reader.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from pathlib import Path

import numpy as np

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
MANIFEST_FILE = "encoder.json"
RECENT = 64  # texts whose embeddings ``embed_one`` keeps (a few requests' questions and sentences)


def mean_pooled(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of the unmasked positions' vectors, each row scaled to unit length: (n, t, d), (n, t) -> (n, d)."""
    weights = mask[..., None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    pooled = summed / np.maximum(weights.sum(axis=1), 1e-9)
    return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


class SentenceEncoder:
    """``embed(texts)``: unit-length float32 vectors, one row per text. Thread-safe; loads on first use."""

    def __init__(self, folder: Path, threads: int = 0):
        self.folder = Path(folder)
        for name in (MODEL_FILE, TOKENIZER_FILE, MANIFEST_FILE):
            if not (self.folder / name).is_file():
                raise FileNotFoundError(f"sentence encoder file missing: {self.folder / name} (make it with "
                                        "`python -m build_model.encoder_export --source MODEL --out FOLDER`)")
        self.manifest = json.loads((self.folder / MANIFEST_FILE).read_text(encoding="utf-8"))
        self.max_tokens = int(self.manifest["max_tokens"])
        self.dim = int(self.manifest["dim"])
        self.threads = threads
        self._session = None
        self._tokenizer = None
        self._inputs: tuple[str, ...] = ()
        self._lock = threading.Lock()
        self._recent: dict[str, np.ndarray] = {}  # ``embed_one``'s last texts, oldest first

    @property
    def fingerprint(self) -> str:
        """Hash of the model, tokenizer and manifest: what a cache of embeddings must match."""
        h = hashlib.sha256()
        for name in (MODEL_FILE, TOKENIZER_FILE, MANIFEST_FILE):
            h.update(hashlib.sha256((self.folder / name).read_bytes()).digest())
        return h.hexdigest()

    @functools.cached_property
    def identity(self) -> str:
        """What a Lance table's vectors (and stored embeddings) are stamped with: the source model's weights
        (``source_sha256``, so that two exports of one model agree), or where the manifest does not name them, the
        folder's fingerprint (hashed once: asked for every question with stored cosines)."""
        return str(self.manifest.get("source_sha256") or self.fingerprint)

    def load(self) -> None:
        """Create the ONNX Runtime session and the tokenizer (once; ``embed`` calls it)."""
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(self.folder / TOKENIZER_FILE))
            tokenizer.no_padding()  # the file carries sentence-transformers' fixed padding to 128: pad per batch
            tokenizer.enable_truncation(self.max_tokens)
            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
            # No busy-waiting once a run is done: the reader's run follows the question's embedding at once, and
            # this session's threads spinning beside it took CPUs from it (question alone, hybrid, server p50
            # 57 -> 43 ms on 2 CPUs: docs/retrieval.md, "The cosine term")
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            session = ort.InferenceSession(str(self.folder / MODEL_FILE), options,
                                           providers=["CPUExecutionProvider"])
            self._inputs = tuple(i.name for i in session.get_inputs())
            self._tokenizer, self._session = tokenizer, session

    def embed_one(self, text: str) -> np.ndarray:
        """``text``'s embedding (a row of ``embed``), kept for the next ``RECENT`` texts: a question asked alone is
        embedded once for retrieval and read again to rank its answers' sentences (``reader.SENTENCE_COSINE``)."""
        with self._lock:
            kept = self._recent.get(text)
        if kept is not None:
            return kept
        vector = self.embed([text])[0]
        with self._lock:
            self._recent[text] = vector
            while len(self._recent) > RECENT:
                del self._recent[next(iter(self._recent))]
        return vector

    def embed(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """Unit-length embeddings of ``texts``; batches of similar lengths, so that little is padding."""
        self.load()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encoded = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i].ids))
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            width = max(len(encoded[i].ids) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                n = len(encoded[i].ids)
                ids[r, :n] = encoded[i].ids
                mask[r, :n] = 1
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            (hidden,) = self._session.run(None, {name: feed[name] for name in self._inputs})[:1]
            out[rows] = mean_pooled(hidden, mask)
        return out
