"""Where the other contenders' models come from: the PyTorch checkpoint and the fp32 ONNX graph of our artifact.

The artifact's manifest records the fingerprint of the student checkpoint it
was exported from (``source.student.checkpoint``, a hash of the folder's
weight and config files). The build folder is searched for the distillation
stage's ``distil/model`` with that fingerprint (the PyTorch weights) and for
the export stage whose record names it (``export/stage.json``: the fp32 ONNX
graph). An artifact without that record (a stand-in) falls back to the first
existing checkpoint of ``FALLBACK_CHECKPOINTS``, and its fp32 graph is
exported here from that checkpoint with the build stage's own export code;
the results then say the weights are not the artifact's. Where there is no
checkpoint at all (a fresh clone), ``bench.standin`` makes one of the
artifact's architecture with random weights (``Source.stand_in``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

FALLBACK_CHECKPOINTS = ("distil/model", "exp-l3-aug0/distil/model", "teacher/model")
OPSET = 17


@dataclass(frozen=True)
class Source:
    path: Path
    how: str  # why this one: for the results
    matches_artifact: bool
    stand_in: bool = False  # random weights in the artifact's architecture: speed and memory only

    def record(self) -> dict:
        """Where it came from, for the results."""
        return {"path": str(self.path), "how": self.how, "matches_artifact": self.matches_artifact,
                "weights": "stand-in" if self.stand_in else "trained"}


def stand_in(artifact: Path, work: Path) -> Source:
    """The PyTorch checkpoint to serve when none of the artifact's is at hand (``bench.standin``)."""
    from bench import standin

    folder, how = standin.checkpoint(artifact, work)
    return Source(folder, how, False, stand_in=True)


def student_checkpoint(manifest: dict) -> str | None:
    return ((manifest.get("source") or {}).get("student") or {}).get("checkpoint")


def work_dirs(build: Path) -> list[Path]:
    """The build folder and the work folders of experiments inside it."""
    if not build.is_dir():
        return []
    return [build] + sorted(p for p in build.iterdir() if p.is_dir())


def _fingerprint(folder: Path) -> str:
    from build_model.stage_record import source_fingerprint

    return source_fingerprint(str(folder))


def find_pytorch(manifest: dict, build: Path) -> Source | None:
    wanted = student_checkpoint(manifest)
    if wanted:
        for work in work_dirs(build):
            folder = work / "distil" / "model"
            if (folder / "config.json").is_file() and _fingerprint(folder) == wanted:
                return Source(folder, "the checkpoint the artifact's manifest names (source.student.checkpoint)", True)
    for rel in FALLBACK_CHECKPOINTS:
        folder = build / rel
        if (folder / "config.json").is_file():
            why = ("no checkpoint in the build folder matches the manifest's" if wanted
                   else "the artifact's manifest names no source checkpoint (a stand-in)")
            return Source(folder, f"{why}; using {rel}", False)
    return None


def find_fp32_onnx(manifest: dict, build: Path) -> tuple[Source, bool] | None:
    """The export stage's fp32 student graph for the artifact's checkpoint, and whether it is optimised."""
    wanted = student_checkpoint(manifest)
    if not wanted:
        return None
    for work in work_dirs(build):
        record_path = work / "export" / "stage.json"
        if not record_path.is_file():
            continue
        record = json.loads(record_path.read_text())
        student = (record.get("models") or {}).get("student") or {}
        graph = work / "export" / str(student.get("onnx", ""))
        if (record.get("inputs") or {}).get("student") == wanted and graph.is_file():
            return Source(graph, "the export stage's fp32 student graph for the artifact's checkpoint", True), \
                bool(record.get("optimized"))
    return None


def export_fp32(checkpoint: Path, out: Path) -> Path:
    """fp32 ONNX of a PyTorch QA checkpoint, fused like the build stage's export (cached in ``out``)."""
    from build_model import hf
    from build_model.conversion.onnx_export import export_onnx, optimize_bert

    fused = out / "model.opt.onnx"
    if fused.is_file():
        return fused
    out.mkdir(parents=True, exist_ok=True)
    model = hf.load_qa_model(str(checkpoint), attn="eager").eval()
    raw = out / "model.onnx"
    export_onnx(model, raw, OPSET)
    optimize_bert(raw, fused, num_heads=model.config.num_attention_heads, hidden_size=model.config.hidden_size)
    raw.unlink()
    return fused


def make_artifact(graph: Path, optimized: bool, like: Path, out: Path, how: str) -> Path:
    """An artifact folder serving ``graph`` with the tokenizer and sequence settings of the artifact ``like``."""
    from build_model.packaging.writer import write_artifact

    manifest = json.loads((like / "manifest.json").read_text())
    tokenizer_json = (like / manifest["tokenizer_file"]).read_text(encoding="utf-8")
    write_artifact(out, graph, tokenizer_json, f"{manifest['name']}-fp32", manifest["sequence"],
                   extra={"onnx": {"opset": OPSET, "optimized": optimized}, "bench_source": how})
    return out


def fp32_artifact(manifest: dict, artifact: Path, build: Path, pytorch: Source | None, work: Path) -> Source:
    """An fp32 artifact folder for our function: from the export stage, else exported from ``pytorch``."""
    found = find_fp32_onnx(manifest, build)
    if found:
        source, optimized = found
        graph = source.path
    elif pytorch is not None:
        key = _fingerprint(pytorch.path)[:12]
        graph, optimized = export_fp32(pytorch.path, work / f"fp32-onnx-{key}"), True
        source = Source(graph, f"exported here from {pytorch.path} ({pytorch.how})", pytorch.matches_artifact,
                        pytorch.stand_in)
    else:
        raise FileNotFoundError("no fp32 ONNX graph and no PyTorch checkpoint to export one from: "
                                "pass --fp32-artifact or --pytorch-model")
    folder = make_artifact(graph, optimized, artifact, work / "fp32-artifact", f"{source.how}: {graph}")
    return Source(folder, source.how, source.matches_artifact, source.stand_in)
