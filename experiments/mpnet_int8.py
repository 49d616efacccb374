"""Which dynamic-int8 setting keeps a given QA model's F1: the first N dev questions, fp32 against int8 variants.

    .venv/bin/python -m experiments.mpnet_int8 300

Reads the given command's work folder (``build/given``: run the given command on the model first,
see docs/hub_models.md) and the model named below; prints EM/F1 per variant and writes
``build/given/int8_variants.json``. One intra-op thread per evaluation.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from build_model.config import load_config
from build_model.evaluation.evaluate import evaluate
from build_model.evaluation.squad import load_squad
from build_model.specs import serving_spec
from build_model.stages import export, quantize
from function.model.tokenizer import QATokenizer

REPO = Path(__file__).resolve().parent.parent
MODEL = REPO / "build" / "teacher" / "model"  # issue 15's MPNet teacher
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

    score("fp32", src, True)
    for ops in (("MatMul", "Gather"), ("MatMul",)):  # with the embeddings quantized, and kept in fp32
        c = quantize.Candidate(True, ops, False)
        path = work / f"variant-{c.name}.onnx"
        quantize.quantize_candidate(src, path, c, present)
        score(c.name, path, False)
    (work / "int8_variants.json").write_text(json.dumps({"questions": n, "variants": out}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
