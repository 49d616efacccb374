"""Dev F1 of int8 artifacts on the same questions, and a paired bootstrap of their differences.

    .venv/bin/python -m experiments.paired_f1 BASELINE_ARTIFACT OTHER_ARTIFACT... \\
        [--dev ../shared/data/squad/dev.json] [--samples 5000]

Each artifact answers every dev question through the function's session and reader (one thread);
per-question F1 (best over the gold answers, the SQuAD v1.1 metric) is compared with the first
artifact's, and the 95% interval of the mean difference comes from resampling the questions
(5,000 samples, seeded). It says whether a difference in the build report's F1 is more than the
dev set's sampling noise: on 1,227 questions, two 3-layer students differ by about +-1.8 F1 by
chance alone.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from build_model.evaluation.evaluate import predict
from build_model.evaluation.metrics import best_over_golds, f1
from build_model.squad import load_squad
from function.model.artifact import load_manifest
from function.model.load import window_spec
from function.model.onnx_model import OnnxQAModel
from function.model.tokenizer import QATokenizer


def per_question_f1(artifact: Path, dev) -> np.ndarray:
    manifest = load_manifest(artifact.resolve())
    model = OnnxQAModel(manifest.model_path, 1, optimized=manifest.graph_optimized)
    preds = predict(dev, QATokenizer(manifest.tokenizer_path), window_spec(manifest), model,
                    max_answer_tokens=manifest.sequence["max_answer_tokens"])
    return np.array([best_over_golds(f1, preds[q.id], q.answers) for q in dev.questions]) * 100


def interval(diff: np.ndarray, samples: int, seed: int = 0) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    means = [diff[rng.integers(0, len(diff), len(diff))].mean() for _ in range(samples)]
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("artifacts", nargs="+", type=Path)
    p.add_argument("--dev", default="../shared/data/squad/dev.json")
    p.add_argument("--samples", type=int, default=5000)
    args = p.parse_args(argv)
    dev = load_squad(args.dev)
    scores = {a: per_question_f1(a, dev) for a in args.artifacts}
    base, *others = args.artifacts
    for a, s in scores.items():
        print(f"{a}: dev F1 {s.mean():.2f} ({len(s)} questions)")
    for a in others:
        diff = scores[a] - scores[base]
        low, high = interval(diff, args.samples)
        print(f"{a} - {base}: {diff.mean():+.2f} F1, 95% interval [{low:+.2f}, {high:+.2f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
