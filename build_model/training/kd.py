"""Teacher soft targets for distillation: computed once, cached on disk, and the KD divergence.

The teacher runs once over its window of every training feature
(``build_model.training.align``: its own tokens and pair layout, the same characters),
in eval mode, without gradients, in batches of similar lengths. Its start/end
logits, carried back onto each student window's positions, are stored as
float16, keyed by the teacher's weights and the teacher windows. A re-run with
the same teacher and features (a student setting changed, an interrupted run,
a student of another depth) reads them back; the file is small enough to keep
when the teacher's checkpoint is gone.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from pathlib import Path

import numpy as np

from build_model.training.align import NO_MASS, TeacherWindow, carry_back
from build_model.training.features import Feature, collate_inputs
from build_model.training.student import accepts_token_type_ids

INPUTS = ("input_ids", "attention_mask", "token_type_ids")

Logits = list[tuple[np.ndarray, np.ndarray]]  # per feature: (start, end), one value per real position


def windows_digest(windows: list[TeacherWindow]) -> str:
    h = hashlib.sha256()
    for w in windows:
        for part in (w.input_ids, w.start_map, w.end_map):
            h.update(np.asarray(part, dtype=np.int32).tobytes())
        h.update(f"|{w.context_start};".encode())
    return h.hexdigest()


def _batches(windows: list, batch_size: int) -> list[np.ndarray]:
    order = np.argsort([-len(f.input_ids) for f in windows], kind="stable")
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def _forward(model, feats: list, pad_id: int):
    import torch

    arrays = collate_inputs(feats, pad_id)
    names = INPUTS if accepts_token_type_ids(model) else INPUTS[:2]
    device = next(model.parameters()).device
    with torch.inference_mode():
        out = model(**{name: torch.from_numpy(arrays[name]).to(device) for name in names})
    return out.start_logits.float().cpu(), out.end_logits.float().cpu(), arrays["attention_mask"]


def teacher_logits(model, windows: list[TeacherWindow], pad_id: int, batch_size: int = 64) -> Logits:
    """Start/end logits on each student window's positions, as float16 (model on any device).

    ``pad_id`` is the teacher's.
    """
    model.eval()
    result: list = [None] * len(windows)
    for idx in _batches(windows, batch_size):
        start, end, _ = _forward(model, [windows[i] for i in idx], pad_id)
        for r, i in enumerate(idx):
            s, e = carry_back(start[r].numpy(), end[r].numpy(), windows[i])
            result[i] = (s.astype(np.float16), e.astype(np.float16))
    return result


def _save(path: Path, key: str, order: np.ndarray, logits: Logits) -> None:
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, key=np.asarray(key), order=order,
                        lengths=np.asarray([len(s) for s, _ in logits], dtype=np.int64),
                        start=np.concatenate([s for s, _ in logits]), end=np.concatenate([e for _, e in logits]))
    tmp.replace(path)


def _load(path: Path, key: str) -> tuple[np.ndarray, Logits] | None:
    if not path.is_file():
        return None
    with np.load(path) as z:
        if str(z["key"]) != key:
            return None
        return z["order"], _unflatten(z["lengths"], z["start"], z["end"])


def cached_teacher_logits(path_prefix: Path, teacher_key: str, load_teacher, windows: list[TeacherWindow],
                          pad_id: int, batch_size: int = 64, chunk: int = 1024,
                          log=print) -> tuple[Logits, dict]:
    """Teacher logits from the cache file ``<path_prefix>-<key>.npz``, or computed with
    ``load_teacher()`` and written there.

    The pass is resumable: windows are taken longest first in chunks of ``chunk``,
    each chunk saved in ``<file>.parts/`` as it completes, and a restarted pass
    reads the finished chunks back. Files of other keys stay: students distilled
    beside each other from other features share the folder.
    """
    key = hashlib.sha256(f"{teacher_key}:{windows_digest(windows)}".encode()).hexdigest()
    path = path_prefix.with_name(f"{path_prefix.name}-{key[:16]}.npz")
    info = {"file": path.name, "key": key, "features": len(windows)}
    if (done := _load(path, key)) is not None:
        return done[1], {**info, "cached": True}
    parts = path.with_name(path.name + ".parts")
    parts.mkdir(parents=True, exist_ok=True)
    order = np.argsort([-len(w.input_ids) for w in windows], kind="stable")
    result: list = [None] * len(windows)
    t0, model = time.perf_counter(), None
    for c in range(0, len(order), chunk):
        idx = order[c : c + chunk]
        part = parts / f"{c // chunk:05d}.npz"
        if (saved := _load(part, key)) is None:
            model = model if model is not None else load_teacher()
            saved = (idx, teacher_logits(model, [windows[i] for i in idx], pad_id, batch_size))
            _save(part, key, idx, saved[1])
        for i, logits in zip(saved[0], saved[1]):
            result[int(i)] = logits
        log(json.dumps({"event": "teacher_logits", "file": path.name, "done": min(c + chunk, len(order)),
                        "of": len(order), "seconds": round(time.perf_counter() - t0, 1)}))
    _save(path, key, np.arange(len(windows)), result)
    shutil.rmtree(parts)
    return result, {**info, "cached": False, "seconds": round(time.perf_counter() - t0, 1)}


def ensemble(first: Logits, second: Logits, weight: float, temperature: float) -> Logits:
    """Logits whose softmax at ``temperature`` is ``weight * p_first + (1 - weight) * p_second``
    (each at that temperature): the distillation target of an ensemble of two teachers."""
    if weight >= 1.0:
        return first
    t = temperature

    def mix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        pa = _softmax(a.astype(np.float32) / t)
        pb = _softmax(b.astype(np.float32) / t)
        p = weight * pa + (1.0 - weight) * pb
        with np.errstate(divide="ignore"):
            return np.where(p > 0, t * np.log(p), NO_MASS).astype(np.float16)

    return [(mix(sa, sb), mix(ea, eb)) for (sa, ea), (sb, eb) in zip(first, second)]


def _softmax(x: np.ndarray) -> np.ndarray:
    z = np.exp(x - x.max())
    return z / z.sum()


def _unflatten(lengths: np.ndarray, start: np.ndarray, end: np.ndarray) -> Logits:
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    return [(start[a:b], end[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]


def mean_kd(model, features: list[Feature], logits: Logits, pad_id: int, temperature: float,
            batch_size: int = 64) -> float:
    """The distillation term of ``build_model.training.loop`` (T^2 * KL, start and end averaged), mean over features."""
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
