"""experiments/layers_latency.py builds the cut-down student through the build's own chain."""

import collections

import numpy as np

from experiments import layers_latency
from tests.support.tiny import tiny_model

SHIPPED_QUANTIZATION = {"per_channel": True, "op_types": ["MatMul", "Gather", "Attention"], "reduce_range": True}


def test_build_int8_keeps_the_asked_layers_fused_and_quantised(tmp_path):
    import onnx
    import onnxruntime as ort

    tiny_model(vocab_size=1100, layers=3).save_pretrained(tmp_path / "student")  # the export traces ids of 1000
    out = layers_latency.build_int8(tmp_path / "student", 2, SHIPPED_QUANTIZATION, 17, tmp_path)

    ops = collections.Counter(n.op_type for n in onnx.load(str(out)).graph.node)
    assert ops["QAttention"] == 2  # two layers, attention fused and int8
    assert ops["MatMul"] == 0  # every dense product quantised
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    ids = np.full((1, 16), 7, dtype=np.int64)
    start, end = session.run(["start_logits", "end_logits"], {
        "input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)})
    assert start.shape == end.shape == (1, 16)
