"""Stage 5, quantize: dynamic int8 quantisation of the student's fused ONNX graph, candidates compared.

Every combination of ``per_channel`` x ``op_types`` x ``reduce_range`` is
quantised (int8 weights, uint8 activations quantised at run time), scored on
dev through the function's session, and timed on one serving-length window.
The kept candidate has the highest F1 among those within ``max_model_mb``;
candidates within ``f1_tie`` of it count as tied and the fastest wins. The
build fails when the kept model loses more than ``max_f1_drop`` F1 or
``max_em_drop`` EM against the fp32 ONNX student.

When no candidate passes the gate, the best one is quantised again with the weight MatMuls whose
activations carry the most extreme outliers left in fp32 (``fp32_fallback``: 1, then 3, then 6 of
them, until one passes; ``build_model.conversion.outliers`` measures them on the parity windows).
Per-tensor activation scales are what such outliers spoil: a real MPNet QA model loses 2.3 F1 as
per-channel int8, and nothing with the three feed-forward outputs that hold them in fp32.

"Gather" stands for the embedding tables: in a fused graph they sit inside
``EmbedLayerNormalization``, which is quantised (``QEmbedLayerNormalization``)
in their place; a candidate that leaves a large fp32 table behind is flagged.
"""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import dataclass
from pathlib import Path

from build_model.config import BuildConfig
from build_model.conversion import outliers
from build_model.conversion.onnx_export import max_logit_diff
from build_model.errors import BuildFailed
from build_model.evaluation import benchmark
from build_model.evaluation.evaluate import evaluate
from build_model.specs import serving_spec
from build_model.squad import load_squad
from build_model.stage_record import file_sha256, fresh_record, load_record, save_record
from build_model.stages import export
from function.cpus import available_cpus
from function.model.tokenizer import QATokenizer

KEPT = "student.int8.onnx"
MB = 1e6


@dataclass(frozen=True)
class Candidate:
    per_channel: bool
    op_types: tuple[str, ...]
    reduce_range: bool
    fp32_matmuls: tuple[str, ...] = ()  # weight MatMuls left in fp32 (``build_model.conversion.outliers``)

    @property
    def name(self) -> str:
        return "-".join(["int8", *self.op_types, "pc" if self.per_channel else "pt",
                         "rr" if self.reduce_range else "fr",
                         *([f"fp32x{len(self.fp32_matmuls)}"] if self.fp32_matmuls else [])])

    def settings(self) -> dict:
        return {"per_channel": self.per_channel, "op_types": list(self.op_types),
                "reduce_range": self.reduce_range, "weight_type": "QInt8", "activations": "dynamic QUInt8",
                "fp32_matmuls": list(self.fp32_matmuls)}


def stage_dir(cfg: BuildConfig) -> Path:
    return Path(cfg.work_dir) / "quantize"


def candidates(cfg: BuildConfig) -> list[Candidate]:
    q = cfg.quantize
    return [Candidate(pc, tuple(ops), rr) for ops in q.op_types for pc in q.per_channel for rr in q.reduce_range]


def graph_ops(path: Path) -> set[str]:
    import onnx

    return {n.op_type for n in onnx.load(str(path), load_external_data=False).graph.node}


def quantize_candidate(src: Path, dst: Path, c: Candidate, present: set[str]) -> dict:
    """``quantize_dynamic`` with the candidate's settings; returns what the int8 graph holds."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    ops = set(c.op_types)
    if "Gather" in ops and "EmbedLayerNormalization" in present:
        ops.add("EmbedLayerNormalization")
    quantize_dynamic(str(src), str(dst), op_types_to_quantize=sorted(ops), per_channel=c.per_channel,
                     reduce_range=c.reduce_range, weight_type=QuantType.QInt8,
                     nodes_to_exclude=list(c.fp32_matmuls),
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    graph = onnx.load(str(dst)).graph
    fp32 = [(4 * math.prod(t.dims), t.name) for t in graph.initializer if t.data_type == onnx.TensorProto.FLOAT]
    largest = max(fp32, default=(0, None))
    return {"quantized_ops": sorted(ops), "largest_fp32_initializer": {"name": largest[1], "bytes": largest[0]}}


def choose(rows: list[dict], max_mb: float, tie: float) -> tuple[dict, str]:
    """Highest dev F1 among candidates within the size limit; F1 ties (within ``tie``) go to the fastest."""
    fit = [r for r in rows if not max_mb or r["bytes"] <= max_mb * MB]
    if not fit:
        smallest = min(r["bytes"] for r in rows) / MB
        raise BuildFailed(f"quantize: no int8 candidate fits max_model_mb = {max_mb} (smallest {smallest:.1f} MB)")
    best = max(r["dev"]["f1"] for r in fit)
    tied = [r for r in fit if r["dev"]["f1"] >= best - tie]
    kept = min(tied, key=lambda r: (r["p50_ms"], -r["dev"]["f1"], r["bytes"]))
    why = (f"highest dev F1 ({best:.2f}) of the {len(fit)} candidate(s) within "
           f"{'no size limit' if not max_mb else f'{max_mb:g} MB'}; {len(tied)} within {tie:g} F1 of it, "
           f"the fastest of them kept ({kept['p50_ms']:.1f} ms per window, F1 {kept['dev']['f1']:.2f})")
    return kept, why


def quality_gate(fp32: dict, int8: dict, max_f1_drop: float, max_em_drop: float) -> dict:
    f1_drop = fp32["f1"] - int8["f1"]
    em_drop = fp32["exact_match"] - int8["exact_match"]
    return {"fp32_f1": fp32["f1"], "int8_f1": int8["f1"], "f1_drop": round(f1_drop, 4), "max_f1_drop": max_f1_drop,
            "fp32_em": fp32["exact_match"], "int8_em": int8["exact_match"], "em_drop": round(em_drop, 4),
            "max_em_drop": max_em_drop, "passed": f1_drop <= max_f1_drop and em_drop <= max_em_drop}


def run(cfg: BuildConfig, force: bool = False) -> dict:
    out = stage_dir(cfg)
    ex_dir = export.stage_dir(cfg)
    ex = load_record(ex_dir)
    if ex is None:
        raise BuildFailed(f"quantize needs the export stage's record in {ex_dir}: run --stage export first")
    fp32 = ex["models"]["student"]
    src = ex_dir / fp32["onnx"]
    tok_path = export.model_dirs(cfg)["student"] / "tokenizer.json"
    inputs = {
        "config": cfg.section_hash("data", "quantize", "sequence"),
        "student_onnx": file_sha256(src),
        "optimized": fp32.get("optimized", ex["optimized"]),
        "tokenizer": file_sha256(tok_path),
        "dev": file_sha256(cfg.data.dev),
    }
    if not force and (record := fresh_record(out, inputs)):
        print(f"quantize: inputs unchanged, skipped ({out})")
        return record

    out.mkdir(parents=True, exist_ok=True)
    tok = QATokenizer(tok_path)
    spec = serving_spec(cfg, tok)
    dev = load_squad(cfg.data.dev, cfg.data.dev_limit or None)
    batches = export.parity_batches(dev, tok, spec, cfg.export.parity_windows)
    window = benchmark.windows(tok, [cfg.sequence.max_seq_len])[cfg.sequence.max_seq_len]
    threads = cfg.threads or available_cpus()
    reference = export.onnx_infer(src, threads, fp32.get("optimized", ex["optimized"]))
    present = graph_ops(src)

    def measure(c: Candidate) -> dict:
        path = out / f"{c.name}.onnx"
        info = quantize_candidate(src, path, c, present)
        # The quantised graph still needs ONNX Runtime's int8 fusions: served un-"optimized" (ENABLE_ALL).
        model = export.onnx_infer(path, threads, False)
        row = {"name": c.name, **c.settings(), **info, "file": path.name, "bytes": path.stat().st_size,
               "dev": evaluate(dev, tok, spec, model, max_answer_tokens=cfg.sequence.max_answer_tokens),
               "max_logit_diff_vs_fp32": round(max_logit_diff(reference, model, batches), 5),
               "p50_ms": benchmark.p50_ms(export.onnx_infer(path, benchmark.THREADS, False), window,
                                          cfg.quantize.latency_runs)}
        print(f"quantize: {c.name}: {row['bytes'] / MB:.1f} MB, dev F1 {row['dev']['f1']:.2f}, "
              f"{row['p50_ms']:.1f} ms, max |logit diff| vs fp32 {row['max_logit_diff_vs_fp32']:.3f}")
        return row

    def judge(rows: list[dict]) -> tuple[dict, str, dict]:
        kept, why = choose(rows, cfg.quantize.max_model_mb, cfg.quantize.f1_tie)
        return kept, why, quality_gate(fp32["dev"], kept["dev"], cfg.quantize.max_f1_drop, cfg.quantize.max_em_drop)

    rows = [measure(c) for c in candidates(cfg)]
    kept, why, gate = judge(rows)
    ratios = None
    for k in cfg.quantize.fp32_fallback if not gate["passed"] else ():
        # no candidate passes the gate: the best one again, with the k weight MatMuls whose activations
        # carry the most extreme outliers kept in fp32 (a larger file), until one passes
        ratios = ratios if ratios is not None else outliers.outlier_ratios(src, batches, threads)
        keep = tuple(outliers.most_extreme(ratios, k))
        if not keep or any(r["fp32_matmuls"] == list(keep) for r in rows):
            continue
        rows.append(measure(Candidate(kept["per_channel"], tuple(kept["op_types"]), kept["reduce_range"], keep)))
        kept, why, gate = judge(rows)
        if gate["passed"]:
            break
    (out / "candidates.json").write_text(json.dumps(rows, indent=2))
    if ratios is not None:
        (out / "outliers.json").write_text(json.dumps(ratios, indent=2))
    if not gate["passed"]:
        raise BuildFailed(
            f"quantize: the kept int8 model ({kept['name']}) loses {gate['f1_drop']:.2f} F1 / "
            f"{gate['em_drop']:.2f} EM against the fp32 ONNX student (allowed: {gate['max_f1_drop']} F1, "
            f"{gate['max_em_drop']} EM); candidates in {out / 'candidates.json'}")
    if kept["fp32_matmuls"]:
        why += (f"; every all-int8 candidate failed the quality gate, so {len(kept['fp32_matmuls'])} weight "
                f"MatMul(s) with the most extreme activation outliers stay fp32 ({', '.join(kept['fp32_matmuls'])})")
    shutil.copyfile(out / kept["file"], out / KEPT)
    for r in rows:
        (out / r.pop("file")).unlink(missing_ok=True)
    result = {"candidates": rows, "kept": {**kept, "file": KEPT, "sha256": file_sha256(out / KEPT)},
              "why": why, "gate": gate, "fp32": {"file": fp32["onnx"], "bytes": fp32["bytes"], "dev": fp32["dev"]},
              "shrink": round(fp32["bytes"] / kept["bytes"], 2),
              "parity_windows": sum(len(b) for b in batches)}
    print(f"quantize: kept {kept['name']} ({why}); F1 drop vs fp32 {gate['f1_drop']:.2f}")
    return save_record(out, inputs, result)
