"""Package: the artifact's manifest validates and describes itself, the function serves it, the report is complete."""

from __future__ import annotations

import json

import pytest

from tests.support.tiny import SEQUENCE
from tests.support.tiny_build import built, copy_build


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    project = built(tmp_path_factory)
    assert project["exit"] == 0
    return project


def test_manifest_validates_and_its_hashes_match_the_files(project):
    from function.model.artifact import load_manifest, sha256_file, verify

    folder = project["root"] / "artifact"
    manifest = load_manifest(folder)
    verify(manifest)
    files = manifest.raw["files"]
    on_disk = {p.name for p in folder.iterdir() if p.is_file()} - {"manifest.json"}
    assert set(files) == on_disk == {manifest.raw["model_file"], "tokenizer.json", "REPORT.md", "report.png"}
    for name, entry in files.items():
        assert entry == {"sha256": sha256_file(folder / name), "bytes": (folder / name).stat().st_size}, name


def test_manifest_describes_the_build(project):
    from build_model.stage_record import load_record

    raw = json.loads((project["root"] / "artifact" / "manifest.json").read_text())
    assert raw["sequence"] == SEQUENCE and raw["lowercase"] is True and raw["vocab_size"] == 3000
    assert isinstance(raw["onnx"]["optimized"], bool) and raw["onnx"]["opset"] == 17
    assert raw["onnx"]["format"] == ("ort" if raw["model_file"].endswith(".ort") else "onnx")
    assert set(raw["versions"]) >= {"torch", "transformers", "onnx", "onnxruntime", "tokenizers"}
    assert all(raw["versions"].values())
    q = raw["quantization"]
    assert {"per_channel", "op_types", "reduce_range", "weight_type", "gate"} <= set(q)
    assert raw["source"]["teacher"]["fingerprint"] and raw["source"]["student"]["checkpoint"]
    assert raw["source"]["student"]["keep_layers"] == [0]
    # the served model's shape, as bench's stand-in reads it
    assert raw["model"]["type"] == "bert"
    assert raw["model"]["config"]["num_hidden_layers"] == 1 and raw["model"]["config"]["vocab_size"] == 3000
    from bench.standin import architecture

    assert architecture(project["root"] / "artifact") == (raw["model"]["config"], "the manifest's model.config")
    metrics = raw["metrics"]
    assert set(metrics) == {"teacher_pytorch_fp32", "teacher_onnx_fp32", "student_pytorch_fp32",
                            "student_onnx_fp32", "student_onnx_int8"}
    for entry in metrics.values():
        assert {"f1", "exact_match", "p50_ms", "load_s", "bytes", "parameters"} <= set(entry)
        assert str(SEQUENCE["max_seq_len"]) in entry["p50_ms"]
    package = load_record(project["root"] / "build" / "package")
    assert metrics["student_onnx_int8"]["f1"] == package["dev"]["f1"]
    assert package["artifact_hash"] == raw["artifact_hash"]
    assert raw["build"]["command"].startswith("python -m build_model --config ")


def test_the_function_serves_the_artifact_with_the_recorded_scores(project):
    from build_model.evaluation.evaluate import evaluate
    from build_model.squad import load_squad
    from build_model.stage_record import load_record
    from function.model.artifact import load_manifest
    from function.model.load import load_model

    model, timings = load_model(load_manifest(project["root"] / "artifact"), 1)
    assert set(timings) >= {"verify_ms", "tokenizer_ms", "model_ms"}
    dev = load_squad(project["root"] / "data" / "dev.json")
    scores = evaluate(dev, model.tokenizer, model.spec, model.infer, max_answer_tokens=30)
    assert scores["f1"] == pytest.approx(load_record(project["root"] / "build" / "package")["dev"]["f1"])


def test_report_has_every_row_target_and_check(project):
    from build_model.packaging.report import ROWS

    folder = project["root"] / "artifact"
    text = (folder / "REPORT.md").read_text()
    for needle in (*ROWS, "original write-up", "16 GB", "30 s cold start", "1500 ms", "## Targets",
                   "## Quantisation candidates", "**(kept)**", "tolerance 1e-03", "## Why this student",
                   "CPU: ", "onnxruntime 1.", "python -m build_model --config", "session creation",
                   "Variants tried: *none*, this is the test build."):
        assert needle in text, needle
    assert text.count("| yes |") + text.count("| **no** |") == 5  # every target judged
    assert (folder / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_tampered_artifact_is_rebuilt(project, tmp_path):
    from build_model.config import load_config
    from build_model.stages import package
    from function.model.artifact import load_manifest, verify

    cfg = load_config(copy_build(project["root"], tmp_path, ("teacher", "distil", "export", "quantize", "package")))
    record = package.run(cfg)  # another [package] out: written there
    manifest_file = tmp_path / "artifact" / "manifest.json"
    written = manifest_file.stat().st_mtime_ns
    assert package.run(cfg)["inputs_hash"] == record["inputs_hash"]  # intact: skipped
    assert manifest_file.stat().st_mtime_ns == written
    assert record["artifact_hash"] == load_manifest(tmp_path / "artifact").artifact_hash
    with open(tmp_path / "artifact" / "REPORT.md", "a") as f:
        f.write("edited by hand\n")
    assert not package._intact(tmp_path / "artifact", record)
    again = package.run(cfg)
    assert "edited by hand" not in (tmp_path / "artifact" / "REPORT.md").read_text()
    verify(load_manifest(tmp_path / "artifact"))
    assert again["artifact_hash"] == load_manifest(tmp_path / "artifact").artifact_hash
    assert record["replaced"] is None  # the folder was empty: nothing to compare with


def test_a_rebuild_is_timed_against_the_artifact_it_replaces(project, tmp_path):
    from build_model.config import load_config
    from build_model.stages import package

    cfg = load_config(copy_build(project["root"], tmp_path, ("teacher", "distil", "export", "quantize", "package")))
    first = package.run(cfg)
    again = package.run(cfg, force=True)
    replaced = again["replaced"]
    assert first["replaced"] is None and replaced["artifact_hash"] == first["artifact_hash"]
    assert set(replaced["p50_ms"]) == set(replaced["new_p50_ms"]) == set(replaced["ratio"]) and replaced["ratio"]
    for n, ratio in replaced["ratio"].items():
        assert ratio == pytest.approx(replaced["new_p50_ms"][n] / replaced["p50_ms"][n], rel=1e-2)
    assert "Against the artifact it replaces" in (tmp_path / "artifact" / "REPORT.md").read_text()


def test_an_artifact_that_scored_higher_on_the_same_dev_file_is_not_replaced(project, tmp_path, monkeypatch):
    import dataclasses

    from build_model.config import load_config
    from build_model.errors import BuildFailed
    from build_model.packaging.writer import update_manifest
    from build_model.stages import package
    from function.model.artifact import load_manifest

    cfg = load_config(copy_build(project["root"], tmp_path, ("teacher", "distil", "export", "quantize", "package")))
    first = package.run(cfg)
    out = tmp_path / "artifact"
    raw = load_manifest(out).raw
    new_f1 = raw["metrics"]["student_onnx_int8"]["f1"]
    raw["metrics"]["student_onnx_int8"]["f1"] = new_f1 + 0.5  # the artifact in place: better on this dev file
    update_manifest(out, raw)
    measured = package.load_variants.measure
    monkeypatch.setattr(package.load_variants, "measure", lambda *a, **k: pytest.fail("measured before the check"))
    with pytest.raises(BuildFailed, match="replace_better") as failed:  # from the quantize stage's score, at once
        package.run(cfg, force=True)
    monkeypatch.setattr(package.load_variants, "measure", measured)
    raw["metrics"]["student_onnx_int8"]["f1"] = new_f1 - 0.1  # below the quantize stage's score: checked again
    update_manifest(out, raw)                                  # once the staged artifact is scored
    scored = package._score_shipped

    def lower(*args):
        dev, no_answer = scored(*args)
        return {**dev, "f1": new_f1 - 0.5}, no_answer

    monkeypatch.setattr(package, "_score_shipped", lower)
    with pytest.raises(BuildFailed, match=f"the new model scores {new_f1 - 0.5:.2f}"):
        package.run(cfg, force=True)
    monkeypatch.setattr(package, "_score_shipped", scored)
    raw["metrics"]["student_onnx_int8"]["f1"] = new_f1 + 0.5
    update_manifest(out, raw)
    assert f"{new_f1 + 0.5:.2f}" in str(failed.value) and f"{new_f1:.2f}" in str(failed.value)
    assert load_manifest(out).raw["metrics"]["student_onnx_int8"]["f1"] == new_f1 + 0.5  # left alone

    raw["dev_set"]["sha256"] = "0" * 64  # scored on another dev file: no comparison, replaced as before
    update_manifest(out, raw)
    assert package.replaced_score(out, first["inputs"]["dev"]) is None

    raw["dev_set"]["sha256"] = first["inputs"]["dev"]
    update_manifest(out, raw)
    again = package.run(dataclasses.replace(cfg, package=dataclasses.replace(cfg.package, replace_better=True)))
    assert load_manifest(out).artifact_hash == again["artifact_hash"]
    assert again["replaced"]["dev_f1"] == pytest.approx(new_f1 + 0.5)
    assert f"F1 {new_f1:.2f} vs {new_f1 + 0.5:.2f}" in (out / "REPORT.md").read_text()


def test_an_ort_format_model_is_served_by_its_file_name(project, tmp_path):
    from build_model.packaging.writer import write_artifact
    from function.model.artifact import load_manifest
    from function.model.load import load_model

    ort_file = project["root"] / "build" / "package" / "preoptimized.ort"
    tokenizer = (project["root"] / "artifact" / "tokenizer.json").read_text()
    manifest = write_artifact(tmp_path / "a", ort_file, tokenizer, "ort", SEQUENCE,
                              extra={"onnx": {"opset": 17, "optimized": True}}, model_file="model.ort")
    assert manifest["model_file"] == "model.ort" and "model.onnx" not in manifest["files"]
    model, _ = load_model(load_manifest(tmp_path / "a"), 1)
    assert model.infer.input_names[:2] == ["input_ids", "attention_mask"]


def test_package_refuses_to_replace_a_folder_that_is_not_an_artifact(project, tmp_path):
    from build_model.config import load_config
    from build_model.errors import BuildFailed
    from build_model.stages import package

    cfg = load_config(copy_build(project["root"], tmp_path, ("teacher", "distil", "export", "quantize")))
    (tmp_path / "artifact").mkdir()
    (tmp_path / "artifact" / "notes.txt").write_text("mine")
    with pytest.raises(BuildFailed, match="refusing to replace"):
        package.run(cfg)
    assert (tmp_path / "artifact" / "notes.txt").read_text() == "mine"


def test_a_pre_optimised_file_ships_only_when_it_pays_for_itself():
    from build_model.conversion.load_variants import choose

    def rows(onnx_s, ort_s, onnx_diff=0.0, ort_p50=40.0):
        return [{"name": "plain .onnx", "load_s": 0.030, "p50_ms": 40.0, "max_diff": 0.0},
                {"name": "pre-optimised .onnx", "load_s": onnx_s, "p50_ms": 40.0, "max_diff": onnx_diff},
                {"name": "pre-optimised .ort", "load_s": ort_s, "p50_ms": ort_p50, "max_diff": 0.0}]

    assert choose(rows(0.029, 0.028), 0.1, 1e-3)[0]["name"] == "plain .onnx"  # 3-7% is noise
    assert choose(rows(0.020, 0.019), 0.1, 1e-3)[0]["name"] == "pre-optimised .onnx"  # .ort not 10% better
    assert choose(rows(0.020, 0.010), 0.1, 1e-3)[0]["name"] == "pre-optimised .ort"
    assert choose(rows(0.010, 0.029), 0.1, 1e-3)[0]["name"] == "pre-optimised .onnx"
    assert choose(rows(0.010, 0.029, onnx_diff=0.5), 0.1, 1e-3)[0]["name"] == "plain .onnx"  # other outputs
    assert choose(rows(0.040, 0.010, ort_p50=50.0), 0.1, 1e-3)[0]["name"] == "plain .onnx"  # slower inference
    kept, why = choose(rows(0.020, 0.019), 0.1, 1e-3)
    assert "33% less" in why and "under the 10% needed" in why


def test_a_shipped_model_that_fails_the_gate_leaves_the_previous_artifact(project, tmp_path, monkeypatch):
    import dataclasses
    import shutil

    from build_model.config import load_config
    from build_model.errors import BuildFailed
    from build_model.stage_record import load_record
    from build_model.stages import package
    from function.model.artifact import load_manifest, verify

    cfg = load_config(copy_build(project["root"], tmp_path, ("teacher", "distil", "export", "quantize")))
    cfg = dataclasses.replace(cfg, quantize=dataclasses.replace(cfg.quantize, max_f1_drop=0.5))
    shutil.copytree(project["root"] / "artifact", tmp_path / "artifact")
    before = (tmp_path / "artifact" / "manifest.json").read_bytes()
    fp32 = load_record(tmp_path / "build" / "export")["models"]["student"]["dev"]
    monkeypatch.setattr(package, "_score_shipped",
                        lambda cfg, folder, dev: ({**fp32, "f1": fp32["f1"] - 1.0}, {"supported": False}))
    with pytest.raises(BuildFailed, match="loses 1.00 F1"):
        package.run(cfg)
    assert (tmp_path / "artifact" / "manifest.json").read_bytes() == before
    verify(load_manifest(tmp_path / "artifact"))
    assert not (tmp_path / "build" / "package" / "stage.json").exists()


@pytest.mark.parametrize("record, mix, expected", [
    ({"model": "base layers", "keep_layers": [0, 2, 4]}, "",
     "layers 0, 2, 4 of the 6-layer base, mini-encoder fine-tuned on SQuAD; distilled from the 12-layer teacher"),
    ({"model": "base layers", "keep_layers": [0, 2, 4]}, "[student]\nbase_weight = 0.5\n",
     "layers 0, 2, 4 of the 6-layer base, mini-encoder fine-tuned on SQuAD; distilled from the 12-layer "
     "teacher's and the base's distributions mixed (base weight 0.5)"),
    ({"model": "teacher layers", "keep_layers": [0, 5]}, "", "layers 0, 5 of the 12-layer teacher"),
    ({"model": "teacher layers", "keep_layers": [0, 5], "intermediate_size": 768}, "",
     "layers 0, 5 (feed-forward blocks narrowed to 768 units) of the 12-layer teacher"),
    ({"model": "/models/my-student"}, "", "/models/my-student"),
])
def test_the_report_says_which_model_the_student_s_layers_come_from(tmp_path, record, mix, expected):
    """A student cut from [base] is described as such, not as layers of the (deeper) teacher."""
    from build_model.config import load_config
    from build_model.stages.package import _student_origin

    (tmp_path / "mini-encoder").mkdir()
    (tmp_path / "build.toml").write_text(
        f'work_dir = "{tmp_path / "build"}"\n[data]\ntrain = "t.json"\ndev = "d.json"\n'
        '[teacher]\nmodel = "teacher"\n[base]\nmodel = "mini-encoder"\n' + mix)
    cfg = load_config(tmp_path / "build.toml")
    model = tmp_path / "build" / "base" / "model"
    model.mkdir(parents=True)
    (model / "config.json").write_text(json.dumps({"num_hidden_layers": 6}))
    (tmp_path / "build" / "base" / "stage.json").write_text("{}")
    assert _student_origin(cfg, record, 12) == expected
