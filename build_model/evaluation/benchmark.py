"""Latency and load time, measured the way the function serves, and the machine they were measured on.

ONNX models run through ``function.model.onnx_model.OnnxQAModel`` (the function's
session options) with ``THREADS`` intra-op threads; PyTorch models with
``torch.set_num_threads(THREADS)``. Latency is the median (p50) over timed runs
of ONE full window (batch 1, no padding) after warm-up runs; load time is the
median over fresh sessions (ONNX) or ``from_pretrained`` calls (PyTorch).
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import numpy as np

from function.model.tokenizer import QATokenizer
from function.model.windows import Batch, WindowSpec, build_batch

THREADS = 2  # a 2-vCPU serverless instance
WINDOW_LENGTHS = (128, 256, 384)
WARMUP = 3
QUESTION_TOKENS = 16


def window_lengths(max_seq_len: int) -> list[int]:
    """The standard lengths that fit the serving length, and the serving length itself."""
    return sorted({n for n in WINDOW_LENGTHS if n <= max_seq_len} | {max_seq_len})


def windows(tok: QATokenizer, lengths: list[int], seed: int = 0, vocab_size: int | None = None) -> dict[int, Batch]:
    """One full window of each length (a 16-token question, random non-special token ids below
    ``vocab_size``, the tokenizer's by default)."""
    rng = np.random.default_rng(seed)
    layout = tok.pair_layout()
    low = max(layout["cls_id"], layout["sep_id"], layout["pad_id"]) + 1
    high = vocab_size or tok.vocab_size
    out = {}
    for n in lengths:
        spec = WindowSpec(n, 0, QUESTION_TOKENS, **layout)
        question = rng.integers(low, high, QUESTION_TOKENS)
        passage = rng.integers(low, high, spec.passage_budget(QUESTION_TOKENS))
        out[n] = build_batch(question, [passage], spec)
    return out


def p50_ms(infer: Callable[[Batch], object], batch: Batch, runs: int) -> float:
    for _ in range(WARMUP):
        infer(batch)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        infer(batch)
        times.append(time.perf_counter() - t0)
    return round(statistics.median(times) * 1000, 2)


def interleaved_p50_ms(models: dict[str, Callable[[Batch], object]], batch: Batch, runs: int) -> dict[str, float]:
    """p50 of each model on ``batch``, their runs taken in turn (A B A B ...) so that a machine
    slowing down part way through slows every model alike: compare them as ratios."""
    for infer in models.values():
        for _ in range(WARMUP):
            infer(batch)
    times: dict[str, list[float]] = {name: [] for name in models}
    for _ in range(runs):
        for name, infer in models.items():
            t0 = time.perf_counter()
            infer(batch)
            times[name].append(time.perf_counter() - t0)
    return {name: round(statistics.median(t) * 1000, 2) for name, t in times.items()}


def median_seconds(load: Callable[[], object], runs: int) -> tuple[float, object]:
    times, obj = [], None
    for _ in range(runs):
        obj = None  # let the previous session go before timing the next one
        t0 = time.perf_counter()
        obj = load()
        times.append(time.perf_counter() - t0)
    return round(statistics.median(times), 4), obj


def onnx_benchmark(path: Path, optimized: bool, batches: dict[int, Batch], runs: int,
                   load_runs: int) -> dict:
    """Session creation (median of fresh sessions) and p50 latency per window length."""
    from function.model.onnx_model import OnnxQAModel

    load_s, model = median_seconds(lambda: OnnxQAModel(path, THREADS, optimized=optimized), load_runs)
    return {"load_s": load_s, "p50_ms": {n: p50_ms(model, b, runs) for n, b in batches.items()},
            "threads": THREADS, "optimized": optimized, "bytes": Path(path).stat().st_size}


def torch_benchmark(model_dir: Path, batches: dict[int, Batch], runs: int, load_runs: int) -> dict:
    """``from_pretrained`` time (median) and p50 latency per window length, on THREADS threads."""
    import torch

    from build_model import hf
    from build_model.evaluation.evaluate import torch_infer

    before = torch.get_num_threads()
    torch.set_num_threads(THREADS)
    try:
        load_s, model = median_seconds(lambda: hf.load_qa_model(str(model_dir)).eval(), load_runs)
        infer = torch_infer(model)
        latency = {n: p50_ms(infer, b, runs) for n, b in batches.items()}
    finally:
        torch.set_num_threads(before)
    weights = sum(p.stat().st_size for p in Path(model_dir).iterdir() if p.suffix in (".safetensors", ".bin"))
    return {"load_s": load_s, "p50_ms": latency, "threads": THREADS, "bytes": weights}


def machine() -> dict:
    """CPU model, core counts and the instruction-set extensions that decide int8 speed."""
    from function.cpus import available_cpus

    model, flags = platform.processor() or "unknown", set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                model = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
    except OSError:
        pass
    wanted = ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8")
    return {"cpu": model, "logical_cpus": os.cpu_count(), "available_cpus": available_cpus(),
            "isa": [f for f in wanted if f in flags], "benchmark_threads": THREADS,
            "python": platform.python_version(), "system": platform.platform()}


def versions() -> dict:
    out = {}
    for package in ("torch", "transformers", "onnx", "onnxruntime", "tokenizers", "numpy"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            out[package] = None
    return out
