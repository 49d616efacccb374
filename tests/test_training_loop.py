"""build_model.training.loop: a resume draws what the uninterrupted run draws (dropout masks included), from
checkpoints with and without the random state."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
import torch

from tests.support.tiny_build import tiny_bert

CLS, SEP, PAD = 1, 2, 0


def features(n: int = 6, seed: int = 0):
    """``[CLS] q [SEP] p [SEP]`` features with answers in the passage, or at [CLS] for every third."""
    from build_model.training.features import Feature

    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        q_len, p_len = int(rng.integers(2, 6)), int(rng.integers(4, 12))
        ids = np.concatenate([[CLS], rng.integers(5, 200, q_len), [SEP], rng.integers(5, 200, p_len), [SEP]])
        cs = q_len + 2
        start = 0 if i % 3 == 2 else cs + int(rng.integers(0, p_len))
        out.append(Feature(ids.astype(np.int32), cs, start, start, i, f"p-{i}", True))
    return out


def teacher_logits(feats, seed: int = 1):
    """Soft targets for all but the last feature (which takes the cross-entropy alone, as an unanswerable one)."""
    rng = np.random.default_rng(seed)
    out = [tuple(rng.normal(size=len(f.input_ids)).astype(np.float16) * 3 for _ in range(2)) for f in feats]
    return out[:-1] + [None]


def settings(**kw):
    from build_model.config import Training

    return Training(**{"epochs": 2, "batch_size": 2, "learning_rate": 3e-3, "warmup_ratio": 0.0, "seed": 5, **kw})


def _log(work) -> list[dict]:
    return [json.loads(line) for line in (work / "train.log.jsonl").read_text().splitlines()]


# ---- resume: the random state -------------------------------------------------------------------------

class _Stop(Exception):
    pass


class _Dies(torch.nn.Module):
    """The model as the loop calls it; the process "dies" on training forward pass ``after + 1``."""

    def __init__(self, model, after: int = 0):
        super().__init__()
        self.model, self.after, self.calls = model, after, 0

    def forward(self, **inputs):
        if self.training:
            if self.after and self.calls == self.after:
                raise _Stop
            self.calls += 1
        return self.model(**inputs)


def _run(work, feats, model_seed: int = 1, after: int = 0):
    from build_model.training.loop import train

    qa = tiny_bert(vocab_size=200, hidden=32, layers=2, seed=model_seed)  # dropout 0.1, as BertConfig's default
    train(_Dies(qa, after), feats, settings(), work, PAD, teacher_logits=teacher_logits(feats), threads=1,
          checkpoint_every=1)
    return qa


def _same_weights(a, b) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))


def test_a_resumed_run_draws_the_dropout_masks_of_the_uninterrupted_one(tmp_path):
    feats = features()
    straight = _run(tmp_path / "straight", feats)  # 6 steps: 3 batches, 2 epochs
    with pytest.raises(_Stop):
        _run(tmp_path / "resumed", feats, after=4)  # dies in the second epoch, its checkpoint at step 4
    state = torch.load(tmp_path / "resumed" / "checkpoint.pt", weights_only=False)
    assert state["step"] == 4 and set(state["rng"]) == {"torch", "numpy", "python"}
    resumed = _run(tmp_path / "resumed", feats, model_seed=9)  # its weights: the checkpoint's
    assert _same_weights(straight, resumed)
    assert [r for r in _log(tmp_path / "resumed") if r["event"] == "resume"] == [
        {"event": "resume", "step": 4, "rng": True}]


def test_the_random_state_round_trips_for_torch_numpy_and_python():
    from build_model.training.loop import rng_state, set_rng_state

    def draws():
        return torch.rand(3).tolist(), np.random.rand(3).tolist(), [random.random() for _ in range(3)]

    kept = rng_state()
    first = draws()
    assert draws() != first
    set_rng_state(kept)
    assert draws() == first


def test_a_checkpoint_without_the_random_state_still_resumes(tmp_path):
    """Checkpoints written before the loop kept the random state: they load, the run finishes, from the seeded
    state (other dropout masks than the uninterrupted run's), and its next checkpoints keep it."""
    feats = features()
    work = tmp_path / "old"
    with pytest.raises(_Stop):
        _run(work, feats, after=4)
    state = torch.load(work / "checkpoint.pt", weights_only=False)
    del state["rng"]  # as the loop wrote it before
    torch.save(state, work / "checkpoint.pt")
    resumed = _run(work, feats, model_seed=9)
    assert [r for r in _log(work) if r["event"] == "resume"] == [{"event": "resume", "step": 4, "rng": False}]
    assert [r["step"] for r in _log(work) if r["event"] == "step"][-1] == 6
    assert not _same_weights(resumed, tiny_bert(vocab_size=200, hidden=32, layers=2, seed=9))  # it trained on
    assert "rng" in torch.load(work / "checkpoint.pt", weights_only=False)


# ---- shared normalisation across a question's windows ------------------------------------------------------

def test_question_batches_keep_a_questions_windows_together_and_cover_every_feature_once():
    from build_model.training.loop import question_batches

    groups = np.asarray([0, 0, 1, 2, 2, 2, -1, 3, -1, 1])
    batches = question_batches(groups, 4, seed=3)
    seen = np.concatenate(batches)
    assert sorted(seen.tolist()) == list(range(len(groups)))
    for key in (0, 1, 2, 3):
        holding = [i for i, b in enumerate(batches) if np.isin(np.flatnonzero(groups == key), b).any()]
        assert len(holding) == 1  # never split across batches
    assert all(len(b) <= 4 for b in batches)
    assert [b.tolist() for b in question_batches(groups, 4, seed=3)] == [b.tolist() for b in batches]


def test_shared_norm_loss_is_one_softmax_over_the_passage_tokens_of_a_questions_windows():
    from build_model.training.features import Feature
    from build_model.training.loop import shared_norm_loss

    ids = np.asarray([CLS, 7, SEP, 10, 11, 12, SEP], dtype=np.int32)  # passage tokens at 3, 4, 5
    gold = Feature(ids, 3, 4, 5, 0, "p", True)
    other = Feature(ids, 3, 0, 0, 0, "q", False)  # an augmented pair: no answer there
    lone = Feature(ids, 3, 0, 0, 1, "r", True)  # another question, unanswerable: no term of its own
    s = torch.zeros(3, len(ids))
    s[0, 4], s[0, 5] = 2.0, 2.0
    starts, ends = torch.tensor([4, 0, 0]), torch.tensor([5, 0, 0])
    keys = np.asarray([0, 0, 1])
    loss = shared_norm_loss(s, s.clone(), [gold, other, lone], keys, starts, ends)
    # six passage tokens share the softmax: two at 2.0 (the gold start and end), four at 0.0 ([CLS] and the
    # question are out), for the start and the end alike
    expected = -(2.0 - np.log(2 * np.exp(2.0) + 4))
    assert float(loss) == pytest.approx(expected, rel=1e-5)
    # the other window's passage tokens compete: raising them raises the loss, which a per-window softmax ignores
    s2 = s.clone()
    s2[1, 3:6] = 3.0
    assert float(shared_norm_loss(s2, s2.clone(), [gold, other, lone], keys, starts, ends)) > float(loss) + 1
    assert shared_norm_loss(s[1:], s[1:].clone(), [other, lone], np.asarray([0, 1]), starts[1:], ends[1:]) is None


def test_training_with_shared_norm_logs_its_term(tmp_path):
    from build_model.training.loop import train

    feats = features(8)
    qa = tiny_bert(vocab_size=200, hidden=32, layers=2, seed=1)
    groups = np.asarray([0, 0, 1, 1, 1, 2, 3, 3])  # uneven: the batches an epoch packs vary with its shuffle
    for f, g in zip(feats, groups):
        f.question_index = int(g)
    record = train(qa, feats, settings(epochs=3, batch_size=4), tmp_path, PAD, teacher_logits=teacher_logits(feats),
                   threads=1, groups=groups, shared_norm=1.0)
    from build_model.training.loop import question_batches

    per_epoch = len(question_batches(groups, 4, settings().seed))
    assert record["steps"] == 3 * per_epoch and len(record["history"]) == 0  # every epoch ran its steps
    steps = [r for r in _log(tmp_path) if r["event"] == "step"]
    assert steps and all("shared" in r for r in steps)
