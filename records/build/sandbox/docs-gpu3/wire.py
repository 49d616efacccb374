"""Weights across the device machine's 64 MiB limits, without loss where it matters.

    wire.py pack-start MODEL_DIR OUT_DIR      # fp16, high and low bytes apart, each xz-compressed (~35 MB)
    wire.py unpack-start IN_DIR MODEL_DIR     # back to an fp32 safetensors folder (the fp16 values exactly)
    wire.py pack-delta START TRAINED PREFIX   # TRAINED - START per row in int8 with an fp32 scale, xz, <= 15 MiB
    wire.py unpack-delta START PREFIX MODEL_DIR

The start travels as fp16 (relative error about 5e-4 per weight, as the first GPU run's did); a trained model
comes back as its change from that same fp16 start, per row in int8: the error is at most 1/254 of the row's
largest change, far below fp16's on the weights themselves. Both sides compute the start identically.
"""

import json
import lzma
import shutil
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file, save_file

PART = 15 * 2**20


def _start16(model_dir: Path) -> dict[str, np.ndarray]:
    return {k: (v.astype(np.float16).astype(np.float32) if v.dtype == np.float32 else v)
            for k, v in load_file(model_dir / "model.safetensors").items()}


def pack_start(model_dir: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    w = load_file(model_dir / "model.safetensors")
    index, hi, lo, other = [], [], [], {}
    for k in sorted(w):
        v = w[k]
        if v.dtype != np.float32:
            other[k] = v
            continue
        b = v.astype(np.float16).view(np.uint8).reshape(-1, 2)
        index.append([k, list(v.shape)])
        lo.append(b[:, 0].tobytes())
        hi.append(b[:, 1].tobytes())
    (out / "start.index.json").write_text(json.dumps(index))
    (out / "start.hi.xz").write_bytes(lzma.compress(b"".join(hi), preset=6))
    (out / "start.lo.xz").write_bytes(lzma.compress(b"".join(lo), preset=6))
    if other:
        save_file(other, out / "start.other.safetensors")
    for name in ("config.json", "tokenizer.json"):
        shutil.copy(model_dir / name, out / name)


def unpack_start(src: Path, model_dir: Path) -> None:
    model_dir.mkdir(parents=True, exist_ok=True)
    index = json.loads((src / "start.index.json").read_text())
    hi = np.frombuffer(lzma.decompress((src / "start.hi.xz").read_bytes()), np.uint8)
    lo = np.frombuffer(lzma.decompress((src / "start.lo.xz").read_bytes()), np.uint8)
    both = np.stack([lo, hi], axis=1).reshape(-1).view(np.float16)
    w, at = {}, 0
    for k, shape in index:
        n = int(np.prod(shape))
        w[k] = both[at:at + n].astype(np.float32).reshape(shape)
        at += n
    if (src / "start.other.safetensors").is_file():
        w.update(load_file(src / "start.other.safetensors"))
    save_file(w, model_dir / "model.safetensors", metadata={"format": "pt"})
    for name in ("config.json", "tokenizer.json"):
        shutil.copy(src / name, model_dir / name)
    print(f"start: {len(w)} tensors -> {model_dir}")


def pack_delta(start: Path, trained: Path, prefix: Path) -> None:
    w0, w1 = _start16(start), load_file(trained / "model.safetensors")
    index, q, scales, raw = [], [], [], {}
    for k in sorted(w1):
        v = w1[k]
        if v.dtype != np.float32 or v.ndim < 2:
            raw[k] = v
            continue
        d = (v - w0[k]).reshape(v.shape[0], -1)
        s = np.abs(d).max(axis=1) / 127.0
        s[s == 0] = 1.0
        q.append(np.clip(np.rint(d / s[:, None]), -127, 127).astype(np.int8).tobytes())
        scales.append(s.astype(np.float32).tobytes())
        index.append([k, list(v.shape)])
    blob = lzma.compress(b"".join(q), preset=6)
    parts = [blob[i:i + PART] for i in range(0, len(blob), PART)]
    for i, p in enumerate(parts):
        Path(f"{prefix}.q{i}.xz").write_bytes(p)
    save_file({"scales": np.frombuffer(b"".join(scales), np.float32), **raw}, f"{prefix}.rest.safetensors")
    Path(f"{prefix}.index.json").write_text(json.dumps({"tensors": index, "parts": len(parts)}))
    print(f"delta {trained} -> {prefix}: {len(blob) / 1e6:.1f} MB in {len(parts)} parts")


def unpack_delta(start: Path, prefix: Path, model_dir: Path) -> None:
    meta = json.loads(Path(f"{prefix}.index.json").read_text())
    q = np.frombuffer(lzma.decompress(b"".join(Path(f"{prefix}.q{i}.xz").read_bytes()
                                               for i in range(meta["parts"]))), np.int8)
    rest = load_file(f"{prefix}.rest.safetensors")
    scales = rest.pop("scales")
    w0 = _start16(start)
    w, at, sat = dict(rest), 0, 0
    for k, shape in meta["tensors"]:
        n, rows = int(np.prod(shape)), shape[0]
        d = q[at:at + n].astype(np.float32).reshape(rows, -1) * scales[sat:sat + rows, None]
        w[k] = (w0[k] + d.reshape(shape)).astype(np.float32)
        at, sat = at + n, sat + rows
    model_dir.mkdir(parents=True, exist_ok=True)
    save_file(w, model_dir / "model.safetensors", metadata={"format": "pt"})
    for name in ("config.json", "tokenizer.json"):
        shutil.copy(start / name, model_dir / name)
    print(f"{prefix} + {start} -> {model_dir}")


if __name__ == "__main__":
    verb, *args = sys.argv[1:]
    {"pack-start": pack_start, "unpack-start": unpack_start, "pack-delta": pack_delta,
     "unpack-delta": unpack_delta}[verb](*(Path(a) for a in args))
