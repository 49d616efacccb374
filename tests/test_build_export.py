"""Export: ONNX matches PyTorch on real windows, and a graph that does not match fails the build."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.tiny_build import built, copy_build


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    project = built(tmp_path_factory)
    assert project["exit"] == 0
    return project


def _dev_batches(project, windows: int):
    from build_model.config import load_config
    from build_model.specs import serving_spec
    from build_model.squad import load_squad
    from build_model.stages.export import parity_batches
    from function.model.tokenizer import QATokenizer

    cfg = load_config(project["config"])
    tok = QATokenizer(project["root"] / "build" / "distil" / "model" / "tokenizer.json")
    return parity_batches(load_squad(cfg.data.dev), tok, serving_spec(cfg, tok), windows)


def test_parity_batches_cover_padding_and_multi_window_passages(project):
    batches = _dev_batches(project, 12)
    assert sum(len(b) for b in batches) >= 12
    assert len(batches) >= 3  # several questions
    assert any((b.attention_mask == 0).any() for b in batches)  # padded rows
    assert any(len(set(b.passage_index.tolist())) > 1 for b in batches)  # several passages in one batch
    first = batches[0]
    assert (first.passage_index == 0).sum() > 1  # the longest paragraph needs several windows


def test_export_stage_parity_within_tolerance(project):
    from build_model.stage_record import load_record

    record = load_record(project["root"] / "build" / "export")
    assert record["parity"]["windows"] >= 12 and record["parity"]["padded_batches"] > 0
    for name in ("teacher", "student"):
        entry = record["models"][name]
        for kind in ("raw", "fused"):
            assert 0 <= entry[kind]["max_logit_diff"] <= record["atol"], (name, kind)
        assert entry["fused"]["fused_ops"].get("Attention", 0) == entry["layers"]
        assert entry["onnx"] == f"{name}.opt.onnx"


def test_fp32_onnx_scores_match_pytorch(project):
    from build_model.stage_record import load_record

    build = project["root"] / "build"
    export = load_record(build / "export")
    one_question = 100.0 / export["models"]["student"]["dev"]["questions"]
    for name, stage in (("teacher", "teacher"), ("student", "distil")):
        torch_dev, onnx_dev = load_record(build / stage)["dev"], export["models"][name]["dev"]
        assert onnx_dev["questions"] == torch_dev["questions"]
        assert abs(onnx_dev["f1"] - torch_dev["f1"]) <= one_question


def test_check_parity_raises_on_a_mismatch(project):
    from build_model.conversion.onnx_export import check_parity
    from build_model.errors import ParityError

    batches = _dev_batches(project, 4)

    def reference(batch):
        shape = batch.input_ids.shape
        return np.zeros(shape, np.float32), np.zeros(shape, np.float32)

    def off_by(delta):
        def run(batch):
            start, end = reference(batch)
            end = end.copy()
            end[batch.attention_mask == 1] += delta
            end[batch.attention_mask == 0] += 100.0  # padding is never compared
            return start, end
        return run

    assert check_parity(reference, off_by(5e-4), batches, 1e-3, "close") == pytest.approx(5e-4)
    with pytest.raises(ParityError, match="exceeds the tolerance"):
        check_parity(reference, off_by(2e-3), batches, 1e-3, "far")


def test_a_broken_fused_graph_fails_the_build(project, tmp_path, monkeypatch):
    import onnx
    from onnx import numpy_helper

    from build_model.config import load_config
    from build_model.errors import BuildFailed
    from build_model.stages import export

    real = export.optimize_bert

    def broken(src, dst, num_heads, hidden_size):
        stats = real(src, dst, num_heads, hidden_size)
        model = onnx.load(str(dst))
        (bias,) = [t for t in model.graph.initializer if t.name.endswith("qa_outputs.bias")]
        bias.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(bias) + 0.05, bias.name))
        onnx.save(model, str(dst))
        return stats

    monkeypatch.setattr(export, "optimize_bert", broken)
    cfg = load_config(copy_build(project["root"], tmp_path, ("teacher", "distil")))
    with pytest.raises(BuildFailed, match="fused ONNX: max .logit difference. 5.00e-02 exceeds"):
        export.run(cfg)
    assert not (tmp_path / "build" / "export" / "stage.json").exists()


def test_a_model_without_token_type_ids_exports_and_serves(project, tmp_path):
    import torch
    from transformers import DistilBertConfig, DistilBertForQuestionAnswering

    from build_model.conversion.onnx_export import export_onnx, max_logit_diff, optimize_bert
    from build_model.evaluation.evaluate import torch_infer
    from function.model.onnx_model import OnnxQAModel

    torch.manual_seed(0)
    model = DistilBertForQuestionAnswering(DistilBertConfig(
        vocab_size=3000, dim=32, n_layers=1, n_heads=2, hidden_dim=64, max_position_embeddings=128,
        attn_implementation="eager")).eval()
    export_onnx(model, tmp_path / "m.onnx", 17)
    optimize_bert(tmp_path / "m.onnx", tmp_path / "m.opt.onnx", num_heads=2, hidden_size=32)
    session = OnnxQAModel(tmp_path / "m.opt.onnx", 1, optimized=True)
    assert session.input_names == ["input_ids", "attention_mask"]
    assert max_logit_diff(torch_infer(model), session, _dev_batches(project, 6)) < 1e-4
