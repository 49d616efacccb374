"""experiments.split_distil: one command trains a split model from the whole one, and refuses to mix runs."""

from __future__ import annotations

import json

import pytest

from tests.support.tiny_build import tiny_sections, tiny_squad, tiny_teacher, write_config


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("split-distil")
    train, dev = tiny_squad(root / "data")
    init = tiny_teacher(root / "init")  # stands in for build/distil/model: a QA model with its tokenizer.json
    sections = tiny_sections(root, root / "no-teacher", train, dev)
    sections["student"].update(train_limit=0, unanswerable=1)  # all: both articles
    return {"root": root, "init": init, "config": write_config(root / "build.toml", sections)}


def _argv(project, out, k: int = 1) -> list[str]:
    return ["--config", str(project["config"]), "--init", str(project["init"]), "--k", str(k), "--epochs", "1",
            "--out", str(out), "--hidden-loss", "1.0", "--threads", "1"]


def test_a_run_writes_the_model_its_layout_its_log_and_its_dev_scores(project):
    from experiments.split_distil import main

    out = project["root"] / "split-k1"
    assert main(_argv(project, out)) == 0

    layout = json.loads((out / "model" / "split.json").read_text())
    assert layout == {"k": 1, "Q": 34, "passage_positions_from": 0, "pair_seps": 1, "layers": 2}
    assert (out / "model" / "config.json").is_file() and (out / "model" / "tokenizer.json").is_file()
    assert not (out / "checkpoint.pt").exists()
    result = json.loads((out / "result.json").read_text())
    assert result["kd_source"] == "whole"  # no teacher stage here: the whole model's logits are the targets
    assert result["features"]["unanswerable"] > 0
    assert set(result["before"]) == {"whole", "split_untrained"} and "f1" in result["dev"]
    log = [json.loads(line) for line in (out / "train.log.jsonl").read_text().splitlines()]
    events = [r.get("event") for r in log]
    assert {"start", "targets", "before", "step", "epoch_end"} <= set(events)
    assert "f1" in next(r for r in log if r.get("event") == "epoch_end")

    from transformers import BertForQuestionAnswering

    BertForQuestionAnswering.from_pretrained(out / "model")  # loads as it was saved

    # the same command again: finished, nothing to do
    assert main(_argv(project, out)) == 0


def test_a_run_with_other_arguments_is_not_resumed(project, tmp_path):
    from experiments.split_distil import check_resume

    out = tmp_path / "run"
    out.mkdir()
    (out / "args.json").write_text(json.dumps({"arguments": {"k": 2, "epochs": 1.0, "hidden_loss": 0.0}}))
    assert check_resume(out, {"k": 2, "epochs": 1.0, "hidden_loss": 0.0})
    with pytest.raises(SystemExit, match=r"hidden_loss: 0.0 -> 1.0; k: 2 -> 3"):
        check_resume(out, {"k": 3, "epochs": 1.0, "hidden_loss": 1.0})
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "checkpoint.pt").write_bytes(b"")
    with pytest.raises(SystemExit, match="without args.json"):
        check_resume(stray, {"k": 2})


def test_the_split_run_distils_from_the_distil_stage_s_targets(tmp_path):
    """With a teacher stage: ``--kd-from auto`` takes the stage's cached targets (``distil.soft_targets``) and
    falls back to the whole model's when the cache lacks them, leaving nothing in the cache behind;
    ``--kd-from teacher`` computes them."""
    from build_model.config import load_config
    from build_model.records import save_record
    from build_model.stages import distil
    from experiments.split_distil import main

    train, dev = tiny_squad(tmp_path / "data")
    init = tiny_teacher(tmp_path / "init")
    teacher = tiny_teacher(tmp_path / "build" / "teacher" / "model", seed=1)
    save_record(tmp_path / "build" / "teacher", {"teacher": 1}, {"dev": {}})
    sections = tiny_sections(tmp_path, teacher, train, dev)
    sections["student"].update(unanswerable=1)
    config = write_config(tmp_path / "build.toml", sections)
    cache = distil.logits_dir(load_config(config))

    def run(out: str, kd_from: str) -> dict:
        argv = ["--config", str(config), "--init", str(init), "--k", "1", "--epochs", "0.01", "--out",
                str(tmp_path / out), "--kd-from", kd_from, "--threads", "1"]
        assert main(argv) == 0
        return json.loads((tmp_path / out / "result.json").read_text())

    assert run("auto-empty", "auto")["kd_source"] == "whole"
    assert not cache.exists() or not list(cache.iterdir()), "a refused cache probe leaves nothing behind"
    assert run("teacher", "teacher")["kd_source"] == "teacher"
    assert [p.suffix for p in cache.iterdir()] == [".npz"]
    assert run("auto-cached", "auto")["kd_source"] == "teacher"


def test_a_split_model_goes_on_training_against_the_whole_model_it_came_from(project):
    """--init a split run's model, --whole the model it was split from: the targets and the 'before' score are
    the whole model's, not the split weights run whole."""
    from experiments.split_distil import main

    first = project["root"] / "split-k1"
    if not (first / "result.json").is_file():
        assert main(_argv(project, first)) == 0
    out = project["root"] / "split-k1-more"
    argv = ["--config", str(project["config"]), "--init", str(first / "model"), "--whole", str(project["init"]),
            "--k", "1", "--epochs", "1", "--out", str(out), "--threads", "1"]
    assert main(argv) == 0
    result = json.loads((out / "result.json").read_text())
    before = json.loads((first / "result.json").read_text())["before"]
    def scored(s: dict) -> dict:
        return {k: v for k, v in s.items() if k != "seconds"}

    assert scored(result["before"]["whole"]) == scored(before["whole"])  # the same whole model, scored the same
    assert result["arguments"]["whole_fingerprint"] != result["arguments"]["init_fingerprint"]
    whole_cache = sorted(p.name for p in out.glob("whole_logits-*"))
    assert whole_cache == sorted(p.name for p in first.glob("whole_logits-*"))  # the same targets
