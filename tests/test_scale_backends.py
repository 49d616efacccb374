"""python -m bench scale: the Firestore term index on the emulator beside FTS5, sizes per backend, the build budget."""

from __future__ import annotations

import json

import pytest

from tests.support.tiny_build import tiny_squad


@pytest.fixture(scope="module")
def squad(tmp_path_factory):
    folder = tmp_path_factory.mktemp("squad")
    tiny_squad(folder)
    return folder


def run(squad, tmp_path, *extra) -> dict:
    from bench.scale import main

    assert main(["--data", str(squad), "--no-brown", "--work", str(tmp_path / "w"), "--out", str(tmp_path / "out"),
                 "--f1-sizes", "--hybrid-sizes", *extra]) == 0
    return json.loads((tmp_path / "out" / "scale.json").read_text())


def test_firestore_runs_at_its_own_sizes_and_ranks_as_fts5(squad, tmp_path, firestore_env):
    result = run(squad, tmp_path, "--sizes", "30", "60", "--backends", "sqlite", "firestore",
                 "--backend-sizes", "firestore=30")
    assert [(r["size"], r["backend"]) for r in result["rows"]] == [(30, "sqlite"), (30, "firestore"), (60, "sqlite")]
    fs = result["rows"][1]
    built, asked = fs["build"], fs["query"]
    assert built["complete"] and built["rows"] == 30
    ops = built["firestore"]
    assert ops["writes"] > 30 and ops["reads"] > 0 and ops["deletes"] == 0  # passages, terms, totals; terms read first
    assert ops["commits"] > 0 and built["bytes_written"] > 30 * 100  # the passages' text alone is more than that
    assert built["index"]["term_documents"] > 100 and built["bytes"] == built["index"]["bytes"]
    sqlite = result["rows"][0]["query"]
    assert asked["recall_at_k"] == sqlite["recall_at_k"] and asked["same_top_k_as_sqlite"] == 1.0  # the same BM25
    assert asked["reads_per_question"] >= 2  # #corpus and the question's terms, in one get_all
    assert "ranked" not in asked
    text = (tmp_path / "out" / "scale.md").read_text()
    assert "| 30 | firestore | " in text and "100.0%" in text


def test_a_build_past_its_budget_stops_and_says_how_far_it_got(squad, tmp_path):
    result = run(squad, tmp_path, "--sizes", "600", "--backends", "sqlite", "--build-budget-s", "0")
    [row] = result["rows"]
    assert row["build"]["rows"] == 256 and not row["build"]["complete"]
    # asked of the 256 rows it wrote (the planted paragraphs come first, so most gold paragraphs are there)
    assert row["query"]["recall_at_k"] > 0
    assert "stopped after 256 rows" in (tmp_path / "out" / "scale.md").read_text()


def test_backend_sizes_are_parsed_per_backend():
    from bench.scale import parse_args

    args = parse_args(["--backend-sizes", "firestore=10000,100000", "lance=1000"])
    assert args.backend_sizes == {"firestore": [10_000, 100_000], "lance": [1000]}
    assert parse_args([]).backend_sizes == {"firestore": [10_000]}
    with pytest.raises(SystemExit):
        parse_args(["--backend-sizes", "tantivy=10"])
