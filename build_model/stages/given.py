"""Stage 1 of a build that takes a QA model as given: no training, the model as it is.

``[given] model`` is a model-hub id or a local folder holding any extractive-QA
model ``AutoModelForQuestionAnswering`` loads (BERT, DistilBERT, RoBERTa,
ELECTRA, DeBERTa-v2/v3, MPNet, ALBERT, MobileBERT) and its fast tokenizer.
The stage saves both into ``<work_dir>/given/model`` (so that the later stages
read a local folder) and scores the PyTorch model on the dev set through the
function's own windows and decoding: the yardstick the ONNX export and the int8
model are checked against. What serving needs (pair layout, special tokens,
case folding) is read from the tokenizer here and by the package stage, never
assumed.
"""

from __future__ import annotations

from pathlib import Path

from build_model import hf
from build_model.config import BuildConfig
from build_model.errors import BuildFailed
from build_model.evaluation.evaluate import evaluate, torch_infer
from build_model.specs import serving_spec
from build_model.squad import load_squad
from build_model.stage_record import file_sha256, fresh_record, save_record, source_fingerprint
from function.model.tokenizer import QATokenizer


def stage_dir(cfg: BuildConfig) -> Path:
    return Path(cfg.work_dir) / "given"


def model_dir(cfg: BuildConfig) -> Path:
    """Where the given model and its ``tokenizer.json`` are saved for the later stages."""
    return stage_dir(cfg) / "model"


def stage_inputs(cfg: BuildConfig) -> dict:
    s = cfg.sequence
    return {
        "model": source_fingerprint(cfg.given.model),
        "serve_windows": [s.max_seq_len, s.stride, s.max_query_tokens, s.max_answer_tokens],
        "dev": file_sha256(cfg.data.dev),
        "dev_limit": cfg.data.dev_limit,
    }


def _load(model: str):
    """The QA model and its tokenizer, or a BuildFailed that says what is wrong with ``model``."""
    try:
        tokenizer_json = hf.tokenizer_json(model, as_transformers_loads_it=True)
        qa = hf.load_qa_model(model, require_head=True)
    except (OSError, ValueError, KeyError) as e:  # transformers' messages name the missing file or type
        raise BuildFailed(f"given: cannot load a question-answering model and fast tokenizer from "
                          f"{model!r}: {str(e).splitlines()[0][:300]}") from None
    return qa, tokenizer_json


def check_pair_encoding(model: str, tok: QATokenizer, spec, dev, samples: int = 20) -> int:
    """The windows the function builds equal the model's own tokenizer's pair encoding, on dev questions.

    The function tokenises passages alone, ahead of time, and joins them to the question by the pair
    layout read from the tokenizer; a tokenizer whose pair encoding is not that join (a pre-tokenizer
    that looks across the pair, Python-side special tokens) would be served wrong inputs. Returns the
    number of pairs compared (0 when transformers cannot load the tokenizer on its own).
    """
    from transformers import AutoTokenizer

    try:
        hf_tok = AutoTokenizer.from_pretrained(model, use_fast=True)
    except (OSError, ValueError) as e:
        print(f"given: the pair encoding was not compared with transformers' ({str(e).splitlines()[0][:120]})")
        return 0
    questions = dev.questions[:samples]
    for q in questions:
        context = dev.paragraphs[q.paragraph_id].context
        q_ids = tok.encode(q.question).ids.tolist()
        p_ids = tok.encode(context).ids.tolist()
        ours = [spec.cls_id, *q_ids, *[spec.sep_id] * spec.pair_seps, *p_ids, spec.sep_id]
        encoded = hf_tok(q.question, context, return_offsets_mapping=True)
        theirs = encoded["input_ids"]
        passage_offsets = [tuple(o) for o, s in zip(encoded["offset_mapping"], encoded.sequence_ids()) if s == 1]
        if ours == theirs and passage_offsets != [tuple(o) for o in tok.encode(context).offsets.tolist()]:
            raise BuildFailed(f"given: {model!r}'s tokenizer gives the passage of question {q.id!r} other "
                              f"character offsets in the pair than alone; it cannot be served as is")
        if ours != theirs:
            first = next(i for i, (a, b) in enumerate(zip(ours + [None], theirs + [None])) if a != b)
            raise BuildFailed(
                f"given: {model!r}'s tokenizer encodes the pair (question {q.id!r}, its paragraph) differently "
                f"from the function's windows, first at position {first}: transformers "
                f"{hf_tok.convert_ids_to_tokens(theirs[max(0, first - 2): first + 3])}, the function "
                f"{hf_tok.convert_ids_to_tokens(ours[max(0, first - 2): first + 3])}; it cannot be served as is")
    return len(questions)


def run(cfg: BuildConfig, force: bool = False) -> dict:
    out = stage_dir(cfg)
    inputs = stage_inputs(cfg)
    if not force and (record := fresh_record(out, inputs)):
        print(f"given: inputs unchanged, skipped ({out})")
        return record

    import torch

    model, tokenizer_json = _load(cfg.given.model)
    folder = model_dir(cfg)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tokenizer.json").write_text(tokenizer_json, encoding="utf-8")
    tok = QATokenizer(folder / "tokenizer.json")
    try:
        spec = serving_spec(cfg, tok)
    except ValueError as e:  # a pair layout this function cannot build windows for
        raise BuildFailed(f"given: {cfg.given.model!r}: {e}") from None
    dev = load_squad(cfg.data.dev, cfg.data.dev_limit or None)
    compared = check_pair_encoding(cfg.given.model, tok, spec, dev)
    model.eval()
    with torch.inference_mode():
        scores = evaluate(dev, tok, spec, torch_infer(model), max_answer_tokens=cfg.sequence.max_answer_tokens)
    model.save_pretrained(folder)
    config = model.config
    result = {
        "model": cfg.given.model,
        "architecture": config.model_type,
        "parameters": sum(p.numel() for p in model.parameters()),
        "layout": {"pair_seps": spec.pair_seps, "cls": spec.cls_id, "sep": spec.sep_id, "pad": spec.pad_id,
                   "lowercase": tok.lowercase, "pairs_compared_with_transformers": compared},
        "dev": scores,
    }
    print(f"given: {cfg.given.model} ({config.model_type}, {result['parameters'] / 1e6:.1f} M parameters): "
          f"dev EM {scores['exact_match']:.2f} F1 {scores['f1']:.2f} in PyTorch")
    return save_record(out, inputs, result)
