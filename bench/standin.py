"""Stand-ins: models of the shipped artifact's architecture and size with weights that are not its own.

Speed and memory do not depend on the weights' values. When no PyTorch
checkpoint of the artifact is at hand (a fresh clone has no build folder),
the serving benchmark's PyTorch contender, and the fp32 ONNX contender
exported from it, serve ``checkpoint()``: a ``BertForQuestionAnswering`` of
the artifact's architecture with random weights and the artifact's
tokenizer. Their timings and memory compare with ours; their answers do not,
and the results say so.

The architecture is the manifest's ``model.config`` where it records one;
today's manifests record the vocabulary but not the layers, width or heads,
so those are read from the artifact's fused ONNX graph (the embedding
tables' shapes, one attention node per layer with its ``num_heads``, the
feed-forward weights' width); the parameter count is checked against the
manifest's where it records one.

    python -m bench stand-in --encoder DIR --out DIR [--distilbert]

makes a whole int8 artifact shaped like the shipped one from a public encoder
(or the production recipe's DistilBERT shape) for figures before a trained
one exists; its answers are junk.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

ATTENTION_OPS = ("Attention", "QAttention", "MultiHeadAttention")
EMBEDDING_OPS = ("EmbedLayerNormalization", "QEmbedLayerNormalization")


def graph_architecture(model_path: Path) -> dict:
    """BertConfig sizes of a fused BERT QA graph (as the build stage and the tiny test artifact fuse it)."""
    import onnx

    graph = onnx.load(str(model_path), load_external_data=False).graph
    shapes = {i.name: list(i.dims) for i in graph.initializer}
    embed = next((n for n in graph.node if n.op_type in EMBEDDING_OPS), None)
    attention = [n for n in graph.node if n.op_type in ATTENTION_OPS]
    if embed is None or not attention:
        raise ValueError(f"{model_path} is not a fused BERT graph (no embedding-layer-norm or attention node): "
                         "its architecture cannot be read from it; pass --pytorch-model")
    (vocab, hidden), (positions, _), (types, _) = (shapes[embed.input[i]] for i in (2, 3, 4))
    heads = {a.i for n in attention for a in n.attribute if a.name == "num_heads"}
    # The feed-forward output projections are the only other (k, hidden) matrices.
    widths = {dims[0] for name, dims in shapes.items()
              if len(dims) == 2 and dims[1] == hidden and dims[0] != hidden and name not in embed.input}
    if len(heads) != 1 or len(widths) != 1:
        raise ValueError(f"{model_path}: heads {sorted(heads)}, feed-forward widths {sorted(widths)}: "
                         "not one of each; pass --pytorch-model")
    return {"vocab_size": vocab, "hidden_size": hidden, "num_hidden_layers": len(attention),
            "num_attention_heads": heads.pop(), "intermediate_size": widths.pop(),
            "max_position_embeddings": positions, "type_vocab_size": types}


def architecture(artifact: Path) -> tuple[dict, str]:
    """The artifact's BertConfig sizes and where they were read."""
    manifest = json.loads((artifact / "manifest.json").read_text())
    recorded = (manifest.get("model") or {}).get("config")
    if recorded:
        config, where = dict(recorded), "the manifest's model.config"
    else:
        config, where = graph_architecture(artifact / manifest["model_file"]), f"the graph {manifest['model_file']}"
    if manifest.get("vocab_size") not in (None, config["vocab_size"]):
        raise ValueError(f"{artifact}: the manifest's vocabulary ({manifest['vocab_size']}) is not the model's "
                         f"({config['vocab_size']}, from {where})")
    return config, where


def recorded_parameters(manifest: dict) -> int | None:
    """The student's parameter count as the build stage measured it, where the manifest records it."""
    for key, metrics in sorted((manifest.get("metrics") or {}).items()):
        if key.startswith("student") and isinstance(metrics, dict) and metrics.get("parameters"):
            return int(metrics["parameters"])
    return None


def checkpoint(artifact: Path, work: Path) -> tuple[Path, str]:
    """A transformers folder (random weights, the artifact's tokenizer) and a description for the results.

    Made once per artifact under ``work`` (seeded, so a re-run builds the same one).
    """
    manifest = json.loads((artifact / "manifest.json").read_text())
    config, where = architecture(artifact)
    folder = work / f"stand-in-{manifest['artifact_hash'][:12]}"
    import torch
    from transformers import BertConfig, BertForQuestionAnswering

    if (folder / "config.json").is_file():
        parameters = sum(p.numel() for p in BertForQuestionAnswering(BertConfig(**config)).parameters())
    else:
        torch.manual_seed(0)
        model = BertForQuestionAnswering(BertConfig(**config)).eval()
        parameters = sum(p.numel() for p in model.parameters())
        staging = folder.with_name(folder.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        model.save_pretrained(staging)
        shutil.copyfile(artifact / manifest["tokenizer_file"], staging / "tokenizer.json")
        (staging / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": manifest.get("lowercase", True)}))
        staging.rename(folder)
    expected = recorded_parameters(manifest)
    check = ("" if expected is None else
             ", as many as the manifest records" if expected == parameters else
             f"; the manifest records {expected:,}: the architecture differs")
    sizes = (f"{config['num_hidden_layers']} layers, hidden {config['hidden_size']}, "
             f"{config['num_attention_heads']} heads, {parameters:,} parameters{check}")
    return folder, f"stand-in: random weights in the artifact's architecture ({sizes}; read from {where})"


# ---- python -m bench stand-in: a whole artifact of the shipped shape ---------------------------------

def main(argv=None) -> int:
    """The shipped artifact's shape from a public encoder: MiniLM layers 0, 2, 4, untrained QA head, int8.

    Same vocabulary, width, depth, sequence settings and quantisation as the
    sandbox recipe's artifact, so memory and latency match it; the answers do not.
    """
    p = argparse.ArgumentParser(prog="python -m bench stand-in", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--encoder", required=True,
                   help="a BERT encoder folder (all-MiniLM-L6-v2); its tokenizer is used in any case")
    p.add_argument("--keep-layers", default="0,2,4")
    p.add_argument("--distilbert", action="store_true",
                   help="the production recipe's DistilBERT student's shape instead (random weights)")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)

    import onnx
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import BertForQuestionAnswering

    from build_model.conversion.onnx_export import export_onnx, optimize_bert
    from build_model.packaging.writer import write_artifact

    out, work = Path(args.out), Path(args.out).parent / (Path(args.out).name + "-work")
    work.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    if args.distilbert:  # the production recipe's student: DistilBERT's shape, random weights
        from transformers import DistilBertConfig, DistilBertForQuestionAnswering

        model = DistilBertForQuestionAnswering(DistilBertConfig(attn_implementation="eager")).eval()
        heads, hidden, name, what = 12, 768, "stand-in-distilbert-int8", "DistilBERT shape, random weights"
    else:
        model = BertForQuestionAnswering.from_pretrained(args.encoder, attn_implementation="eager").eval()
        keep = [int(i) for i in args.keep_layers.split(",")]
        model.bert.encoder.layer = torch.nn.ModuleList(model.bert.encoder.layer[i] for i in keep)
        model.config.num_hidden_layers = len(keep)
        heads, hidden = model.config.num_attention_heads, model.config.hidden_size
        name, what = "stand-in-minilm-l3-int8", f"layers {keep} of {args.encoder}, untrained QA head"
    export_onnx(model, work / "fp32.onnx", opset=17)
    optimize_bert(work / "fp32.onnx", work / "opt.onnx", heads, hidden)
    quantize_dynamic(str(work / "opt.onnx"), str(work / "int8.onnx"),
                     op_types_to_quantize=["MatMul", "Gather", "EmbedLayerNormalization", "Attention"],
                     per_channel=False, weight_type=QuantType.QInt8,
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    tokenizer_json = (Path(args.encoder) / "tokenizer.json").read_text(encoding="utf-8")
    sequence = {"max_seq_len": 384, "stride": 128, "max_query_tokens": 64, "max_answer_tokens": 30}
    write_artifact(out, work / "int8.onnx", tokenizer_json, name, sequence,
                   extra={"onnx": {"opset": 17, "optimized": True}, "stand_in": what})
    print(f"{out}: model.onnx {(out / 'model.onnx').stat().st_size / 1e6:.1f} MB")
    return 0
