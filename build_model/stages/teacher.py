"""Stage 1, teacher: take a QA model as given, or fine-tune an encoder on SQuAD-format data.

The same code fine-tunes ``[base]`` (``build_model.stages.base``), the smaller encoder
the student's layers are cut from. The teacher tokenizes with its own tokenizer and pair layout (``<s> q </s></s> p
</s>`` for MPNet); ``build_model.training.kd`` maps its distributions onto the student's
tokens. The stage's inputs are the values that decide the trained weights (the
encoder's files, the data, the training settings and windows), not the shape of
the configuration file, so reorganising the configuration does not retrain.
"""

from __future__ import annotations

from pathlib import Path

from build_model import fetch, hf
from build_model.config import BuildConfig
from build_model.evaluation.evaluate import evaluate, torch_infer
from build_model.specs import serving_spec, training_spec
from build_model.squad import load_squad
from build_model.stage_record import (
    clear_checkpoint,
    file_sha256,
    fresh_checkpoint,
    fresh_record,
    inputs_hash,
    save_record,
    source_fingerprint,
)
from build_model.training.features import build_features
from build_model.training.loop import train
from build_model.training.student import trainable
from function.model.tokenizer import QATokenizer


def stage_dir(cfg: BuildConfig, name: str = "teacher") -> Path:
    return Path(cfg.work_dir) / name


def stage_inputs(cfg: BuildConfig, name: str = "teacher") -> dict:
    tc, s = getattr(cfg, name), cfg.sequence
    tr = tc.training
    training = {k: getattr(tr, k) for k in ("epochs", "batch_size", "learning_rate", "warmup_ratio",
                                             "weight_decay", "seed")}
    return {
        "model": source_fingerprint(tc.model),
        "fine_tune": tc.fine_tune,
        "training": training if tc.fine_tune else None,
        "train_windows": [tr.train_seq_len, tr.train_stride, s.max_query_tokens] if tc.fine_tune else None,
        "train_limit": tr.train_limit if tc.fine_tune else None,
        "serve_windows": [s.max_seq_len, s.stride, s.max_query_tokens, s.max_answer_tokens],
        "train": file_sha256(cfg.data.train) if tc.fine_tune else None,
        "dev": file_sha256(cfg.data.dev),
        "dev_limit": cfg.data.dev_limit,
    }


def run(cfg: BuildConfig, force: bool = False) -> dict:
    return fine_tune(cfg, "teacher", force)


def fine_tune(cfg: BuildConfig, name: str, force: bool = False) -> dict:
    """Fine-tune (or evaluate as given) the model of section ``name`` into ``<work_dir>/<name>/model``."""
    out = stage_dir(cfg, name)
    tc = getattr(cfg, name)
    if tc.fetch:
        fetch.ensure(tc.fetch, tc.model)
    inputs = stage_inputs(cfg, name)
    if not force and (record := fresh_record(out, inputs)):
        print(f"{name}: inputs unchanged, skipped ({out})")
        return record

    import torch

    (out / "model").mkdir(parents=True, exist_ok=True)
    tok_path = out / "model" / "tokenizer.json"
    tok_path.write_text(hf.tokenizer_json(tc.model), encoding="utf-8")
    tok = QATokenizer(tok_path)
    model = hf.load_qa_model(tc.model)
    dev = load_squad(cfg.data.dev, cfg.data.dev_limit or None)
    serve = serving_spec(cfg, tok)

    def dev_scores(m, _epoch) -> dict:
        return evaluate(dev, tok, serve, torch_infer(m), max_answer_tokens=cfg.sequence.max_answer_tokens)

    result: dict = {"model": tc.model, "parameters": sum(p.numel() for p in model.parameters())}
    if tc.fine_tune:
        split = load_squad(cfg.data.train, tc.training.train_limit or None)
        features = build_features(tok, split, training_spec(cfg, tok, tc.training))
        fresh_checkpoint(out, inputs_hash(inputs), force)
        result["training"] = train(trainable(model), features, tc.training, out, serve.pad_id,
                                   on_epoch_end=lambda _m, epoch: dev_scores(model, epoch), threads=cfg.threads)
        final = result["training"]["history"][-1]
        result["dev"] = {k: final[k] for k in ("exact_match", "f1", "questions")}
    else:
        model.eval()
        with torch.inference_mode():
            result["dev"] = dev_scores(model, 0)
    model.save_pretrained(out / "model")
    # what the students' cached logits are keyed by: kept so that they stay usable if the weights are lost
    result["fingerprint"] = source_fingerprint(str(out / "model"))
    clear_checkpoint(out)
    print(f"{name}: dev EM {result['dev']['exact_match']:.2f} F1 {result['dev']['f1']:.2f}")
    return save_record(out, inputs, result)
