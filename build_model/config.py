"""Build configuration: one validated, frozen dataclass per stage, read from TOML.

Paths in the file are relative to the file's own folder. A model is a local
folder or a model-hub id (``bert-large-uncased-whole-word-masking-finetuned-squad``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path


class ConfigError(ValueError):
    """The configuration file is missing a value, has an unknown one, or a bad one."""


# Metadata of a setting added after builds were made without it: hashed only when it differs from its default.
HASHED_WHEN_SET = {"hashed_when_set": True}


@dataclass(frozen=True)
class DataConfig:
    dev: str
    train: str = ""  # not read when the model is taken as given ([given])
    dev_limit: int = 0  # evaluate on the first N dev questions only (0: all)


@dataclass(frozen=True)
class SequenceConfig:
    """What the function serves with; recorded in the manifest."""

    max_seq_len: int = 384
    stride: int = 128
    max_query_tokens: int = 64
    max_answer_tokens: int = 30


@dataclass(frozen=True)
class Training:
    """How one model is trained: the teacher, [base] and the student each have one.

    In the TOML file these keys sit directly in the model's section
    (``[teacher] epochs = 2``); ``temperature`` and ``alpha`` apply to distillation only.
    """

    train_seq_len: int = 256
    train_stride: int = 96
    train_limit: int = 0  # first N training questions only (0: all); for quick runs
    epochs: float = 3.0
    batch_size: int = 32
    learning_rate: float = 1e-4
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    seed: int = 42
    temperature: float = 2.0  # distillation: softmax temperature of both distributions
    alpha: float = 0.5  # distillation: weight of the soft-target term where a gold answer exists


@dataclass(frozen=True)
class TeacherConfig:
    """The teacher, or [base]: a model fine-tuned on SQuAD (or a QA model taken as given)."""

    model: str
    fetch: str = ""  # a pinned encoder of build_model.fetch, fetched into ``model`` when not there
    fine_tune: bool = True  # False: ``model`` is already a QA model, take it as given
    training: Training = field(default_factory=Training)


@dataclass(frozen=True)
class GivenConfig:
    """A QA model taken as given (a hub id or a local folder): exported, quantised and packaged, not trained."""

    model: str


@dataclass(frozen=True)
class StudentConfig:
    model: str = ""  # a given checkpoint; empty: keep layers of [base] (or of the teacher without one)
    keep_layers: tuple[int, ...] = (0, 2, 4)
    augment_pairs: int = 0  # extra (question, other paragraph of its article) pairs per question
    base_weight: float = 0.0  # weight of [base]'s distributions mixed with the teacher's (an ensemble teacher)
    # narrow the kept layers' feed-forward blocks to this many units (0: keep them)
    intermediate_size: int = field(default=0, metadata=HASHED_WHEN_SET)
    # unanswerable pairs per question: paragraphs of other articles that BM25 ranks high, target [CLS]
    unanswerable: int = field(default=0, metadata=HASHED_WHEN_SET)
    # questions about documentation (SQuAD 2.0 layout, ``python -m build_model.docdata``) trained on their gold
    # labels beside SQuAD: the teacher's logits cover SQuAD only; ``is_impossible`` ones are trained to [CLS]
    extra_train: str = field(default="", metadata=HASHED_WHEN_SET)
    extra_limit: int = field(default=0, metadata=HASHED_WHEN_SET)  # a seeded sample of N of them (0: all)
    # weight of a shared-normalisation term (Clark & Gardner 2018): one softmax over the passage tokens of all
    # of a question's windows (its paragraph's, the augmented pairs', the unanswerable ones'), so that span
    # scores of different passages compare, as answering a question alone over five passages needs; 0: off
    shared_norm: float = field(default=0.0, metadata=HASHED_WHEN_SET)
    # per answerable documentation question, this many passages of its own package that BM25 ranks high and
    # that do not hold its answer, read beside its own under ``shared_norm``'s softmax (no loss of their own):
    # asked alone, a documentation question reads such passages, and its spans there must score below its answer
    extra_distractors: int = field(default=0, metadata=HASHED_WHEN_SET)
    training: Training = field(default_factory=Training)


@dataclass(frozen=True)
class ExportConfig:
    opset: int = 17
    atol: float = 1e-3  # max |logit difference| allowed between PyTorch and ONNX
    optimize: bool = True  # ONNX Runtime transformer optimizer (attention / layer-norm fusion)
    parity_windows: int = 64  # real dev windows compared


@dataclass(frozen=True)
class QuantizeConfig:
    per_channel: tuple[bool, ...] = (False, True)  # candidates tried
    op_types: tuple[tuple[str, ...], ...] = (("MatMul", "Gather"), ("MatMul", "Gather", "Attention"))
    max_f1_drop: float = 1.5  # the build fails if int8 loses more F1 than this vs fp32
    max_em_drop: float = 3.0
    reduce_range: tuple[bool, ...] = (False, True)  # 7-bit weights: avoids u8s8 saturation without VNNI
    max_model_mb: float = 20.0  # candidates larger than this (10^6 bytes) are not kept; 0: no limit
    f1_tie: float = 0.1  # candidates within this many F1 points of the best count as tied; the fastest wins
    latency_runs: int = 20  # timed runs per candidate (one serving-length window, after warm-up)
    # When no candidate passes the gate: the best one again with this many weight MatMuls kept in fp32, those
    # whose activations carry the most extreme outliers, one count after another until one passes; () never.
    fp32_fallback: tuple[int, ...] = (1, 3, 6)


@dataclass(frozen=True)
class PackageConfig:
    out: str = "artifact"
    name: str = "minilm-squad-int8"
    latency_runs: int = 50
    load_runs: int = 7  # fresh sessions (or model loads) timed for the load-time median
    preoptimize: bool = True  # also measure a graph pre-optimised by ONNX Runtime (.onnx and .ort)
    min_load_gain: float = 0.10  # ship a pre-optimised file only if it cuts session creation this much
    notes: str = ""  # Markdown for REPORT.md's "Why this student": e.g. the student variants measured
    abstain_by_default: bool = True  # requests may get "no answer" unless they ask otherwise (when it can abstain)
    # replace an artifact in ``out`` that scored higher on the same dev file
    replace_better: bool = field(default=False, metadata=HASHED_WHEN_SET)


@dataclass(frozen=True)
class TargetsConfig:
    """What the build report checks the shipped model against; 0 turns a target off."""

    teacher_f1: float = 65.0  # teacher dev F1 at least
    student_f1: float = 0.0  # int8 student dev F1 at least
    student_share: float = 0.9  # int8 student F1 / teacher F1 at least
    speedup_vs_teacher: float = 2.0  # teacher fp32 ONNX p50 / int8 p50 at least (serving-length window)
    max_artifact_mb: float = 20.0  # model + tokenizer, 10^6 bytes
    max_int8_f1_drop: float = 1.0  # int8 vs fp32 ONNX dev F1
    max_slowdown_vs_replaced: float = 0.0  # int8 p50 / p50 of the artifact this build replaces, interleaved


@dataclass(frozen=True)
class BuildConfig:
    data: DataConfig
    teacher: TeacherConfig | None = None  # None when [given] names the model to serve
    given: GivenConfig | None = None
    base: TeacherConfig | None = None  # the encoder the student is cut from, fine-tuned first
    student: StudentConfig = field(default_factory=StudentConfig)
    sequence: SequenceConfig = field(default_factory=SequenceConfig)
    export: ExportConfig = field(default_factory=ExportConfig)
    quantize: QuantizeConfig = field(default_factory=QuantizeConfig)
    package: PackageConfig = field(default_factory=PackageConfig)
    targets: TargetsConfig = field(default_factory=TargetsConfig)
    work_dir: str = "build"
    threads: int = 0

    def section_hash(self, *names: str) -> str:
        """Stable hash of some sections, for skipping stages whose inputs did not change."""
        parts = {n: _hashed(getattr(self, n)) for n in names}
        blob = json.dumps(parts, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()


def _hashed(value):
    """A section as its hash sees it: ``dataclasses.asdict``, less the settings added after stages were built with
    them (``HASHED_WHEN_SET``) while they keep their default, so that a new option does not redo finished stages."""
    if not dataclasses.is_dataclass(value):
        return value
    return {f.name: _hashed(getattr(value, f.name)) for f in dataclasses.fields(value)
            if not (f.metadata.get("hashed_when_set") and getattr(value, f.name) == f.default)}


def _tuple(value):
    if isinstance(value, list):
        return tuple(_tuple(v) for v in value)
    return value


def _build(cls, values: dict, where: str):
    if not isinstance(values, dict):
        raise ConfigError(f"[{where}] must be a table")
    known = {f.name: f for f in dataclasses.fields(cls)}
    if "training" in known:  # a model's section: its Training keys sit beside the others
        if "training" in values:
            raise ConfigError(f"[{where}] takes the training keys directly (epochs = ...), not a 'training' table")
        names = {f.name for f in dataclasses.fields(Training)}
        values = {**{k: v for k, v in values.items() if k not in names},
                  "training": _build(Training, {k: v for k, v in values.items() if k in names}, where)}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise ConfigError(f"[{where}] has unknown keys: {', '.join(unknown)}")
    kwargs = {}
    for name, f in known.items():
        if name not in values:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ConfigError(f"[{where}] needs '{name}'")
            continue
        value = values[name]
        kwargs[name] = value if dataclasses.is_dataclass(value) else _tuple(value)
    return cls(**kwargs)


def _resolve(value: str, base: Path) -> str:
    """A relative path that exists next to the config file becomes absolute; hub ids stay."""
    if not value or Path(value).is_absolute():
        return value
    candidate = (base / value).resolve()
    if candidate.exists() or value.startswith((".", "/")) or value.endswith((".json", ".jsonl")):
        return str(candidate)
    return value


# Paths that ``--set`` may give: relative to the working directory there, to the file's folder in the file.
_OUTPUT_PATHS = ("package.out", "work_dir")
_INPUT_PATHS = ("data.train", "data.dev", "given.model", "teacher.model", "base.model", "student.model",
                "student.extra_train")


def load_config(path: str | Path, overrides: dict | None = None) -> BuildConfig:
    """Read, validate and resolve a TOML build configuration."""
    path = Path(path)
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    for dotted, value in (overrides or {}).items():
        section, _, key = dotted.rpartition(".")
        if isinstance(value, str) and value and dotted in _OUTPUT_PATHS:
            value = str(Path(value).resolve())  # on the command line, relative to where it runs
        elif isinstance(value, str) and dotted in _INPUT_PATHS:
            value = _resolve(value, Path.cwd())
        target = raw.setdefault(section, {}) if section else raw
        target[key] = value
    folder = path.parent
    sections = {
        "data": DataConfig, "teacher": TeacherConfig, "student": StudentConfig,
        "sequence": SequenceConfig, "export": ExportConfig, "quantize": QuantizeConfig,
        "package": PackageConfig, "targets": TargetsConfig,
    }
    unknown = sorted(set(raw) - set(sections) - {"base", "given", "work_dir", "threads"})
    if unknown:
        raise ConfigError(f"unknown sections: {', '.join(unknown)}")
    if "data" not in raw:
        raise ConfigError("the configuration needs a [data] section")
    if ("teacher" in raw) == ("given" in raw):
        raise ConfigError("the configuration needs either a [teacher] section (train a student) or a [given] "
                          "section (package a QA model as it is), not both")
    if "given" in raw:
        for name in ("base", "student"):
            if name in raw:
                raise ConfigError(f"[{name}] has no effect when the model is taken as given ([given])")
        sections.pop("teacher")
    elif not raw["data"].get("train"):
        raise ConfigError("[data] needs 'train' to train the student on (or use a [given] section to package "
                          "a QA model as it is)")
    built = {name: _build(cls, raw.get(name, {}), name) for name, cls in sections.items()}
    built["data"] = dataclasses.replace(
        built["data"], train=_resolve(built["data"].train, folder), dev=_resolve(built["data"].dev, folder)
    )
    if "given" in raw:
        built["given"] = _build(GivenConfig, raw["given"], "given")
        built["given"] = dataclasses.replace(built["given"], model=_resolve(built["given"].model, folder))
    else:
        built["teacher"] = dataclasses.replace(built["teacher"], model=_resolve(built["teacher"].model, folder))
    if "base" in raw:
        built["base"] = _build(TeacherConfig, raw["base"], "base")
        built["base"] = dataclasses.replace(built["base"], model=_resolve(built["base"].model, folder))
    built["student"] = dataclasses.replace(built["student"], model=_resolve(built["student"].model, folder),
                                           extra_train=_resolve(built["student"].extra_train, folder))
    built["package"] = dataclasses.replace(built["package"], out=_resolve(built["package"].out, folder))
    cfg = BuildConfig(
        **built,
        work_dir=_resolve(str(raw.get("work_dir", "build")), folder),
        threads=int(raw.get("threads", 0)),
    )
    _validate(cfg)
    return cfg


def _validate(cfg: BuildConfig) -> None:
    s = cfg.sequence
    if not 32 <= s.max_seq_len <= 512:
        raise ConfigError("sequence.max_seq_len must be between 32 and 512")
    if not 0 <= s.stride < s.max_seq_len - s.max_query_tokens - 3:
        raise ConfigError("sequence.stride must leave room for new passage tokens in each window")
    if cfg.given is not None:
        if not cfg.given.model:
            raise ConfigError("[given] model needs a hub id or a local folder")
    for name in ("teacher", "base", "student"):
        if getattr(cfg, name) is None or (name == "student" and cfg.given is not None):
            continue
        tr = getattr(cfg, name).training
        if tr.epochs <= 0 or tr.batch_size < 1 or tr.learning_rate <= 0:
            raise ConfigError(f"[{name}] epochs, batch_size and learning_rate must be positive")
        if not tr.train_stride < tr.train_seq_len - s.max_query_tokens - 4:
            raise ConfigError(f"[{name}] train_stride too large for train_seq_len")
    if not cfg.student.model and not cfg.student.keep_layers:
        raise ConfigError("[student] needs a model or keep_layers")
    if not 0.0 <= cfg.student.training.alpha <= 1.0 or cfg.student.training.temperature <= 0:
        raise ConfigError("[student] alpha must be in [0, 1] and temperature positive")
    if cfg.student.intermediate_size < 0 or (cfg.student.intermediate_size and cfg.student.model):
        raise ConfigError("[student] intermediate_size narrows the layers cut from [base] or the teacher: "
                          ">= 0, and not with a given [student] model")
    if cfg.student.extra_distractors < 0:
        raise ConfigError("[student] extra_distractors must be 0 (none) or more")
    if cfg.student.extra_distractors and not (cfg.student.shared_norm and cfg.student.extra_train):
        raise ConfigError("[student] extra_distractors are read under shared_norm's softmax only: set "
                          "[student] shared_norm > 0 and extra_train")
    if cfg.student.extra_limit < 0:
        raise ConfigError("[student] extra_limit must be 0 (all) or more")
    if cfg.student.unanswerable < 0:
        raise ConfigError("[student] unanswerable must be 0 or more (unanswerable pairs per question)")
    if not 0.0 <= cfg.student.base_weight < 1.0:
        raise ConfigError("[student] base_weight must be in [0, 1)")
    if cfg.student.base_weight and cfg.base is None:
        raise ConfigError("[student] base_weight mixes in [base]'s distributions: add a [base] section")
    q = cfg.quantize
    if q.max_f1_drop < 0 or q.max_em_drop < 0:
        raise ConfigError("[quantize] max_f1_drop and max_em_drop must be >= 0")
    if not q.per_channel or not q.op_types or not q.reduce_range:
        raise ConfigError("[quantize] per_channel, op_types and reduce_range each need a value")
    known_ops = {"MatMul", "Gather", "Attention", "EmbedLayerNormalization"}
    for ops in q.op_types:
        if isinstance(ops, str) or not ops or set(ops) - known_ops:
            raise ConfigError(f"[quantize] op_types entries are lists of {sorted(known_ops)}, got {ops!r}")
    if q.max_model_mb < 0 or q.f1_tie < 0 or q.latency_runs < 1:
        raise ConfigError("[quantize] max_model_mb and f1_tie must be >= 0, latency_runs >= 1")
    pk = cfg.package
    if pk.latency_runs < 1 or pk.load_runs < 1 or not 0 <= pk.min_load_gain < 1:
        raise ConfigError("[package] latency_runs and load_runs must be >= 1, min_load_gain in [0, 1)")
    if cfg.export.atol <= 0 or cfg.export.parity_windows < 1:
        raise ConfigError("[export] atol must be positive and parity_windows >= 1")
