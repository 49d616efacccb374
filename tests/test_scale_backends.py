"""python -m bench scale: sizes per backend, the build budget."""

from __future__ import annotations

import json

import pytest


def run(squad, tmp_path, *extra) -> dict:
    from bench.scale import main

    assert main(["--data", str(squad), "--no-brown", "--work", str(tmp_path / "w"), "--out", str(tmp_path / "out"),
                 "--f1-sizes", "--hybrid-sizes", *extra]) == 0
    return json.loads((tmp_path / "out" / "scale.json").read_text())


def test_a_backend_runs_at_its_own_sizes_and_lance_reads_are_counted(squad, tmp_path):
    result = run(squad, tmp_path, "--sizes", "30", "60", "--backends", "sqlite", "lance",
                 "--backend-sizes", "lance=30")
    assert [(r["size"], r["backend"]) for r in result["rows"]] == [(30, "sqlite"), (30, "lance"), (60, "sqlite")]
    lance = result["rows"][1]
    built, asked = lance["build"], lance["query"]
    assert built["complete"] and built["rows"] == 30 and built["bytes"] > 0
    assert asked["reads_per_question"] > 0 and "ranked" not in asked
    assert 0 <= asked["same_top_k_as_sqlite"] <= 1
    text = (tmp_path / "out" / "scale.md").read_text()
    assert "| 30 | lance | " in text and "| 60 | sqlite | " in text


def test_a_build_past_its_budget_stops_and_says_how_far_it_got(squad, tmp_path):
    result = run(squad, tmp_path, "--sizes", "600", "--backends", "sqlite", "--build-budget-s", "0")
    [row] = result["rows"]
    assert row["build"]["rows"] == 256 and not row["build"]["complete"]
    # asked of the 256 rows it wrote (the planted paragraphs come first, so most gold paragraphs are there)
    assert row["query"]["recall_at_k"] > 0
    assert "stopped after 256 rows" in (tmp_path / "out" / "scale.md").read_text()


def test_backend_sizes_are_parsed_per_backend():
    from bench.scale import parse_args

    args = parse_args(["--backend-sizes", "sqlite=10000,100000", "lance=1000"])
    assert args.backend_sizes == {"sqlite": [10_000, 100_000], "lance": [1000]}
    assert parse_args([]).backend_sizes == {}
    for retired in ("firestore=10", "tantivy=10"):
        with pytest.raises(SystemExit):
            parse_args(["--backend-sizes", retired])
