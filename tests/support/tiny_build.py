"""A tiny end-to-end build: SQuAD-format data cut from the sample, a tiny teacher, a TOML config.

The teacher is a randomly initialised 2-layer BERT (hidden 64, the sample
corpus' 3,000-token WordPiece vocabulary): big enough that its weights, not
the graph, dominate the ONNX file (so int8 shrinkage means something), small
enough that every stage runs in seconds on two cores.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.support.tiny import SAMPLE, SEQUENCE, sample_tokenizer

TRAIN_PARAGRAPHS = {0: range(0, 8), 1: range(8, 12)}  # article index -> paragraph indices
DEV_PARAGRAPHS = {1: range(0, 4)}
_BUILT: dict = {}


def _cut(data: list, keep: dict) -> dict:
    articles = []
    for a, paragraphs in keep.items():
        article = data[a]
        articles.append({"title": article["title"], "paragraphs": [article["paragraphs"][p] for p in paragraphs]})
    return {"version": "1.1", "data": articles}


def tiny_squad(folder: Path) -> tuple[Path, Path]:
    """train.json (two articles, 12 paragraphs) and dev.json (4 other paragraphs) from the sample."""
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))["data"]
    folder.mkdir(parents=True, exist_ok=True)
    train, dev = folder / "train.json", folder / "dev.json"
    train.write_text(json.dumps(_cut(data, TRAIN_PARAGRAPHS)), encoding="utf-8")
    dev.write_text(json.dumps(_cut(data, DEV_PARAGRAPHS)), encoding="utf-8")
    return train, dev


def tiny_bert(vocab_size: int, hidden: int = 64, layers: int = 2, seed: int = 0):
    import torch
    from transformers import BertConfig, BertForQuestionAnswering

    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=vocab_size, hidden_size=hidden, num_hidden_layers=layers,
                     num_attention_heads=2, intermediate_size=2 * hidden, max_position_embeddings=128)
    return BertForQuestionAnswering(cfg).eval()


def tiny_teacher(folder: Path, hidden: int = 64, layers: int = 2, seed: int = 0) -> Path:
    """A model folder as the teacher stage reads it: weights, config.json, tokenizer.json."""
    tokenizer_json = sample_tokenizer()
    model = tiny_bert(len(json.loads(tokenizer_json)["model"]["vocab"]), hidden, layers, seed)
    model.save_pretrained(folder)
    (folder / "tokenizer.json").write_text(tokenizer_json, encoding="utf-8")
    return folder


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(value)


def write_config(path: Path, sections: dict) -> Path:
    """A TOML file from {section: {key: value}} (top-level keys under section "")."""
    lines = [f"{k} = {_toml_value(v)}" for k, v in sections.get("", {}).items()]
    for name, values in sections.items():
        if name:
            lines += ["", f"[{name}]"] + [f"{k} = {_toml_value(v)}" for k, v in values.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def tiny_sections(root: Path, teacher: Path, train: Path, dev: Path) -> dict:
    short = {"train_seq_len": 96, "train_stride": 32, "epochs": 1, "batch_size": 16, "learning_rate": 1e-3}
    return {
        "": {"work_dir": str(root / "build"), "threads": 2},
        "data": {"train": str(train), "dev": str(dev)},
        "sequence": dict(SEQUENCE),
        "teacher": {"model": str(teacher), "fine_tune": True, "train_limit": 24, **short},
        "student": {"keep_layers": [0], "augment_pairs": 1, "train_limit": 24, **short},
        "export": {"parity_windows": 12},
        # 20 dev questions: one flipped answer moves F1 by 5 points, so the gate is tested on its own.
        "quantize": {"per_channel": [False, True], "op_types": [["MatMul", "Gather", "Attention"]],
                     "reduce_range": [False], "max_f1_drop": 100.0, "max_em_drop": 100.0, "latency_runs": 3},
        "package": {"out": str(root / "artifact"), "name": "tiny-squad-int8", "latency_runs": 3, "load_runs": 2,
                    "notes": "Variants tried: *none*, this is the test build."},
    }


def tiny_project(root: Path) -> Path:
    """Data, teacher and config under ``root``; returns the config path."""
    train, dev = tiny_squad(root / "data")
    teacher = tiny_teacher(root / "teacher-src")
    return write_config(root / "build.toml", tiny_sections(root, teacher, train, dev))


def built(tmp_path_factory) -> dict:
    """One full tiny build per test session (the CLI, every stage); later callers share it.

    Returns {"config": path, "root": folder, "seconds": build time, "exit": CLI exit code}.
    """
    if not _BUILT:
        import time

        from build_model.cli import main

        root = tmp_path_factory.mktemp("tiny-build")
        config = tiny_project(root)
        t0 = time.perf_counter()
        code = main(["--config", str(config)])
        _BUILT.update(config=config, root=root, seconds=time.perf_counter() - t0, exit=code)
    return dict(_BUILT)


def copy_build(src_root: Path, dst_root: Path, stages: tuple[str, ...]) -> Path:
    """A copy of some stage folders of a built project, with a config pointing at the copy."""
    for stage in stages:
        shutil.copytree(src_root / "build" / stage, dst_root / "build" / stage)
    sections = tiny_sections(dst_root, src_root / "teacher-src", src_root / "data" / "train.json",
                             src_root / "data" / "dev.json")
    return write_config(dst_root / "build.toml", sections)
