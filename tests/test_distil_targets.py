"""The distil stage's training set, soft targets and dev scores, as public functions: what the stage trains on
and scores with is what they return."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from tests.support.tiny_build import tiny_sections, tiny_squad, tiny_teacher, write_config


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A teacher and a [base] stage already done (tiny models with their records), an ensemble student with
    augmented and unanswerable pairs; the distil stage run once on it."""
    from build_model.config import load_config
    from build_model.stage_record import save_record
    from build_model.stages import distil

    root = tmp_path_factory.mktemp("distil-targets")
    train, dev = tiny_squad(root / "data")
    for name, seed in (("teacher", 0), ("base", 1)):
        tiny_teacher(root / "build" / name / "model", seed=seed)
        save_record(root / "build" / name, {name: seed}, {"dev": {}})
    sections = tiny_sections(root, root / "build" / "teacher" / "model", train, dev)
    sections["base"] = {"model": str(root / "build" / "base" / "model"), "fine_tune": True}
    sections["student"].update(base_weight=0.5, unanswerable=1, augment_pairs=1, epochs=1)
    cfg = load_config(write_config(root / "build.toml", sections))
    record = distil.run(cfg)
    return {"cfg": cfg, "record": record, "root": root}


def _tok(cfg):
    from build_model.stages import distil
    from function.model.tokenizer import QATokenizer

    return QATokenizer(distil.teacher_model_dir(cfg, "base") / "tokenizer.json")


def test_the_stage_trains_on_the_training_set(project):
    from build_model.stages import distil

    cfg, record = project["cfg"], project["record"]
    data = distil.training_set(cfg, _tok(cfg), cfg.student.training)
    assert data.augmented > 0 and data.unanswerable
    assert all(f.start == f.end == 0 for f in data.unanswerable), "trained to [CLS]"
    assert record["features"] == {"total": len(data.features) + len(data.unanswerable),
                                  "gold": sum(f.gold for f in data.features), "augmented_pairs": data.augmented,
                                  "unanswerable": len(data.unanswerable)}


def _cached(cfg, name: str, split, features, suffix: str = ""):
    """``name``'s logits as its cache holds them (nothing loaded)."""
    from build_model.stages import distil
    from build_model.training import align, kd
    from function.model.tokenizer import QATokenizer

    def refuse():
        raise AssertionError("the cache should hold them")

    own = QATokenizer(distil.teacher_model_dir(cfg, name) / "tokenizer.json")  # the student's is [base]'s
    windows = align.teacher_windows(features, split, _tok(cfg), own, cfg.sequence.max_query_tokens)
    prefix = distil.logits_dir(cfg) / f"{name}{suffix}"
    logits, _ = kd.cached_teacher_logits(prefix, distil.model_fingerprint(cfg, name), refuse, windows,
                                         own.pair_layout()["pad_id"])
    return logits


def test_soft_targets_mix_the_cached_teacher_and_base_logits(project):
    """The stage cached both teachers' logits; the targets are their mixture by base_weight at the temperature."""
    from build_model.specs import training_spec
    from build_model.squad import load_squad
    from build_model.stages import distil
    from build_model.training import kd
    from build_model.training.features import build_features

    cfg = project["cfg"]
    tok, tr = _tok(cfg), cfg.student.training
    data = distil.training_set(cfg, tok, tr)
    dev = load_squad(cfg.data.dev, cfg.data.dev_limit or None)
    held = build_features(tok, dev, training_spec(cfg, tok, tr))[: distil.HELD_OUT_FEATURES]
    got = distil.soft_targets(cfg, tok, tr, data.split, data.features, held_out=(dev, held), compute=False)
    assert set(got.caches) == {"teacher", "base"} and all(c["cached"] for c in got.caches.values())
    for logits, split, features, suffix in ((got.logits, data.split, data.features, ""),
                                            (got.held_out, dev, held, "-held-out")):
        want = kd.ensemble(_cached(cfg, "teacher", split, features, suffix),
                           _cached(cfg, "base", split, features, suffix), 0.5, tr.temperature)
        assert len(logits) == len(features)
        for (a, b), (c, d) in zip(logits, want):
            assert np.array_equal(a, c) and np.array_equal(b, d)

    # without [base] in the mixture: the teacher's own logits; a temperature of the caller's own is honoured
    alone = dataclasses.replace(cfg, student=dataclasses.replace(cfg.student, base_weight=0.0))
    teacher_only = distil.soft_targets(alone, tok, tr, data.split, data.features, compute=False)
    assert teacher_only.held_out is None and set(teacher_only.caches) == {"teacher"}
    for (a, b), (c, d) in zip(teacher_only.logits, _cached(cfg, "teacher", data.split, data.features)):
        assert np.array_equal(a, c) and np.array_equal(b, d)
    hotter = dataclasses.replace(tr, temperature=4.0)
    mixed = distil.soft_targets(cfg, tok, hotter, data.split, data.features, compute=False).logits
    want = kd.ensemble(teacher_only.logits, _cached(cfg, "base", data.split, data.features), 0.5, 4.0)
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(mixed, want))


def test_soft_targets_refuse_to_compute_what_the_cache_lacks(project, monkeypatch):
    from build_model import hf
    from build_model.errors import BuildFailed
    from build_model.stages import distil

    cfg = project["cfg"]
    tok, tr = _tok(cfg), cfg.student.training
    data = distil.training_set(cfg, tok, tr)
    monkeypatch.setattr(hf, "load_qa_model", lambda *a, **kw: pytest.fail("no model is loaded when refused"))
    before = sorted(p.name for p in distil.logits_dir(cfg).iterdir())
    with pytest.raises(distil.NotCached, match="not all in") as refused:
        distil.soft_targets(cfg, tok, tr, data.split, data.features[:3], compute=False)
    assert isinstance(refused.value, BuildFailed)
    assert sorted(p.name for p in distil.logits_dir(cfg).iterdir()) == before, "a refused probe leaves nothing"


def test_the_dev_scorer_is_the_stage_s_dev_score(project):
    """The trained student scored by ``dev_scorer`` is the stage's last dev record."""
    from build_model import hf
    from build_model.evaluation.evaluate import torch_infer
    from build_model.specs import serving_spec
    from build_model.squad import load_squad
    from build_model.stages import distil

    cfg, record = project["cfg"], project["record"]
    tok = _tok(cfg)
    dev = load_squad(cfg.data.dev, cfg.data.dev_limit or None)
    model = hf.load_qa_model(str(distil.stage_dir(cfg) / "model")).eval()
    scores = distil.dev_scorer(cfg, dev, tok, serving_spec(cfg, tok))(torch_infer(model))
    last = record["training"]["history"][-1]
    assert set(last) == set(scores) | {"epoch"} and {"exact_match", "f1", "questions"} <= set(scores)
    for key, value in json.loads(json.dumps(scores)).items():  # as the record keeps them
        if key != "seconds":
            assert value == last[key], key


def test_the_dev_scorer_scores_abstention_when_the_student_learns_it(project):
    """Unanswerable pairs trained and two articles to pair across: each question is asked again against
    another article's paragraph, and the scores say how well the model abstains."""
    from build_model.evaluation.evaluate import torch_infer
    from build_model.specs import serving_spec
    from build_model.stages import distil
    from tests.support.tiny_build import tiny_bert

    cfg = project["cfg"]
    tok = _tok(cfg)
    two_articles = distil.training_set(cfg, tok, cfg.student.training).split
    infer = torch_infer(tiny_bert(tok.vocab_size, seed=3))
    scores = distil.dev_scorer(cfg, two_articles, tok, serving_spec(cfg, tok))(infer)
    assert set(scores["no_answer"]) == {"threshold", "f1", "HasAns_f1", "NoAns_f1"}
    plain = dataclasses.replace(cfg, student=dataclasses.replace(cfg.student, unanswerable=0))
    assert "no_answer" not in distil.dev_scorer(plain, two_articles, tok, serving_spec(cfg, tok))(infer)
