"""``python -m build_model`` end to end on a tiny model, stage skipping, configuration handling."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.tiny_build import built, copy_build

STAGE_DIRS = ("teacher", "distil", "export", "quantize", "package")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return built(tmp_path_factory)


def test_the_build_runs_end_to_end(project):
    assert project["exit"] == 0
    print(f"tiny end-to-end build: {project['seconds']:.1f} s")
    for stage in STAGE_DIRS:
        assert (project["root"] / "build" / stage / "stage.json").is_file(), stage
    artifact = project["root"] / "artifact"
    assert {"manifest.json", "tokenizer.json", "REPORT.md", "report.png"} <= {p.name for p in artifact.iterdir()}


def test_a_second_run_skips_every_stage(project, capsys):
    from build_model.cli import main

    records = [project["root"] / "build" / s / "stage.json" for s in STAGE_DIRS]
    before = [p.stat().st_mtime_ns for p in records]
    manifest = (project["root"] / "artifact" / "manifest.json").stat().st_mtime_ns
    capsys.readouterr()
    assert main(["--config", str(project["config"])]) == 0
    out = capsys.readouterr().out
    for stage in STAGE_DIRS:
        assert f"{stage}: inputs unchanged" in out, stage
    assert [p.stat().st_mtime_ns for p in records] == before
    assert (project["root"] / "artifact" / "manifest.json").stat().st_mtime_ns == manifest


def test_a_package_setting_reruns_the_package_stage_only(project, tmp_path, capsys):
    import json

    from build_model.cli import main

    config = copy_build(project["root"], tmp_path, STAGE_DIRS)
    capsys.readouterr()
    assert main(["--config", str(config), "--set", "package.name=renamed"]) == 0
    out = capsys.readouterr().out
    for stage in STAGE_DIRS[:-1]:
        assert f"{stage}: inputs unchanged" in out, stage
    assert "package: inputs unchanged" not in out
    manifest = json.loads((tmp_path / "artifact" / "manifest.json").read_text())
    assert manifest["name"] == "renamed"
    assert "--set package.name=renamed" in manifest["build"]["command"]


@pytest.mark.parametrize("args", [["--set", "quantize.max_f1_drop=-1"], ["--set", "nonsense"],
                                  ["--set", "quantize.op_types=[[\"Conv\"]]"], ["--set", "export.atol=0"]])
def test_bad_settings_exit_with_a_configuration_error(project, args, capsys):
    from build_model.cli import main

    assert main(["--config", str(project["config"]), *args]) == 2
    assert capsys.readouterr().err


def test_the_production_recipe_loads(repo):
    from build_model.config import load_config

    cfg = load_config(repo / "build_model" / "configs" / "production.toml")
    assert cfg.teacher.model == "bert-large-uncased-whole-word-masking-finetuned-squad"
    assert cfg.teacher.fine_tune is False
    assert cfg.student.model == "distilbert-base-uncased"
    assert cfg.data.train.endswith("train-v1.1.json") and cfg.data.dev.endswith("dev-v1.1.json")
    assert cfg.sequence.max_seq_len == 384


def test_importing_the_cli_stays_light(repo):
    code = ("import sys, build_model.cli; "
            "print(sorted(m for m in ('torch', 'transformers', 'onnx', 'onnxruntime', 'matplotlib') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
