"""Distillation: the derived student, augmentation pairs, the teacher-logit cache, and that KD works."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.support.tiny_build import built, copy_build, tiny_bert, tiny_squad, tiny_teacher


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    from build_model.squad import load_squad
    from build_model.training.features import build_features
    from function.model.tokenizer import QATokenizer
    from function.model.windows import WindowSpec

    root = tmp_path_factory.mktemp("distil-data")
    train, dev = tiny_squad(root)
    teacher_dir = tiny_teacher(root / "teacher")
    tok = QATokenizer(teacher_dir / "tokenizer.json")
    spec = WindowSpec(96, 32, 32, tok.token_id("[CLS]"), tok.token_id("[SEP]"), tok.token_id("[PAD]"))
    from build_model.training.align import teacher_windows

    features = build_features(tok, load_squad(train, 24), spec)
    held = build_features(tok, load_squad(dev), spec)[:48]
    return {
        "root": root, "tok": tok, "spec": spec, "teacher_dir": teacher_dir,
        "train": load_squad(train), "features": features, "held": held,
        # the teacher tokenizes as the student does: its windows are the student's own
        "windows": teacher_windows(features, load_squad(train, 24), tok, tok, 32),
        "held_windows": teacher_windows(held, load_squad(dev), tok, tok, 32),
    }


def _spread_teacher(vocab_size: int):
    """Random layers with large weights, so that dropping one changes the logits a lot."""
    import torch
    from transformers import BertConfig, BertForQuestionAnswering

    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=vocab_size, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=128, max_position_embeddings=128, initializer_range=0.3)
    return BertForQuestionAnswering(cfg).eval()


def test_derived_student_copies_the_chosen_layers():
    from build_model.training.student import derive_student

    teacher = tiny_bert(500, layers=3)
    student = derive_student(teacher, (2, 0))
    assert student.config.num_hidden_layers == 2
    t, s = teacher.state_dict(), student.state_dict()
    for name in s:
        src = name.replace("layer.0.", "layer.2.") if "layer.0." in name else name.replace("layer.1.", "layer.0.")
        assert np.array_equal(s[name].numpy(), t[src].numpy()), name
    assert teacher.config.num_hidden_layers == 3  # the teacher's config is not touched


def test_keeping_every_layer_reproduces_the_teacher():
    import torch

    from build_model.training.student import derive_student

    teacher = tiny_bert(500, layers=2)
    student = derive_student(teacher, (0, 1))
    ids = torch.randint(5, 500, (2, 20))
    with torch.no_grad():
        a, b = teacher(input_ids=ids), student(input_ids=ids)
    assert torch.equal(a.start_logits, b.start_logits) and torch.equal(a.end_logits, b.end_logits)


def test_narrowed_feed_forward_blocks_keep_the_units_with_the_largest_weights():
    """Units whose weights in and out are small go first; when they contribute nothing, the outputs are
    unchanged; keeping every unit is the teacher itself."""
    import torch

    from build_model.training.student import derive_student

    teacher = tiny_bert(500, layers=2)  # feed-forward width 128
    with torch.no_grad():
        for layer in teacher.bert.encoder.layer:
            layer.intermediate.dense.weight[::2] *= 1e-3  # the even units: small in, nothing out
            layer.output.dense.weight[:, ::2] = 0.0
    student = derive_student(teacher, (0, 1), intermediate_size=64)
    assert student.config.intermediate_size == 64 and teacher.config.intermediate_size == 128
    for t, s in zip(teacher.bert.encoder.layer, student.bert.encoder.layer):
        assert torch.equal(s.intermediate.dense.weight, t.intermediate.dense.weight[1::2])
        assert torch.equal(s.intermediate.dense.bias, t.intermediate.dense.bias[1::2])
        assert torch.equal(s.output.dense.weight, t.output.dense.weight[:, 1::2])
    ids = torch.randint(5, 500, (2, 20))
    with torch.no_grad():
        a, b, c = teacher(input_ids=ids), student(input_ids=ids), derive_student(teacher, (0, 1), 128)(input_ids=ids)
    assert torch.allclose(a.start_logits, b.start_logits, atol=1e-5)
    assert torch.equal(a.start_logits, c.start_logits) and torch.equal(a.end_logits, c.end_logits)


def test_a_distilbert_student_is_narrowed_by_its_own_names():
    from transformers import DistilBertConfig, DistilBertForQuestionAnswering

    from build_model.errors import StudentError
    from build_model.training.student import derive_student

    teacher = DistilBertForQuestionAnswering(DistilBertConfig(vocab_size=300, dim=32, n_layers=2, n_heads=2,
                                                              hidden_dim=64, max_position_embeddings=64)).eval()
    student = derive_student(teacher, (1,), intermediate_size=16)
    assert student.config.hidden_dim == 16 and student.distilbert.transformer.layer[0].ffn.lin1.out_features == 16
    for width in (65, -1):
        with pytest.raises(StudentError, match="between 1 and the teacher's 64"):
            derive_student(teacher, (1,), intermediate_size=width)


@pytest.mark.parametrize("keep", [(), (0, 0), (2,), (-1,)])
def test_bad_layer_choices_are_rejected(keep):
    from build_model.errors import StudentError
    from build_model.training.student import derive_student

    with pytest.raises(StudentError):
        derive_student(tiny_bert(500, layers=2), keep)


def test_augmentation_pairs_other_paragraphs_of_the_same_article(data):
    from build_model.stages.distil import augment_pairs

    split = data["train"]
    pairs = augment_pairs(split, 2, seed=7)
    n = len(split.questions)
    assert pairs[:n] == [(i, q.paragraph_id) for i, q in enumerate(split.questions)]
    extra = pairs[n:]
    assert len(extra) == 2 * n  # every article here has at least three paragraphs
    for qi, pid in extra:
        own = split.questions[qi].paragraph_id
        assert pid != own and split.article_of(pid) == split.article_of(own)
    assert augment_pairs(split, 2, seed=7) == pairs
    assert augment_pairs(split, 2, seed=8) != pairs
    assert augment_pairs(split, 0, seed=7) == pairs[:n]


def test_augmented_features_have_no_gold_labels(data):
    from build_model.stages.distil import augment_pairs
    from build_model.training.features import build_features

    split = data["train"]
    pairs = augment_pairs(split, 1, seed=0)[len(split.questions):][:5]
    features = build_features(data["tok"], split, data["spec"], pairs=pairs)
    assert features and not any(f.gold for f in features)
    assert all(f.start == 0 and f.end == 0 for f in features)


def test_teacher_logits_are_computed_once_and_cached(data, tmp_path):
    from build_model.training import kd

    teacher = _spread_teacher(data["tok"].vocab_size)
    features, windows, pad = data["features"][:20], data["windows"][:20], data["spec"].pad_id
    calls = []

    def load():
        calls.append(1)
        return teacher

    prefix = tmp_path / "teacher"
    first, info = kd.cached_teacher_logits(prefix, "teacher-a", load, windows, pad, batch_size=8, log=str)
    again, info2 = kd.cached_teacher_logits(prefix, "teacher-a", load, windows, pad, batch_size=8, log=str)
    assert len(calls) == 1 and not info["cached"] and info2["cached"]
    assert all(s.dtype == np.float16 and len(s) == len(f.input_ids) for (s, _), f in zip(again, features))
    for (s1, e1), (s2, e2) in zip(first, again):
        assert np.array_equal(s1, s2) and np.array_equal(e1, e2)
    # batching and padding do not change a feature's logits (beyond fp16 rounding)
    alone = kd.teacher_logits(teacher, windows[:1], pad)
    assert np.allclose(alone[0][0].astype(np.float32), first[0][0].astype(np.float32), atol=1e-2)
    # another teacher or other features: computed again, in a file of its own beside the first
    kd.cached_teacher_logits(prefix, "teacher-b", load, windows, pad, batch_size=8, log=str)
    kd.cached_teacher_logits(prefix, "teacher-a", load, windows[:10], pad, batch_size=8, log=str)
    assert len(calls) == 3 and len(list(tmp_path.glob("teacher-*.npz"))) == 3
    kd.cached_teacher_logits(prefix, "teacher-a", load, windows, pad, batch_size=8, log=str)
    assert len(calls) == 3  # still cached


def test_an_interrupted_teacher_pass_resumes_from_its_finished_chunks(data, tmp_path):
    from build_model.training import kd

    teacher = _spread_teacher(data["tok"].vocab_size)
    windows, pad = data["windows"][:20], data["spec"].pad_id
    whole, _ = kd.cached_teacher_logits(tmp_path / "a", "t", lambda: teacher, windows, pad, 4, chunk=8, log=str)

    class Interrupted(Exception):
        pass

    calls = []

    def dies_on_the_second_chunk(model, chunk, pad_id, batch_size):
        if calls:
            raise Interrupted
        calls.append(len(chunk))
        return original(model, chunk, pad_id, batch_size)

    original = kd.teacher_logits
    kd.teacher_logits = dies_on_the_second_chunk
    try:
        with pytest.raises(Interrupted):
            kd.cached_teacher_logits(tmp_path / "b", "t", lambda: teacher, windows, pad, 4, chunk=8, log=str)
    finally:
        kd.teacher_logits = original
    assert calls == [8] and len(list(tmp_path.glob("b-*.npz.parts/*.npz"))) == 1
    counted = []

    def counting(model, chunk, pad_id, batch_size):
        counted.append(len(chunk))
        return original(model, chunk, pad_id, batch_size)

    kd.teacher_logits = counting
    try:
        resumed, info = kd.cached_teacher_logits(tmp_path / "b", "t", lambda: teacher, windows, pad, 4, chunk=8,
                                                 log=str)
    finally:
        kd.teacher_logits = original
    assert counted == [8, 4] and not list(tmp_path.glob("b-*.npz.parts"))  # the finished chunk was read back
    for (s1, e1), (s2, e2) in zip(whole, resumed):
        assert np.array_equal(s1, s2) and np.array_equal(e1, e2)


def test_an_ensemble_target_is_the_mixture_of_the_two_distributions():
    from build_model.training import kd
    from build_model.training.align import NO_MASS

    a = (np.array([2.0, 0.0, NO_MASS], np.float16), np.array([0.0, 1.0, NO_MASS], np.float16))
    b = (np.array([0.0, 3.0, NO_MASS], np.float16), np.array([1.0, 0.0, NO_MASS], np.float16))
    t = 2.0
    (start, end), = kd.ensemble([a], [b], 0.25, t)

    def p(x):
        z = np.exp(x.astype(np.float64) / t)
        return z / z.sum()

    assert np.allclose(p(start), 0.25 * p(a[0]) + 0.75 * p(b[0]), atol=2e-3)
    assert np.allclose(p(end), 0.25 * p(a[1]) + 0.75 * p(b[1]), atol=2e-3)
    assert start[2] == np.float16(NO_MASS)  # no mass in either: none in the mixture
    assert kd.ensemble([a], [b], 1.0, t)[0] is a


def test_distillation_brings_the_student_closer_to_the_teacher(data, tmp_path):
    from build_model.config import Training
    from build_model.training import kd
    from build_model.training.loop import train
    from build_model.training.student import derive_student

    pad, held = data["spec"].pad_id, data["held"]
    teacher = _spread_teacher(data["tok"].vocab_size)
    student = derive_student(teacher, (0,))
    logits = kd.teacher_logits(teacher, data["windows"], pad)
    held_logits = kd.teacher_logits(teacher, data["held_windows"], pad)
    before = kd.mean_kd(student, held, held_logits, pad, temperature=2.0)
    settings = Training(epochs=2, batch_size=16, learning_rate=3e-3, warmup_ratio=0.0, seed=0,
                        temperature=2.0, alpha=1.0)
    record = train(student, data["features"], settings, tmp_path, pad, teacher_logits=logits, threads=2)
    after = kd.mean_kd(student, held, held_logits, pad, temperature=2.0)
    assert record["steps"] >= 10
    assert before > 1.0  # dropping a layer really changed the logits
    assert after < 0.7 * before, (before, after)


def test_a_student_with_another_tokenizer_fails_the_stage(data, tmp_path):
    from build_model.config import load_config
    from build_model.errors import BuildFailed
    from build_model.stage_record import save_record
    from build_model.stages import distil
    from tests.support.tiny import train_tokenizer
    from tests.support.tiny_build import tiny_sections, write_config

    teacher_stage = tmp_path / "build" / "teacher"
    tiny_teacher(teacher_stage / "model")
    save_record(teacher_stage, {"fake": 1}, {"dev": {}})
    other = tiny_teacher(tmp_path / "other-student")
    (other / "tokenizer.json").write_text(train_tokenizer(["some other corpus entirely"] * 20, 200))
    sections = tiny_sections(tmp_path, data["teacher_dir"], data["root"] / "train.json", data["root"] / "dev.json")
    sections["student"]["model"] = str(other)
    cfg = load_config(write_config(tmp_path / "build.toml", sections))
    with pytest.raises(BuildFailed, match="tokenizes differently"):
        distil.run(cfg)


def test_the_stage_records_distillation_and_reuses_teacher_logits(tmp_path_factory, tmp_path):
    from build_model.config import load_config
    from build_model.stage_record import load_record
    from build_model.stages import distil

    project = built(tmp_path_factory)
    assert project["exit"] == 0
    stage = project["root"] / "build" / "distil"
    record = load_record(stage)
    assert record["layers"] == 1 and record["keep_layers"] == [0]
    assert record["features"]["augmented_pairs"] > 0 and record["features"]["gold"] < record["features"]["total"]
    assert record["kd_held_out"]["features"] > 0 and not record["teacher_logits"]["teacher"]["cached"]
    assert {"exact_match", "f1", "questions"} <= set(record["dev"])
    assert (stage / "model" / "tokenizer.json").is_file() and (stage / "model" / "config.json").is_file()
    assert not (stage / "checkpoint.pt").exists()

    # another student setting: the stage re-runs, the teacher's logits come from the cache
    cfg = load_config(copy_build(project["root"], tmp_path, ("teacher", "distil", "teacher_logits")))
    training = dataclasses.replace(cfg.student.training, learning_rate=5e-4)
    cfg = dataclasses.replace(cfg, student=dataclasses.replace(cfg.student, training=training))
    again = distil.run(cfg)
    assert again["teacher_logits"]["teacher"]["cached"] and again["inputs_hash"] != record["inputs_hash"]


def test_a_student_cut_from_a_teacher_whose_weights_are_lost_fails_clearly(tmp_path_factory, tmp_path):
    from build_model.config import load_config
    from build_model.errors import BuildFailed
    from build_model.stages import distil

    project = built(tmp_path_factory)
    assert project["exit"] == 0
    cfg = load_config(copy_build(project["root"], tmp_path, ("teacher", "teacher_logits")))
    for path in (tmp_path / "build" / "teacher" / "model").glob("*.safetensors"):
        path.unlink()
    with pytest.raises(BuildFailed, match="cut from the teacher's layers, and its weights are gone"):
        distil.run(cfg)


def test_a_narrower_feed_forward_block_is_configured_for_cut_layers_only():
    from pathlib import Path

    from build_model.config import ConfigError, load_config

    sandbox = Path(__file__).resolve().parents[1] / "build_model" / "configs" / "sandbox.toml"
    assert load_config(sandbox, {"student.intermediate_size": 768}).student.intermediate_size == 768
    for bad in ({"student.intermediate_size": -1}, {"student.intermediate_size": 768, "student.model": "mine"}):
        with pytest.raises(ConfigError, match="intermediate_size"):
            load_config(sandbox, bad)


def test_a_setting_added_later_changes_the_stage_hash_only_when_it_is_set():
    """Finished stages stay finished when a release adds an option whose default is the old behaviour."""
    import dataclasses
    import hashlib
    import json
    from pathlib import Path

    from build_model.config import load_config

    sandbox = Path(__file__).resolve().parents[1] / "build_model" / "configs" / "sandbox.toml"
    cfg = load_config(sandbox)
    added_later = {f.name for f in dataclasses.fields(cfg.student) if f.metadata.get("hashed_when_set")
                   and getattr(cfg.student, f.name) == f.default}  # intermediate_size, ...
    assert "intermediate_size" in added_later
    before = {k: v for k, v in dataclasses.asdict(cfg.student).items() if k not in added_later}
    old_hash = hashlib.sha256(json.dumps({"student": before}, sort_keys=True).encode()).hexdigest()
    assert cfg.section_hash("student") == old_hash  # what a build made before the option existed recorded
    for changed in ({"student.intermediate_size": 512}, {"student.epochs": 4}):
        assert load_config(sandbox, changed).section_hash("student") != old_hash


def test_unanswerable_pairs_are_paragraphs_of_other_articles_that_share_the_question_s_words(data):
    from build_model.training.negatives import ParagraphIndex, unanswerable_pairs
    from function.retrieval.terms import terms

    split = data["train"]
    pairs = unanswerable_pairs(split, 1, seed=3)
    assert 0 < len(pairs) == len({qi for qi, _ in pairs})  # at most one per question; two articles here
    for qi, pid in pairs:
        q = split.questions[qi]
        assert split.article_of(pid) != split.article_of(q.paragraph_id)
        assert not any(a in split.paragraphs[pid].context for a in q.answers)
        p = split.paragraphs[pid]
        assert set(terms(q.question)) & set(terms(p.title + " " + p.context))  # retrieved, not drawn at random
    assert unanswerable_pairs(split, 1, seed=3) == pairs
    assert unanswerable_pairs(split, 0, seed=3) == []
    # the index ranks the paragraph holding a question's words first
    index = ParagraphIndex(split)
    own = [index.search(q.question, 1)[0] == q.paragraph_id for q in split.questions]
    assert sum(own) > 0.6 * len(own)


def test_unanswerable_features_are_trained_to_cls_without_a_teacher_target(data, tmp_path):
    import torch

    from build_model.config import Training
    from build_model.training import kd
    from build_model.training.features import build_features, collate_inputs
    from build_model.training.loop import train
    from build_model.training.negatives import unanswerable_pairs
    from build_model.training.student import derive_student

    split, pad = load_split(data), data["spec"].pad_id
    absent = build_features(data["tok"], split, data["spec"], pairs=unanswerable_pairs(split, 1, seed=0),
                            unanswerable=True)
    assert absent and all(f.gold and f.start == 0 and f.end == 0 for f in absent)

    def cls_probability(model) -> float:
        arrays = collate_inputs(absent, pad)
        with torch.inference_mode():
            out = model(**{k: torch.from_numpy(v) for k, v in arrays.items()})
        mask = torch.from_numpy(arrays["attention_mask"] == 0)
        p = torch.softmax(out.start_logits.masked_fill(mask, -1e4), -1)[:, 0]
        return float(p.mean())

    teacher = tiny_bert(data["tok"].vocab_size)
    student = derive_student(teacher, (0,))
    logits = kd.teacher_logits(teacher, data["windows"], pad) + [None] * len(absent)
    before = cls_probability(student.eval())
    settings = Training(epochs=3, batch_size=16, learning_rate=3e-3, warmup_ratio=0.0, seed=0, alpha=0.5)
    record = train(student, data["features"] + absent, settings, tmp_path, pad, teacher_logits=logits, threads=2)
    assert record["features"] == len(data["features"]) + len(absent)
    assert cls_probability(student) > max(0.5, 3 * before), before


def load_split(data):
    from build_model.squad import load_squad

    return load_squad(data["root"] / "train.json", 24)


def test_the_stage_trains_on_unanswerable_pairs_and_reports_abstention(tmp_path_factory, tmp_path):
    from build_model.config import load_config
    from build_model.stages import distil

    project = built(tmp_path_factory)
    cfg = load_config(copy_build(project["root"], tmp_path, ("teacher", "teacher_logits")))
    cfg = dataclasses.replace(cfg, student=dataclasses.replace(cfg.student, unanswerable=1),
                              # scored against another article's paragraphs: a dev file of two articles
                              data=dataclasses.replace(cfg.data, dev=cfg.data.train))
    record = distil.run(cfg)
    assert record["features"]["unanswerable"] > 0
    assert record["teacher_logits"]["teacher"]["cached"]  # the teacher's features are unchanged
    no_answer = record["training"]["history"][-1]["no_answer"]
    assert {"threshold", "f1", "HasAns_f1", "NoAns_f1"} <= set(no_answer)


def _documentation_questions(path, train_json) -> dict:
    """A SQuAD 2.0-layout file of the kind ``python -m build_model.docdata`` writes: two answerable
    questions and one unanswerable one, over passages of the sample's text."""
    import json

    context = json.loads(train_json.read_text())["data"][0]["paragraphs"][0]["context"]
    word = context.split()[3]
    start = context.index(word)
    qas = [{"id": "d1", "question": "Which word comes fourth?", "kind": "which",
            "answers": [{"text": word, "answer_start": start}], "is_impossible": False},
           {"id": "d2", "question": "What is the first word?", "kind": "which",
            "answers": [{"text": context.split()[0], "answer_start": 0}], "is_impossible": False},
           {"id": "d3", "question": "What does getcwd return?", "kind": "unanswerable", "answers": [],
            "is_impossible": True}]
    data = {"version": "docqa-1", "data": [{"title": "pkg/page.html", "paragraphs": [{"context": context,
                                                                                      "qas": qas}]},
                                           # passages without questions: distractors' candidates
                                           {"title": "pkg/other.html", "paragraphs": [
                                               {"context": "Which word comes fourth, which comes first: a word list.",
                                                "qas": []}]},
                                           {"title": "elsewhere/page.html", "paragraphs": [
                                               {"context": "The first word and the fourth word of another package.",
                                                "qas": []}]}]}
    path.write_text(json.dumps(data), encoding="utf-8")
    return data


def test_documentation_questions_train_on_their_gold_labels_beside_squad(tmp_path_factory, tmp_path):
    """``[student] extra_train``: answerable questions on their spans, unanswerable ones on [CLS], none with a
    teacher target; the teacher's cached logits (SQuAD's features) are still found; a missing file is named."""
    from build_model.config import load_config
    from build_model.errors import BuildFailed
    from build_model.squad import load_squad
    from build_model.stages import distil

    project = built(tmp_path_factory)
    cfg = load_config(copy_build(project["root"], tmp_path, ("teacher", "teacher_logits")))
    extra = tmp_path / "docqa.json"
    _documentation_questions(extra, project["root"] / "data" / "train.json")
    assert [bool(q.answers) for q in load_squad(extra, impossible=True).questions] == [True, True, False]
    assert len(load_squad(extra).questions) == 2  # SQuAD 1.1 readers skip the unanswerable one

    with_docs = dataclasses.replace(cfg, student=dataclasses.replace(cfg.student, extra_train=str(extra)))
    features, counts = distil.extra_features(with_docs, data_tok(with_docs), with_docs.student.training)
    assert counts["answerable"] == 2 and counts["unanswerable"] == 1 and counts["features"] == len(features)
    labelled = [f for f in features if f.start > 0]
    assert len(labelled) == 2 and all(f.gold for f in features)
    assert [f for f in features if f.start == 0 and f.question_index == 2]  # the unanswerable one, on [CLS]

    sample = dataclasses.replace(with_docs, student=dataclasses.replace(with_docs.student, extra_limit=2))
    again, counts = distil.extra_features(sample, data_tok(sample), sample.student.training)
    assert counts["answerable"] + counts["unanswerable"] == 2
    twice = distil.extra_features(sample, data_tok(sample), sample.student.training)[0]
    assert [(f.question_index, f.start) for f in again] == [(f.question_index, f.start) for f in twice]  # seeded

    record = distil.run(with_docs)
    assert record["extra_train"]["answerable"] == 2 and record["teacher_logits"]["teacher"]["cached"]
    assert "distractors" not in record["extra_train"]
    missing = dataclasses.replace(cfg, student=dataclasses.replace(cfg.student, extra_train=str(tmp_path / "no")))
    with pytest.raises(BuildFailed, match="extra_train .*no is missing"):
        distil.run(missing, force=True)


def test_documentation_distractors_are_read_beside_their_question_under_the_shared_softmax(tmp_path_factory,
                                                                                          tmp_path):
    """``[student] extra_distractors``: each answerable documentation question gets passages of its own package
    that do not hold its answer, without labels (no loss of their own), keyed with its own windows for
    ``shared_norm``; the unanswerable one and other packages' passages get none; it needs ``shared_norm``."""
    from pathlib import Path

    from build_model.config import ConfigError, load_config
    from build_model.squad import load_squad
    from build_model.stages import distil

    project = built(tmp_path_factory)
    cfg = load_config(copy_build(project["root"], tmp_path, ("teacher", "teacher_logits")))
    extra = tmp_path / "docqa.json"
    _documentation_questions(extra, project["root"] / "data" / "train.json")
    split = load_squad(extra, impossible=True)
    own, other = [pid for pid, p in split.paragraphs.items() if p.title.startswith("pkg/")]
    sc = dataclasses.replace(cfg.student, extra_train=str(extra), shared_norm=1.0, extra_distractors=1)
    with_docs = dataclasses.replace(cfg, student=sc)
    features, counts = distil.extra_features(with_docs, data_tok(with_docs), sc.training)
    distractors = [f for f in features if not f.gold]
    assert counts["distractors"] == 2 and counts["distractor_features"] == len(distractors) > 0
    assert {(f.question_index, f.paragraph_id) for f in distractors} == {(0, other), (1, other)}
    assert all(f.start == f.end == 0 for f in distractors)
    keys = distil.extra_groups(features, 100)
    for f, key in zip(features, keys):
        assert key == (-1 if f.question_index == 2 else 100 + f.question_index)
    assert {f.paragraph_id for f in features if f.gold and f.start > 0} == {own}

    record = distil.run(with_docs)
    assert record["extra_train"]["distractors"] == 2
    sandbox = Path(__file__).resolve().parents[1] / "build_model" / "configs" / "sandbox.toml"
    ok = {"student.extra_train": str(extra), "student.shared_norm": 1.0, "student.extra_distractors": 2}
    assert load_config(sandbox, ok).student.extra_distractors == 2
    for bad in ({**ok, "student.shared_norm": 0.0}, {**ok, "student.extra_train": ""},
                {**ok, "student.extra_distractors": -1}):
        with pytest.raises(ConfigError, match="extra_distractors"):
            load_config(sandbox, bad)


def data_tok(cfg):
    from build_model.stages import distil
    from function.model.tokenizer import QATokenizer

    return QATokenizer(distil.teacher_model_dir(cfg, "base" if cfg.base is not None else "teacher")
                       / "tokenizer.json")


def test_a_squad_file_whose_answer_is_not_at_its_offset_is_refused(tmp_path):
    import json

    from build_model.squad import SquadFormatError, load_squad

    bad = {"data": [{"title": "t", "paragraphs": [{"context": "Rollo led the Normans.", "qas": [
        {"id": "q", "question": "Who?", "answers": [{"text": "Rollo", "answer_start": 3}]}]}]}]}
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(SquadFormatError, match="'q'.*not at answer_start 3"):
        load_squad(tmp_path / "bad.json")


def test_a_gzipped_squad_file_reads_as_the_plain_one(tmp_path):
    import gzip
    import json

    from build_model.squad import SquadFormatError, load_squad

    data = {"data": [{"title": "t", "paragraphs": [{"context": "Rollo led the Normans.", "qas": [
        {"id": "q", "question": "Who?", "answers": [{"text": "Rollo", "answer_start": 0}]}]}]}]}
    (tmp_path / "a.json.gz").write_bytes(gzip.compress(json.dumps(data).encode()))
    assert load_squad(tmp_path / "a.json.gz").questions[0].answer_text == "Rollo"
    (tmp_path / "b.json.gz").write_bytes(b"not gzip")
    with pytest.raises(SquadFormatError, match="b.json.gz"):
        load_squad(tmp_path / "b.json.gz")
