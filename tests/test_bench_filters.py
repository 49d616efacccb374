"""python -m bench filters: each question's five ways, searched and asked whole through the request path."""

from __future__ import annotations

import json


def test_a_ways_fields_are_the_filter_the_http_api_parses_from_them(squad):
    from bench.filters import WAYS, asks, passage_filter
    from function.config import Settings
    from function.http.parse import parse

    settings = Settings.from_env({})
    planned = asks(squad, [f"doc-{n}" for n in range(20)], 6)
    assert len(planned) == 6
    for q, ways in planned:
        assert tuple(ways) == WAYS and ways["unfiltered"] == {}
        assert ways["documents"]["documents"][0] == q["gold"].rsplit("-", 1)[0]
        for fields in ways.values():
            body = json.dumps({"question": q["question"], **fields}).encode("utf-8")
            assert parse(body, settings, 30).where == passage_filter(fields)
    assert passage_filter({}) is None


def test_both_arms_ask_every_question_every_way(squad, tiny_artifact, tmp_path):
    from bench.filters import WAYS, main

    out = tmp_path / "out"
    assert main(["--rows", "120", "--questions", "8", "--data", str(squad), "--artifact", str(tiny_artifact.folder),
                 "--index", str(tmp_path / "index"), "--out", str(out)]) == 0
    result = json.loads((out / "filters.json").read_text())
    asked = result["question"]
    assert result["questions"] == 8 and tuple(result["ways"]) == tuple(asked["ways"]) == WAYS
    # the reading store holds what the searches returned: some of the corpus, at most 5 a way and question
    assert 0 < asked["reading_store"]["passages"] <= 5 * 5 * 8
    unfiltered = result["ways"]["unfiltered"]["recall_at_5"]
    for way in WAYS:
        searched, row = result["ways"][way], asked["ways"][way]
        assert searched["ms"]["n"] == row["total_ms"]["n"] == row["retrieve_ms"]["n"] == 8
        # a filter keeps the gold paragraph and drops others: it ranks no lower than unfiltered
        assert searched["recall_at_5"] >= unfiltered
        # the cascade may stop before the gold paragraph; it never reads one the search did not return
        assert row["gold_read"] <= searched["recall_at_5"]
        assert 1 <= row["passages_read"] <= 5 and row["tokens_read"] > 0 and 0 <= row["f1"] <= 100
    assert "| tags_and_prefix |" in (out / "filters.md").read_text().split("The whole question")[1]


def test_no_read_times_the_search_alone(squad, tmp_path):
    from bench.filters import main

    out = tmp_path / "out"
    assert main(["--rows", "120", "--questions", "4", "--no-read", "--data", str(squad), "--index",
                 str(tmp_path / "index"), "--out", str(out)]) == 0
    assert "question" not in json.loads((out / "filters.json").read_text())
    assert "The whole question" not in (out / "filters.md").read_text()
