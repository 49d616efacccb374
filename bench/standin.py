"""``python -m bench stand-in``: an artifact of the shipped one's shape whose weights are not trained.

    python -m bench stand-in --encoder DIR --out DIR [--distilbert]

makes a whole int8 artifact shaped like the shipped one from a public encoder
(or the production recipe's DistilBERT shape) for figures before a trained
one exists; its answers are junk.
"""

from __future__ import annotations

import argparse
from pathlib import Path


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

    from build_model.artifact_writer import write_artifact
    from build_model.onnx_export import export_onnx, optimize_bert

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
