"""Where the serving process's memory goes: resident memory after each step of a cold start.

    python -m bench memory [--artifact artifact]

One process, the steps in the order a first request takes them: the web stack
and the function module, then numpy, onnxruntime and tokenizers, the
tokenizer, the ONNX session, and a first model run on one full window. Prints
the resident set size (VmRSS) after each step and what the step added.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from harness.paths import ARTIFACT, MAIN


def rss_mb() -> float:
    from harness.proctree import process_memory

    return process_memory(os.getpid())["rss_kb"] / 1024


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench memory", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifact", type=Path, default=ARTIFACT)
    args = p.parse_args(argv)
    os.environ.setdefault("QA_CACHE", "0")
    rows, last = [], rss_mb()  # harness.proctree (stdlib) adds nothing measurable
    rows.append(("interpreter", last, last))

    def step(name: str) -> None:
        nonlocal last
        now = rss_mb()
        rows.append((name, now, now - last))
        last = now

    from functions_framework import create_app

    create_app("answer", str(MAIN))
    step("functions-framework, Flask and the function module")
    import numpy  # noqa: F401

    step("numpy")
    import onnxruntime  # noqa: F401

    step("onnxruntime")
    import tokenizers  # noqa: F401

    step("tokenizers")
    from function.model.artifact import load_manifest
    from function.model.load import window_spec
    from function.model.onnx_model import OnnxQAModel
    from function.model.reader import PassageTokens, prepare
    from function.model.tokenizer import QATokenizer

    manifest = load_manifest(args.artifact.resolve())
    tokenizer = QATokenizer(manifest.tokenizer_path, fingerprint=manifest.tokenizer_fingerprint)
    step("the tokenizer (tokenizer.json)")
    model = OnnxQAModel(manifest.model_path, 2, optimized=manifest.graph_optimized)
    step(f"the ONNX session ({manifest.model_path.stat().st_size / 1e6:.1f} MB model file)")
    spec = window_spec(manifest)
    question = tokenizer.encode("What is the capital of France?")
    passage = tokenizer.encode("Paris is the capital and largest city of France. " * 40)
    budget = spec.passage_budget(len(question.ids))  # one full window
    batch = prepare(question.ids, [PassageTokens(passage.ids[:budget], passage.offsets[:budget])], spec)
    model(batch)
    step(f"a first model run ({batch.input_ids.shape[1]} tokens)")
    print("| step | RSS after (MB) | added (MB) |\n|---|---|---|")
    for name, total, added in rows:
        print(f"| {name} | {total:.1f} | {added:+.1f} |")
    return 0
