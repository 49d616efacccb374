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
    assert figures[0].startswith("cold start") and len(figures) == 6
    assert [f.split(" (")[0] for f in figures[-2:]] == ["resident memory after the requests", "peak resident memory"]
    for s in result["summary"]:
        assert s["before"] > 0 and s["after"] > 0 and s["ratio"] == round(s["after"] / s["before"], 3)
    assert "| after / before |" in out.with_suffix(".md").read_text()


def test_own_artifacts_serves_each_checkout_its_artifact_folder(tiny_artifact, tmp_path):
    """A model change: each checkout's own artifact/ (here a copy of the tiny one) is what it serves."""
    import shutil
    import subprocess

    from build_model.packaging.writer import update_manifest
    from experiments.before_after import main
    from function.model.artifact import load_manifest

    checkout = tmp_path / "checkout"
    subprocess.run(["git", "worktree", "add", "--detach", str(checkout), "HEAD"], cwd=REPO, check=True,
                   capture_output=True)
    try:
        shutil.rmtree(checkout / "artifact", ignore_errors=True)
        shutil.copytree(tiny_artifact.folder, checkout / "artifact")
        raw = load_manifest(checkout / "artifact").raw
        update_manifest(checkout / "artifact", {**raw, "name": "tiny-own"})
        out = tmp_path / "own"
        assert main([str(checkout), str(checkout), "--own-artifacts", "--artifact", str(tiny_artifact.folder),
                     "--rounds", "1", "--requests", "1", "--out", str(out)]) == 0
        result = json.loads(out.with_suffix(".json").read_text())
        assert result["artifact"] == "each checkout's own"
        assert [run["model"] for name in ("before", "after") for run in result["runs"][name]] == ["tiny-own"] * 2
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(checkout)], cwd=REPO, capture_output=True)
