"""Weights across the device machine's 64 MiB limits for a run that starts from all-MiniLM-L6-v2.

    wire4.py pack-start MODEL_DIR OUT_DIR        # fp16, high and low bytes apart, each xz (every small file kept)
    wire4.py unpack-start IN_DIR MODEL_DIR       # back to fp32 safetensors (the fp16 values exactly)
    wire4.py pack-delta START TRAINED PREFIX     # TRAINED - fp16(START) per row in int8 + fp32 scale, xz
    wire4.py unpack-delta START PREFIX MODEL_DIR

Like ../docs-gpu3/wire.py, but a trained QA model's keys ("bert.X") are matched to the encoder's ("X"), and
tensors the start lacks or of under 10,000 values (the new span head, biases, norms) travel as they are, and
a row's step is at least FLOOR.
"""

import json
import lzma
import shutil
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file, save_file

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs-gpu3"))
from wire import PART, pack_start, unpack_start  # noqa: E402

SMALL = 10_000
# The smallest step of a row's int8 change: rows that changed only by weight decay (embeddings of tokens the
# training never saw) then come back as zeros and ones and compress to little, at an error (<= 1e-5) far
# below fp16's on the weights themselves (about 3e-5 at 0.05).
FLOOR = 2e-5


def _start16(model_dir: Path) -> dict[str, np.ndarray]:
    w = load_file(model_dir / "model.safetensors")
    return {k: v.astype(np.float16).astype(np.float32) for k, v in w.items() if v.dtype == np.float32}


def _base(w0: dict, k: str) -> np.ndarray | None:
    return w0.get(k.removeprefix("bert."))


def pack_delta(start: Path, trained: Path, prefix: Path) -> None:
    w0, w1 = _start16(start), load_file(trained / "model.safetensors")
    index, q, scales, raw = [], [], [], {}
    for k in sorted(w1):
        v, b = w1[k], _base(w0, k)
        if v.dtype != np.float32 or v.ndim < 2 or v.size < SMALL or b is None or b.shape != v.shape:
            raw[k] = v
            continue
        d = (v - b).reshape(v.shape[0], -1)
        s = np.maximum(np.abs(d).max(axis=1) / 127.0, FLOOR)
        q.append(np.clip(np.rint(d / s[:, None]), -127, 127).astype(np.int8).tobytes())
        scales.append(s.astype(np.float32).tobytes())
        index.append([k, list(v.shape)])
    blob = lzma.compress(b"".join(q), preset=6)
    parts = [blob[i:i + PART] for i in range(0, len(blob), PART)]
    for i, p in enumerate(parts):
        Path(f"{prefix}.q{i}.xz").write_bytes(p)
    save_file({"scales": np.frombuffer(b"".join(scales), np.float32), **raw}, f"{prefix}.rest.safetensors")
    Path(f"{prefix}.index.json").write_text(json.dumps({"tensors": index, "parts": len(parts)}))
    for name in ("config.json", "tokenizer.json"):  # the start's tokenizer is not sent again
        if not (start / name).is_file() or (start / name).read_bytes() != (trained / name).read_bytes():
            shutil.copy(trained / name, f"{prefix}.{name}")
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
        w[k] = (_base(w0, k) + d.reshape(shape)).astype(np.float32)
        at, sat = at + n, sat + rows
    model_dir.mkdir(parents=True, exist_ok=True)
    save_file(w, model_dir / "model.safetensors", metadata={"format": "pt"})
    for name in ("config.json", "tokenizer.json"):
        sent = Path(f"{prefix}.{name}")
        shutil.copy(sent if sent.is_file() else start / name, model_dir / name)
    print(f"{prefix} + {start} -> {model_dir}")


def pack_start_all(model_dir: Path, out: Path) -> None:
    pack_start(model_dir, out)
    for f in model_dir.iterdir():
        if f.suffix in (".json", ".txt") and not (out / f.name).exists():
            shutil.copy(f, out / f.name)


def unpack_start_all(src: Path, model_dir: Path) -> None:
    unpack_start(src, model_dir)
    for f in src.iterdir():
        if f.suffix in (".json", ".txt") and not f.name.startswith("start.") and not (model_dir / f.name).exists():
            shutil.copy(f, model_dir / f.name)


if __name__ == "__main__":
    verb, *args = sys.argv[1:]
    {"pack-start": pack_start_all, "unpack-start": unpack_start_all, "pack-delta": pack_delta,
     "unpack-delta": unpack_delta}[verb](*(Path(a) for a in args))
