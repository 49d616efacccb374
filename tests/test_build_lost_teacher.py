"""A lost machine: export and package run without the teacher's weights, from its saved entry and rows."""

from __future__ import annotations

import json

import pytest

from tests.support.tiny_build import built, copy_build

STAGES = ("teacher", "distil", "export", "quantize", "package")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    project = built(tmp_path_factory)
    assert project["exit"] == 0
    return project


def _without_teacher_weights(project, tmp_path):
    """A copy of the finished tiny build whose teacher has lost its weights (its record, config and tokenizer kept),
    and whose export folder has lost the teacher's ONNX files."""
    from build_model.config import load_config

    cfg = load_config(copy_build(project["root"], tmp_path, STAGES))
    build = tmp_path / "build"
    gone = [*(build / "teacher" / "model").glob("*.safetensors"), *(build / "teacher" / "model").glob("*.bin"),
            *(build / "export").glob("teacher*.onnx")]
    assert gone
    for path in gone:
        path.unlink()
    return cfg


def _saved(path):
    assert path.is_file(), f"{path} was not written by the build"
    return json.loads(path.read_text())


def test_export_reuses_the_teacher_entry_it_saved_and_exports_the_student(project, tmp_path):
    from build_model.stage_record import load_record
    from build_model.stages import export

    build = tmp_path / "build"
    cfg = _without_teacher_weights(project, tmp_path)
    before = load_record(build / "export")
    saved = _saved(build / "export" / "teacher.entry.json")
    assert saved["fingerprint"] == load_record(build / "teacher")["fingerprint"] == before["inputs"]["teacher"]
    assert {k: v for k, v in saved.items() if k != "fingerprint"} == before["models"]["teacher"]

    # the recorded fingerprint hashes as the weights did: an export made with them is not redone
    assert export.run(cfg)["inputs_hash"] == before["inputs_hash"]
    student_onnx = build / "export" / before["models"]["student"]["onnx"]
    written = student_onnx.stat().st_mtime_ns
    record = export.run(cfg, force=True)
    assert record["inputs_hash"] == before["inputs_hash"]
    teacher = record["models"]["teacher"]
    assert teacher.pop("from_record") is True and teacher == saved
    assert not list((build / "export").glob("teacher*.onnx"))  # nothing of the teacher exported
    assert student_onnx.stat().st_mtime_ns > written  # the student is
    assert record["models"]["student"]["sha256"] == before["models"]["student"]["sha256"]
    assert _saved(build / "export" / "teacher.entry.json") == saved


def test_package_reuses_the_teacher_rows_it_saved_and_times_the_student(project, tmp_path, monkeypatch):
    from build_model.evaluation import benchmark
    from build_model.stages import export, package
    from function.model.artifact import load_manifest

    build = tmp_path / "build"
    cfg = _without_teacher_weights(project, tmp_path)
    rows_file = build / "package" / "teacher.rows.json"
    saved = _saved(rows_file)
    assert [r["key"] for r in saved["rows"]] == ["teacher_pytorch_fp32", "teacher_onnx_fp32"]
    export.run(cfg, force=True)

    timed = []
    for name in ("torch_benchmark", "onnx_benchmark"):
        real = getattr(benchmark, name)
        monkeypatch.setattr(benchmark, name, lambda path, *a, real=real, **k: timed.append(path) or real(path, *a, **k))
    record = package.run(cfg, force=True)

    timed = [str(p.relative_to(tmp_path)) for p in timed]
    assert {"build/distil/model", "build/export/student.opt.onnx"} <= set(timed), timed  # the student: timed here
    assert not any("teacher" in p for p in timed), timed
    rows = json.loads(json.dumps(record["benchmarks"]))
    assert [r["key"] for r in rows] == list(package.KEYS)
    for row, kept in zip(rows, saved["rows"]):
        assert row.pop("from_record") is True and row.pop("cpu") == saved["cpu"] and row == kept
    assert not any(r.get("from_record") for r in rows[2:])
    metrics = load_manifest(tmp_path / "artifact").raw["metrics"]
    assert metrics["teacher_onnx_fp32"]["p50_ms"] == saved["rows"][1]["p50_ms"]
    report = (tmp_path / "artifact" / "REPORT.md").read_text()
    assert "The teacher PyTorch fp32 and teacher ONNX fp32 rows are reused from an earlier run" in report
    assert "Variants tried: *none*, this is the test build." in report  # [package] notes kept beside it
    assert _saved(rows_file) == saved


def test_a_fresh_package_does_not_say_rows_were_reused(project):
    report = (project["root"] / "artifact" / "REPORT.md").read_text()
    assert "reused from an earlier run" not in report


@pytest.mark.parametrize("damage", ["missing", "other teacher"])
def test_without_the_saved_entry_export_fails_saying_what_to_restore(project, tmp_path, damage):
    from build_model.errors import BuildFailed
    from build_model.stages import export

    cfg = _without_teacher_weights(project, tmp_path)
    path = tmp_path / "build" / "export" / "teacher.entry.json"
    if damage == "missing":
        path.unlink()
    else:
        path.write_text(json.dumps({**_saved(path), "fingerprint": "0" * 64}))
    with pytest.raises(BuildFailed, match="weights are gone") as failed:
        export.run(cfg, force=True)
    assert str(path) in str(failed.value) and "--stage teacher --force" in str(failed.value)
    assert ("is missing" if damage == "missing" else "saved for other weights") in str(failed.value)


@pytest.mark.parametrize("damage", ["missing", "other teacher"])
def test_without_the_saved_rows_package_fails_saying_what_to_restore(project, tmp_path, monkeypatch, damage):
    from build_model.errors import BuildFailed
    from build_model.evaluation import benchmark
    from build_model.stages import package

    cfg = _without_teacher_weights(project, tmp_path)  # export's record as it was: made with the weights
    path = tmp_path / "build" / "package" / "teacher.rows.json"
    if damage == "missing":
        path.unlink()
    else:
        path.write_text(json.dumps({**_saved(path), "fingerprint": "0" * 64}))
    monkeypatch.setattr(benchmark, "torch_benchmark", lambda *a, **k: pytest.fail("timed before failing"))
    with pytest.raises(BuildFailed, match="the teacher cannot be timed") as failed:
        package.run(cfg, force=True)
    assert str(path) in str(failed.value) and "--stage teacher --force" in str(failed.value)
    assert ("is missing" if damage == "missing" else "another teacher") in str(failed.value)
    assert not (tmp_path / "artifact").exists()
