"""experiments.before_after: two checkouts' function served in turn, cold start and warm latency side by side."""

from __future__ import annotations

import json

from harness.paths import REPO


def test_the_same_checkout_twice_gives_every_figure_for_both(tiny_artifact, tmp_path):
    from experiments.before_after import main

    out = tmp_path / "ab"
    assert main([str(REPO), str(REPO), "--artifact", str(tiny_artifact.folder), "--rounds", "2",
                 "--requests", "2", "--out", str(out)]) == 0
    result = json.loads(out.with_suffix(".json").read_text())
    assert [len(result["runs"][name]) for name in ("before", "after")] == [2, 2]
    figures = [s["figure"] for s in result["summary"]]
    assert figures[0].startswith("cold start") and len(figures) == 4
    for s in result["summary"]:
        assert s["before"] > 0 and s["after"] > 0 and s["ratio"] == round(s["after"] / s["before"], 3)
    assert "| after / before |" in out.with_suffix(".md").read_text()
