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

``training_set``, ``soft_targets`` and ``dev_scorer`` are the stage's training
features, targets and dev scores (tests/test_distil_targets.py checks them).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

from build_model import hf
from build_model.config import BuildConfig, Training
from build_model.errors import BuildFailed, StudentError
from build_model.evaluation.evaluate import Infer, evaluate, torch_infer
from build_model.evaluation.squad2 import evaluate_v2
from build_model.specs import serving_spec, training_spec
from build_model.squad import SquadSplit, load_squad
from build_model.stage_record import (
    clear_checkpoint,
    file_sha256,
    fresh_checkpoint,
    fresh_record,
    inputs_hash,
    load_record,
    save_record,
    source_fingerprint,
)
from build_model.stages import teacher
from build_model.training import align, kd
from build_model.training.features import Feature, build_features
from build_model.training.loop import train
from build_model.training.negatives import distractor_pairs, unanswerable_pairs
from build_model.training.student import check_same_tokenizer, derive_student, parameters, trainable
from function.model.tokenizer import QATokenizer
from function.model.windows import WindowSpec

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


class NotCached(BuildFailed):
    """Soft targets the cache lacks, where computing them was refused (``soft_targets(compute=False)``)."""


def _loader(model_dir: Path, name: str, cfg: BuildConfig, compute: bool = True):
    """Loads the model once, when a logit it has not cached is needed (``compute``; else refuses to)."""
    @functools.cache
    def load():
        if not compute:
            raise NotCached(f"the {name}'s logits for these features are not all in {logits_dir(cfg)}")
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


def teacher_batch(tr: Training) -> int:
    """The batch of the teachers' passes and of the held-out KD measure: inference only, so twice training's."""
    return max(8, 2 * tr.batch_size)


class TrainingSet(NamedTuple):
    """What the stage trains on; another model trained on the same terms takes it from ``training_set``."""

    split: SquadSplit
    features: list[Feature]  # each question with its paragraph, and with ``augment_pairs`` others of its article
    unanswerable: list[Feature]  # paragraphs of other articles (``unanswerable``), trained to [CLS]
    augmented: int  # the augmented question/paragraph pairs (what ``features`` holds beyond the questions' own)


def training_set(cfg: BuildConfig, tok: QATokenizer, tr: Training) -> TrainingSet:
    """The stage's training features on ``tok``'s windows (``tr``: its window size, stride, limit and seed)."""
    spec = training_spec(cfg, tok, tr)
    split = load_squad(cfg.data.train, tr.train_limit or None)
    pairs = augment_pairs(split, cfg.student.augment_pairs, tr.seed)
    features = build_features(tok, split, spec, pairs=pairs)
    absent = build_features(tok, split, spec, pairs=unanswerable_pairs(split, cfg.student.unanswerable, tr.seed),
                            unanswerable=True)
    return TrainingSet(split, features, absent, len(pairs) - len(split.questions))


def extra_features(cfg: BuildConfig, tok: QATokenizer, tr: Training) -> tuple[list[Feature], dict]:
    """``[student] extra_train``'s features (questions about documentation) on ``tok``'s training windows, and
    their counts: answerable questions with their passage, unanswerable ones (``is_impossible``) trained to
    [CLS], then (``extra_distractors``) passages of an answerable question's own package that do not hold its
    answer, without labels (``gold`` False: no loss of their own; ``shared_norm`` reads them beside its
    passage). They have no teacher logits (the teacher's cover SQuAD): the gold labels are their only target."""
    sc = cfg.student
    if not sc.extra_train:
        return [], {}
    if not Path(sc.extra_train).is_file():
        raise BuildFailed(f"distil: [student] extra_train {sc.extra_train} is missing: make it with "
                          "`python -m build_model.docdata` (docs/build.md), or set student.extra_train=''")
    split = load_squad(sc.extra_train, impossible=True)
    spec = training_spec(cfg, tok, tr)
    chosen = range(len(split.questions))
    if sc.extra_limit and sc.extra_limit < len(split.questions):  # a seeded sample: every package keeps its share
        chosen = sorted(np.random.default_rng(tr.seed).choice(len(split.questions), sc.extra_limit, replace=False))
    answerable = [(i, split.questions[i].paragraph_id) for i in chosen if split.questions[i].answers]
    impossible = [(i, split.questions[i].paragraph_id) for i in chosen if not split.questions[i].answers]
    features = build_features(tok, split, spec, pairs=answerable)
    features += build_features(tok, split, spec, pairs=impossible, unanswerable=True)
    counts = {"file": Path(sc.extra_train).name, "sha256": file_sha256(sc.extra_train),
              "answerable": len(answerable), "unanswerable": len(impossible), "features": len(features)}
    if sc.extra_distractors:
        pairs = distractor_pairs(split, [i for i, _ in answerable], sc.extra_distractors, tr.seed)
        distractors = build_features(tok, split, spec, pairs=pairs)
        features += distractors
        counts.update(distractors=len(pairs), distractor_features=len(distractors))
    return features, counts


def extra_groups(extra: list[Feature], offset: int) -> np.ndarray:
    """``shared_norm``'s question keys of ``extra_features``: an answerable documentation question's windows
    (its passage's and its distractors') share ``offset`` + its index; an unanswerable one's stand alone (-1)."""
    answerable = {f.question_index for f in extra if f.gold and f.start > 0}
    return np.asarray([offset + f.question_index if f.question_index in answerable else -1 for f in extra],
                      dtype=np.int64)


class SoftTargets(NamedTuple):
    """The stage's distillation targets (``soft_targets``), with what its record keeps of their caches."""

    logits: kd.Logits  # per feature of the training set
    held_out: kd.Logits | None  # per held-out feature, when asked for
    caches: dict[str, dict]  # per teacher ("teacher", "base"): its cache file, key and whether it was there


def _teacher_logits(cfg: BuildConfig, name: str, sets: list[tuple[str, SquadSplit, list[Feature]]],
                    student_tok: QATokenizer, batch: int, compute: bool, log) -> list[tuple[kd.Logits, dict]]:
    """``name``'s logits on the student's windows of each set (cache suffix, split, features), carried onto
    the student's tokens and cached; the model is loaded once, only for what the cache lacks."""
    model_dir = teacher_model_dir(cfg, name)
    tok = QATokenizer(model_dir / "tokenizer.json")
    pad_id = tok.pair_layout()["pad_id"]
    q = cfg.sequence.max_query_tokens
    load = _loader(model_dir, name, cfg, compute)
    key = model_fingerprint(cfg, name)
    found = []
    try:
        for suffix, split, features in sets:
            prefix = logits_dir(cfg) / f"{name}{suffix}"
            try:
                windows = align.teacher_windows(features, split, student_tok, tok, q)
                found.append(kd.cached_teacher_logits(prefix, key, load, windows, pad_id, batch, log=log))
            finally:
                for parts in prefix.parent.glob(f"{prefix.name}-*.parts"):
                    if parts.is_dir() and not any(parts.iterdir()):
                        parts.rmdir()  # a refused cache probe leaves nothing behind
    finally:
        load.cache_clear()  # the teacher's memory is not needed while the student trains
    return found


def soft_targets(cfg: BuildConfig, tok: QATokenizer, tr: Training, split: SquadSplit, features: list[Feature],
                 held_out: tuple[SquadSplit, list[Feature]] | None = None, compute: bool = True,
                 log=print) -> SoftTargets:
    """The stage's distillation targets for ``features`` (and ``held_out``'s): the teacher's cached logits,
    mixed with ``[base]``'s by ``base_weight`` at ``tr.temperature``. ``compute``: load a teacher for what
    its cache lacks; False raises ``NotCached`` instead."""
    sets = [("", split, features)] + ([("-held-out", *held_out)] if held_out is not None else [])
    names = ["teacher", "base"] if cfg.student.base_weight else ["teacher"]
    found = {name: _teacher_logits(cfg, name, sets, tok, teacher_batch(tr), compute, log) for name in names}
    mixed = [logits for logits, _ in found["teacher"]]
    if cfg.student.base_weight:
        w = 1.0 - cfg.student.base_weight
        mixed = [kd.ensemble(a, b, w, tr.temperature) for a, (b, _) in zip(mixed, found["base"])]
    return SoftTargets(mixed[0], mixed[1] if held_out is not None else None,
                       {name: runs[0][1] for name, runs in found.items()})


def dev_scorer(cfg: BuildConfig, dev: SquadSplit, tok: QATokenizer, spec: WindowSpec) -> Callable[[Infer], dict]:
    """The stage's dev scores of an ``Infer``: v1 EM/F1, and when it trains unanswerable pairs (and the dev
    set has two articles to pair across), how well it abstains on each question asked again against another
    article's paragraph."""
    n = cfg.sequence.max_answer_tokens

    def scores(infer: Infer) -> dict:
        if not cfg.student.unanswerable or len({dev.article_of(p) for p in dev.paragraphs}) < 2:
            return evaluate(dev, tok, spec, infer, max_answer_tokens=n)
        v2 = evaluate_v2(dev, tok, spec, infer, max_answer_tokens=n)
        best = v2["v2"]["at_best_f1"]
        return {**v2["v1"], "no_answer": {"threshold": v2["threshold"], "f1": v2["v2"]["best_f1"],
                                          **{k: best[k] for k in ("HasAns_f1", "NoAns_f1")}}}

    return scores


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
    if sc.extra_train and Path(sc.extra_train).is_file():
        inputs["extra_train"] = file_sha256(sc.extra_train)
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
    data = training_set(cfg, tok, tr)
    features, absent = data.features, data.unanswerable
    extra, extra_counts = extra_features(cfg, tok, tr)
    dev = load_squad(cfg.data.dev, cfg.data.dev_limit or None)
    held = build_features(tok, dev, training_spec(cfg, tok, tr))[:HELD_OUT_FEATURES]

    out.mkdir(parents=True, exist_ok=True)
    log_path = out / "distil.log.jsonl"

    def log(line: str) -> None:
        print(line, flush=True)
        with log_path.open("a") as f:
            f.write(line + "\n")

    batch = teacher_batch(tr)
    targets = soft_targets(cfg, tok, tr, data.split, features, held_out=(dev, held), log=log)
    held_logits, caches = targets.held_out, targets.caches
    logits = targets.logits + [None] * (len(absent) + len(extra))  # no teacher target: the gold labels
    del targets
    model = trainable(student)
    scores = dev_scorer(cfg, dev, tok, serve)

    def dev_scores(m, _epoch) -> dict:
        return scores(torch_infer(m))

    kd_before = kd.mean_kd(model, held, held_logits, serve.pad_id, tr.temperature, batch)
    fresh_checkpoint(out, inputs_hash(inputs), force)
    # a SQuAD question's windows (its paragraph's, the augmented pairs', the unanswerable ones') share a key for
    # ``shared_norm``; a documentation question's only with its distractors (``extra_distractors``), keyed apart
    groups = np.concatenate([np.asarray([f.question_index for f in features + absent], dtype=np.int64),
                             extra_groups(extra, len(data.split.questions)) if sc.extra_distractors
                             else np.full(len(extra), -1, dtype=np.int64)]) if sc.shared_norm else None
    training = train(model, features + absent + extra, tr, out, serve.pad_id, teacher_logits=logits,
                     on_epoch_end=dev_scores, threads=cfg.threads, groups=groups, shared_norm=sc.shared_norm)
    kd_after = kd.mean_kd(model, held, held_logits, serve.pad_id, tr.temperature, batch)

    student.save_pretrained(out / "model")
    (out / "model" / "tokenizer.json").write_text(tok_json, encoding="utf-8")
    clear_checkpoint(out)
    final = training["history"][-1]
    result = {
        **origin,
        "parameters": parameters(student),
        "layers": student.config.num_hidden_layers,
        "features": {"total": len(features) + len(absent) + len(extra), "gold": sum(f.gold for f in features),
                     "augmented_pairs": data.augmented, "unanswerable": len(absent)},
        **({"extra_train": extra_counts} if extra_counts else {}),
        "teacher_logits": caches,
        "base_weight": sc.base_weight,
        "kd_held_out": {"features": len(held), "before": round(kd_before, 4), "after": round(kd_after, 4)},
        "training": training,
        "dev": {k: final[k] for k in ("exact_match", "f1", "questions")},
    }
    print(f"distil: dev EM {result['dev']['exact_match']:.2f} F1 {result['dev']['f1']:.2f}, "
          f"held-out KD {kd_before:.3f} -> {kd_after:.3f}")
    return save_record(out, inputs, result)
