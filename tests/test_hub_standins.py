"""experiments.hub_standins: stand-ins are built, quantised, cached and timed beside the shipped model.

Tiny configurations (2 layers, hidden 32) go through the real chain; the published
configurations are only checked to be valid for their config classes.
"""

from __future__ import annotations

import json

import pytest

from experiments.hub_standins import INT8, RECORD, STANDINS, Standin, build_int8, markdown, measure, report

LENGTH = 64
_TINY = {"vocab_size": 1200, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
         "intermediate_size": 64}
TINY = [
    Standin("tiny-bert", "tiny BERT", "none/tiny-bert", "BertConfig", {**_TINY, "max_position_embeddings": 128},
            "test", (101, 102, 0, 1), {"dataset": "SQuAD v1.1 dev", "f1": 1.0, "source": "test"}),
    Standin("tiny-roberta", "tiny RoBERTa", "none/tiny-roberta", "RobertaConfig",
            {**_TINY, "max_position_embeddings": 130, "type_vocab_size": 1, "pad_token_id": 1},
            "test", (0, 2, 1, 2)),
]


@pytest.fixture(scope="module")
def measured(tmp_path_factory, repo):
    work = tmp_path_factory.mktemp("standins")
    result = measure(TINY, work, runs=3, artifact=repo / "artifact", length=LENGTH, log=lambda _: None)
    data = report(result, work / "out.json", 3, LENGTH, "test")
    return work, data


def test_every_standin_gets_an_int8_graph_and_a_p50(measured):
    work, data = measured
    assert not data["failed"]
    assert [m["name"] for m in data["models"]] == ["tiny-bert", "tiny-roberta"]
    for m in data["models"]:
        assert (work / m["name"] / INT8).stat().st_size == m["int8_bytes"] > 0
        assert not (work / m["name"] / "model.onnx").exists()  # the fp32 graph is deleted once quantised
        assert m["fp32_onnx_bytes"] > m["int8_bytes"]
        assert m["p50_ms"] > 0 and m["load_s"] > 0
        assert m["ratio_to_shipped"] == pytest.approx(m["p50_ms"] / data["reference"]["p50_ms"], abs=1e-3)
        assert m["fusion"]["used"] and m["fusion"]["attention_fused"]
        assert m["fusion"]["max_logit_diff"] <= data["fusion_atol"]
        assert m["quantization"]["op_types"] == ["MatMul", "Gather", "Attention"]
        assert not m["quantization"]["per_channel"] and not m["quantization"]["reduce_range"]
        assert "Attention" in m["quantization"]["quantized_ops"]
        assert m["int8_bytes_attention_not_quantized"] > m["int8_bytes"]
    bert, roberta = data["models"]
    assert bert["inputs"] == ["input_ids", "attention_mask", "token_type_ids"]
    assert roberta["inputs"] == ["input_ids", "attention_mask"]  # one segment: no token_type_ids


def test_json_and_table_carry_machine_reference_and_published_figures(measured):
    work, data = measured
    saved = json.loads((work / "out.json").read_text())
    for key in ("date", "command", "machine", "versions", "window", "timing", "reference", "models", "failed"):
        assert key in saved, key
    assert saved["window"]["tokens"] == LENGTH and saved["timing"]["interleaved"]
    assert saved["reference"]["p50_ms"] > 0 and saved["reference"]["int8_bytes"] > 0
    table = markdown(saved)
    assert "shipped sandbox model" in table and "tiny RoBERTa" in table
    assert "| 1, SQuAD v1.1 dev ([card](test)) |" in table


def test_a_second_build_reuses_the_cache(measured):
    work, _ = measured
    before = json.loads((work / "tiny-bert" / RECORD).read_text())
    lines = []
    again = build_int8(TINY[0], work / "tiny-bert", LENGTH, log=lines.append)
    assert again == before and "cached" in lines[0]


def test_published_configurations_are_valid_for_their_classes():
    import transformers

    assert len({s.name for s in STANDINS}) == len(STANDINS)
    for s in STANDINS:
        config = getattr(transformers, s.config_class)(**s.config)
        assert config.vocab_size == s.config["vocab_size"] and config.hidden_size >= 384, s.name
        assert max(s.special[:3]) < config.vocab_size
        if s.published:
            assert 0 < s.published["f1"] <= 100 and s.published["source"].startswith("https://")
