"""Quantisation: int8 shrinks the model, stays close to fp32, the kept candidate is chosen by rule, the gate bites."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.support.tiny_build import built, copy_build


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    project = built(tmp_path_factory)
    assert project["exit"] == 0
    return project


def _row(name, f1, p50, mb=1.0):
    return {"name": name, "dev": {"f1": f1, "exact_match": f1}, "p50_ms": p50, "bytes": int(mb * 1e6)}


def test_choose_prefers_f1_then_latency_within_the_size_limit():
    from build_model.pipeline import BuildFailed
    from build_model.stages.quantize import choose

    rows = [_row("a", 80.0, 10.0), _row("b", 80.05, 12.0), _row("c", 79.0, 5.0), _row("d", 90.0, 1.0, mb=25)]
    kept, why = choose(rows, max_mb=20, tie=0.1)
    assert kept["name"] == "a"  # d is too big; a and b tie on F1, a is faster
    assert "2 within 0.1 F1" in why
    assert choose(rows, max_mb=20, tie=0.0)[0]["name"] == "b"
    assert choose(rows, max_mb=0, tie=0.1)[0]["name"] == "d"  # 0: no size limit
    with pytest.raises(BuildFailed, match="no int8 candidate fits"):
        choose(rows, max_mb=0.5, tie=0.1)


def test_quality_gate():
    from build_model.stages.quantize import quality_gate

    fp32 = {"exact_match": 70.0, "f1": 80.0}
    assert quality_gate(fp32, {"exact_match": 68.0, "f1": 79.0}, 1.5, 3.0)["passed"]
    assert not quality_gate(fp32, {"exact_match": 70.0, "f1": 78.4}, 1.5, 3.0)["passed"]  # F1
    assert not quality_gate(fp32, {"exact_match": 66.9, "f1": 80.0}, 1.5, 3.0)["passed"]  # EM
    assert quality_gate(fp32, {"exact_match": 75.0, "f1": 85.0}, 0.0, 0.0)["passed"]  # int8 better


def test_int8_is_at_least_three_times_smaller_with_embeddings_quantised(project):
    from build_model.records import load_record

    build = project["root"] / "build"
    record = load_record(build / "quantize")
    kept = record["kept"]
    fp32_bytes = (build / "export" / "student.opt.onnx").stat().st_size
    assert (build / "quantize" / "student.int8.onnx").stat().st_size == kept["bytes"]
    assert fp32_bytes >= 3 * kept["bytes"], (fp32_bytes, kept["bytes"])
    assert "EmbedLayerNormalization" in kept["quantized_ops"]  # the fused embeddings are int8 too
    word_embeddings = 3000 * 64 * 4
    assert kept["largest_fp32_initializer"]["bytes"] < word_embeddings / 20
    assert len(record["candidates"]) == 2 and record["gate"]["passed"]


def test_int8_logits_stay_close_to_fp32(project):
    from build_model.config import load_config
    from build_model.conversion.onnx_export import max_logit_diff
    from build_model.evaluation.squad import load_squad
    from build_model.specs import serving_spec
    from build_model.stages.export import parity_batches
    from function.model.onnx_model import OnnxQAModel
    from function.model.tokenizer import QATokenizer

    build = project["root"] / "build"
    cfg = load_config(project["config"])
    tok = QATokenizer(build / "distil" / "model" / "tokenizer.json")
    batches = parity_batches(load_squad(cfg.data.dev), tok, serving_spec(cfg, tok), 24)
    fp32 = OnnxQAModel(build / "export" / "student.opt.onnx", 1, optimized=True)
    int8 = OnnxQAModel(build / "quantize" / "student.int8.onnx", 1)
    scale = max(float(np.abs(x[b.attention_mask == 1]).max()) for b in batches for x in fp32(b))
    diff = max_logit_diff(fp32, int8, batches)
    assert diff <= 0.1 * scale, (diff, scale)  # int8 error within 10% of the logits' range
    agree = total = 0
    for b in batches:
        for ref, got in zip(fp32(b), int8(b)):
            masked = [np.where(b.attention_mask == 1, x, -np.inf).argmax(1) for x in (ref, got)]
            agree += int((masked[0] == masked[1]).sum())
            total += len(b)
    assert agree >= 0.9 * total  # the best start/end position rarely moves


@pytest.mark.parametrize("f1_drop, em_drop, fails", [(2.0, 0.0, "F1"), (1.0, 4.0, "EM"), (1.0, 2.0, None)])
def test_the_quality_gate_fails_the_build(project, tmp_path, monkeypatch, f1_drop, em_drop, fails):
    """The int8 candidates' dev scores are replaced by the fp32 student's minus fixed drops."""
    from build_model.config import load_config
    from build_model.pipeline import BuildFailed
    from build_model.records import load_record
    from build_model.stages import quantize

    cfg = load_config(copy_build(project["root"], tmp_path, ("teacher", "distil", "export")))
    cfg = dataclasses.replace(cfg, quantize=dataclasses.replace(cfg.quantize, max_f1_drop=1.5, max_em_drop=3.0))
    fp32 = load_record(tmp_path / "build" / "export")["models"]["student"]["dev"]

    def degraded(split, tok, spec, infer, **kw):
        return {**fp32, "exact_match": fp32["exact_match"] - em_drop, "f1": fp32["f1"] - f1_drop}

    monkeypatch.setattr(quantize, "evaluate", degraded)
    stage = tmp_path / "build" / "quantize"
    if fails is None:
        record = quantize.run(cfg)
        assert record["gate"]["passed"] and record["gate"]["f1_drop"] == pytest.approx(1.0)
        assert (stage / "stage.json").is_file()
        return
    with pytest.raises(BuildFailed, match=f"loses {f1_drop:.2f} F1 / {em_drop:.2f} EM"):
        quantize.run(cfg)
    assert not (stage / "stage.json").exists()
    assert (stage / "candidates.json").is_file()  # what was measured stays for inspection


def test_gather_quantises_unfused_embeddings(project, tmp_path):
    """Without the transformer optimizer the embeddings are plain Gather nodes: "Gather" quantises them."""
    from build_model.stages.quantize import Candidate, graph_ops, quantize_candidate

    src = project["root"] / "build" / "export" / "student.onnx"  # the raw export, not fused
    assert "EmbedLayerNormalization" not in graph_ops(src)
    dst = tmp_path / "int8.onnx"
    info = quantize_candidate(src, dst, Candidate(False, ("MatMul", "Gather"), False), graph_ops(src))
    assert info["quantized_ops"] == ["Gather", "MatMul"]
    assert info["largest_fp32_initializer"]["bytes"] < 3000 * 64 * 4 / 20
    assert src.stat().st_size >= 3 * dst.stat().st_size
