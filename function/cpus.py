"""How many CPUs this process may actually use.

In a container the host's core count is not the answer: Cloud Run gives an
instance a CPU quota (cgroup ``cpu.max``) and Kubernetes-style runtimes may pin
an affinity mask. Thread pools sized to the host oversubscribe the quota and
get throttled, which shows up as tail latency.
"""

from __future__ import annotations

import math
import os
from pathlib import Path


def cgroup_quota(root: Path = Path("/sys/fs/cgroup")) -> float | None:
    """CPUs allowed by the cgroup quota (v2 ``cpu.max`` or v1 cfs files), None if unlimited."""
    v2 = root / "cpu.max"
    try:
        if v2.exists():
            quota, period = v2.read_text().split()[:2]
            return None if quota == "max" else int(quota) / int(period)
        q = root / "cpu" / "cpu.cfs_quota_us"
        p = root / "cpu" / "cpu.cfs_period_us"
        if q.exists() and p.exists():
            quota = int(q.read_text())
            return None if quota <= 0 else quota / int(p.read_text())
    except (OSError, ValueError):
        return None
    return None


def available_cpus(root: Path = Path("/sys/fs/cgroup")) -> int:
    """min(affinity mask, cgroup quota rounded up), at least 1."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        n = os.cpu_count() or 1
    quota = cgroup_quota(root)
    if quota is not None:
        n = min(n, math.ceil(quota))
    return max(1, n)
