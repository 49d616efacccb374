"""The shipped student's weights back from its int8 graph: ``artifact/model.ort`` -> a BertForQuestionAnswering folder.

Its fp32 checkpoint went with an earlier machine; the int8 graph holds every weight, per output channel for the
MatMuls (QAttention's fused query/key/value, DynamicQuantizeMatMul) and per tensor for the embeddings and their
LayerNorm, so ``(q - zero_point) * scale`` gives them back to within int8 rounding (SQuAD dev F1 of the result in
PyTorch: 72.78, the original fp32 72.95, the int8 graph 72.21). Read with ONNX Runtime's own flatbuffers reader
(``onnxruntime/tools/ort_format_model``). The layout (config.json) and tokenizer come from ``--like``, a
checkpoint of the same shape.

    python records/build/sandbox/docs-cpu/dequantise.py artifact/model.ort build/recover/shipped-fp32 \
        --like build/distil/model
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

import numpy as np

HIDDEN = 384
TYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 6: np.int32, 7: np.int64}
LAYER_MATMUL = re.compile(r"/qa/bert/encoder/layer\.(\d+)/(attention/output|intermediate|output)/dense/MatMul_output_0")


def read_ort(path: Path) -> tuple[dict[str, np.ndarray], list[tuple[str, list[str], str]]]:
    """(initializers, nodes as (op type, inputs, first output)) of an ORT-format model."""
    import onnxruntime

    sys.path.insert(0, str(Path(onnxruntime.__file__).parent / "tools" / "ort_format_model"))
    from ort_flatbuffers_py.fbs.InferenceSession import InferenceSession

    graph = InferenceSession.GetRootAsInferenceSession(path.read_bytes(), 0).Model().Graph()
    inits = {}
    for i in range(graph.InitializersLength()):
        t = graph.Initializers(i)
        dims = [t.Dims(j) for j in range(t.DimsLength())]
        inits[t.Name().decode()] = np.frombuffer(t.RawDataAsNumpy().tobytes(), TYPES[t.DataType()]).reshape(dims)
    nodes = []
    for i in range(graph.NodesLength()):
        n = graph.Nodes(i)
        nodes.append((n.OpType().decode(), [n.Inputs(j).decode() for j in range(n.InputsLength())],
                      n.Outputs(0).decode()))
    return inits, nodes


def dequantise(inits: dict[str, np.ndarray], nodes) -> dict[str, np.ndarray]:
    def deq(base: str) -> np.ndarray:
        q = inits[base + "_quantized"].astype(np.float32)
        return (q - inits[base + "_zero_point"].astype(np.float32)) * inits[base + "_scale"]

    w = {f"bert.embeddings.{n}": deq(f"qa.bert.embeddings.{n}") for n in (
        "word_embeddings.weight", "position_embeddings.weight", "token_type_embeddings.weight",
        "LayerNorm.weight", "LayerNorm.bias")}
    w.update({k[len("qa."):]: v.astype(np.float32) for k, v in inits.items()
              if k.startswith("qa.bert.encoder") or k == "qa.qa_outputs.bias"})
    for op, ins, out in nodes:
        if op == "QAttention":  # [in, 3 x out]: query, key, value side by side
            layer = int(re.match(r"Attention_(\d+)_", ins[1]).group(1))
            qkv, bias = deq(f"Attention_{layer}_qkv_weight"), inits[f"Attention_{layer}_qkv_bias"]
            for j, part in enumerate(("query", "key", "value")):
                cols = slice(j * HIDDEN, (j + 1) * HIDDEN)
                w[f"bert.encoder.layer.{layer}.attention.self.{part}.weight"] = qkv[:, cols].T
                w[f"bert.encoder.layer.{layer}.attention.self.{part}.bias"] = bias[cols]
        elif op == "DynamicQuantizeMatMul":  # [in, out]: a Linear's weight transposed
            weight = deq(ins[1].removesuffix("_quantized")).T
            m = LAYER_MATMUL.fullmatch(out)
            name = (f"bert.encoder.layer.{m.group(1)}.{m.group(2).replace('/', '.')}.dense.weight" if m
                    else "qa_outputs.weight")
            w[name] = weight
    return {k: np.ascontiguousarray(v) for k, v in w.items()}


def main() -> int:
    from safetensors.numpy import load_file, save_file

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--like", type=Path, required=True, help="a checkpoint of the same layout (config, tokenizer)")
    args = p.parse_args()
    weights = dequantise(*read_ort(args.model))
    like = load_file(args.like / "model.safetensors")
    wrong = sorted(set(like) ^ set(weights)) + [k for k in like if k in weights and like[k].shape != weights[k].shape]
    if wrong:
        raise SystemExit(f"{args.model} does not match {args.like}'s layout: {wrong[:5]}")
    args.out.mkdir(parents=True, exist_ok=True)
    save_file({k: weights[k] for k in like}, args.out / "model.safetensors", metadata={"format": "pt"})
    shutil.copy(args.like / "config.json", args.out)
    shutil.copy(args.model.parent / "tokenizer.json", args.out)
    print(f"{len(weights)} tensors -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
