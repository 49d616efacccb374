"""Configuration from the environment: defaults, validation, and the README's table."""

import dataclasses
import re

import pytest

from function.config import VARIABLES, ConfigError, Settings


def test_defaults_are_usable():
    s = Settings.from_env({})
    assert s.store == "sqlite" and s.cache and s.max_passage_ids == 50 and s.max_top_k == 10
    assert s.inference_concurrency == 0 and s.threads == 0 and s.inference_mode == "adaptive"
    # alone, a run gets every CPU; beside others, one run per CPU
    assert s.model_runs(2) == 2 and s.run_threads(2) == 2 and s.model_runs(1) == 1
    assert s.batch_wait_ms == 0 and s.batch_max_windows == 64


@pytest.mark.parametrize("mode, runs, threads", [("serial", 1, 4), ("batch", 1, 4), ("parallel", 4, 1), ("pool", 4, 1),
                                                  ("adaptive", 4, 4)])
def test_inference_modes_size_runs_and_threads_by_the_cpus(mode, runs, threads):
    s = Settings.from_env({"QA_INFERENCE_MODE": mode})
    assert (s.model_runs(4), s.run_threads(4)) == (runs, threads)
    given = Settings.from_env({"QA_INFERENCE_MODE": mode, "QA_INFERENCE_CONCURRENCY": "3", "QA_THREADS": "2"})
    assert (given.model_runs(4), given.run_threads(4)) == (3, 2)
    assert s.top_k_passages == 5 and s.max_top_k_passages == 20


@pytest.mark.parametrize("value, kinds", [
    (None, ()),  # the default: a shared read and write cost more than the model run they save (docs/cost.md)
    ("1", ("context", "passage_ids", "retrieval")), ("yes", ("context", "passage_ids", "retrieval")),
    ("0", ()), ("off", ()), ("retrieval, context", ("context", "retrieval")), ("PASSAGE_IDS", ("passage_ids",)),
])
def test_the_shared_answer_cache_is_chosen_per_request_kind(value, kinds):
    env = {} if value is None else {"QA_CACHE_SHARED": value}
    assert Settings.from_env(env).cache_shared == kinds


def test_every_setting_has_a_documented_variable():
    assert len(VARIABLES) == len(dataclasses.fields(Settings))
    assert len({v.name for v in VARIABLES}) == len(VARIABLES)


@pytest.mark.parametrize("env, words", [
    ({"QA_STORE": "redis"}, "QA_STORE"),
    ({"QA_MAX_TOP_K": "ten"}, "QA_MAX_TOP_K must be an integer"),
    ({"QA_MAX_TOP_K": "0"}, "QA_MAX_TOP_K must be >= 1"),
    ({"QA_CACHE": "maybe"}, "QA_CACHE must be 1 or 0"),
    ({"QA_STORE_TIMEOUT_S": "-1"}, "QA_STORE_TIMEOUT_S must be > 0"),
    ({"QA_INFERENCE_MODE": "async"}, "QA_INFERENCE_MODE must be one of serial, batch, parallel, pool, adaptive"),
    ({"QA_BATCH_WAIT_MS": "soon"}, "QA_BATCH_WAIT_MS must be a number"),
    ({"QA_BATCH_WAIT_MS": "-1"}, "QA_BATCH_WAIT_MS must be between 0 and 1000"),
    ({"QA_BATCH_MAX_WINDOWS": "0"}, "QA_BATCH_MAX_WINDOWS must be >= 1"),
    ({"QA_CACHE_SHARED": "passages"}, "QA_CACHE_SHARED must be 1, 0 or request kinds separated by commas"),
    ({"QA_CACHE_SHARED": "retrieval,maybe"}, "got 'retrieval,maybe'"),
    ({"QA_CACHE_SHARED": ","}, "QA_CACHE_SHARED must be 1, 0"),
    ({"QA_TOP_K_PASSAGES": "21"}, "QA_TOP_K_PASSAGES \\(21\\) must not be more than QA_MAX_TOP_K_PASSAGES \\(20\\)"),
])
def test_bad_values_are_named(env, words):
    with pytest.raises(ConfigError, match=words):
        Settings.from_env(env)


def test_the_readme_lists_every_variable_with_its_default(repo):
    readme = (repo / "README.md").read_text()
    for v in VARIABLES:
        default = v.default.replace(str(repo), "<repo>")
        row = re.search(rf"^\| `{v.name}` \| (.*?) \|", readme, re.M)
        assert row, f"README lacks a row for {v.name}"
        assert row.group(1).strip("` ") == default, f"README default of {v.name}"
