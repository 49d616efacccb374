"""A teacher with another tokenizer and pair layout: its windows and the carry-back onto the student's tokens."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.support.tiny import sample_tokenizer
from tests.support.tiny_build import tiny_squad


def test_offsets_align_by_first_and_last_character():
    from build_model.training.align import align_offsets

    student = np.array([[0, 3], [4, 7], [7, 9], [10, 12]])
    teacher = np.array([[0, 3], [4, 6], [6, 9], [10, 11], [11, 12]])
    starts, ends = align_offsets(student, teacher)
    assert starts.tolist() == [0, 1, -1, 3]  # "7..9" starts inside a teacher token: no start there
    assert ends.tolist() == [0, -1, 2, 4]


def _mpnet_like(bert_json: str) -> str:
    """The student's WordPiece vocabulary behind MPNet's four specials (ids shifted by 4), RoBERTa's layout."""
    from tokenizers import Tokenizer, processors

    raw = json.loads(bert_json)
    vocab = raw["model"]["vocab"]
    shifted = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, **{t: i + 4 for t, i in vocab.items()}}
    raw["model"]["vocab"] = shifted
    # as in MPNet's tokenizer, BERT's [PAD] [CLS] [SEP] are plain vocabulary entries; only [UNK] stays special
    raw["added_tokens"] = [dict(t, id=t["id"] + 4) for t in raw["added_tokens"] if t["content"] == "[UNK]"] + [
        {"id": i, "content": c, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
         "special": True} for c, i in (("<s>", 0), ("<pad>", 1), ("</s>", 2))]
    raw["post_processor"] = None
    tok = Tokenizer.from_str(json.dumps(raw))
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    return tok.to_str()


@pytest.fixture(scope="module")
def tokenizers_and_data(tmp_path_factory):
    from build_model.squad import load_squad
    from function.model.tokenizer import QATokenizer

    root = tmp_path_factory.mktemp("align")
    bert = sample_tokenizer()
    (root / "student.json").write_text(bert)
    (root / "teacher.json").write_text(_mpnet_like(bert))
    train, _ = tiny_squad(root / "data")
    return QATokenizer(root / "student.json"), QATokenizer(root / "teacher.json"), load_squad(train, 30)


def test_an_mpnet_layout_teacher_reads_the_same_characters_and_maps_back_token_for_token(tokenizers_and_data):
    from build_model.squad import encode_paragraphs
    from build_model.stages.distil import augment_pairs
    from build_model.training.align import teacher_windows
    from build_model.training.features import build_features
    from function.model.windows import WindowSpec

    student, teacher, split = tokenizers_and_data
    assert teacher.pair_layout() == {"cls_id": 0, "sep_id": 2, "pair_seps": 2, "pad_id": 1}
    spec = WindowSpec(64, 16, 24, **student.pair_layout())  # short windows: long passages split in several
    features = build_features(student, split, spec, pairs=augment_pairs(split, 1, seed=0))
    assert any(f.token_start > 0 for f in features)
    windows = teacher_windows(features, split, student, teacher, 24)
    passages = encode_paragraphs(student, split)
    for f, w in zip(features, windows):
        n_q = f.context_start - 2
        # <s> question </s></s> passage </s>, every piece the student's id + 4
        assert w.input_ids[0] == 0 and w.input_ids[-1] == 2
        assert w.input_ids[1 : 1 + n_q].tolist() == (f.input_ids[1 : 1 + n_q] + 4).tolist()
        assert w.input_ids[1 + n_q : 3 + n_q].tolist() == [2, 2] and w.context_start == n_q + 3
        assert len(w.input_ids) == len(f.input_ids) + 1
        # each passage token's start and end logits come from the teacher's copy of that token
        ctx = slice(f.context_start, f.context_start + f.context_len)
        assert (w.start_map[ctx] == w.end_map[ctx]).all()
        assert (w.input_ids[w.start_map[ctx]] == f.input_ids[ctx] + 4).all()
        assert w.start_map[ctx].tolist() == list(range(w.context_start, w.context_start + f.context_len))
        # [CLS] -> <s>; question and separators take no mass
        assert w.start_map[0] == 0 and w.end_map[0] == 0
        assert (w.start_map[1 : f.context_start] == -1).all() and w.start_map[-1] == -1
        off = passages[f.paragraph_id].offsets
        assert off[f.token_start, 0] <= off[f.token_start + f.context_len - 1, 1]


def test_carried_back_logits_keep_the_teachers_values_and_put_no_mass_elsewhere(tokenizers_and_data):
    from build_model.training.align import NO_MASS, carry_back, teacher_windows
    from build_model.training.features import build_features
    from function.model.windows import WindowSpec

    student, teacher, split = tokenizers_and_data
    features = build_features(student, split, WindowSpec(64, 16, 24, **student.pair_layout()))[:10]
    for f, w in zip(features, teacher_windows(features, split, student, teacher, 24)):
        t_start = np.arange(len(w.input_ids), dtype=np.float32)  # logit = teacher position
        t_end = -t_start
        s, e = carry_back(t_start, t_end, w)
        assert len(s) == len(f.input_ids)
        assert s[0] == 0 and e[0] == 0
        ctx = slice(f.context_start, f.context_start + f.context_len)
        assert (s[ctx] == np.arange(f.context_len) + w.context_start).all() and (e[ctx] == -s[ctx]).all()
        assert (s[1 : f.context_start] == NO_MASS).all() and s[-1] == NO_MASS


def test_the_same_tokenizer_gives_the_teachers_own_logits_on_passage_and_cls(tokenizers_and_data):
    import torch

    from build_model.training import kd
    from build_model.training.align import teacher_windows
    from build_model.training.features import build_features, collate_inputs
    from function.model.windows import WindowSpec
    from tests.support.tiny_build import tiny_bert

    student, _, split = tokenizers_and_data
    model = tiny_bert(student.vocab_size)
    features = build_features(student, split, WindowSpec(64, 16, 24, **student.pair_layout()))[:6]
    carried = kd.teacher_logits(model, teacher_windows(features, split, student, student, 24), 0)
    for f, (s, _) in zip(features, carried):
        with torch.no_grad():
            direct = model(**{k: torch.from_numpy(v) for k, v in collate_inputs([f], 0).items()}).start_logits[0]
        keep = [0, *range(f.context_start, f.context_start + f.context_len)]
        assert np.allclose(s[keep].astype(np.float32), direct.numpy()[keep], atol=2e-2)


def test_the_distil_stage_cuts_the_student_from_base_and_learns_from_an_mpnet_teacher(tokenizers_and_data, tmp_path):
    """The sandbox's shape: an MPNet teacher with its own tokenizer, the student cut from [base],
    targets mixed from both (base_weight)."""
    import torch
    from transformers import MPNetConfig, MPNetForQuestionAnswering

    from build_model.config import load_config
    from build_model.errors import BuildFailed
    from build_model.stage_record import load_record, save_record, source_fingerprint
    from build_model.stages import distil
    from tests.support.tiny_build import tiny_bert, tiny_sections, write_config

    student_tok, teacher_tok, _ = tokenizers_and_data
    torch.manual_seed(0)
    mpnet = MPNetForQuestionAnswering(MPNetConfig(
        vocab_size=teacher_tok.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=160, pad_token_id=1)).eval()
    build = tmp_path / "build"
    for name, model, tok in (("teacher", mpnet, teacher_tok), ("base", tiny_bert(student_tok.vocab_size), student_tok)):
        model.save_pretrained(build / name / "model")
        (build / name / "model" / "tokenizer.json").write_text(tok._tok.to_str())
        save_record(build / name, {"fake": name}, {"dev": {}})
    train, dev = tiny_squad(tmp_path / "data")
    sections = tiny_sections(tmp_path, build / "teacher" / "model", train, dev)
    sections["base"] = {"model": str(build / "base" / "model"), "fine_tune": False}
    sections["student"].update(base_weight=0.5, alpha=1.0, learning_rate=3e-3, epochs=2)
    cfg = load_config(write_config(tmp_path / "build.toml", sections))

    record = distil.run(cfg)
    assert record["model"] == "base layers" and record["layers"] == 1
    assert set(record["teacher_logits"]) == {"teacher", "base"} and record["base_weight"] == 0.5
    assert record["kd_held_out"]["after"] < record["kd_held_out"]["before"]
    saved = json.loads((build / "distil" / "model" / "tokenizer.json").read_text())
    assert saved["model"]["vocab"] == json.loads(student_tok._tok.to_str())["model"]["vocab"]
    assert load_record(build / "distil")["inputs"]["base"] is not None
    cached = sorted(f.name.rsplit("-", 1)[0] for f in (build / "teacher_logits").glob("*.npz"))
    assert cached == ["base", "base-held-out", "teacher", "teacher-held-out"]  # the student needs no teacher again

    # the export stage reads each model with its own tokenizer: the MPNet teacher's windows are its own
    from build_model.stages import export

    exported = export.run(cfg)
    teacher_entry = exported["models"]["teacher"]
    assert teacher_entry["raw"]["max_logit_diff"] <= cfg.export.atol
    assert "Attention" not in teacher_entry.get("fused", {}).get("fused_ops", {})  # MPNet's relative bias
    assert {"exact_match", "f1"} <= set(teacher_entry["dev"])

    # the teacher's weights lost (a fresh machine), its record, config, tokenizer and the cached logits kept:
    # the student trains again without it, from the same inputs; without the logits too, the stage says so
    fingerprint = source_fingerprint(str(build / "teacher" / "model"))
    save_record(build / "teacher", {"fake": "teacher"}, {"dev": {}, "fingerprint": fingerprint})
    (build / "teacher" / "model" / "model.safetensors").unlink()
    again = distil.run(cfg, force=True)
    assert again["inputs_hash"] == record["inputs_hash"] and again["teacher_logits"]["teacher"]["cached"]
    for path in (build / "teacher_logits").glob("teacher-held-out-*.npz"):
        path.unlink()
    with pytest.raises(BuildFailed, match="weights are gone .* restore the cached logits"):
        distil.run(cfg, force=True)
