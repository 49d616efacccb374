"""Stage 3, distil: train a smaller student on the teacher's soft targets.

The student is ``[student] model`` when given (it must tokenize exactly as
``[base]``, or the teacher without one, does), else a copy of ``keep_layers``
of the fine-tuned ``[base]`` (or of the teacher). The teacher may tokenize
differently: it reads its own window over the same characters and its
distributions are carried onto the student's tokens (``build_model.training.align``).
Its logits for every training feature are computed once and cached in
``<work_dir>/teacher_logits`` (``build_model.training.kd``), shared by students of any
depth. ``base_weight`` mixes ``[base]``'s distributions into the target (an
ensemble of two teachers). ``augment_pairs = k`` adds, for each
training question, k other paragraphs of the same article: the question has
no gold answer there, and the student learns the teacher's soft "not here"
(DistilBERT's SQuAD recipe uses the teacher the same way). ``unanswerable = k``
adds k paragraphs of other articles that BM25 ranks high for the question
(``build_model.training.negatives``), trained to [CLS] without a teacher
target: the model learns to say "no answer" to the passages that retrieval
serves a question the corpus cannot answer.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from pathlib import Path

import numpy as np

from build_model import hf
from build_model.config import BuildConfig
from build_model.errors import BuildFailed, StudentError
from build_model.evaluation.evaluate import evaluate, torch_infer
from build_model.evaluation.squad2 import evaluate_v2
from build_model.records import (
    clear_checkpoint,
    file_sha256,
    fresh_checkpoint,
    fresh_record,
    inputs_hash,
    load_record,
    save_record,
    source_fingerprint,
)
from build_model.specs import serving_spec, training_spec
from build_model.squad import SquadSplit, load_squad
from build_model.stages import teacher
from build_model.training import align, kd
from build_model.training.features import build_features
from build_model.training.loop import train
from build_model.training.negatives import unanswerable_pairs
from build_model.training.student import check_same_tokenizer, derive_student, parameters, trainable
from function.model.tokenizer import QATokenizer

HELD_OUT_FEATURES = 128  # dev features on which the KD divergence is measured before and after


def stage_dir(cfg: BuildConfig) -> Path:
    return Path(cfg.work_dir) / "distil"


def augment_pairs(split: SquadSplit, k: int, seed: int) -> list[tuple[int, str]]:
    """Each question with its own paragraph, plus up to ``k`` other paragraphs of its article (seeded)."""
    rng = np.random.default_rng(seed)
    by_article: dict[str, list[str]] = defaultdict(list)
    for pid in split.paragraphs:
        by_article[split.article_of(pid)].append(pid)
    pairs = [(i, q.paragraph_id) for i, q in enumerate(split.questions)]
    for i, q in enumerate(split.questions):
        others = [p for p in by_article[split.article_of(q.paragraph_id)] if p != q.paragraph_id]
        if k and others:
            picked = rng.choice(len(others), size=min(k, len(others)), replace=False)
            pairs.extend((i, others[j]) for j in sorted(picked))
    return pairs


def teacher_model_dir(cfg: BuildConfig, name: str = "teacher") -> Path:
    path = teacher.stage_dir(cfg, name) / "model"
    if not (teacher.stage_dir(cfg, name) / "stage.json").is_file() or not (path / "config.json").is_file():
        raise BuildFailed(f"distil needs the {name} stage's model in {path}: run --stage {name} first")
    return path


def _has_weights(model_dir: Path) -> bool:
    return any(model_dir.glob("*.safetensors")) or any(model_dir.glob("*.bin"))


def model_fingerprint(cfg: BuildConfig, name: str = "teacher") -> str:
    """The fingerprint of the ``name`` stage's model, which its cached logits are keyed by: of its files, or,
    when its weights are gone (a lost machine; the record, config and tokenizer kept), the one its record keeps."""
    path = teacher_model_dir(cfg, name)
    if _has_weights(path):
        return source_fingerprint(str(path))
    recorded = (load_record(teacher.stage_dir(cfg, name)) or {}).get("fingerprint")
    if not recorded:
        raise BuildFailed(f"distil: the {name} stage's weights are missing from {path} and its record keeps no "
                          f"fingerprint to find its cached logits by: run --stage {name} --force")
    return recorded


def _loader(model_dir: Path, name: str, cfg: BuildConfig):
    """Loads the model once, when a logit it has not cached is needed."""
    @functools.cache
    def load():
        if not _has_weights(model_dir):
            raise BuildFailed(f"distil: the {name}'s logits for these features are not all in {logits_dir(cfg)} "
                              f"and its weights are gone from {model_dir}: restore the cached logits, or retrain "
                              f"it (--stage {name} --force)")
        return _fastest_device(hf.load_qa_model(str(model_dir)).eval())
    return load


def logits_dir(cfg: BuildConfig) -> Path:
    """Teacher logits, shared by every student distilled from the same teacher and features."""
    return Path(cfg.work_dir) / "teacher_logits"


def _fastest_device(model):
    """The teacher's one pass over the training set runs on a GPU when there is one."""
    import torch

    return model.to("cuda") if torch.cuda.is_available() else model


def _soft_targets(cfg: BuildConfig, name: str, features, split, features_held_out, student_tok: QATokenizer,
                  batch: int, log) -> tuple[list, list, dict]:
    """``name``'s logits on the student's windows of ``features`` and of the held-out dev features,
    each carried onto the student's tokens and cached (the teacher is loaded only for what is not)."""
    model_dir = teacher_model_dir(cfg, name)
    tok = QATokenizer(model_dir / "tokenizer.json")
    pad_id = tok.pair_layout()["pad_id"]
    q = cfg.sequence.max_query_tokens
    load = _loader(model_dir, name, cfg)
    windows = align.teacher_windows(features, split, student_tok, tok, q)
    key = model_fingerprint(cfg, name)
    logits, cache = kd.cached_teacher_logits(logits_dir(cfg) / name, key, load, windows, pad_id, batch, log=log)
    dev, held = features_held_out
    held_logits, _ = kd.cached_teacher_logits(logits_dir(cfg) / f"{name}-held-out", key, load,
                                              align.teacher_windows(held, dev, student_tok, tok, q), pad_id, batch,
                                              log=log)
    load.cache_clear()  # the teacher's memory is not needed while the student trains
    return logits, held_logits, cache


def run(cfg: BuildConfig, force: bool = False) -> dict:
    out = stage_dir(cfg)
    sc = cfg.student
    source = "base" if cfg.base is not None else "teacher"
    source_dir = teacher_model_dir(cfg, source)
    inputs = {
        "config": cfg.section_hash("data", "student", "sequence"),
        "teacher": model_fingerprint(cfg),
        "base": source_fingerprint(str(source_dir)) if cfg.base is not None else None,
        "student_model": source_fingerprint(sc.model) if sc.model else None,
        "train": file_sha256(cfg.data.train),
        "dev": file_sha256(cfg.data.dev),
    }
    if not force and (record := fresh_record(out, inputs)):
        print(f"distil: inputs unchanged, skipped ({out})")
        return record

    tok_json = hf.tokenizer_json(str(source_dir))
    tok = QATokenizer(source_dir / "tokenizer.json")
    try:
        if sc.model:
            check_same_tokenizer(sc.model, tok.fingerprint)
            student = hf.load_qa_model(sc.model)
            origin = {"model": sc.model}
        else:
            if not _has_weights(source_dir):
                raise BuildFailed(f"distil: the student is cut from the {source}'s layers, and its weights are gone "
                                  f"from {source_dir}: run --stage {source} --force")
            student = derive_student(hf.load_qa_model(str(source_dir)), sc.keep_layers, sc.intermediate_size)
            origin = {"model": f"{source} layers", "keep_layers": list(sc.keep_layers)}
            if sc.intermediate_size:
                origin["intermediate_size"] = sc.intermediate_size
    except StudentError as e:
        raise BuildFailed(f"distil: {e}") from None
    serve = serving_spec(cfg, tok)
    tr = sc.training
    spec = training_spec(cfg, tok, tr)
    split = load_squad(cfg.data.train, tr.train_limit or None)
    pairs = augment_pairs(split, sc.augment_pairs, tr.seed)
    features = build_features(tok, split, spec, pairs=pairs)
    absent = build_features(tok, split, spec, pairs=unanswerable_pairs(split, sc.unanswerable, tr.seed),
                            unanswerable=True)
    dev = load_squad(cfg.data.dev, cfg.data.dev_limit or None)
    held = build_features(tok, dev, spec)[:HELD_OUT_FEATURES]

    out.mkdir(parents=True, exist_ok=True)
    log_path = out / "distil.log.jsonl"

    def log(line: str) -> None:
        print(line, flush=True)
        with log_path.open("a") as f:
            f.write(line + "\n")

    batch = max(8, 2 * tr.batch_size)
    soft = {name: _soft_targets(cfg, name, features, split, (dev, held), tok, batch, log)
            for name in (["teacher", "base"] if sc.base_weight else ["teacher"])}
    logits, held_logits, cache = soft["teacher"]
    caches = {"teacher": cache}
    if sc.base_weight:
        w = 1.0 - sc.base_weight
        logits = kd.ensemble(logits, soft["base"][0], w, tr.temperature)
        held_logits = kd.ensemble(held_logits, soft["base"][1], w, tr.temperature)
        caches["base"] = soft["base"][2]
    del soft
    logits = logits + [None] * len(absent)  # no teacher target: [CLS] is the label
    model = trainable(student)

    def dev_scores(m, _epoch) -> dict:
        if not sc.unanswerable or len({dev.article_of(p) for p in dev.paragraphs}) < 2:
            return evaluate(dev, tok, serve, torch_infer(m), max_answer_tokens=cfg.sequence.max_answer_tokens)
        # trained to abstain: how well, on each dev question asked again against another article's paragraph
        v2 = evaluate_v2(dev, tok, serve, torch_infer(m), max_answer_tokens=cfg.sequence.max_answer_tokens)
        best = v2["v2"]["at_best_f1"]
        return {**v2["v1"], "no_answer": {"threshold": v2["threshold"], "f1": v2["v2"]["best_f1"],
                                          **{k: best[k] for k in ("HasAns_f1", "NoAns_f1")}}}

    kd_before = kd.mean_kd(model, held, held_logits, serve.pad_id, tr.temperature, batch)
    fresh_checkpoint(out, inputs_hash(inputs), force)
    training = train(model, features + absent, tr, out, serve.pad_id, teacher_logits=logits,
                     on_epoch_end=dev_scores, threads=cfg.threads)
    kd_after = kd.mean_kd(model, held, held_logits, serve.pad_id, tr.temperature, batch)

    student.save_pretrained(out / "model")
    (out / "model" / "tokenizer.json").write_text(tok_json, encoding="utf-8")
    clear_checkpoint(out)
    final = training["history"][-1]
    result = {
        **origin,
        "parameters": parameters(student),
        "layers": student.config.num_hidden_layers,
        "features": {"total": len(features) + len(absent), "gold": sum(f.gold for f in features),
                     "augmented_pairs": len(pairs) - len(split.questions), "unanswerable": len(absent)},
        "teacher_logits": caches,
        "base_weight": sc.base_weight,
        "kd_held_out": {"features": len(held), "before": round(kd_before, 4), "after": round(kd_after, 4)},
        "training": training,
        "dev": {k: final[k] for k in ("exact_match", "f1", "questions")},
    }
    print(f"distil: dev EM {result['dev']['exact_match']:.2f} F1 {result['dev']['f1']:.2f}, "
          f"held-out KD {kd_before:.3f} -> {kd_after:.3f}")
    return save_record(out, inputs, result)
