"""Passage embeddings kept on disk by content, saved as they are computed, so that a cut-off run resumes.

Embedding 10^5 passages takes most of an hour on this project's 2-core
sandbox, and a session can end at any moment. The cache lives under
``<folder>/<encoder fingerprint>/`` (another model or tokenizer: another
folder): shards ``shard-NNNNN.npz``, each holding ``keys`` (a 16-byte BLAKE2b
digest of each embedded text) and ``vectors`` (float16: half the disk, and a
cosine moves by about 1e-3). A shard is written under a temporary name and
renamed, every ``checkpoint_s`` seconds of embedding and at the end, so a run
cut off loses at most that much work and never leaves a torn shard; the next
run reads the keys of every shard and embeds only the texts it lacks.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

CHECKPOINT_S = 120.0
CHUNK = 256  # texts per encoder call


def text_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


class EmbeddingCache:
    def __init__(self, folder: Path, encoder, checkpoint_s: float = CHECKPOINT_S,
                 note: Callable[[str], None] | None = None):
        self.encoder = encoder
        self.folder = Path(folder) / encoder.fingerprint[:16]
        self.checkpoint_s = checkpoint_s
        self.note = note or (lambda message: None)
        self._where: dict[bytes, tuple[int, int]] = {}  # key -> (shard, row)
        self._shards: list[np.ndarray] = []
        self._load()

    def _load(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        for path in sorted(self.folder.glob("shard-*.npz")):
            with np.load(path) as shard:
                keys, vectors = shard["keys"], shard["vectors"]
            n = len(self._shards)
            self._shards.append(vectors)
            for row, key in enumerate(keys):
                self._where.setdefault(key.tobytes(), (n, row))

    def __len__(self) -> int:
        return len(self._where)

    def _save(self, keys: list[bytes], vectors: list[np.ndarray]) -> None:
        if not keys:
            return
        n = len(self._shards)
        stacked = np.concatenate(vectors).astype(np.float16)
        path = self.folder / f"shard-{n:05d}.npz"
        partial = path.with_suffix(".partial.npz")
        np.savez(partial, keys=np.frombuffer(b"".join(keys), np.uint8).reshape(-1, 16), vectors=stacked)
        os.replace(partial, path)
        self._shards.append(stacked)
        for row, key in enumerate(keys):
            self._where.setdefault(key, (n, row))

    def fill(self, texts: Iterable[str]) -> dict:
        """Embed every text the cache lacks, saving a shard every ``checkpoint_s`` seconds; what it did."""
        started = last_save = time.perf_counter()
        embedded, cached, spent = 0, 0, 0.0
        pending: list[str] = []
        pending_keys: list[bytes] = []
        unsaved_keys: list[bytes] = []
        unsaved: list[np.ndarray] = []
        queued: set[bytes] = set()

        def embed() -> None:
            nonlocal embedded, spent
            t0 = time.perf_counter()
            unsaved.append(self.encoder.embed(pending))
            spent += time.perf_counter() - t0
            unsaved_keys.extend(pending_keys)
            embedded += len(pending)
            pending.clear()
            pending_keys.clear()

        for text in texts:
            key = text_key(text)
            if key in self._where or key in queued:
                cached += 1
                continue
            queued.add(key)
            pending.append(text)
            pending_keys.append(key)
            if len(pending) >= CHUNK:
                embed()
                if time.perf_counter() - last_save >= self.checkpoint_s:
                    self._save(unsaved_keys, unsaved)
                    unsaved_keys, unsaved, last_save = [], [], time.perf_counter()
                    self.note(f"embedded {embedded:,} ({embedded / spent:.1f}/s), {cached:,} cached; saved")
        if pending:
            embed()
        self._save(unsaved_keys, unsaved)
        return {"embedded": embedded, "cached": cached, "embed_s": round(spent, 1),
                "per_s": round(embedded / spent, 1) if spent else None,
                "seconds": round(time.perf_counter() - started, 1)}

    def get(self, texts: list[str]) -> np.ndarray:
        """float32 vectors of ``texts``, which must all be in the cache (``fill`` first)."""
        out = np.empty((len(texts), self.encoder.dim), np.float32)
        for i, text in enumerate(texts):
            shard, row = self._where[text_key(text)]
            out[i] = self._shards[shard][row]
        return out
