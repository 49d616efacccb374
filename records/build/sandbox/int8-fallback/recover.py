"""The shipped student's weights back from its int8 ONNX graph (``artifact/model.onnx``) into a PyTorch folder.

``docs-cpu/dequantise.py`` did this from the ORT-format graph of its day; the artifact is ONNX now, so this reads
the same initializers and nodes with ``onnx`` and hands them to that script's ``dequantise``. The layout
(config.json) is a stand-in of the artifact's architecture (``bench.standin.checkpoint``: random weights, the
artifact's tokenizer), whose every tensor is replaced.

    PYTHONPATH=. python records/build/sandbox/int8-fallback/recover.py artifact build/recover/shipped-int8w
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("dequantise", HERE.parent / "docs-cpu" / "dequantise.py")
dq = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dq)


def read_onnx(path: Path):
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    inits = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    nodes = [(n.op_type, list(n.input), n.output[0]) for n in graph.node]
    return inits, nodes


def main() -> int:
    from safetensors.numpy import load_file, save_file

    from bench.standin import checkpoint

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("artifact", type=Path)
    p.add_argument("out", type=Path)
    args = p.parse_args()
    weights = dq.dequantise(*read_onnx(args.artifact / "model.onnx"))
    with tempfile.TemporaryDirectory() as tmp:
        like, _ = checkpoint(args.artifact, Path(tmp))
        layout = load_file(like / "model.safetensors")
        wrong = sorted(set(layout) ^ set(weights)) + [k for k in layout if k in weights
                                                       and layout[k].shape != weights[k].shape]
        if wrong:
            raise SystemExit(f"the graph does not match the architecture: {wrong[:5]}")
        args.out.mkdir(parents=True, exist_ok=True)
        save_file({k: np.ascontiguousarray(weights[k], dtype=np.float32) for k in layout},
                  args.out / "model.safetensors", metadata={"format": "pt"})
        for name in ("config.json",):
            shutil.copy(like / name, args.out)
        for f in like.iterdir():
            if f.name.startswith(("tokenizer", "special_tokens", "vocab")):
                shutil.copy(f, args.out)
    print(f"{len(weights)} tensors -> {args.out}: {sorted(p.name for p in args.out.iterdir())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
