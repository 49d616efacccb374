"""SQuAD v1.1 exact match and F1: the function's own (``function.evaluate.metrics``), so that the build report,
the benchmarks and ``python -m function.evaluate`` score an answer the same way."""

from function.evaluate.metrics import best_over_golds, exact_match, f1, normalize_answer, squad_scores

__all__ = ["best_over_golds", "exact_match", "f1", "normalize_answer", "squad_scores"]
