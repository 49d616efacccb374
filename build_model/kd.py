"""Teacher soft targets for distillation: computed once, cached on disk, and the KD divergence.

The teacher runs once over every training feature (eval mode, no gradients,
batches of similar lengths), and its start/end logits over each feature's real
positions are stored as float16 in the stage folder, keyed by the teacher's
weights and the features' token ids. A re-run with the same teacher and
features (a student setting changed, an interrupted run) reads them back.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import numpy as np

from build_model.features import Feature, collate
from build_model.student import accepts_token_type_ids

INPUTS = ("input_ids", "attention_mask", "token_type_ids")

Logits = list[tuple[np.ndarray, np.ndarray]]  # per feature: (start, end), one value per real position


def features_digest(features: list[Feature]) -> str:
    h = hashlib.sha256()
    for f in features:
        h.update(np.asarray(f.input_ids, dtype=np.int32).tobytes())
        h.update(f"|{f.context_start};".encode())
    return h.hexdigest()


def _batches(features: list[Feature], batch_size: int) -> list[np.ndarray]:
    order = np.argsort([-len(f.input_ids) for f in features], kind="stable")
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def _forward(model, feats: list[Feature], pad_id: int):
    import torch

    arrays = collate(feats, pad_id)
    names = INPUTS if accepts_token_type_ids(model) else INPUTS[:2]
    device = next(model.parameters()).device
    with torch.inference_mode():
        out = model(**{name: torch.from_numpy(arrays[name]).to(device) for name in names})
    return out.start_logits.float().cpu(), out.end_logits.float().cpu(), arrays["attention_mask"]


def teacher_logits(model, features: list[Feature], pad_id: int, batch_size: int = 64) -> Logits:
    """Start/end logits of every feature over its real positions, as float16 (model on any device)."""
    model.eval()
    result: list = [None] * len(features)
    for idx in _batches(features, batch_size):
        start, end, _ = _forward(model, [features[i] for i in idx], pad_id)
        for r, i in enumerate(idx):
            n = len(features[i].input_ids)
            result[i] = (start[r, :n].numpy().astype(np.float16), end[r, :n].numpy().astype(np.float16))
    return result


def cached_teacher_logits(folder: Path, teacher_key: str, load_teacher, features: list[Feature],
                          pad_id: int, batch_size: int = 64) -> tuple[Logits, dict]:
    """Teacher logits from ``folder``'s cache, or computed with ``load_teacher()`` and cached."""
    key = hashlib.sha256(f"{teacher_key}:{features_digest(features)}".encode()).hexdigest()
    path = folder / f"teacher_logits-{key[:16]}.npz"
    info = {"file": path.name, "key": key, "features": len(features)}
    if path.is_file():
        with np.load(path) as z:
            if str(z["key"]) == key:
                return _unflatten(z["lengths"], z["start"], z["end"]), {**info, "cached": True}
    t0 = time.perf_counter()
    logits = teacher_logits(load_teacher(), features, pad_id, batch_size)
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("teacher_logits-*.npz"):
        stale.unlink()
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, key=np.asarray(key), lengths=np.asarray([len(s) for s, _ in logits], dtype=np.int64),
             start=np.concatenate([s for s, _ in logits]), end=np.concatenate([e for _, e in logits]))
    tmp.replace(path)
    return logits, {**info, "cached": False, "seconds": round(time.perf_counter() - t0, 1)}


def _unflatten(lengths: np.ndarray, start: np.ndarray, end: np.ndarray) -> Logits:
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    return [(start[a:b], end[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]


def mean_kd(model, features: list[Feature], logits: Logits, pad_id: int, temperature: float,
            batch_size: int = 64) -> float:
    """The distillation term of ``build_model.train`` (T^2 * KL, start and end averaged), mean over features."""
    import torch
    import torch.nn.functional as F

    t = temperature
    model.eval()
    total = 0.0
    for idx in _batches(features, batch_size):
        s_start, s_end, mask = _forward(model, [features[i] for i in idx], pad_id)
        pad = torch.from_numpy(mask == 0)
        s_start, s_end = s_start.masked_fill(pad, -1e4), s_end.masked_fill(pad, -1e4)
        t_start, t_end = torch.full_like(s_start, -1e4), torch.full_like(s_end, -1e4)
        for r, i in enumerate(idx):
            ts, te = logits[i]
            t_start[r, : len(ts)] = torch.from_numpy(ts.astype(np.float32))
            t_end[r, : len(te)] = torch.from_numpy(te.astype(np.float32))
        kd = (F.kl_div(F.log_softmax(s_start / t, -1), F.softmax(t_start / t, -1), reduction="none").sum(-1)
              + F.kl_div(F.log_softmax(s_end / t, -1), F.softmax(t_end / t, -1), reduction="none").sum(-1))
        total += float((kd / 2 * t * t).sum())
    return total / max(1, len(features))
