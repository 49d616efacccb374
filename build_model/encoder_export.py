"""``python -m build_model.encoder_export``: the sentence encoder of dense retrieval as an int8 ONNX folder.

all-MiniLM-L6-v2 (``--source``: a sentence-transformers model folder; BERT, 6
layers, 384 dimensions; mean pooling and unit length, texts cut at 256 word
pieces) is exported with its last hidden state as the graph's output,
fused by ONNX Runtime's transformer optimizer and quantised to int8 exactly as
the reader is (``build_model.conversion.onnx_export.optimize_bert`` and
``build_model.stages.quantize.quantize_candidate``, with the shipped artifact's
settings: MatMul, Gather and Attention, per channel). The pooling runs at
serving time (``function.retrieval.encoder``), in numpy.

Every conversion is checked: embeddings of dev paragraphs and questions from
the int8 graph against PyTorch fp32 (with the same pooling), cosine at least
``MIN_COSINE`` for every text (the first paragraphs and questions of ``--data``,
a SQuAD-format file), else the export fails and writes nothing. The folder
``--out`` gets ``model.onnx``, ``tokenizer.json`` and ``encoder.json``. Every
path is an argument: the module knows no checkout (``bench`` passes its own).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

MAX_TOKENS = 256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2
MIN_COSINE = 0.97  # int8 against fp32, each text
PARITY_TEXTS = 64
OPSET = 17


class ParityFailed(RuntimeError):
    """The int8 encoder's embeddings are too far from PyTorch's."""


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m build_model.encoder_export", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source", type=Path, required=True, help="a sentence-transformers BERT folder")
    p.add_argument("--out", type=Path, required=True, help="the encoder folder to write (replaced)")
    p.add_argument("--max-tokens", type=int, default=MAX_TOKENS)
    p.add_argument("--data", type=Path, required=True,
                   help="SQuAD-format JSON for the parity texts (e.g. dev.json), or a folder holding dev.json")
    return p.parse_args(argv)


def parity_texts(data: Path) -> list[str]:
    """The first paragraphs and questions of a SQuAD-format file (``data``, or ``data``/dev.json)."""
    from build_model.squad import load_squad

    split = load_squad(data / "dev.json" if data.is_dir() else data, impossible=True)
    half = PARITY_TEXTS // 2
    return [p.context for p in list(split.paragraphs.values())[:half]] + [q.question for q in split.questions[:half]]


def hidden_state_module(model):
    """``BertModel`` -> its last hidden state alone (the graph's one output)."""
    import torch

    class LastHiddenState(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    return LastHiddenState().eval()


def torch_embeddings(model, tokenizer_file: Path, texts: list[str], max_tokens: int) -> np.ndarray:
    """The reference: PyTorch fp32, the same tokens and pooling as the runtime."""
    import torch
    from tokenizers import Tokenizer

    from function.retrieval.encoder import mean_pooled

    tok = Tokenizer.from_file(str(tokenizer_file))
    tok.no_padding()
    tok.enable_truncation(max_tokens)
    rows = []
    with torch.no_grad():
        for text in texts:
            ids = torch.tensor([tok.encode(text).ids])
            mask = torch.ones_like(ids)
            hidden = model(input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids)).last_hidden_state
            rows.append(mean_pooled(hidden.numpy(), mask.numpy())[0])
    return np.stack(rows)


def export(source: Path, work: Path, max_tokens: int) -> tuple[Path, object, dict]:
    """fp32 ONNX -> fused -> int8; returns (int8 graph, the PyTorch model, what quantisation did)."""
    import torch
    from transformers import BertModel

    from build_model.conversion.onnx_export import optimize_bert
    from build_model.stages.quantize import Candidate, graph_ops, quantize_candidate

    model = BertModel.from_pretrained(str(source), attn_implementation="eager", add_pooling_layer=False).eval()
    cfg = model.config
    ids = torch.full((2, 16), 1000, dtype=torch.long)
    mask = torch.ones_like(ids)
    mask[1, 12:] = 0
    names = ("input_ids", "attention_mask", "token_type_ids")
    axes = {n: {0: "batch", 1: "sequence"} for n in names} | {"last_hidden_state": {0: "batch", 1: "sequence"}}
    with torch.no_grad():
        torch.onnx.export(hidden_state_module(model), (ids, mask, torch.zeros_like(ids)), str(work / "fp32.onnx"),
                          dynamo=False, input_names=list(names), output_names=["last_hidden_state"], dynamic_axes=axes,
                          opset_version=OPSET, do_constant_folding=True)
    fused = optimize_bert(work / "fp32.onnx", work / "fused.onnx", cfg.num_attention_heads, cfg.hidden_size)
    settings = Candidate(per_channel=True, op_types=("MatMul", "Gather", "Attention"), reduce_range=False)
    held = quantize_candidate(work / "fused.onnx", work / "int8.onnx", settings, graph_ops(work / "fused.onnx"))
    return work / "int8.onnx", model, {"fused": fused, "name": settings.name, **settings.settings(), **held}


def main(argv=None) -> int:
    args = parse_args(argv)
    from function.model.artifact import sha256_file
    from function.retrieval.encoder import MANIFEST_FILE, MODEL_FILE, TOKENIZER_FILE, SentenceEncoder

    weights = args.source / "model.safetensors"
    with tempfile.TemporaryDirectory(prefix="encoder-export-") as tmp:
        work = Path(tmp)
        int8, model, quantization = export(args.source, work, args.max_tokens)
        staged = work / "staged"
        staged.mkdir()
        shutil.copy(int8, staged / MODEL_FILE)
        shutil.copy(args.source / TOKENIZER_FILE, staged / TOKENIZER_FILE)
        manifest = {"source": str(args.source), "source_sha256": sha256_file(weights),
                    "max_tokens": args.max_tokens, "dim": model.config.hidden_size, "pooling": "mean, unit length",
                    "quantization": quantization, "model_bytes": (staged / MODEL_FILE).stat().st_size}
        (staged / MANIFEST_FILE).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        texts = parity_texts(args.data)
        reference = torch_embeddings(model, staged / TOKENIZER_FILE, texts, args.max_tokens)
        got = SentenceEncoder(staged, threads=2).embed(texts)
        cosines = (reference * got).sum(axis=1)
        manifest["parity"] = {"texts": len(texts), "min_cosine": round(float(cosines.min()), 5),
                              "mean_cosine": round(float(cosines.mean()), 5), "required": MIN_COSINE}
        if cosines.min() < MIN_COSINE:
            raise ParityFailed(f"int8 encoder: cosine to PyTorch {cosines.min():.4f} < {MIN_COSINE} "
                               f"(text {int(cosines.argmin())}); nothing written")
        (staged / MANIFEST_FILE).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        if args.out.exists():
            shutil.rmtree(args.out)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(staged, args.out)
    print(f"[encoder] {args.out}: {manifest['model_bytes'] / 1e6:.1f} MB, parity min cosine "
          f"{manifest['parity']['min_cosine']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
