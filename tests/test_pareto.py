"""experiments/pareto.py: students of any depth through the build's chain, scored and timed beside the artifact."""

import json

import pytest

from experiments import pareto
from tests.support.tiny_build import built


def test_a_student_is_scored_and_timed_as_a_ratio_to_the_shipped_artifact(tmp_path_factory, tmp_path):
    project = built(tmp_path_factory)
    assert project["exit"] == 0
    root = project["root"]
    student = root / "build" / "distil" / "model"
    out = tmp_path / "pareto"
    assert pareto.main([str(student), "--artifact", str(root / "artifact"), "--dev", str(root / "data" / "dev.json"),
                        "--rounds", "2", "--runs", "3", "--out", str(out)]) == 0
    result = json.loads(out.with_suffix(".json").read_text())
    shipped, row = result["rows"]
    assert row["layers"] == 1 and set(shipped["p50_ms"]) == set(row["p50_ms"]) == {"96"}
    assert shipped["vs_shipped"] == {"96": 1.0}
    assert row["vs_shipped"]["96"] == pytest.approx(row["p50_ms"]["96"] / shipped["p50_ms"]["96"], rel=0.1)
    # the student the tiny build shipped, rebuilt through the same chain, scores what the artifact scores
    assert row["f1"] == pytest.approx(shipped["f1"], abs=5.0) and 0 < row["mb"]
    assert "| 1 layers" in out.with_suffix(".md").read_text()


def test_a_folder_without_a_student_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        pareto.main([str(tmp_path), "--dev", "dev.json", "--out", str(tmp_path / "x")])
    assert "holds no trained student" in capsys.readouterr().err
