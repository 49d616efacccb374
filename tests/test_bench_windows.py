"""``python -m bench windows``: the length buckets it measures against, and a whole run on the tiny model."""

from __future__ import annotations

import itertools
import json
import shutil

import pytest

from bench.windows import bucket_groups


def cost(lengths, groups, run_cost):
    return sum(len(g) * max(lengths[w] for w in g) + run_cost for g in groups)


def partitions(items):
    """Every split of the sorted ``items`` into consecutive runs."""
    for cuts in itertools.product([False, True], repeat=max(0, len(items) - 1)):
        groups, current = [], [items[0]]
        for item, cut in zip(items[1:], cuts):
            if cut:
                groups.append(current)
                current = []
            current.append(item)
        yield groups + [current]


@pytest.mark.parametrize("lengths", [[115, 113, 95, 268, 255], [300, 300, 300, 120], [50], [10, 200, 20, 190, 30]])
@pytest.mark.parametrize("run_cost", [0, 64, 1000])
def test_buckets_are_the_cheapest_split_and_cover_every_window_once(lengths, run_cost):
    groups = bucket_groups(lengths, run_cost)
    assert sorted(w for g in groups for w in g) == list(range(len(lengths)))
    order = sorted(range(len(lengths)), key=lambda w: lengths[w])
    assert cost(lengths, groups, run_cost) == min(cost(lengths, p, run_cost) for p in partitions(order))
    if run_cost == 0:  # no price on a run: no padding at all
        assert all(len({lengths[w] for w in g}) == 1 for g in groups)
    if run_cost == 1000:  # runs dearer than any padding: one run
        assert len(groups) == 1


def test_a_whole_run_on_the_tiny_model_compares_every_strategy_on_every_path(tiny_artifact, repo, tmp_path):
    from bench.windows import main

    data = tmp_path / "squad"
    data.mkdir()
    shutil.copyfile(repo / "samples" / "squad_sample.json", data / "dev.json")
    context = "The Loire is the longest river in France."
    (data / "train.json").write_text(json.dumps({"version": "1.1", "data": [{"title": "Loire", "paragraphs": [
        {"context": context, "qas": [{"id": "t1", "question": "Which river is the longest in France?",
                                      "answers": [{"text": "The Loire", "answer_start": 0}]}]}]}]}))
    out = tmp_path / "out"
    assert main(["--artifact", str(tiny_artifact.folder), "--data", str(data), "--questions", "4", "--warmup", "1",
                 "--threads", "2", "--strategies", "padded", "unpadded", "sequential", "buckets", "spread",
                 "--out", str(out)]) == 0
    result = json.loads((out / "windows.json").read_text())
    assert set(result["paths"]) == {"context", "passage_ids", "alone", "long_context"}
    for path in result["paths"].values():
        assert set(path["strategies"]) == {"padded", "unpadded", "sequential", "buckets", "spread"}
        assert path["strategies"]["padded"]["same_answer_as_padded"] == 1.0
        assert path["strategies"]["unpadded"]["same_answer_as_padded"] == 1.0  # a float model: the same answers
        assert path["strategies"]["buckets"]["same_answer_as_padded"] == 1.0
        assert path["strategies"]["spread"]["same_answer_as_padded"] == 1.0  # QA_SPREAD_WINDOWS flipped
    for path in ("alone", "long_context"):
        assert result["paths"][path]["windows_mean"] > 1 and result["paths"][path]["tokens_share_of_padded"] < 1
    assert result["runs"]["padded"]["spread_runs"] == 0 and result["runs"]["buckets"]["runs"] > 0
    # the lone questions spread over the cores: by the toggled strategy alone (its counters are unpadded's)
    assert result["runs"]["spread"]["spread_runs"] > 0
    assert "| alone |" in (out / "windows.md").read_text()
