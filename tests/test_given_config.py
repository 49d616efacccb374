"""A model taken as given: its configuration, its command-line errors, and the serving facts read from a tokenizer.

The given-model build itself, for every architecture, is in ``tests/test_given_models.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from build_model.config import ConfigError, load_config

GIVEN = Path(__file__).resolve().parents[1] / "build_model" / "configs" / "given.toml"


def test_the_given_recipe_needs_a_model():
    with pytest.raises(ConfigError, match=r"\[given\] model needs a hub id or a local folder"):
        load_config(GIVEN)


def test_command_line_paths_are_relative_to_where_the_command_runs(tmp_path, monkeypatch):
    (tmp_path / "mine").mkdir()
    (tmp_path / "dev.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    cfg = load_config(GIVEN, {"given.model": "mine", "package.out": "out/a", "data.dev": "dev.json"})
    assert cfg.given.model == str(tmp_path / "mine")
    assert cfg.package.out == str(tmp_path / "out" / "a")
    assert cfg.data.dev == str(tmp_path / "dev.json")
    assert cfg.teacher is None
    hub = load_config(GIVEN, {"given.model": "deepset/roberta-base-squad2"})
    assert hub.given.model == "deepset/roberta-base-squad2"  # a hub id is not a path


def test_a_configuration_names_a_teacher_or_a_given_model_not_both(tmp_path):
    text = GIVEN.read_text() + '\n[teacher]\nmodel = "x"\n'
    path = tmp_path / "both.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match="either a \\[teacher\\] section .* or a \\[given\\] section"):
        load_config(path, {"given.model": "x"})
    path.write_text(text.replace("[given]\nmodel = \"\"\n", ""))
    with pytest.raises(ConfigError, match="needs 'train'"):  # a teacher, but nothing to train a student on
        load_config(path)
    assert load_config(path, {"data.train": str(path)}).given is None


def test_a_student_section_is_refused_beside_a_given_model(tmp_path):
    path = tmp_path / "student.toml"
    path.write_text(GIVEN.read_text() + "\n[student]\nkeep_layers = [0]\n")
    with pytest.raises(ConfigError, match=r"\[student\] has no effect"):
        load_config(path, {"given.model": "x"})


def test_a_training_stage_is_refused_for_a_given_model(capsys):
    from build_model.cli import main

    assert main(["--config", str(GIVEN), "--set", "given.model=x", "--stage", "distil"]) == 2
    assert "its stages are given, export, quantize, package" in capsys.readouterr().err


def test_a_missing_dev_file_is_named(tmp_path, capsys):
    from build_model.cli import main

    args = ["--config", str(GIVEN), "--set", f"given.model={tmp_path}", "--set", f"data.dev={tmp_path}/no.json",
            "--set", f"work_dir={tmp_path}/w"]
    assert main(args) == 2
    assert f"{tmp_path}/no.json" in capsys.readouterr().err


def test_a_dev_file_that_is_not_squad_is_named(tmp_path):
    from build_model.squad import SquadFormatError, load_squad

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"data": [{"title": "t", "paragraphs": [{"qas": []}]}]}))
    with pytest.raises(SquadFormatError, match="bad.json: a record lacks"):
        load_squad(bad)
    bad.write_text("not json")
    with pytest.raises(SquadFormatError, match="bad.json is not a SQuAD-format JSON file"):
        load_squad(bad)


def test_an_encoder_without_a_qa_head_is_not_taken_as_given(tmp_path):
    from transformers import BertConfig, BertModel

    from build_model import hf

    BertModel(BertConfig(vocab_size=50, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=16)).save_pretrained(tmp_path)
    with pytest.raises(ValueError, match="is not a question-answering model: its QA head"):
        hf.load_qa_model(str(tmp_path), require_head=True)
    assert hf.load_qa_model(str(tmp_path)) is not None  # a teacher to fine-tune may start without one


@pytest.mark.parametrize("text, start, end, want", [
    ("a  Paris  b", 2, 9, (3, 8)),  # a byte-level BPE token carries the space before its word
    ("Paris", 0, 5, (0, 5)),
    ("x \t\n y", 1, 5, (5, 5)),  # white space only: nothing is left
    ("é東京 🙂 ", 0, 6, (0, 5)),
])
def test_answers_are_trimmed_of_white_space(text, start, end, want):
    from function.model.reader import trim

    assert trim(text, start, end) == want


def test_case_folding_is_asked_of_the_tokenizer(tmp_path):
    from tokenizers import Tokenizer, models, normalizers

    from function.model.tokenizer import QATokenizer

    for lower in (True, False):
        tok = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=lower)
        path = tmp_path / f"{lower}.json"
        path.write_text(tok.to_str())
        assert QATokenizer(path).lowercase is lower
