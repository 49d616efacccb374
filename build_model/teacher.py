"""Stage 1, teacher: take a QA model as given, or fine-tune an encoder on SQuAD-format data."""

from __future__ import annotations

from pathlib import Path

from build_model import hf
from build_model.config import BuildConfig
from build_model.evaluate import evaluate, torch_infer
from build_model.features import build_features
from build_model.squad import load_squad
from build_model.stages import file_sha256, fresh_record, save_record, source_fingerprint
from build_model.train import TrainSettings, train
from build_model.specs import serving_spec, training_spec
from function.tokenizer import QATokenizer


def stage_dir(cfg: BuildConfig) -> Path:
    return Path(cfg.work_dir) / "teacher"


def run(cfg: BuildConfig, force: bool = False) -> dict:
    out = stage_dir(cfg)
    inputs = {
        "config": cfg.section_hash("data", "teacher", "sequence"),
        "model": source_fingerprint(cfg.teacher.model),
        "train": file_sha256(cfg.data.train),
        "dev": file_sha256(cfg.data.dev),
    }
    if not force and (record := fresh_record(out, inputs)):
        print(f"teacher: inputs unchanged, skipped ({out})")
        return record

    import torch

    tc = cfg.teacher
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
        split = load_squad(cfg.data.train, tc.train_limit or None)
        features = build_features(tok, split, training_spec(cfg, tok, tc))
        settings = TrainSettings(
            epochs=tc.epochs, batch_size=tc.batch_size, learning_rate=tc.learning_rate,
            warmup_ratio=tc.warmup_ratio, weight_decay=tc.weight_decay, seed=tc.seed,
            threads=cfg.threads,
        )
        result["training"] = train(model, features, settings, out, serve.pad_id, on_epoch_end=dev_scores)
        final = result["training"]["history"][-1]
        result["dev"] = {k: final[k] for k in ("exact_match", "f1", "questions")}
    else:
        model.eval()
        with torch.inference_mode():
            result["dev"] = dev_scores(model, 0)
    model.save_pretrained(out / "model")
    (out / "checkpoint.pt").unlink(missing_ok=True)
    print(f"teacher: dev EM {result['dev']['exact_match']:.2f} F1 {result['dev']['f1']:.2f}")
    return save_record(out, inputs, result)
