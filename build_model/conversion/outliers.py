"""Which weight MatMuls dynamic int8 hurts most: those whose input activations carry outliers.

ONNX Runtime's dynamic quantisation scales each MatMul's activations per tensor, per run: one
value far above the rest (a few hidden dimensions of some layers of many transformers) sets the
scale, and every other value is left with a handful of int8 steps. Measured on the sandbox's MPNet
QA teacher (``experiments/mpnet_int8.py``): the feed-forward outputs of layers 6-8, whose inputs
peak at 28-42x their 99.9th percentile (every other MatMul's below 21x), carry the whole F1 loss of
per-channel int8; kept in fp32, the model scores as fp32 does.

``outlier_ratios`` runs the fp32 graph on real windows and measures, for each weight MatMul
(second input a constant), ``max |x| / 99.9th percentile of |x|`` of its activation input.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

PERCENTILE = 99.9


def weight_matmuls(graph) -> list:
    """MatMul nodes whose second input is an initializer (a layer's weights), in graph order."""
    constants = {t.name for t in graph.initializer}
    return [n for n in graph.node if n.op_type == "MatMul" and len(n.input) == 2 and n.input[1] in constants]


def outlier_ratios(path: Path, batches: list, threads: int = 1) -> dict[str, float]:
    """Node name -> ``max |x| / p99.9 |x|`` of the activation input of each named weight MatMul, over ``batches``
    (the function's ``Batch`` objects; the graph is fed the inputs it declares)."""
    import onnx
    import onnxruntime as ort

    model = onnx.load(str(path))
    nodes = [n for n in weight_matmuls(model.graph) if n.name]
    tensors = sorted({n.input[0] for n in nodes})
    declared = {o.name for o in model.graph.output}
    for name in tensors:
        if name not in declared:
            model.graph.output.append(onnx.helper.make_empty_tensor_value_info(name))
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    del model
    peak: dict[str, float] = dict.fromkeys(tensors, 0.0)
    tails: dict[str, list[float]] = {t: [] for t in tensors}
    inputs = [i.name for i in session.get_inputs()]
    for batch in batches:
        values = session.run(tensors, {name: getattr(batch, name) for name in inputs})
        for name, value in zip(tensors, values):
            magnitude = np.abs(value.astype(np.float32))
            peak[name] = max(peak[name], float(magnitude.max()))
            tails[name].append(float(np.percentile(magnitude, PERCENTILE)))
    ratio = {t: peak[t] / max(float(np.mean(tails[t])), 1e-12) for t in tensors}
    return {n.name: round(ratio[n.input[0]], 2) for n in nodes}


def most_extreme(ratios: dict[str, float], k: int) -> list[str]:
    """The ``k`` node names of the highest ratios (ties by name, so the choice is reproducible)."""
    return [name for name, _ in sorted(ratios.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]
