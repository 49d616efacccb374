"""Loading models and tokenizers from a local folder or a model-hub id."""

from __future__ import annotations

import json
from pathlib import Path


def load_qa_model(model: str, attn: str = "sdpa", require_head: bool = False):
    """A BERT-family question-answering model; a plain encoder gets a fresh QA head.

    PyTorch's fused attention (``sdpa``) where the architecture has it; MPNet's
    relative position bias has no such kernel in transformers, so it runs eager.
    ``require_head``: the model must bring its own trained QA head (a model taken
    as given); a ValueError says so when the head would be freshly initialised.
    """
    from transformers import AutoModelForQuestionAnswering

    try:
        qa, info = AutoModelForQuestionAnswering.from_pretrained(model, attn_implementation=attn,
                                                                 output_loading_info=True)
    except ValueError as e:
        if attn == "eager" or "attention implementation" not in str(e):
            raise
        qa, info = AutoModelForQuestionAnswering.from_pretrained(model, attn_implementation="eager",
                                                                 output_loading_info=True)
    fresh = [k for k in info.get("missing_keys", ()) if "qa_outputs" in k]
    if require_head and fresh:
        raise ValueError(f"{model} is not a question-answering model: its QA head ({', '.join(sorted(fresh))}) "
                         f"would be initialised at random; fine-tune it first (a [teacher] build) or name "
                         f"a QA fine-tune")
    return qa


def reads_segments(model) -> bool:
    """Whether the model reads ``token_type_ids``: its forward takes them and it has more than one
    segment embedding. DistilBERT and MPNet take none; RoBERTa and XLM-R take them but have one
    segment (``type_vocab_size`` 1: the passage's 1s would be out of range), DeBERTa-v3 none (0).
    Such a model is run, trained and exported without them."""
    import inspect

    takes = "token_type_ids" in inspect.signature(model.forward).parameters
    return takes and getattr(model.config, "type_vocab_size", 2) >= 2


def tokenizer_json(model: str, as_transformers_loads_it: bool = False) -> str:
    """The Rust tokenizer of ``model`` as ``tokenizer.json`` text, without truncation or padding.

    A local folder's ``tokenizer.json`` as it is; or, with ``as_transformers_loads_it`` (a model taken
    as given), the tokenizer ``AutoTokenizer`` builds, which transformers 5 assembles from the
    tokenizer's class and ``tokenizer_config.json`` (normalizer, pre-tokenizer, post-processor) and
    which is what the model's own users run; the file is the fallback when transformers cannot load it.
    """
    local = Path(model) / "tokenizer.json"
    raw = None
    if as_transformers_loads_it or not local.is_file():
        from transformers import AutoTokenizer

        try:
            raw = json.loads(AutoTokenizer.from_pretrained(model, use_fast=True).backend_tokenizer.to_str())
        except (OSError, ValueError):
            if not local.is_file():
                raise
    if raw is None:
        raw = json.loads(local.read_text(encoding="utf-8"))
    raw["truncation"] = None
    raw["padding"] = None
    return json.dumps(raw, ensure_ascii=False, indent=2)
