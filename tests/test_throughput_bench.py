"""``python -m bench throughput`` end to end on the tiny artifact: servers per mode, CPUs restricted, results."""

from __future__ import annotations

import json
import shutil

import pytest

from bench import throughput


@pytest.mark.skipif(shutil.which("taskset") is None, reason="needs taskset (util-linux)")
def test_throughput_runs_the_modes_side_by_side(tiny_artifact, tmp_path):
    rc = throughput.main(["--artifact", str(tiny_artifact.folder), "--modes", "serial", "batch", "--cpus", "1",
                          "--clients", "1", "2", "--lengths", "64", "--seconds", "0.3", "--rounds", "1",
                          "--out", str(tmp_path)])
    assert rc == 0
    result = json.loads((tmp_path / "throughput.json").read_text())
    cells = result["results"]["1"]["cells"]
    assert {(c["clients"], c["mode"]) for c in cells} == {(1, "serial"), (2, "serial"), (1, "batch"), (2, "batch")}
    assert all(c["requests"] > 0 and c["errors"] == 0 and c["latency_ms"]["p50"] > 0 for c in cells)
    assert set(result["results"]["1"]["rss_mb_peak"]) == {"serial", "batch"}
    text = (tmp_path / "throughput.md").read_text()
    assert "| 1 | serial |" in text and "x serial" in text and "python -m bench throughput" in text
