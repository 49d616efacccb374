"""Which dynamic-int8 setting keeps a given QA model's F1: the first N dev questions, fp32 against int8 variants.

    .venv/bin/python -m experiments.mpnet_int8 300 [VARIANT ...]

VARIANT: fp32, the per-channel candidates (int8-MatMul-Gather-pc-fr, int8-MatMul-pc-fr) and per-channel
int8 with one group of weight MatMuls kept in fp32 (keep-ffn-out, keep-attn-out, keep-ffn-in, keep-qkv,
keep-qa-head; keep-ffn-out-A-B: layers A to B only, of 0-5, 6-11, 6-8, 9-11, 11-11; keep-outliers-K: the K MatMuls
the quantize stage's fp32 fallback would keep, K of 1, 3, 6); default all.

Reads the given command's work folder (``build/given``: run the given command on the model first,
see docs/hub_models.md) and the model named below; prints EM/F1 per variant and writes
``build/given/int8_variants.json``. One intra-op thread per evaluation.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import onnx

from build_model.config import load_config
from build_model.conversion import outliers
from build_model.evaluation.evaluate import evaluate
from build_model.specs import serving_spec
from build_model.squad import load_squad
from build_model.stages import export, quantize
from function.model.tokenizer import QATokenizer

REPO = Path(__file__).resolve().parent.parent
MODEL = REPO / "build" / "teacher" / "model"  # the sandbox MPNet teacher
DEV = REPO.parent / "shared" / "data" / "squad" / "dev.json"


def main(argv: list[str]) -> int:
    n = int(argv[0]) if argv else 300
    cfg = load_config(REPO / "build_model" / "configs" / "given.toml",
                      {"given.model": str(MODEL), "data.dev": str(DEV), "package.out": str(REPO / "build" / "mpq")})
    tok = QATokenizer(export.model_dirs(cfg)["student"] / "tokenizer.json")
    spec, dev = serving_spec(cfg, tok), load_squad(cfg.data.dev, n)
    work = REPO / "build" / "given"
    src = work / "export" / "student.opt.onnx"
    present, out = quantize.graph_ops(src), {}

    def score(name: str, path: Path, optimized: bool) -> None:
        t0 = time.time()
        r = evaluate(dev, tok, spec, export.onnx_infer(path, 1, optimized), max_answer_tokens=30)
        out[name] = {"em": round(r["exact_match"], 2), "f1": round(r["f1"], 2), "seconds": round(time.time() - t0)}
        print(name, out[name], flush=True)

    only = set(argv[1:])  # variant names to run (default: all)
    if not only or "fp32" in only:
        score("fp32", src, True)
    for ops in (("MatMul", "Gather"), ("MatMul",)):  # with the embeddings quantized, and kept in fp32
        c = quantize.Candidate(True, ops, False)
        if only and c.name not in only:
            continue
        path = work / f"variant-{c.name}.onnx"
        quantize.quantize_candidate(src, path, c, present)
        score(c.name, path, False)
    # per-channel int8 with some weight MatMuls kept in fp32: which ones carry the loss
    def run_variant(name: str, kept: list[str]) -> None:
        path = work / f"variant-{name}.onnx"
        quantize.quantize_candidate(src, path, quantize.Candidate(True, ("MatMul", "Gather"), False, tuple(kept)),
                                    present)
        score(name, path, False)
        out[name].update(fp32_matmuls=len(kept), mb=round(path.stat().st_size / 1e6, 1))

    matmuls = [n.name for n in outliers.weight_matmuls(onnx.load(str(src), load_external_data=False).graph)]
    groups = {"keep-ffn-out": "/output/dense/", "keep-attn-out": "/attn/o/", "keep-ffn-in": "/intermediate/dense/",
              "keep-qkv": ("/attn/q/", "/attn/k/", "/attn/v/"), "keep-qa-head": "qa_outputs"}
    for first, last in ((0, 5), (6, 11), (6, 8), (9, 11), (11, 11)):  # the FFN outputs of some layers only
        groups[f"keep-ffn-out-{first}-{last}"] = tuple(f"layer.{i}/output/dense/" for i in range(first, last + 1))
    picks: dict[str, list[str]] = {}
    wanted = [k for k in (1, 3, 6) if not only or f"keep-outliers-{k}" in only]
    if wanted:  # what the quantize stage's fp32_fallback keeps: the MatMuls of the most extreme input outliers
        batches = export.parity_batches(dev, tok, spec, cfg.export.parity_windows)
        ratios = outliers.outlier_ratios(src, batches, 1)
        print("outlier ratios:", dict(sorted(ratios.items(), key=lambda kv: -kv[1])[:8]), flush=True)
        picks = {f"keep-outliers-{k}": outliers.most_extreme(ratios, k) for k in wanted}
    for name, marks in groups.items():
        if only and name not in only:
            continue
        marks = (marks,) if isinstance(marks, str) else marks
        kept = [m for m in matmuls if any(k in m for k in marks)]
        run_variant(name, kept)
    for name, kept in picks.items():
        run_variant(name, kept)
    saved = work / "int8_variants.json"  # runs of other variants on the same questions are kept
    earlier = json.loads(saved.read_text()) if saved.is_file() else {}
    variants = {**earlier.get("variants", {}), **out} if earlier.get("questions") == n else out
    saved.write_text(json.dumps({"questions": n, "variants": variants}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
