"""The load test's pure parts: the request mix and the pass criteria (the run itself: ``slow``)."""

import argparse

import pytest

from bench import load_test


def test_sample_questions_carry_their_stored_passage_ids():
    questions = load_test.sample_questions()
    assert len(questions) == 208
    q = questions[0]
    assert q["passage_id"] == "Normans-0000" and q["question"] and q["context"].startswith("The Normans")


def test_the_mix_has_one_payload_per_kind():
    q = {"question": "Who?", "context": "Rollo.", "passage_id": "Normans-0001"}
    assert [load_test.payload(k, q) for k in load_test.KINDS] == [
        {"question": "Who?", "context": "Rollo."},
        {"question": "Who?", "passage_ids": ["Normans-0001"]},
        {"question": "Who?"}]


def _memory(values):
    return [{"rss_mb": v} for v in values]


def test_errors_and_growth_are_counted():
    rows = [{"kind": "context", "status": 200, "ms": 10.0, "cache": "miss", "error": None},
            {"kind": "passage", "status": 503, "ms": 3.0, "cache": None, "error": "unavailable"},
            {"kind": "retrieval", "status": 200, "ms": 30.0, "cache": "hit", "error": None}]
    flat = load_test.summarise(rows, _memory([100, 140, 120, 141, 125, 139]), seconds=1.0)
    assert flat["errors"] == 1 and flat["by_kind"]["passage"]["errors"] == 1 and flat["cache_hits"] == 1
    assert flat["growth_after_warm_up_mb"] == pytest.approx(1.5)  # swings, no growth
    leaking = load_test.summarise(rows, _memory([100, 110, 120, 130, 140, 150]), seconds=1.0)
    assert leaking["growth_after_warm_up_mb"] == pytest.approx(20)
    # One transient peak late in the run is not growth; every later sample higher is.
    spike = load_test.summarise(rows, _memory([100, 120, 121, 119, 120, 122, 160, 121, 120]), seconds=1.0)
    assert spike["growth_after_warm_up_mb"] == pytest.approx(1) and spike["peak_growth_after_warm_up_mb"] == 38
    shifted = load_test.summarise(rows, _memory([100, 120, 121, 119, 140, 142, 141]), seconds=1.0)
    assert shifted["growth_after_warm_up_mb"] >= 20


def test_the_worker_peak_is_its_high_water_mark_at_the_end():
    memory = [{"rss_mb": 100, "largest_peak_rss_mb": 150}, {"rss_mb": 90, "largest_peak_rss_mb": 180}]
    assert load_test.summarise([], memory, seconds=1.0)["worker_peak_rss_mb"] == 180  # no sample saw it


def test_env_settings_are_name_value_pairs():
    assert load_test.env_pair("MALLOC_MMAP_THRESHOLD_=131072") == ("MALLOC_MMAP_THRESHOLD_", "131072")
    assert load_test.env_pair("EMPTY=") == ("EMPTY", "")
    for bad in ("NOVALUE", "=1"):
        with pytest.raises(argparse.ArgumentTypeError):
            load_test.env_pair(bad)


@pytest.mark.slow
def test_a_short_load_run_passes(tiny_artifact, tmp_path):
    assert load_test.main(["--artifact", str(tiny_artifact.folder), "--clients", "2", "--seconds", "3",
                           "--warmup-s", "1", "--growth-mb", "1000", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "load.md").read_text().count("| 0 |") >= 2
