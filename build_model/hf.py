"""Loading models and tokenizers from a local folder or a model-hub id."""

from __future__ import annotations

import json
from pathlib import Path


def load_qa_model(model: str, attn: str = "sdpa"):
    """A BERT-family question-answering model; a plain encoder gets a fresh QA head.

    PyTorch's fused attention (``sdpa``) where the architecture has it; MPNet's
    relative position bias has no such kernel in transformers, so it runs eager.
    """
    from transformers import AutoModelForQuestionAnswering

    try:
        return AutoModelForQuestionAnswering.from_pretrained(model, attn_implementation=attn)
    except ValueError as e:
        if attn == "eager" or "attention implementation" not in str(e):
            raise
        return AutoModelForQuestionAnswering.from_pretrained(model, attn_implementation="eager")


def tokenizer_json(model: str) -> str:
    """The Rust tokenizer of ``model`` as ``tokenizer.json`` text, without truncation or padding."""
    local = Path(model) / "tokenizer.json"
    if local.is_file():
        raw = json.loads(local.read_text(encoding="utf-8"))
    else:
        from transformers import AutoTokenizer

        raw = json.loads(AutoTokenizer.from_pretrained(model, use_fast=True).backend_tokenizer.to_str())
    raw["truncation"] = None
    raw["padding"] = None
    return json.dumps(raw, ensure_ascii=False, indent=2)
