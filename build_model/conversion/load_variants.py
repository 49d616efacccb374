"""Which file to ship: the plain int8 graph, or one ONNX Runtime already optimised (.onnx or .ort).

The plain quantised graph still needs ONNX Runtime's int8 fusions, so the
function creates its session at ``ORT_ENABLE_ALL`` (manifest
``onnx.optimized = false``). A graph saved by ONNX Runtime after those passes
(``SessionOptions.optimized_model_filepath`` at ``ORT_ENABLE_EXTENDED``, which
is portable across x86 CPUs, unlike the hardware-specific layout passes of
ENABLE_ALL) needs only the basic passes at load (``optimized = true``); the
ORT format (``.ort``, a flatbuffer) may also parse faster. Both are measured
with the function's own session options, and one is shipped only if it cuts
session creation by ``min_load_gain`` with the same outputs and no slower
inference.
"""

from __future__ import annotations

from pathlib import Path

from build_model.conversion.onnx_export import max_logit_diff
from build_model.evaluation import benchmark
from function.model.windows import Batch

LATENCY_SLACK = 1.05  # a variant may be at most 5% slower per window than the plain graph


def preoptimize(src: Path, dst: Path, ort_format: bool) -> None:
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    so.optimized_model_filepath = str(dst)
    if ort_format:
        so.add_session_config_entry("session.save_model_format", "ORT")
    ort.InferenceSession(str(src), so, providers=["CPUExecutionProvider"])


def measure(src: Path, folder: Path, batches: list[Batch], window: Batch, runs: int, load_runs: int,
            try_preoptimized: bool = True) -> list[dict]:
    """Session creation, p50 latency and outputs (vs the plain graph) of each way to ship ``src``."""
    from function.model.onnx_model import OnnxQAModel

    variants = [("plain .onnx", src, False, "model.onnx")]
    if try_preoptimized:
        folder.mkdir(parents=True, exist_ok=True)
        preoptimize(src, folder / "preoptimized.onnx", ort_format=False)
        preoptimize(src, folder / "preoptimized.ort", ort_format=True)
        variants += [("pre-optimised .onnx", folder / "preoptimized.onnx", True, "model.onnx"),
                     ("pre-optimised .ort", folder / "preoptimized.ort", True, "model.ort")]
    reference = OnnxQAModel(src, benchmark.THREADS, optimized=False)
    n = window.input_ids.shape[1]
    rows = []
    for name, path, optimized, model_file in variants:
        b = benchmark.onnx_benchmark(path, optimized, {n: window}, runs, load_runs)
        diff = max_logit_diff(reference, OnnxQAModel(path, benchmark.THREADS, optimized=optimized), batches)
        rows.append({"name": name, "path": str(path), "optimized": optimized, "model_file": model_file,
                     "load_s": b["load_s"], "p50_ms": b["p50_ms"][n], "bytes": b["bytes"],
                     "max_diff": diff, "check": "identical" if diff == 0 else f"max |diff| {diff:.1e}"})
    return rows


def _versus(row: dict, base: dict) -> str:
    gain = 1 - row["load_s"] / base["load_s"]
    return (f"session creation {row['load_s'] * 1000:.1f} ms vs {base['load_s'] * 1000:.1f} ms for the "
            f"{base['name']} ({abs(gain):.0%} {'less' if gain >= 0 else 'more'}; p50 {row['p50_ms']:.1f} vs "
            f"{base['p50_ms']:.1f} ms per window)")


def choose(rows: list[dict], min_gain: float, atol: float) -> tuple[dict, str]:
    """The plain graph, unless a variant with the same outputs and no slower inference loads faster.

    Variants are taken in order of preference (plain, pre-optimised .onnx, .ort: the .ort bytes differ
    from one save to the next, so shipping it changes the artifact hash on every build); each must cut
    the session creation of the one kept so far by ``min_gain`` to replace it.
    """
    plain = kept = rows[0]
    if len(rows) == 1:
        return plain, "Shipped the plain quantised graph (pre-optimised variants not tried)."
    reasons = []
    for row in rows[1:]:
        if row["max_diff"] > atol or row["p50_ms"] > plain["p50_ms"] * LATENCY_SLACK:
            reasons.append(f"the {row['name']} was ruled out (outputs differ by {row['max_diff']:.1e} or "
                           f"inference more than {LATENCY_SLACK - 1:.0%} slower)")
        elif row["load_s"] <= kept["load_s"] * (1 - min_gain):
            reasons.append(f"the {row['name']}: {_versus(row, kept)}")
            kept = row
        else:
            reasons.append(f"the {row['name']} was not worth it ({_versus(row, kept)}, under the "
                           f"{min_gain:.0%} needed)")
    head = f"Shipped the {kept['name']}" + ("" if kept is plain else f" ({_versus(kept, plain)})")
    return kept, f"{head}. Measured: " + "; ".join(reasons) + "."
