"""What fewer layers would buy: int8 latency of the student cut to 1, 2 and 3 layers.

    .venv/bin/python -m experiments.layers_latency [--model build/distil/model] [--rounds 5]

Latency does not depend on the weights, so no training is needed: the first N
layers of the trained student (``build/distil/model``, from the sandbox build)
go through the build stage's own chain (eager-attention ONNX export,
transformer fusion, int8 quantisation with the shipped artifact's settings,
ONNX Runtime's offline optimisation) and are timed with the function's session
options on 2 threads, one full window of 128, 256 and 384 tokens, beside the
shipped ``artifact/model.onnx``. The models are measured in alternating rounds
(each round: every model, p50 of ``--runs`` runs per length) and the median
of the rounds is printed, so that a slow spell of the machine hits all of
them. What the layers would cost in F1 needs training; see docs/build.md.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from build_model import hf
from build_model.conversion.load_variants import preoptimize
from build_model.conversion.onnx_export import export_onnx, optimize_bert
from build_model.evaluation import benchmark
from build_model.stages.quantize import Candidate, graph_ops, quantize_candidate
from build_model.training.student import derive_student
from function.model.artifact import load_manifest
from function.model.onnx_model import OnnxQAModel
from function.model.tokenizer import QATokenizer

REPO = Path(__file__).resolve().parent.parent


def build_int8(model_dir: Path, layers: int, quantization: dict, opset: int, work: Path) -> Path:
    """The first ``layers`` layers of the model at ``model_dir``, as the build stage would ship them."""
    model = derive_student(hf.load_qa_model(str(model_dir), attn="eager").eval(), tuple(range(layers)))
    raw, fused, int8, shipped = (work / f"l{layers}.{s}.onnx" for s in ("raw", "opt", "int8", "ship"))
    export_onnx(model, raw, opset)
    optimize_bert(raw, fused, num_heads=model.config.num_attention_heads, hidden_size=model.config.hidden_size)
    candidate = Candidate(quantization["per_channel"], tuple(quantization["op_types"]), quantization["reduce_range"])
    quantize_candidate(fused, int8, candidate, graph_ops(fused))
    preoptimize(int8, shipped, ort_format=False)
    return shipped


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.layers_latency", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", type=Path, default=REPO / "build" / "distil" / "model",
                   help="the trained student (a transformers folder)")
    p.add_argument("--artifact", type=Path, default=REPO / "artifact")
    p.add_argument("--layers", type=int, nargs="+", default=[1, 2, 3])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=30)
    args = p.parse_args(argv)
    manifest = load_manifest(args.artifact.resolve())
    if not (args.model / "config.json").exists():
        p.error(f"{args.model} holds no trained student: run the sandbox build first "
                "(docs/build.md, 'The sandbox recipe')")

    tok = QATokenizer(manifest.tokenizer_path)
    batches = benchmark.windows(tok, benchmark.window_lengths(manifest.sequence["max_seq_len"]))
    with tempfile.TemporaryDirectory(prefix="layers-") as tmp:
        files = {"shipped artifact (3 layers)": (manifest.model_path, manifest.graph_optimized)}
        for n in args.layers:
            files[f"{n} layer{'s' if n > 1 else ''}"] = (
                build_int8(args.model, n, manifest.raw["quantization"], manifest.raw["onnx"]["opset"], Path(tmp)), True)
        models = {name: OnnxQAModel(path, benchmark.THREADS, optimized=opt) for name, (path, opt) in files.items()}
        rounds: dict[str, dict[int, list[float]]] = {name: {n: [] for n in batches} for name in models}
        for r in range(args.rounds):
            for name in (list(models) if r % 2 == 0 else list(reversed(models))):
                for n, batch in batches.items():
                    rounds[name][n].append(benchmark.p50_ms(models[name], batch, args.runs))
        sizes = {name: path.stat().st_size / 1e6 for name, (path, _) in files.items()}

    lengths = list(batches)
    print("| model | int8 MB | " + " | ".join(f"p50 {n} tokens (ms)" for n in lengths) + " |")
    print("|---|---|" + "---|" * len(lengths))
    for name, per_length in rounds.items():
        cells = " | ".join(f"{statistics.median(v):.1f}" for v in per_length.values())
        print(f"| {name} | {sizes[name]:.1f} | {cells} |")
    print(f"\n{benchmark.THREADS} threads; median of {args.rounds} alternating rounds, each the p50 of "
          f"{args.runs} runs; machine: {benchmark.machine()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
