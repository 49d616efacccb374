"""Summaries of measured values: percentiles, min / median / max, ratios. Pure functions.

``percentile`` is the one percentile of the tests and benchmarks (linear between closest ranks).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable


def percentile(values: Iterable[float], q: float) -> float:
    """The ``q``-th percentile (0-100), linear between closest ranks (numpy's default method)."""
    data = sorted(values)
    if not data:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile must be in [0, 100], got {q}")
    pos = (len(data) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def _numbers(values: Iterable) -> list[float]:
    return [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]


def latency_summary(values: Iterable[float], digits: int = 2) -> dict | None:
    """n, mean, min, p50, p95, p99, max of some latencies (None when there are none)."""
    data = _numbers(values)
    if not data:
        return None
    out = {"n": len(data), "mean": statistics.fmean(data), "min": min(data)}
    out.update({f"p{q}": percentile(data, q) for q in (50, 95, 99)})
    out["max"] = max(data)
    return {k: (v if k == "n" else round(v, digits)) for k, v in out.items()}


def spread(values: Iterable, digits: int = 1) -> dict | None:
    """min / median / max (None when there are no numbers; non-numbers are skipped)."""
    data = _numbers(values)
    if not data:
        return None
    return {"min": round(min(data), digits), "median": round(statistics.median(data), digits),
            "max": round(max(data), digits), "n": len(data)}


def ratio(numerator: float | None, denominator: float | None, digits: int = 2) -> float | None:
    """numerator / denominator, None when either is missing or the denominator is not positive."""
    if numerator is None or denominator is None or denominator <= 0:
        return None
    return round(numerator / denominator, digits)
