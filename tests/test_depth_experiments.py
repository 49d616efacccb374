"""experiments.read_depth and experiments.recall_depth on the tables a small ``bench scale --keep`` leaves."""

from __future__ import annotations

import json

import pytest

from tests.support.tiny_build import tiny_squad


@pytest.fixture(scope="module")
def kept(tmp_path_factory, tiny_artifact):
    """A 40-passage Lance table and reading store over the sample's dev paragraphs, and the SQuAD folder."""
    from bench.scale import main

    root = tmp_path_factory.mktemp("depth")
    squad = root / "squad"
    squad.mkdir()
    tiny_squad(squad)
    assert main(["--sizes", "40", "--backends", "lance", "--data", str(squad), "--no-brown", "--work",
                 str(root / "w"), "--out", str(root / "out"), "--f1-sizes", "40", "--f1-retrievals", "lance",
                 "--hybrid-sizes", "--artifact", str(tiny_artifact.folder), "--threads", "1", "--keep"]) == 0
    result = json.loads((root / "out" / "scale.json").read_text())
    return root, squad, result


def test_recall_grows_with_depth_and_matches_bench_scale_at_5(kept):
    from experiments.recall_depth import recall_at

    root, squad, result = kept
    [recall] = recall_at([root / "w" / "lance-40" / "index.lance"], squad).values()
    depths = sorted(recall)
    assert all(recall[a] <= recall[b] for a, b in zip(depths, depths[1:]))
    assert recall[5] == result["rows"][0]["query"]["recall_at_k"]


def test_read_depth_asks_every_question_at_every_depth(kept, tiny_artifact, tmp_path):
    from experiments.read_depth import main

    root, squad, result = kept
    out = tmp_path / "out"
    assert main(["--store", str(root / "w" / "reading-40" / "passages.sqlite"), "--index",
                 str(root / "w" / "lance-40" / "index.lance"), "--artifact", str(tiny_artifact.folder),
                 "--data", str(squad), "--ks", "1", "5", "--threads", "1", "--out", str(out)]) == 0
    rows = json.loads((out / "read_depth.json").read_text())["rows"]
    assert [r["k"] for r in rows] == [1, 5]
    questions = result["rows"][0]["query"]["questions"]
    assert all(r["server_ms"]["n"] == questions for r in rows)
    assert rows[0]["gold_passage_read"] <= rows[1]["gold_passage_read"]  # reading more finds at least as much
    assert rows[1]["gold_passage_read"] == result["rows"][0]["query"]["recall_at_k"]


def test_missing_tables_are_named(tmp_path):
    from experiments.recall_depth import main

    with pytest.raises(SystemExit, match="nothing-here"):
        main([str(tmp_path / "nothing-here")])
