"""ONNX Runtime's thread count follows the container's CPU quota, not the host's cores."""

import os

from function.cpus import available_cpus, cgroup_quota


def test_cgroup_v2_quota(tmp_path):
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    assert cgroup_quota(tmp_path) == 1.5
    assert available_cpus(tmp_path) == min(2, len(os.sched_getaffinity(0)))
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert cgroup_quota(tmp_path) is None
    assert available_cpus(tmp_path) == len(os.sched_getaffinity(0))


def test_cgroup_v1_quota(tmp_path):
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("50000")
    (tmp_path / "cpu" / "cpu.cfs_period_us").write_text("100000")
    assert cgroup_quota(tmp_path) == 0.5 and available_cpus(tmp_path) == 1
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("-1")
    assert cgroup_quota(tmp_path) is None


def test_no_cgroup_files_means_the_affinity_mask(tmp_path):
    assert cgroup_quota(tmp_path) is None
    assert available_cpus(tmp_path) == len(os.sched_getaffinity(0))
