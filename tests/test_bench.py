"""The benchmark's own code: percentiles, /proc parsing, passages, span selection, report rendering.

Everything here is hermetic and fast except ``test_whole_bench_end_to_end`` (marked slow), which
runs ``python -m bench serving`` with tiny settings on the tiny artifact, and
``test_serving_without_a_checkpoint_uses_stand_in_weights``, the same with no PyTorch checkpoint
at hand (a fresh clone), which serves stand-in weights and says so.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from bench import cold_start, contender_models, machine, passages, report, standin, stats
from bench.baseline_qa import best_spans
from bench.contenders import Contender
from harness import proctree
from harness.launch import cold_start_lines
from tests.support.decoding import model_own_span

# ---------------------------------------------------------------- stats


@pytest.mark.parametrize("q", [0, 1, 25, 50, 90, 95, 99, 100])
@pytest.mark.parametrize("n", [1, 2, 7, 100])
def test_percentile_matches_numpy_linear(q, n):
    values = list(np.random.default_rng(n).exponential(10.0, size=n))
    assert stats.percentile(values, q) == pytest.approx(float(np.percentile(values, q)))


def test_percentile_ignores_order_and_rejects_nonsense():
    assert stats.percentile([3, 1, 2], 50) == 2
    assert stats.percentile([10, 20], 50) == 15
    with pytest.raises(ValueError):
        stats.percentile([], 50)
    with pytest.raises(ValueError):
        stats.percentile([1], 101)


def test_latency_summary_and_spread():
    s = stats.latency_summary(range(1, 101))
    assert s["n"] == 100 and s["min"] == 1 and s["max"] == 100
    assert s["p50"] == 50.5 and s["p95"] == pytest.approx(95.05) and s["p99"] == pytest.approx(99.01)
    assert stats.latency_summary([]) is None
    assert stats.spread([3.0, None, 1.0, True, 2.0]) == {"min": 1.0, "median": 2.0, "max": 3.0, "n": 3}
    assert stats.spread([None]) is None


def test_ratio():
    assert stats.ratio(30, 10) == 3.0
    assert stats.ratio(None, 10) is None and stats.ratio(1, 0) is None and stats.ratio(1, None) is None


# ---------------------------------------------------------------- /proc


def test_parse_ppid_survives_odd_command_names():
    assert proctree.parse_ppid("4242 (gunicorn: worker [main]) S 17 4242 4242 0 -1") == 17
    assert proctree.parse_ppid("7 (a) b) (c) R 3 7 7 0") == 3


def test_parse_kb():
    status = "Name:\tpython\nVmPeak:\t  900 kB\nVmHWM:\t  123456 kB\nVmRSS:\t  100000 kB\n"
    assert proctree.parse_kb(status, "VmHWM") == 123456
    assert proctree.parse_kb(status, "VmRSS") == 100000
    assert proctree.parse_kb(status, "VmSwap") == 0


def test_descendants_follows_the_tree_only():
    parents = {1: 0, 10: 1, 11: 10, 12: 10, 13: 12, 20: 1, 21: 20}
    assert sorted(proctree.descendants(10, parents)) == [10, 11, 12, 13]
    assert proctree.descendants(10, parents)[0] == 10
    assert proctree.descendants(99, parents) == [99]


def _fake_proc(root: Path, pid: int, ppid: int, name: str, hwm: int, rss: int, pss: int) -> None:
    d = root / str(pid)
    d.mkdir(parents=True)
    (d / "stat").write_text(f"{pid} ({name}) S {ppid} {pid} {pid} 0 -1\n")
    (d / "status").write_text(f"Name:\t{name}\nVmHWM:\t{hwm} kB\nVmRSS:\t{rss} kB\n")
    (d / "smaps_rollup").write_text(f"00400000-ffffffff ---p 00000000 00:00 0 [rollup]\nRss: {rss} kB\nPss: {pss} kB\n")


def test_tree_memory_sums_the_tree(tmp_path):
    _fake_proc(tmp_path, 100, 1, "functions-frame", hwm=51200, rss=40960, pss=30720)
    _fake_proc(tmp_path, 101, 100, "gunicorn: worker", hwm=153600, rss=102400, pss=81920)
    _fake_proc(tmp_path, 200, 1, "unrelated", hwm=999999, rss=999999, pss=999999)
    (tmp_path / "self").mkdir()  # non-numeric entries are skipped
    mem = proctree.tree_memory(100, proc=str(tmp_path))
    assert mem == {"peak_rss_mb": 200.0, "rss_mb": 140.0, "pss_mb": 110.0, "largest_peak_rss_mb": 150.0,
                   "processes": 2}


def test_tree_memory_of_this_process_is_plausible():
    import os

    mem = proctree.tree_memory(os.getpid())
    assert mem["processes"] >= 1 and mem["peak_rss_mb"] >= mem["largest_peak_rss_mb"] > 0


def test_parse_cpuinfo():
    text = ("processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu sse avx2 fma\n\n"
            "processor\t: 1\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu sse avx2 fma\n")
    assert machine.parse_cpuinfo(text) == {"cpu": "AMD EPYC 7B13", "isa": ["avx2"]}
    assert machine.parse_cpuinfo("") == {"cpu": "unknown", "isa": []}


# ---------------------------------------------------------------- passages


def test_whole_word_tokens_cuts_between_words():
    # "Normandy, France's region": normandy | , | france | ' | s | region
    offsets = [(0, 8), (8, 9), (10, 16), (16, 17), (17, 18), (19, 25)]
    assert passages.whole_word_tokens(offsets, 6) == 6
    assert passages.whole_word_tokens(offsets, 5) == 5  # after "s": white space follows
    assert passages.whole_word_tokens(offsets, 4) == 2  # never inside "france's"
    with pytest.raises(ValueError):
        passages.whole_word_tokens([(0, 3), (3, 4)], 1)


class _WordTokenizer:
    """One token per white-space separated word (enough for the cutting logic)."""

    class _Enc:
        def __init__(self, offsets):
            self.ids = np.arange(len(offsets))
            self.offsets = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)

    def encode(self, text):
        import re

        return self._Enc([m.span() for m in re.finditer(r"\S+", text)])


def test_make_passages_fill_one_window_each():
    text = " ".join(f"w{i}" for i in range(500))
    made = passages.make_passages(_WordTokenizer(), "what is it ?", text, [32, 64])
    assert [p["id"] for p in made] == ["bench-w32", "bench-w64"]
    for p, length in zip(made, (32, 64)):
        assert p["question_tokens"] == 4
        assert p["window_tokens"] == length == 4 + 3 + p["passage_tokens"]
        assert len(p["text"].split()) == p["passage_tokens"] and text.startswith(p["text"])
    with pytest.raises(ValueError):
        passages.make_passages(_WordTokenizer(), "q", "too short", [64])


def test_article_text_is_squad_text():
    text = passages.article_text()
    assert text.startswith("The Normans") and len(text) > 10000


# ---------------------------------------------------------------- span selection (the pipeline's)


def test_best_spans_respects_order_length_and_allowed_tokens():
    start = np.array([9.0, 0.0, 5.0, 0.0, 0.0, 8.0])
    end = np.array([9.0, 0.0, 0.0, 0.0, 6.0, 0.0])
    allowed = np.array([False, True, True, True, True, True])  # [CLS] is never an answer
    [(i, j, score)] = best_spans(start, end, allowed, max_answer_len=30, top_k=1)
    assert (i, j) == (2, 4) and 0 < score <= 1  # start 5 (not after the end at 4), never [CLS]
    [(i, j, _)] = best_spans(start, end, allowed, max_answer_len=2, top_k=1)
    assert j - i < 2 and i <= j and allowed[i] and allowed[j]
    spans = best_spans(start, end, allowed, max_answer_len=30, top_k=3)
    assert [s[2] for s in spans] == sorted((s[2] for s in spans), reverse=True)


# ---------------------------------------------------------------- cold start


RUN = {"listening_ms": 300.0, "first_answer_ms": 900.0,
       "server_timings_ms": {"tokenize": 1.0, "fetch": 0.2, "inference": 20.0, "total": 430.0},
       "cold_start_ms": {"verify_ms": 30.0, "tokenizer_ms": 100.0, "model_ms": 150.0, "store_ms": 15.0,
                         "load_ms": 400.0, "import_ms": 200.0, "since_process_start_ms": 850.0}}


def test_breakdown_adds_up_to_the_first_answer():
    parts = cold_start.breakdown(RUN)
    assert list(parts) == list(cold_start.SEGMENTS)
    assert sum(parts.values()) == pytest.approx(RUN["first_answer_ms"], abs=0.5)
    assert parts["interpreter + module import"] == 200 and parts["server start"] == 100
    assert parts["worker boot + routing"] == 150  # load started at 850 - 400 ms
    assert parts["lazy imports + other load"] == 120 and parts["first inference"] == 20
    assert parts["artifact check + tokenizer + model load"] == 280  # one after the other: their sum
    assert all(v >= 0 for v in parts.values())


def test_breakdown_counts_overlapping_load_parts_once():
    overlapped = {**RUN, "cold_start_ms": {**RUN["cold_start_ms"], "load_ms": 160.0}}  # 30 + 100 + 150 > 160
    parts = cold_start.breakdown(overlapped)
    assert parts["artifact check + tokenizer + model load"] == 160 and parts["lazy imports + other load"] == 0
    assert sum(parts.values()) == pytest.approx(RUN["first_answer_ms"], abs=0.5)


def test_breakdown_without_a_cold_start_line():
    parts = cold_start.breakdown({"listening_ms": 100.0, "first_answer_ms": 150.0, "cold_start_ms": {},
                                  "server_timings_ms": {}})
    assert parts["server start"] == 100 and parts["rest of first request"] == 50


def test_summarise_runs():
    other = {**RUN, "first_answer_ms": 1100.0, "peak_rss_mb": 200.0}
    s = cold_start.summarise([{**RUN, "peak_rss_mb": 150.0}, other, {**RUN, "peak_rss_mb": 170.0}])
    assert s["first_answer_ms"] == {"min": 900.0, "median": 900.0, "max": 1100.0, "n": 3}
    assert s["peak_rss_mb"]["median"] == 170.0
    assert s["cold_start_ms"]["model_ms"]["median"] == 150.0
    assert set(s["breakdown_median_ms"]) == set(cold_start.SEGMENTS)


def test_profile_interleaves_the_cases(monkeypatch):
    """Each case's runs alternate with the other's, first one way then the other, and are summarised apart."""
    calls = []

    def fake_run(contender, env, question):
        calls.append(env["QA_EAGER_LOAD"])
        return {**RUN, "first_answer_ms": 500.0 if env["QA_EAGER_LOAD"] == "1" else 600.0, "peak_rss_mb": 150.0}

    monkeypatch.setattr(cold_start, "one_run", fake_run)
    contender = Contender("ours", "ours", Path("main.py"))
    cases = {"eager": (contender, {"QA_EAGER_LOAD": "1"}), "lazy": (contender, {"QA_EAGER_LOAD": "0"})}
    result = cold_start.profile(cases, {}, runs=3, log=lambda *_: None)
    assert calls == ["1", "0", "0", "1", "1", "0"]
    assert result["eager"]["summary"]["first_answer_ms"]["median"] == 500.0
    assert result["lazy"]["summary"]["first_answer_ms"]["median"] == 600.0
    assert len(result["lazy"]["runs"]) == 3


def test_variant_adds_a_changed_copy_of_each_environment():
    envs = {"eager": {"A": "1", "B": "x"}, "lazy": {"A": "0", "B": "x"}}
    out = cold_start.with_variant(envs, ["B=y", "C="])
    assert list(out) == ["eager", "eager B=y C=", "lazy", "lazy B=y C="]
    assert out["eager B=y C="] == {"A": "1", "B": "y", "C": ""}
    assert out["eager"] == {"A": "1", "B": "x"}  # the base runs keep their settings
    assert cold_start.with_variant(envs, []) == envs
    with pytest.raises(ValueError, match="KEY=VALUE"):
        cold_start.with_variant(envs, ["OPENBLAS_NUM_THREADS"])


def test_cold_start_lines_picks_the_json_line():
    text = ("[2026-01-01 00:00:00 +0000] [1] [INFO] Starting gunicorn\n"
            '{"severity": "INFO", "message": "cold start", "cold_start_ms": {"load_ms": 12.5}}\n'
            '{"severity": "INFO", "message": "POST / 200", "note": "\\"cold start\\""}\n'
            '{"broken json "cold start"\n')
    assert [line["cold_start_ms"] for line in cold_start_lines(text)] == [{"load_ms": 12.5}]


# ---------------------------------------------------------------- where the other contenders' models are


def _checkpoint(folder: Path, weights: bytes) -> Path:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"model_type": "bert"}')
    (folder / "model.safetensors").write_bytes(weights)
    return folder


def test_find_pytorch_and_fp32_by_the_manifests_fingerprint(tmp_path):
    from build_model.stage_record import source_fingerprint

    build = tmp_path / "build"
    _checkpoint(build / "exp-a" / "distil" / "model", b"other weights")
    mine = _checkpoint(build / "exp-b" / "distil" / "model", b"the artifact's weights")
    _checkpoint(build / "teacher" / "model", b"teacher")
    fingerprint = source_fingerprint(str(mine))
    export = build / "exp-b" / "export"
    export.mkdir()
    (export / "student.opt.onnx").write_bytes(b"onnx")
    (export / "stage.json").write_text(json.dumps({"inputs": {"student": fingerprint}, "optimized": True,
                                                   "models": {"student": {"onnx": "student.opt.onnx"}}}))
    manifest = {"source": {"student": {"checkpoint": fingerprint}}}

    found = contender_models.find_pytorch(manifest, build)
    assert found.path == mine and found.matches_artifact
    graph, optimized = contender_models.find_fp32_onnx(manifest, build)
    assert graph.path == export / "student.opt.onnx" and optimized and graph.matches_artifact

    stand_in = contender_models.find_pytorch({}, build)  # no source recorded: the fallback, flagged
    assert stand_in.path == build / "teacher" / "model" and not stand_in.matches_artifact
    assert contender_models.find_fp32_onnx({}, build) is None
    assert contender_models.find_pytorch({}, tmp_path / "nowhere") is None


# ---------------------------------------------------------------- report


def _results(quiet: bool = True) -> dict:
    def warm(name, store, p50, rps):
        lat = {"n": 5, "mean": p50, "min": p50, "p50": p50, "p95": p50 * 1.5, "p99": p50 * 2, "max": p50 * 2}
        entry = {"contender": name, "store": store,
                 "latency": {"bench-w128": {"window_tokens": 124, "passage_tokens": 110,
                                            "client_ms": lat, "server_ms": {"fetch": {**lat, "p50": 0.2}},
                                            "samples_ms": [p50] * 5}}}
        if rps:
            entry["throughput"] = [{"clients": 1, "requests": 10, "ok": 10, "errors": 0, "seconds": 1.0,
                                    "requests_per_s": rps, "latency_ms": lat}]
            entry["memory_before_throughput"] = {"rss_mb": 100.0, "peak_rss_mb": 120.0}
            entry["memory_after_throughput"] = {"rss_mb": 104.0, "peak_rss_mb": 121.0}
            entry["memory_at_rest_after_throughput"] = {"rss_mb": 90.5, "peak_rss_mb": 121.0}
        return entry

    def cold(first, peak):
        run = {**RUN, "first_answer_ms": first, "peak_rss_mb": peak, "largest_peak_rss_mb": peak - 40}
        return {"runs": [run], "summary": cold_start.summarise([run])}

    results = {
        "meta": {"command": "python -m bench --runs 1", "started": "2026-01-01T00:00:00+00:00", "duration_s": 60,
                 "settings": {"threads": 2, "load": "eager"},
                 "machine": {"cpu": "Test CPU", "logical_cpus": 2, "available_cpus": 2, "isa": ["avx2"],
                             "memory_gb": 24.0, "versions": {"python": "3.11.7", "onnxruntime": "1.31.1"},
                             "quiet": quiet, "competing_processes": [] if quiet else ["python -m build_model"]}},
        "contenders": [{"name": "ours", "label": "ours (int8 ONNX)", "description": "ours"},
                       {"name": "pipeline", "label": "transformers + PyTorch", "description": "theirs"}],
        "passages": [{"id": "bench-w128", "window_tokens": 124, "passage_tokens": 110, "question_tokens": 11}],
        "cold_start": {"ours": cold(900.0, 160.0), "pipeline": cold(9000.0, 800.0)},
        "warm": [warm("ours", "sqlite", 10.0, 80.0), warm("pipeline", "sqlite", 40.0, 20.0),
                 warm("ours", "firestore", 14.0, None)],
    }
    results["ratios"] = report.ratios(results)
    return results


def test_ratios_say_how_much_better_ours_is():
    r = report.ratios(_results())["pipeline"]
    assert r["cold_start"]["first_answer_ms"] == 10.0 and r["cold_start"]["peak_rss_mb"] == 5.0
    assert r["warm_p50"] == {"bench-w128": 4.0}
    assert r["throughput"] == {"1": 4.0}
    assert r["memory_after_throughput"] == 1.0


def test_render_tables():
    md = report.render(_results())
    assert "Not a reference run" not in md
    assert "Test CPU, 2 of 2 logical CPUs usable (avx2), 24.0 GB" in md
    assert "loaded its model as soon as its gunicorn worker started" in md
    assert ("| transformers + PyTorch | 300 (300–300) | 9,000 (9,000–9,000) | 800 (800–800) | 760 (760–760) "
            "| 10.0× / 5.0× |") in md
    assert "| ours (int8 ONNX) | sqlite | 10.0 / 15.0 / 20.0 | 0.20 | – | 1.0× |" in md
    assert "| transformers + PyTorch | sqlite | 40.0 / 60.0 / 80.0 | 0.20 | – | 4.0× |" in md
    assert "| ours (int8 ONNX) | firestore | 14.0 / 21.0 / 28.0 | 0.20 | – | – |" in md
    assert "| transformers + PyTorch | 1 | 20.0 | 40.0 | 60.0 | 80.0 | 0 | 4.0× |" in md
    assert "| ours (int8 ONNX) | 100.0 | 104.0 | 4.0 | 90.5 | 121.0 |" in md  # at rest: after the series' trim
    for line in md.splitlines():  # every table row has as many cells as its header
        if line.startswith("|"):
            assert line.endswith("|")


def test_render_warns_about_a_noisy_machine():
    assert "Not a reference run" in report.render(_results(quiet=False))


def test_charts_are_written(tmp_path):
    from bench import charts

    paths = charts.write_all(_results(), tmp_path)
    assert [p.name for p in paths] == ["serving-cold-start.png", "serving-latency.png", "serving-throughput.png"]
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in paths)


# ---------------------------------------------------------------- the whole thing


@pytest.mark.slow
def test_whole_bench_end_to_end(tiny_artifact, tmp_path, monkeypatch):
    """``python -m bench`` with tiny settings: every contender, every section, every output file."""
    from bench.serving import main

    checkpoint = tmp_path / "pytorch"
    tiny_artifact.model.save_pretrained(checkpoint)
    shutil.copyfile(tiny_artifact.tokenizer_file, checkpoint / "tokenizer.json")
    out = tmp_path / "results"
    argv = ["--artifact", str(tiny_artifact.folder), "--runs", "1", "--requests", "3", "--warmup", "1",
            "--lengths", "48", "96", "--clients", "1", "2", "--throughput-requests", "4",
            "--pytorch-model", str(checkpoint), "--fp32-artifact", str(tiny_artifact.folder),
            "--build-dir", str(tmp_path / "build"), "--out", str(out)]
    if shutil.which("gcloud") is None:
        argv.append("--no-firestore")
    assert main(argv) == 0

    results = json.loads((out / "serving.json").read_text())
    assert [c["name"] for c in results["contenders"]] == ["ours", "fp32", "pipeline", "onnx-pipeline"]
    assert [p["window_tokens"] <= p_len for p, p_len in zip(results["passages"], (48, 96))] == [True, True]
    for name in ("ours", "fp32", "pipeline", "onnx-pipeline"):
        [run] = results["cold_start"][name]["runs"]
        assert run["answer"] is not None and run["peak_rss_mb"] > 0 and run["cold_start_ms"]["load_ms"] > 0
        assert run["eager_load"] is True  # the default: loaded as soon as the worker started, as deployed
    stores = [(w["contender"], w["store"]) for w in results["warm"]]
    assert stores[:4] == [("ours", "sqlite"), ("fp32", "sqlite"), ("pipeline", "sqlite"), ("onnx-pipeline", "sqlite")]
    for w in results["warm"]:
        assert all(v["client_ms"]["n"] == 3 for v in w["latency"].values())
        assert all("fetch" in v["server_ms"] for v in w["latency"].values())
    for w in results["warm"][:4]:
        assert [t["clients"] for t in w["throughput"]] == [1, 2]
        assert all(t["ok"] == 4 and t["errors"] == 0 for t in w["throughput"])
    assert set(results["ratios"]) == {"fp32", "pipeline", "onnx-pipeline"}
    md = (out / "serving.md").read_text()
    assert "### Cold start" in md and "### Warm latency" in md and "### Throughput" in md
    assert all((out / f"serving-{k}.png").stat().st_size > 0 for k in ("cold-start", "latency", "throughput"))


def test_the_other_session_contender_serves_the_artifact_with_the_second_session_flipped(tiny_artifact, tmp_path):
    from bench.serving import parse_args, resolve_contenders
    from function.config import Settings

    args = parse_args(["--artifact", str(tiny_artifact.folder), "--contenders", "ours", "ours-other-session"])
    chosen, described, _ = resolve_contenders(args, tmp_path, print)
    assert [c.name for c in chosen] == ["ours", "ours-other-session"] == [d["name"] for d in described]
    ours, other = chosen
    default = Settings.from_env({}).second_session
    assert "QA_SECOND_SESSION" not in ours.env and other.env["QA_SECOND_SESSION"] == ("0" if default else "1")
    assert other.env["QA_ARTIFACT_DIR"] == ours.env["QA_ARTIFACT_DIR"]


def test_the_env_contender_serves_the_artifact_with_the_variables_given(tiny_artifact, tmp_path):
    from bench.serving import parse_args, resolve_contenders

    args = parse_args(["--artifact", str(tiny_artifact.folder), "--contenders", "ours",
                       "--ours-env", "MALLOC_ARENA_MAX=2", "--ours-env", "QA_THREADS=1"])
    chosen, described, _ = resolve_contenders(args, tmp_path, print)
    assert [c.name for c in chosen] == ["ours", "ours-env"] == [d["name"] for d in described]
    ours, env = chosen
    assert "MALLOC_ARENA_MAX" not in ours.env
    assert env.env["MALLOC_ARENA_MAX"] == "2" and env.env["QA_THREADS"] == "1"
    assert env.env["QA_ARTIFACT_DIR"] == ours.env["QA_ARTIFACT_DIR"]
    with pytest.raises(SystemExit):
        parse_args(["--ours-env", "MALLOC_ARENA_MAX"])  # not NAME=VALUE: refused, naming it


def test_stand_in_architecture_is_read_from_the_graph(tiny_artifact):
    config, where = standin.architecture(tiny_artifact.folder)
    tiny = tiny_artifact.model.config
    assert config == {"vocab_size": tiny.vocab_size, "hidden_size": tiny.hidden_size,
                      "num_hidden_layers": tiny.num_hidden_layers, "num_attention_heads": tiny.num_attention_heads,
                      "intermediate_size": tiny.intermediate_size,
                      "max_position_embeddings": tiny.max_position_embeddings, "type_vocab_size": tiny.type_vocab_size}
    assert where == "the graph model.onnx"


def test_serving_without_a_checkpoint_uses_stand_in_weights(tiny_artifact, tmp_path):
    """A fresh clone (no build folder): PyTorch and fp32 serve random weights of the artifact's shape, and say so."""
    from bench.cli import main

    out = tmp_path / "results"
    argv = ["serving", "--artifact", str(tiny_artifact.folder), "--runs", "1", "--requests", "1", "--warmup", "0",
            "--lengths", "48", "--clients", "--throughput-requests", "0", "--no-firestore",
            "--build-dir", str(tmp_path / "fresh-clone" / "build"), "--out", str(out)]
    assert main(argv) == 0

    results = json.loads((out / "serving.json").read_text())
    weights = {c["name"]: c["weights"] for c in results["contenders"]}
    assert weights == {"ours": "trained", "fp32": "stand-in", "pipeline": "stand-in", "onnx-pipeline": "trained"}
    assert results["meta"]["sources"]["pytorch"]["weights"] == "stand-in"
    assert results["meta"]["sources"]["fp32"]["weights"] == "stand-in"
    assert "stand-in: random weights in the artifact's architecture (2 layers, hidden 32, 2 heads" in \
        results["meta"]["sources"]["pytorch"]["how"]
    assert results["meta"]["command"].startswith("python -m bench serving --artifact")
    for name in ("ours", "fp32", "pipeline", "onnx-pipeline"):  # every contender served: speed and memory were measured
        [run] = results["cold_start"][name]["runs"]
        assert run["first_answer_ms"] > 0 and run["peak_rss_mb"] > 0
    md = (out / "serving.md").read_text()
    assert "> **Stand-in weights:** ours (fp32 ONNX) and transformers + PyTorch served random weights" in md


def test_the_onnx_pipeline_contender_answers_with_the_span_ours_gives(tiny_artifact, monkeypatch):
    """The artifact's own graph inside transformers' QA pipeline steps: the same model, so the same best span
    (ours before its ranking by the question's words in each span's sentence, which the peer does not have)."""
    from bench.baseline_qa import load_onnx
    from function.config import Settings
    from function.http.parse import parse
    from function.model.reader import shape
    from function.service.pipeline import QAService
    from function.service.runtime import Runtime

    model_own_span(monkeypatch)
    manifest = json.loads((tiny_artifact.folder / "manifest.json").read_text())
    qa, timings = load_onnx(str(tiny_artifact.folder), manifest["sequence"], 1)
    assert timings["model_ms"] > 0 and timings["tokenizer_ms"] > 0
    ours = QAService(Runtime(Settings.from_env({"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_CACHE": "0"})))
    context = "The Normans were the people who gave their name to Normandy, a region in France."
    for question in ("Who gave their name to Normandy?", "Where is Normandy?", "What is Normandy?"):
        steps: dict = {}
        [theirs] = qa(question, context, 1, 30, steps)
        assert context[theirs["start"]:theirs["end"]] == theirs["text"] and 0 < theirs["score"] <= 1
        assert set(steps) == {"tokenize", "inference", "postprocess"}
        req = parse(json.dumps({"question": question, "context": context, "abstain": False}).encode(),
                    ours.rt.settings, 30)
        [mine] = ours.answer(req).payload["answers"]
        assert shape(context, theirs["start"], theirs["end"], question) == (mine["start"], mine["end"])


def test_warm_latency_of_several_contenders_takes_turns_in_blocks(monkeypatch):
    from bench import warm

    calls = []

    class Reply:
        ms, body = 1.0, {"timings_ms": {"inference": 0.5}}

    monkeypatch.setattr(warm, "post", lambda url, payload: calls.append(url) or Reply())
    monkeypatch.setattr(warm, "checked", lambda r: r)
    monkeypatch.setattr(warm, "PAUSE_S", 0.0)
    passage = {"id": "p", "window_tokens": 128, "passage_tokens": 100}
    out = warm.interleaved_latency({"a": "A", "b": "B"}, [passage], requests=60, warmup=1)
    assert [out[n]["p"]["client_ms"]["n"] for n in ("a", "b")] == [60, 60]  # every recorded request, no settling one
    runs = [(url, len(list(group))) for url, group in __import__("itertools").groupby(calls[2:])]
    # blocks of 25 (the last 10) after 2 unrecorded requests each, the first of each round rotating: a b, b a, a b
    assert [url for url, _ in runs] == ["A", "B", "A", "B"] and [n for _, n in runs] == [27, 27 + 27, 27 + 12, 12]


def test_out_of_corpus_searches_as_make_run_docs_does_with_retrieval_hybrid(tmp_path):
    from bench.out_of_corpus import parse_args, service_env

    bm25 = service_env(parse_args(["--retrieval", "bm25"]), tmp_path)
    assert "QA_INDEX_URI" not in bm25 and "QA_INDEX_ENCODER" not in bm25
    hybrid = service_env(parse_args(["--retrieval", "hybrid", "--encoder", str(tmp_path / "enc")]), tmp_path)
    assert hybrid["QA_INDEX_URI"] == str(tmp_path / "index.lance")  # the corpus's own table, beside its store
    assert hybrid["QA_INDEX_ENCODER"] == str((tmp_path / "enc").resolve())
    assert {k: v for k, v in hybrid.items() if not k.startswith("QA_INDEX_")} == bm25
    stored = service_env(parse_args(["--retrieval", "stored", "--encoder", str(tmp_path / "enc")]), tmp_path)
    assert stored == {**bm25, "QA_INDEX_ENCODER": str((tmp_path / "enc").resolve())}  # the store's own index
    from bench.in_process import retrieval_env

    with pytest.raises(ValueError, match="bm25, stored or hybrid"):
        retrieval_env("lance", tmp_path, tmp_path / "enc")
    assert parse_args([]).retrieval == "bm25"  # the records of the SQLite store's own index stay comparable
