"""build_model.conversion.split_export: a split model as two ONNX graphs (lower per segment, upper joint),
fused and quantised by the build's chain, and the storage formats of a passage's lower states."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from function.model.windows import WindowSpec, build_batch

SPEC = WindowSpec(max_seq_len=40, stride=8, max_query_tokens=10, cls_id=1, sep_id=2, pad_id=0)
SETTINGS = {"per_channel": True, "op_types": ["MatMul", "Gather", "Attention"], "reduce_range": False}


def tiny_bert(vocab_size: int, hidden: int, layers: int, seed: int):
    """A random BERT QA model with eager attention (what the export traces and the optimizer fuses)."""
    from transformers import BertConfig, BertForQuestionAnswering

    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=vocab_size, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=2,
                     intermediate_size=2 * hidden, max_position_embeddings=128, attn_implementation="eager")
    model = BertForQuestionAnswering(cfg).eval()
    with torch.no_grad():
        model.qa_outputs.weight.mul_(20.0)  # spread the logits
    return model


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    from build_model.conversion.split_export import build_split_int8
    from build_model.training.split import SplitQA

    model = tiny_bert(vocab_size=200, hidden=32, layers=3, seed=2).eval()
    split = SplitQA(model, 1).eval()
    return split, build_split_int8(split, SETTINGS, 17, tmp_path_factory.mktemp("split"))


def _batch(seed: int = 0):
    rng = np.random.default_rng(seed)
    passages = [rng.integers(5, 200, 23), rng.integers(5, 200, 9)]  # two windows and one
    return build_batch(list(rng.integers(5, 200, 6)), passages, SPEC)


def test_both_graphs_are_fused_as_a_bert_encoder(graphs):
    _, out = graphs
    assert out["lower"]["fused_ops"].get("EmbedLayerNormalization") == 1
    assert out["lower"]["fused_ops"].get("Attention") == 1
    assert out["upper"]["fused_ops"].get("Attention") == 2  # the upper graph starts from given states


def test_fp32_graphs_give_the_pytorch_split_model_s_logits(graphs):
    from build_model.conversion.split_export import SplitOnnx
    from build_model.training.split_loop import split_infer

    split, out = graphs
    batch = _batch()
    want = split_infer(split, SPEC.max_query_tokens + 2, SPEC.pad_id)(batch)
    got = SplitOnnx(out["lower"]["fp32"], out["upper"]["fp32"], 1)(batch)
    real = batch.attention_mask.astype(bool)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g[real], w[real], atol=1e-4)


def test_int8_graphs_stay_near_the_fp32_ones(graphs):
    from build_model.conversion.split_export import SplitOnnx

    _, out = graphs
    batch = _batch(1)
    fp32 = SplitOnnx(out["lower"]["fp32"], out["upper"]["fp32"], 1)(batch)
    int8 = SplitOnnx(out["lower"]["int8"], out["upper"]["int8"], 1)(batch)
    real = batch.attention_mask.astype(bool)
    spread = max(np.ptp(x[real]) for x in fp32)
    assert 0 < max(np.abs(a - b)[real].max() for a, b in zip(fp32, int8)) < 0.2 * spread
    assert out["lower"]["int8"].stat().st_size < out["lower"]["fp32"].stat().st_size


def test_stored_states_give_the_answer_computed_whole(graphs):
    """The passage states computed once (as ingestion would) and read back give the same logits for any
    question: what makes storing them possible."""
    from build_model.conversion.split_export import STATE_FORMATS, SplitOnnx

    _, out = graphs
    model = SplitOnnx(out["lower"]["fp32"], out["upper"]["fp32"], 1)
    fmt = STATE_FORMATS["fp32"]
    first = _batch(3)
    cs = first.context_start
    blob = fmt.encode(model.passage_states(first.input_ids[:, cs:], first.attention_mask[:, cs:]))
    stored = fmt.decode(blob, (len(first), first.input_ids.shape[1] - cs, 32))
    question = model.question_states(first.input_ids[:1, :cs], first.attention_mask[:1, :cs])
    np.testing.assert_array_equal(model.answer(question, stored, first)[0], model(first)[0])


@pytest.mark.parametrize("name,per_token,atol", [("fp32", 4 * 32, 0.0), ("fp16", 2 * 32, 2e-3),
                                                 ("int8", 32 + 4, 0.01)])
def test_state_formats_round_trip_within_their_precision(name, per_token, atol):
    from build_model.conversion.split_export import STATE_FORMATS

    fmt = STATE_FORMATS[name]
    states = np.random.default_rng(0).normal(size=(2, 7, 32)).astype(np.float32)
    states[1, 3] = 0.0  # a token of zeros: no division by a zero scale
    assert fmt.bytes_per_token(32) == per_token
    assert len(fmt.encode(states)) == per_token * 14
    back = fmt.round_trip(states)
    assert back.dtype == np.float32 and back.shape == states.shape
    err = np.abs(back - states) / np.abs(states).max(axis=-1, keepdims=True).clip(1e-6)
    assert err.max() <= atol
    assert not np.any(back[1, 3])


def test_a_passage_numbered_after_the_question_is_refused(tmp_path):
    from build_model.conversion.split_export import export_split
    from build_model.training.split import SplitQA

    split = SplitQA(tiny_bert(vocab_size=50, hidden=16, layers=2, seed=0).eval(), 1, passage_positions_from=12)
    with pytest.raises(ValueError, match="passage_positions_from = 12"):
        export_split(split, tmp_path / "l.onnx", tmp_path / "u.onnx", 17)
    assert not (tmp_path / "l.onnx").exists()
