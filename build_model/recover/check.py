"""The recovered model checked on real windows before anything is written (the command fails otherwise).

* Against the artifact's own ONNX session: the largest start/end logit difference, within 1e-3 for a fp32
  graph. An int8 graph quantises its activations as well, so its logits stay some way from any fp32
  model's, the one it was quantised from included (1.3-1.7 for the shipped MiniLM-L3, 5-10 with one weight
  misplaced): a loose bound, ``INT8_ATOL``.
* For an int8 graph, the tight check: the recovered model exported, fused and quantised again by the
  build's own code with the manifest's settings must give the shipped graph's logits (within 1e-3; the
  shipped MiniLM-L3 comes back with every int8 tensor bit for bit, logits identical).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from build_model.recover.bert_weights import Recovered
from build_model.recover.graph import RecoverError

FP32_ATOL = 1e-3  # as [export] atol: a fp32 graph must match the recovered model as its export did
INT8_ATOL = 3.0  # int8 activations: the shipped MiniLM-L3 is 1.3-1.7 away; a wrongly placed weight 5-10
SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "squad_sample.json"


def parity_batches(folder: Path, squad: Path, windows: int) -> list:
    """At least ``windows`` real windows of ``squad``, cut and batched as the function does it with the
    artifact's tokenizer and sequence settings (the export stage's parity batches)."""
    from build_model.squad import load_squad
    from build_model.stages.export import parity_batches as batches
    from function.model.artifact import load_manifest
    from function.model.tokenizer import QATokenizer
    from function.model.windows import WindowSpec

    manifest = load_manifest(folder)
    tok = QATokenizer(manifest.tokenizer_path)
    seq = manifest.sequence
    spec = WindowSpec(max_seq_len=seq["max_seq_len"], stride=seq["stride"],
                      max_query_tokens=seq["max_query_tokens"], **tok.pair_layout())
    return batches(load_squad(squad), tok, spec, windows)


def requantize(model, folder: Path, work: Path) -> Path:
    """The artifact's int8 graph made again from ``model`` by the build's own code: exported, fused,
    quantised with the manifest's settings, pre-optimised when the shipped graph was. The same weights
    give the same graph: its int8 tensors and logits are the shipped ones."""
    from build_model.conversion.load_variants import preoptimize
    from build_model.conversion.onnx_export import export_onnx, optimize_bert
    from build_model.stages.quantize import Candidate, graph_ops, quantize_candidate
    from function.model.artifact import load_manifest

    manifest = load_manifest(folder)
    q = manifest.raw.get("quantization") or {}
    if not all(k in q for k in ("per_channel", "op_types", "reduce_range")):
        raise RecoverError(f"{folder}'s manifest records no quantisation settings to quantise the recovered model "
                           f"with (quantization.per_channel, op_types, reduce_range): run with --no-requantize")
    raw, fused, int8 = work / "raw.onnx", work / "fused.onnx", work / "int8.onnx"
    export_onnx(model, raw, (manifest.raw.get("onnx") or {}).get("opset", 17))
    optimize_bert(raw, fused, num_heads=model.config.num_attention_heads, hidden_size=model.config.hidden_size)
    candidate = Candidate(q["per_channel"], tuple(q["op_types"]), q["reduce_range"], tuple(q.get("fp32_matmuls", ())))
    quantize_candidate(fused, int8, candidate, graph_ops(fused))
    if not manifest.graph_optimized:
        return int8
    pre = work / f"int8.pre{manifest.model_path.suffix}"
    preoptimize(int8, pre, ort_format=pre.suffix == ".ort")
    return pre


def same_int8(a: Path, b: Path) -> tuple[int, int]:
    """How many of ``a``'s int8/uint8 initializers ``b`` holds, under the same name, bit for bit; and how many."""
    import onnx
    from onnx import numpy_helper

    from build_model.recover.ort_format import load_any

    def int8(path: Path) -> dict:
        return {t.name: numpy_helper.to_array(t) for t in load_any(path).graph.initializer
                if t.data_type in (onnx.TensorProto.INT8, onnx.TensorProto.UINT8)}

    mine, theirs = int8(a), int8(b)
    return sum(1 for k, v in mine.items() if k in theirs and np.array_equal(v, theirs[k])), len(mine)


def check(model, recovered: Recovered, folder: Path, squad: Path, windows: int, threads: int, atol: float,
          requantized: bool) -> dict:
    """The recovered model against the artifact's own ONNX session on real windows and, for an int8 graph
    (``requantized``), the int8 graph quantised again from it against the shipped one."""
    import tempfile

    from build_model.conversion.onnx_export import max_logit_diff
    from build_model.evaluation.evaluate import torch_infer
    from function.model.artifact import load_manifest
    from function.model.onnx_model import OnnxQAModel

    manifest = load_manifest(folder)
    batches = parity_batches(folder, squad, windows)
    shipped = OnnxQAModel(manifest.model_path, threads, optimized=manifest.graph_optimized)
    result = {"squad": str(squad), "windows": sum(len(b) for b in batches), "atol": atol,
              "max_logit_diff": max_logit_diff(shipped, torch_infer(model), batches)}
    result["passed"] = result["max_logit_diff"] <= atol
    if requantized:
        with tempfile.TemporaryDirectory(prefix="recover-") as tmp:
            again = requantize(model, folder, Path(tmp))
            identical, total = same_int8(manifest.model_path, again)
            diff = max_logit_diff(shipped, OnnxQAModel(again, threads, optimized=manifest.graph_optimized), batches)
        result["requantized"] = {"int8_tensors_identical": identical, "int8_tensors": total,
                                 "max_logit_diff": diff, "atol": FP32_ATOL}
        result["passed"] = result["passed"] and diff <= FP32_ATOL
    return result
