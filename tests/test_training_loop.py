"""build_model.training.loop: the extra loss a model adapter adds, and a resume that draws what the uninterrupted
run draws (dropout masks included), from checkpoints with and without the random state."""

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


# ---- extra_loss ----------------------------------------------------------------------------------------

def _aux(model) -> torch.Tensor:
    """A term the logits do not carry: it reaches weights the CE/KD loss reaches too, and one it does not
    (the embedding of token 3, in no feature)."""
    return (model.qa_outputs.weight ** 2).sum() + model.bert.embeddings.word_embeddings.weight[3].abs().sum()


def _first_step_gradients(work, monkeypatch, extra_of=None):
    """Each parameter's gradient on the loop's first step (before clipping), and the step's log line;
    ``extra_of(model)``: the ``extra_loss`` to train with."""
    from build_model.training.loop import train

    model = tiny_bert(vocab_size=200, hidden=32, layers=2, seed=1)
    grads = {}
    clip = torch.nn.utils.clip_grad_norm_

    def record(params, max_norm):
        params = list(params)
        if not grads:
            grads.update({n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None})
        return clip(params, max_norm)

    monkeypatch.setattr(torch.nn.utils, "clip_grad_norm_", record)
    feats = features()
    train(model, feats, settings(epochs=1, batch_size=len(feats)), work, PAD, teacher_logits=teacher_logits(feats),
          threads=1, extra_loss=extra_of(model) if extra_of else None)
    return grads, next(r for r in _log(work) if r["event"] == "step")


def test_the_extra_loss_joins_the_loss_with_its_weight(tmp_path, monkeypatch):
    """The gradient of the step is that of CE/KD + weight * aux, on every parameter; the logged CE/KD loss is
    the loop's own, the added term logged apart."""
    weight = 0.3
    plain, plain_log = _first_step_gradients(tmp_path / "plain", monkeypatch)
    with_aux, aux_log = _first_step_gradients(tmp_path / "aux", monkeypatch, lambda m: lambda: weight * _aux(m))

    reference = tiny_bert(vocab_size=200, hidden=32, layers=2, seed=1)  # the weights of the first step
    aux = _aux(reference)
    aux.backward()
    aux_grads = {n: p.grad for n, p in reference.named_parameters() if p.grad is not None}
    assert aux_grads and plain
    for name in set(plain) | set(aux_grads):
        want = plain.get(name, 0.0) + weight * aux_grads.get(name, 0.0)
        assert torch.allclose(with_aux[name], want, atol=1e-6), name
    assert aux_log["loss"] == plain_log["loss"] and aux_log["kd"] == plain_log["kd"]
    assert aux_log["extra"] == pytest.approx(weight * aux.item(), rel=1e-6)
    assert "extra" not in plain_log


def test_an_extra_loss_of_none_adds_nothing(tmp_path, monkeypatch):
    plain, plain_log = _first_step_gradients(tmp_path / "plain", monkeypatch)
    none, none_log = _first_step_gradients(tmp_path / "none", monkeypatch, lambda m: lambda: None)
    assert set(none) == set(plain) and all(torch.equal(none[n], plain[n]) for n in plain)
    assert none_log["loss"] == plain_log["loss"] and "extra" not in none_log


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
