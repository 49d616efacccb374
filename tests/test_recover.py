"""``python -m build_model.recover``: a PyTorch model read back from an artifact's fused (fp32 or int8) graph.

The graphs are made by the build's own code (export, transformer fusion, ``quantize_dynamic`` with the
quantize stage's settings, ONNX Runtime's pre-optimisation as the package stage ships it) from a tiny
random BERT whose every weight, LayerNorm and bias included, is distinct: a weight put in the wrong
place, or not transposed, cannot go unnoticed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from build_model.recover.bert_weights import read_graph
from build_model.recover.cli import main
from build_model.recover.config import model_config
from build_model.recover.graph import RecoverError

KEPT_FP32 = "/qa/bert/encoder/layer.1/output/dense/MatMul"  # the quantize stage's fp32_fallback, by node name
# per_channel, reduce_range, pre-optimised (as the package stage may ship it), weight MatMuls left in fp32
SETTINGS = {"int8": (True, True, False, ()), "int8-preoptimized": (True, True, True, ()),
            "int8-per-tensor": (False, False, False, ()), "int8-one-fp32-matmul": (True, True, True, (KEPT_FP32,))}


def _model(vocab_size: int, layers: int = 2):
    import torch
    from transformers import BertConfig, BertForQuestionAnswering

    torch.manual_seed(1)
    cfg = BertConfig(vocab_size=vocab_size, hidden_size=32, num_hidden_layers=layers, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=128, attn_implementation="eager")
    model = BertForQuestionAnswering(cfg).eval()
    with torch.no_grad():  # every LayerNorm and bias its own values (random init makes them all 1s and 0s)
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
        model.qa_outputs.weight.mul_(20.0)  # spread the logits
    return model


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The model, and an artifact of it per graph: fp32 fused, unfused, and the int8 variants of SETTINGS."""
    from build_model.conversion.load_variants import preoptimize
    from build_model.conversion.onnx_export import export_onnx, optimize_bert
    from build_model.packaging.writer import write_artifact
    from build_model.stages.quantize import Candidate, graph_ops, quantize_candidate
    from tests.support.tiny import SEQUENCE, sample_texts, train_tokenizer

    root = tmp_path_factory.mktemp("recover")
    tokenizer_json = train_tokenizer(sample_texts())
    model = _model(len(json.loads(tokenizer_json)["model"]["vocab"]))
    raw, fused = root / "raw.onnx", root / "fused.onnx"
    export_onnx(model, raw, opset=17)
    optimize_bert(raw, fused, num_heads=2, hidden_size=32)

    def artifact(name: str, graph: Path, optimized: bool, extra: dict | None = None) -> Path:
        write_artifact(root / name, graph, tokenizer_json, f"tiny-{name}", SEQUENCE,
                       extra={"onnx": {"opset": 17, "optimized": optimized}, **(extra or {})})
        return root / name

    folders = {"fp32": artifact("fp32", fused, True), "unfused": artifact("unfused", raw, False)}
    for name, (per_channel, reduce_range, pre, fp32) in SETTINGS.items():
        c = Candidate(per_channel, ("MatMul", "Gather", "Attention"), reduce_range, fp32)
        int8 = root / f"{name}.onnx"
        quantize_candidate(fused, int8, c, graph_ops(fused))
        if pre:
            preoptimize(int8, root / f"{name}.pre.onnx", ort_format=False)
            int8 = root / f"{name}.pre.onnx"
        folders[name] = artifact(name, int8, pre, {"quantization": c.settings()})
    # as the 6-layer artifact ships: pre-optimised and saved in ONNX Runtime's own format
    per_channel, reduce_range, _, fp32 = SETTINGS["int8-preoptimized"]
    c = Candidate(per_channel, ("MatMul", "Gather", "Attention"), reduce_range, fp32)
    preoptimize(root / "int8-preoptimized.onnx", root / "int8.ort", ort_format=True)
    write_artifact(root / "int8-ort", root / "int8.ort", tokenizer_json, "tiny-int8-ort", SEQUENCE,
                   extra={"onnx": {"opset": 17, "optimized": True, "format": "ort"}, "quantization": c.settings()},
                   model_file="model.ort")
    folders["int8-ort"] = root / "int8-ort"
    return {"model": model, "folders": folders, "root": root}


def _graph(folder: Path) -> Path:
    from function.model.artifact import load_manifest

    return load_manifest(folder).model_path


def _logit_diff(folder: Path, model) -> float:
    """The largest logit difference between ``model`` and the artifact's session on the sample's windows."""
    from build_model.conversion.onnx_export import max_logit_diff
    from build_model.evaluation.evaluate import torch_infer
    from build_model.recover.check import SAMPLE, parity_batches
    from function.model.artifact import load_manifest
    from function.model.onnx_model import OnnxQAModel

    manifest = load_manifest(folder)
    onnx = OnnxQAModel(manifest.model_path, 2, optimized=manifest.graph_optimized)
    return max_logit_diff(onnx, torch_infer(model), parity_batches(folder, SAMPLE, 32))


def test_fp32_graph_gives_back_every_weight(built):
    model = built["model"]
    recovered = read_graph(_graph(built["folders"]["fp32"]))
    state = {k: v.numpy() for k, v in model.state_dict().items()}
    assert set(recovered.weights) == {k for k, _ in model.named_parameters()}
    for name, value in recovered.weights.items():
        np.testing.assert_allclose(value, state[name], rtol=0, atol=1e-7, err_msg=name)
    assert not recovered.int8
    c = model.config
    assert recovered.sizes == {
        "vocab_size": c.vocab_size, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
        "intermediate_size": 64, "max_position_embeddings": 128, "type_vocab_size": 2,
        "layer_norm_eps": pytest.approx(c.layer_norm_eps), "hidden_act": "gelu"}


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_int8_weights_are_the_originals_to_a_quantisation_step(built, name):
    model = built["model"]
    recovered = read_graph(_graph(built["folders"][name]))
    assert recovered.int8
    for pname, p in model.named_parameters():
        want, got = p.detach().numpy(), recovered.weights[pname]
        step = (want.max() - min(want.min(), 0.0)) / 63  # 7-bit (reduce_range) per-tensor: the coarsest grid
        assert np.abs(got - want).max() <= step, pname
    # a tensor the graph keeps in fp32 comes back exactly
    exact = ["qa_outputs.bias"] + (["bert.encoder.layer.1.output.dense.weight"] if SETTINGS[name][3] else [])
    for pname in exact:
        np.testing.assert_array_equal(recovered.weights[pname], model.get_parameter(pname).detach().numpy())


def test_cli_fp32_writes_a_model_with_the_graphs_logits(built, tmp_path, capsys):
    from build_model.hf import load_qa_model

    folder, out = built["folders"]["fp32"], tmp_path / "model"
    assert main([str(folder), "--out", str(out), "--threads", "2"]) == 0
    printed = capsys.readouterr().out
    assert "fp32 graph, 2 layers, hidden 32" in printed and "no --config-from" in printed
    record = json.loads((out / "recovered.json").read_text())
    assert record["graph"] == "fp32" and record["check"]["passed"] and "requantized" not in record["check"]
    assert record["check"]["max_logit_diff"] <= 1e-4
    assert (out / "tokenizer.json").read_text() == (folder / "tokenizer.json").read_text()
    reloaded = load_qa_model(str(out), attn="eager").eval()  # as the build's stages load a model
    assert _logit_diff(folder, reloaded) <= 1e-4
    for name, value in reloaded.state_dict().items():
        if name in dict(built["model"].named_parameters()):
            np.testing.assert_allclose(value.numpy(), built["model"].state_dict()[name].numpy(), atol=1e-7)


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_cli_int8_quantises_back_to_the_same_graph(built, tmp_path, name):
    from build_model.hf import load_qa_model

    folder, out = built["folders"][name], tmp_path / "model"
    assert main([str(folder), "--out", str(out), "--threads", "2"]) == 0
    check = json.loads((out / "recovered.json").read_text())["check"]
    rq = check["requantized"]
    assert rq["int8_tensors_identical"] == rq["int8_tensors"] > 0
    assert rq["max_logit_diff"] <= 1e-4
    # int8 activations keep the graph from any fp32 model; the recovered one is as close as the original
    original = _logit_diff(folder, built["model"])
    assert check["max_logit_diff"] <= max(1.5 * original, 0.05), (check["max_logit_diff"], original)
    assert _logit_diff(folder, load_qa_model(str(out), attn="eager").eval()) == pytest.approx(
        check["max_logit_diff"], abs=1e-5)


def test_ort_format_gives_the_same_weights_as_its_onnx(built):
    """The package stage may ship ``model.ort`` (ONNX Runtime's flatbuffer format, which onnx cannot read):
    its weights come back exactly as from the same graph saved as ONNX."""
    assert _graph(built["folders"]["int8-ort"]).suffix == ".ort"
    from_ort = read_graph(_graph(built["folders"]["int8-ort"]))
    from_onnx = read_graph(_graph(built["folders"]["int8-preoptimized"]))
    assert from_ort.int8 and set(from_ort.weights) == set(from_onnx.weights)
    for name, value in from_onnx.weights.items():
        np.testing.assert_array_equal(from_ort.weights[name], value, err_msg=name)
    assert from_ort.sizes == from_onnx.sizes


def test_cli_recovers_an_ort_artifact_bit_for_bit(built, tmp_path):
    out = tmp_path / "model"
    assert main([str(built["folders"]["int8-ort"]), "--out", str(out), "--threads", "2"]) == 0
    rq = json.loads((out / "recovered.json").read_text())["check"]["requantized"]
    assert rq["int8_tensors_identical"] == rq["int8_tensors"] > 0 and rq["max_logit_diff"] <= 1e-4


def test_a_file_that_is_not_ort_format_is_refused(tmp_path):
    from build_model.recover.ort_format import load_ort

    bad = tmp_path / "model.ort"
    bad.write_bytes(b"not a flatbuffer at all, just some bytes")
    with pytest.raises(RecoverError, match="model.ort"):
        load_ort(bad)


def test_cli_fails_above_the_tolerance_and_writes_nothing(built, tmp_path, capsys):
    out = tmp_path / "model"
    code = main([str(built["folders"]["int8"]), "--out", str(out), "--atol", "1e-9", "--no-requantize",
                 "--threads", "2"])
    assert code == 1 and not out.exists()
    assert "exceeds its tolerance; nothing written" in capsys.readouterr().err


def test_unfused_graph_is_refused_by_name(built, tmp_path, capsys):
    with pytest.raises(RecoverError, match="expected one EmbedLayerNormalization.*found 0.*Gather"):
        read_graph(_graph(built["folders"]["unfused"]))
    assert main([str(built["folders"]["unfused"]), "--out", str(tmp_path / "m")]) == 2
    assert "EmbedLayerNormalization" in capsys.readouterr().err


def _edited(src: Path, dst: Path, edit) -> Path:
    import onnx

    model = onnx.load(str(src))
    edit(model.graph)
    onnx.save(model, str(dst))
    return dst


def test_unknown_op_is_named(built, tmp_path):
    def rename_gelu(graph):
        node = next(n for n in graph.node if n.op_type == "BiasGelu")
        node.op_type, node.name = "BiasSoftplus", "odd_activation"

    path = _edited(_graph(built["folders"]["fp32"]), tmp_path / "m.onnx", rename_gelu)
    with pytest.raises(RecoverError, match=r"layer 0 intermediate activation: .*BiasSoftplus node 'odd_activation'"):
        read_graph(path)


def test_a_node_outside_the_walk_is_named(built, tmp_path):
    import onnx

    def add_node(graph):
        h = next(n for n in graph.node if n.op_type == "SkipLayerNormalization").output[0]
        graph.node.append(onnx.helper.make_node("Neg", [h], ["stray"], name="stray_neg"))
        graph.output.append(onnx.helper.make_tensor_value_info("stray", onnx.TensorProto.FLOAT, None))

    path = _edited(_graph(built["folders"]["int8"]), tmp_path / "m.onnx", add_node)
    with pytest.raises(RecoverError, match="does more than a BERT QA model: 1 node.*Neg node 'stray_neg'"):
        read_graph(path)


def test_a_non_float_initializer_is_named(built, tmp_path):
    from onnx import numpy_helper

    def to_double(graph):
        t = next(t for t in graph.initializer if t.name.endswith("intermediate.dense.bias"))
        t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float64), t.name))

    path = _edited(_graph(built["folders"]["fp32"]), tmp_path / "m.onnx", to_double)
    with pytest.raises(RecoverError, match=r"layer \d intermediate: initializer '\S+dense.bias' is float64"):
        read_graph(path)


def test_configuration_sizes_come_from_the_graph(built, tmp_path):
    sizes = read_graph(_graph(built["folders"]["int8"])).sizes
    base = built["model"].config.to_dict()
    (tmp_path / "config.json").write_text(json.dumps({**base, "num_hidden_layers": 6, "hidden_dropout_prob": 0.2}))
    config, notes = model_config(sizes, {"special_tokens": {"pad": 0}}, tmp_path)
    assert config["num_hidden_layers"] == 2 and config["hidden_dropout_prob"] == 0.2
    assert config["layer_norm_eps"] == base["layer_norm_eps"]  # the configuration's spelling of the graph's
    assert notes == [f"num_hidden_layers 6 in {tmp_path}, 2 in the graph: the graph's kept"]

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**base, "hidden_size": 64}))
    with pytest.raises(RecoverError, match="has hidden_size = 64, the graph 32"):
        model_config(sizes, {}, bad)
    bad.write_text(json.dumps({**base, "model_type": "roberta"}))
    with pytest.raises(RecoverError, match="roberta configuration"):
        model_config(sizes, {}, bad)
    bad.write_text(json.dumps({**base, "hidden_act": "relu"}))
    with pytest.raises(RecoverError, match="hidden_act = 'relu', the graph computes 'gelu'"):
        model_config(sizes, {}, bad)
    with pytest.raises(RecoverError, match="manifest's model.config disagrees with the graph: intermediate_size"):
        model_config(sizes, {"model": {"config": {"intermediate_size": 128, "hidden_size": 32}}}, None)
