"""Quantisation: int8 shrinks the model, stays close to fp32, the kept candidate is chosen by rule, the gate bites."""

from __future__ import annotations

import dataclasses
import json

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
    from build_model.errors import BuildFailed
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
    from build_model.stage_record import load_record

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
    from build_model.specs import serving_spec
    from build_model.squad import load_squad
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
    from build_model.errors import BuildFailed
    from build_model.stage_record import load_record
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


def test_outlier_ratios_find_the_matmul_whose_input_has_an_outlier(tmp_path):
    """Two weight MatMuls in a row; one value of the second one's input (of 4,096) is scaled 100x."""
    import types

    import onnx
    from onnx import TensorProto, helper, numpy_helper

    from build_model.conversion.outliers import most_extreme, outlier_ratios, weight_matmuls

    rng = np.random.default_rng(0)
    w1, w2 = (numpy_helper.from_array(rng.normal(size=(64, 64)).astype(np.float32), n) for n in ("w1", "w2"))
    spike = np.ones((64, 64), dtype=np.float32)
    spike[3, 5] = 100.0
    boost = numpy_helper.from_array(spike, "boost")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w1"], ["h"], name="first"),
         helper.make_node("Mul", ["h", "boost"], ["hb"], name="scale"),
         helper.make_node("MatMul", ["hb", "w2"], ["y"], name="second"),
         helper.make_node("MatMul", ["x", "y"], ["z"], name="activations_only")],  # no weights: not counted
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64, 64])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [64, 64])], [w1, w2, boost])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)
    path = tmp_path / "two.onnx"
    onnx.save(model, str(path))
    assert [n.name for n in weight_matmuls(model.graph)] == ["first", "second"]
    batches = [types.SimpleNamespace(x=rng.normal(size=(64, 64)).astype(np.float32)) for _ in range(4)]
    ratios = outlier_ratios(path, batches)
    assert set(ratios) == {"first", "second"} and ratios["second"] > 3 * ratios["first"]
    assert most_extreme(ratios, 1) == ["second"] and most_extreme(ratios, 5) == ["second", "first"]


def test_a_failed_gate_keeps_the_outlier_matmuls_in_fp32_until_one_passes(project, tmp_path, monkeypatch):
    """The all-int8 candidates lose 2 F1 (gate: 1.5); a candidate with fp32 MatMuls loses 0.5: it is kept."""
    import onnx

    from build_model.config import load_config
    from build_model.stage_record import load_record
    from build_model.stages import export, quantize

    cfg = load_config(copy_build(project["root"], tmp_path, ("teacher", "distil", "export")))
    cfg = dataclasses.replace(cfg, quantize=dataclasses.replace(cfg.quantize, max_f1_drop=1.5, per_channel=(True,)))
    fp32 = load_record(tmp_path / "build" / "export")["models"]["student"]["dev"]
    real = export.onnx_infer

    def traced(path, threads, optimized):
        model = real(path, threads, optimized)
        model.source = str(path)
        return model

    def scored(split, tok, spec, infer, **kw):
        drop = 0.5 if "fp32x" in getattr(infer, "source", "") else 2.0
        return {**fp32, "f1": fp32["f1"] - drop}

    monkeypatch.setattr(export, "onnx_infer", traced)
    monkeypatch.setattr(quantize, "evaluate", scored)
    record = quantize.run(cfg)
    kept = record["kept"]
    assert record["gate"]["passed"] and kept["name"].endswith("-fp32x1") and len(kept["fp32_matmuls"]) == 1
    assert [len(c["fp32_matmuls"]) for c in record["candidates"]] == [0, 1]
    assert "most extreme activation outliers stay fp32" in record["why"]
    ratios = json.loads((tmp_path / "build" / "quantize" / "outliers.json").read_text())
    assert kept["fp32_matmuls"][0] == max(ratios, key=ratios.get)
    graph = onnx.load(str(tmp_path / "build" / "quantize" / quantize.KEPT)).graph
    ops = {n.name: n.op_type for n in graph.node}
    assert ops[kept["fp32_matmuls"][0]] == "MatMul"  # left as it was
    assert any(op in ("MatMulInteger", "DynamicQuantizeMatMul") for op in ops.values())  # the rest is int8


@pytest.mark.parametrize("fallback, fp32_counts", [((), [0]), ((1, 3), [0, 1, 3])])
def test_the_fallback_follows_its_setting_and_a_gate_it_cannot_pass_still_fails(project, tmp_path, monkeypatch,
                                                                                  fallback, fp32_counts):
    from build_model.config import load_config
    from build_model.errors import BuildFailed
    from build_model.stage_record import load_record
    from build_model.stages import quantize

    cfg = load_config(copy_build(project["root"], tmp_path, ("teacher", "distil", "export")))
    cfg = dataclasses.replace(cfg, quantize=dataclasses.replace(
        cfg.quantize, max_f1_drop=1.5, per_channel=(True,), fp32_fallback=fallback))
    fp32 = load_record(tmp_path / "build" / "export")["models"]["student"]["dev"]
    monkeypatch.setattr(quantize, "evaluate", lambda *a, **kw: {**fp32, "f1": fp32["f1"] - 2.0})
    with pytest.raises(BuildFailed, match="loses 2.00 F1"):
        quantize.run(cfg)
    rows = json.loads((tmp_path / "build" / "quantize" / "candidates.json").read_text())
    assert [len(r["fp32_matmuls"]) for r in rows] == fp32_counts
