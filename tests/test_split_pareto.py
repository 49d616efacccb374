"""experiments/split_pareto.py: a split model on every path (passage in the request, stored, question alone)
beside the whole model it came from, its stored states' formats, and model time as a ratio in one run."""

import json
import shutil

import pytest

from experiments import split_pareto
from tests.support.tiny_build import built


def test_a_split_is_scored_on_every_path_and_timed_beside_the_whole_model(tmp_path_factory, tmp_path):
    project = built(tmp_path_factory)
    assert project["exit"] == 0
    root = project["root"]
    student = tmp_path / "split" / "model"
    shutil.copytree(root / "build" / "distil" / "model", student)
    layers = json.loads((student / "config.json").read_text())["num_hidden_layers"]
    (student / "split.json").write_text(json.dumps({"k": layers, "Q": 66, "passage_positions_from": 0}))
    # the corpus holds train.json's and dev.json's paragraphs by title and index: no article in both
    data = tmp_path / "data"
    data.mkdir()
    dev = json.loads((root / "data" / "dev.json").read_text())
    train = json.loads((root / "data" / "train.json").read_text())
    titles = {a["title"] for a in dev["data"]}
    train["data"] = [a for a in train["data"] if a["title"] not in titles]
    (data / "dev.json").write_text(json.dumps(dev))
    (data / "train.json").write_text(json.dumps(train))
    out = tmp_path / "split-pareto"
    assert split_pareto.main([str(student), "--artifact", str(root / "artifact"), "--data", str(data),
                              "--timing-questions", "3", "--rounds", "2", "--top-k-passages", "2",
                              "--out", str(out)]) == 0
    result = json.loads(out.with_suffix(".json").read_text())
    whole, *splits = result["rows"]
    assert [r["bytes_per_token"] for r in splits] == [4 * 64, 2 * 64, 64 + 4]  # fp32, fp16, int8 + its scale
    assert whole["vs_whole"] == {"stored passage": 1.0, "question alone": 1.0}
    for row in splits:
        assert set(row["f1"]) == set(split_pareto.PATHS) and row["ms"]["question alone"] > 0
        # the passage in the request is computed on the fly: the same for every storage format
        assert row["f1"]["passage in the request"] == splits[0]["f1"]["passage in the request"]
    text = out.with_suffix(".md").read_text()
    assert "| split k=" in text and "a month in Firestore" in text


def test_a_folder_without_split_json_is_refused(tmp_path):
    with pytest.raises(SystemExit, match="no split.json"):
        split_pareto.main([str(tmp_path), "--out", str(tmp_path / "x")])
