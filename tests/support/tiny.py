"""A tiny randomly initialised BERT QA model, exported to an artifact the function can serve.

Same layout as the real artifact (ONNX model, tokenizer.json, manifest.json),
made with the build stage's own export and artifact-writing code. The
tokenizer is a WordPiece vocabulary trained on the sample corpus, so nothing
outside the repository is needed: trained once and committed
(``sample_tokenizer.json``; ``python -m tests.support.tiny`` trains it again),
because the ``tokenizers`` trainer breaks ties between equally frequent pairs
in an order that changes from process to process (Rust's randomly seeded
hash maps): trained anew each session, the vocabulary differed in about 200
of its 3,000 pieces, the random model read other ids, and its answers, which
some tests compare across two paths, changed from one session to the next.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "squad_sample.json"
SAMPLE_TOKENIZER = Path(__file__).with_name("sample_tokenizer.json")
SEQUENCE = {"max_seq_len": 96, "stride": 32, "max_query_tokens": 32, "max_answer_tokens": 30}


@dataclass
class TinyArtifact:
    folder: Path
    model: object  # the PyTorch model it was exported from (eval mode)
    tokenizer_file: Path


def sample_texts() -> list[str]:
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))["data"]
    return [p["context"] for a in data for p in a["paragraphs"]] + [
        qa["question"] for a in data for p in a["paragraphs"] for qa in p["qas"]]


def sample_tokenizer() -> str:
    """The WordPiece tokenizer (JSON) every tiny model here reads: ``train_tokenizer(sample_texts())``, committed."""
    return SAMPLE_TOKENIZER.read_text(encoding="utf-8")


def train_tokenizer(texts: list[str], vocab_size: int = 3000) -> str:
    from tokenizers import BertWordPieceTokenizer

    tok = BertWordPieceTokenizer(lowercase=True)
    tok.train_from_iterator(texts, vocab_size=vocab_size, min_frequency=1,
                            special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    return tok.to_str()


def tiny_model(vocab_size: int, seed: int = 0, layers: int = 2):
    import torch
    from transformers import BertConfig, BertForQuestionAnswering

    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=vocab_size, hidden_size=32, num_hidden_layers=layers,
                     num_attention_heads=2, intermediate_size=64, max_position_embeddings=128,
                     attn_implementation="eager")
    model = BertForQuestionAnswering(cfg).eval()
    with torch.no_grad():  # spread the logits so that spans are well separated
        model.qa_outputs.weight.mul_(50.0)
    return model


def make_tiny_artifact(out: Path, optimize: bool = True) -> TinyArtifact:
    from build_model.conversion.onnx_export import export_onnx, optimize_bert
    from build_model.packaging.writer import write_artifact

    out.mkdir(parents=True, exist_ok=True)
    work = out.parent / f"{out.name}-work"
    work.mkdir(exist_ok=True)
    tokenizer_json = sample_tokenizer()
    vocab = json.loads(tokenizer_json)["model"]["vocab"]
    model = tiny_model(len(vocab))
    onnx_path = work / "model.onnx"
    export_onnx(model, onnx_path, opset=17)
    if optimize:
        optimize_bert(onnx_path, work / "model.opt.onnx", num_heads=2, hidden_size=32)
        onnx_path = work / "model.opt.onnx"
    write_artifact(out, onnx_path, tokenizer_json, "tiny-random-bert", SEQUENCE,
                   extra={"onnx": {"opset": 17, "optimized": optimize}})
    return TinyArtifact(out, model, out / "tokenizer.json")


def sample_records() -> list:
    """The sample corpus's paragraphs as ingestion's records."""
    from function.ingest.json_input import Record, parse_text

    return [r for r in parse_text(SAMPLE.name, SAMPLE.read_text(encoding="utf-8")) if isinstance(r, Record)]


def set_no_answer(artifact: Path, threshold: float) -> Path:
    """Make ``artifact`` (a copy) abstain by default at ``threshold``, its manifest re-described."""
    from build_model.packaging.writer import update_manifest
    from function.model.artifact import load_manifest

    raw = dict(load_manifest(artifact).raw)
    raw["no_answer"] = {"supported": True, "default": True, "threshold": threshold}
    update_manifest(artifact, raw)
    return artifact


if __name__ == "__main__":  # the committed tokenizer trained again (a new draw of the trainer's ties)
    SAMPLE_TOKENIZER.write_text(train_tokenizer(sample_texts()) + "\n", encoding="utf-8")
    print(f"wrote {SAMPLE_TOKENIZER}")
