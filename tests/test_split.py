"""build_model.training.split: lower layers per segment, upper layers joint (DeFormer)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tests.support.tiny_build import tiny_bert


@pytest.fixture(scope="module")
def model():
    return tiny_bert(vocab_size=200, hidden=32, layers=3, seed=1)


def segments(seed: int = 0, q_len: int = 7, p_len: int = 11, batch: int = 2):
    g = torch.Generator().manual_seed(seed)
    q = torch.randint(5, 200, (batch, q_len), generator=g)
    p = torch.randint(5, 200, (batch, p_len), generator=g)
    q_mask, p_mask = torch.ones_like(q), torch.ones_like(p)
    q_mask[1, -2:] = 0  # the second question is shorter: padded
    p_mask[1, -3:] = 0
    return q, q_mask, p, p_mask


def test_split_at_zero_with_continued_positions_is_the_whole_model(model):
    """Nothing runs apart but the embeddings: the plumbing (masks, order, head) reproduces the model."""
    from build_model.training.split import SplitQA

    q, q_mask, p, p_mask = segments()
    split = SplitQA(model, 0, passage_positions_from=q.shape[1]).eval()
    with torch.inference_mode():
        start, end, _ = split(q, q_mask, p, p_mask)
        whole = model(input_ids=torch.cat([q, p], 1), attention_mask=torch.cat([q_mask, p_mask], 1),
                      token_type_ids=torch.cat([torch.zeros_like(q), torch.ones_like(p)], 1))
    keep = torch.cat([q_mask, p_mask], 1).bool()
    assert torch.allclose(start[keep], whole.start_logits[keep], atol=1e-5)
    assert torch.allclose(end[keep], whole.end_logits[keep], atol=1e-5)


def test_a_passage_s_lower_states_do_not_depend_on_the_question(model):
    from build_model.training.split import SplitQA

    q, q_mask, p, p_mask = segments()
    other_q, *_ = segments(seed=5)
    split = SplitQA(model, 2).eval()
    with torch.inference_mode():
        stored = split.lower(p, p_mask, 1)
        assert torch.equal(split.lower(p, p_mask, 1), stored)
        # the answer read from stored states is the answer computed whole, for any question
        for question in (q, other_q):
            direct = split(question, q_mask, p, p_mask)
            read = split.upper(split.lower(question, q_mask, 0), q_mask, stored, p_mask)
            assert torch.allclose(direct[0], read[0]) and torch.allclose(direct[1], read[1])
        # while split higher, the question reaches the passage's states only above the split
        whole = SplitQA(model, 0, passage_positions_from=q.shape[1])
        assert not torch.allclose(split(q, q_mask, p, p_mask)[0], whole(q, q_mask, p, p_mask)[0])


def test_the_split_must_fall_within_the_layers(model):
    from build_model.training.split import SplitQA

    with pytest.raises(ValueError, match="the model has 3 layers"):
        SplitQA(model, 4)


# -- the split layout: features, targets and windows --------------------------------------------------

MAX_QUERY, CLS, SEP, PAD = 8, 1, 2, 0
Q = MAX_QUERY + 2  # [CLS] q [SEP], padded


def window_features(n: int = 6, seed: int = 0, full_question: bool = False):
    """Features as ``build_model.training.features`` makes them: ``[CLS] q [SEP] p [SEP]``, questions of
    several lengths, answers inside the passage or at [CLS]."""
    from build_model.training.features import Feature

    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        q_len = MAX_QUERY if full_question else int(rng.integers(1, MAX_QUERY + 1))
        p_len = int(rng.integers(4, 20))
        ids = np.concatenate([[CLS], rng.integers(5, 200, q_len), [SEP], rng.integers(5, 200, p_len), [SEP]])
        cs = q_len + 2
        if i % 3 == 2:
            start = end = 0  # the answer is not in this window
        else:
            start = cs + int(rng.integers(0, p_len))
            end = min(start + int(rng.integers(0, 3)), cs + p_len - 1)
        out.append(Feature(ids.astype(np.int32), cs, start, end, i, f"a-{i}", True))
    return out


def window_logits_of(features, seed: int = 1):
    """Teacher-like logits: values on [CLS] and the passage, NO_MASS on the question and separators."""
    from build_model.training.align import NO_MASS

    rng = np.random.default_rng(seed)
    out = []
    for f in features:
        pair = []
        for _ in range(2):
            x = np.full(len(f.input_ids), NO_MASS, dtype=np.float32)
            x[0] = rng.normal()
            x[f.context_start : f.context_start + f.context_len] = rng.normal(size=f.context_len) * 3
            pair.append(x.astype(np.float16))
        out.append(tuple(pair))
    return out


def test_split_features_keep_every_token_label_and_position_exactly():
    from build_model.training.split_features import (
        QUESTION_PAD,
        question_segment,
        to_split_feature,
        to_split_positions,
        to_window_positions,
    )

    assert question_segment(64) == 66 and question_segment(MAX_QUERY) == Q
    for f in window_features(12):
        s = to_split_feature(f, Q)
        cs, n = f.context_start, len(f.input_ids)
        assert len(s.input_ids) == Q + n - cs and s.context_start == Q and s.question_len == cs
        assert s.context_len == f.context_len
        where = to_split_positions(np.arange(n), cs, Q)
        assert np.array_equal(s.input_ids[where], f.input_ids)  # every token moves, none is lost
        assert np.all(s.input_ids[cs:Q] == QUESTION_PAD)
        assert np.array_equal(to_window_positions(where, cs, Q), np.arange(n))  # round trip
        assert np.all(to_window_positions(np.arange(cs, Q), cs, Q) == -1)
        assert s.input_ids[s.start] == f.input_ids[f.start] and s.input_ids[s.end] == f.input_ids[f.end]
        assert (s.start == 0) == (f.start == 0)  # [CLS] stays at 0
        assert s.end - s.start == f.end - f.start
        # the passage segment is the same whatever the question
        assert np.array_equal(s.input_ids[Q:], f.input_ids[cs:])


def test_the_teacher_s_mass_moves_with_the_tokens():
    import torch

    from build_model.training.split_features import split_targets, to_split_positions, window_logits

    features = window_features(9)
    logits = window_logits_of(features)
    moved = split_targets(features, logits + [None], Q)[: len(features)]
    assert split_targets(features[:1], [None], Q) == [None]  # no teacher target stays none
    for f, window, split in zip(features, logits, moved):
        where = to_split_positions(np.arange(len(f.input_ids)), f.context_start, Q)
        for w, s in zip(window, split):
            assert np.array_equal(window_logits(s, f.context_start, Q), w)
            p_window = torch.softmax(torch.from_numpy(w.astype(np.float32)) / 2, -1).numpy()
            p_split = torch.softmax(torch.from_numpy(s.astype(np.float32)) / 2, -1).numpy()
            assert np.allclose(p_split[where], p_window, atol=1e-7)  # each token keeps its probability
            assert p_split.sum() == pytest.approx(1.0, abs=1e-6) and p_split[f.context_start : Q].sum() == 0.0


def test_a_question_longer_than_the_segment_is_refused():
    from build_model.training.split_features import to_split_feature

    with pytest.raises(ValueError, match="does not fit in Q = 5"):
        to_split_feature(window_features(1, full_question=True)[0], 5)


def test_served_windows_convert_and_come_back():
    from build_model.training.split_features import split_rows, window_logits
    from function.model.windows import WindowSpec, build_batch

    spec = WindowSpec(max_seq_len=24, stride=4, max_query_tokens=MAX_QUERY, cls_id=CLS, sep_id=SEP, pad_id=PAD)
    for question in ([7, 8, 9], [7, 8, 9, 10, 11, 12, 13, 14]):
        batch = build_batch(question, [np.arange(10, 40), np.arange(50, 58)], spec)
        cs = batch.context_start
        split = split_rows(batch.input_ids, batch.attention_mask, batch.context_start, Q, PAD)
        assert split["question_ids"].shape == (len(batch), Q)
        assert np.array_equal(split["question_ids"][:, :cs], batch.input_ids[:, :cs])
        assert np.all(split["question_mask"][:, :cs] == 1) and np.all(split["question_mask"][:, cs:] == 0)
        assert np.all(split["question_ids"][:, cs:] == PAD)
        assert np.array_equal(split["passage_ids"], batch.input_ids[:, cs:])
        assert np.array_equal(split["passage_mask"], batch.attention_mask[:, cs:])
        # logits on the concatenated positions come back to the window's, the padding's dropped
        concatenated = np.concatenate([batch.input_ids[:, :cs], np.full((len(batch), Q - cs), -7),
                                       batch.input_ids[:, cs:]], 1).astype(np.float32)
        assert np.array_equal(window_logits(concatenated, cs, Q), batch.input_ids.astype(np.float32))


# -- the split model in the training loop ---------------------------------------------------------------

def collated(features, q: int = Q):
    import torch

    from build_model.training.features import collate_inputs
    from build_model.training.split_features import to_split_feature

    split = [to_split_feature(f, q) for f in features]
    return split, {k: torch.from_numpy(v) for k, v in collate_inputs(split, PAD).items()}


def as_whole_inputs(arrays):
    """The converted window as the whole model reads it: the question's padding masked, positions in order."""
    from build_model.training.split_features import QUESTION_PAD

    ids = arrays["input_ids"]
    mask = arrays["attention_mask"].clone()
    mask[ids == QUESTION_PAD] = 0
    return {"input_ids": ids.clamp(min=PAD), "attention_mask": mask, "token_type_ids": arrays["token_type_ids"]}


def test_split_at_zero_from_q_is_the_whole_model_on_the_converted_window(model):
    import torch

    from build_model.training.split import SplitQA
    from build_model.training.split_loop import MASKED, SplitForLoop

    _, arrays = collated(window_features(6))
    loop_model = SplitForLoop(SplitQA(model, 0, passage_positions_from=Q), Q, PAD).eval()
    with torch.inference_mode():
        out = loop_model(**arrays)
        whole = model(**as_whole_inputs(arrays))
    keep = as_whole_inputs(arrays)["attention_mask"].bool()
    assert torch.allclose(out.start_logits[keep], whole.start_logits[keep], atol=1e-5)
    assert torch.allclose(out.end_logits[keep], whole.end_logits[keep], atol=1e-5)
    assert torch.all(out.start_logits[~keep] == MASKED) and torch.all(out.end_logits[~keep] == MASKED)


def test_the_whole_model_s_reference_states_are_its_states_on_the_window(model):
    import torch

    from build_model.training.features import collate_inputs
    from build_model.training.split import SplitQA
    from build_model.training.split_features import to_split_positions
    from build_model.training.split_loop import SplitForLoop, whole_states

    features = window_features(5)
    _, arrays = collated(features)
    parts = SplitForLoop(SplitQA(model, 1), Q, PAD).segments(arrays["input_ids"], arrays["attention_mask"])
    window = {k: torch.from_numpy(v) for k, v in collate_inputs(features, PAD).items()}
    with torch.inference_mode():
        concatenated = whole_states(model, **parts)
        direct = model(**window, output_hidden_states=True).hidden_states
    for r, f in enumerate(features):
        where = torch.from_numpy(to_split_positions(np.arange(len(f.input_ids)), f.context_start, Q))
        for a, b in zip(concatenated, direct):
            assert torch.allclose(a[r, where], b[r, : len(f.input_ids)], atol=1e-5)


def test_the_hidden_state_loss_is_zero_when_the_split_is_the_whole_model(model):
    import torch

    from build_model.training.split import SplitQA
    from build_model.training.split_loop import SplitForLoop, layerwise_similarity, whole_states

    # full-length questions: the passage sits at position Q in the window too, so at k = 0 nothing differs
    _, arrays = collated(window_features(4, full_question=True))
    for k, expect_zero in ((0, True), (1, False)):
        split = SplitQA(model, k, passage_positions_from=Q if k == 0 else 0)
        parts = SplitForLoop(split, Q, PAD).segments(arrays["input_ids"], arrays["attention_mask"])
        mask = torch.cat([parts["question_mask"], parts["passage_mask"]], 1)
        with torch.inference_mode():
            _, _, states = split.eval()(**parts)
            lrs = layerwise_similarity(states, whole_states(model, **parts)[k + 1 :], mask).item()
        assert len(states) == 3 - k
        assert (lrs < 1e-10) == expect_zero, (k, lrs)


def test_the_hidden_state_loss_is_handed_to_the_loop_with_its_weight():
    """``extra_loss``: ``hidden_loss`` x the LRS of the last training forward pass, once; nothing in eval
    mode or without the loss; a step whose term the loop never took is refused, not silently dropped."""
    import torch

    from build_model.training.split import SplitQA
    from build_model.training.split_loop import SplitForLoop, layerwise_similarity, whole_states

    qa = tiny_bert(vocab_size=200, hidden=32, layers=3, seed=4)
    whole = tiny_bert(vocab_size=200, hidden=32, layers=3, seed=2)
    _, arrays = collated(window_features(4))
    loop_model = SplitForLoop(SplitQA(qa, 1), Q, PAD, whole=whole, hidden_loss=0.7).train()
    torch.manual_seed(0)
    loop_model(**arrays)
    extra = loop_model.extra_loss()
    assert extra.requires_grad and loop_model.extra_loss() is None  # taken once

    parts = loop_model.segments(arrays["input_ids"], arrays["attention_mask"])
    width = int(parts["question_mask"].sum(1).max())
    parts = {k: v[:, :width] if k.startswith("question") else v for k, v in parts.items()}
    torch.manual_seed(0)  # the same dropout masks
    _, _, states = loop_model.split(**parts)
    mask = torch.cat([parts["question_mask"], parts["passage_mask"]], 1).bool()
    with torch.no_grad():
        reference = whole_states(whole, **parts)[2:]
    assert torch.allclose(extra, 0.7 * layerwise_similarity(states, reference, mask))

    loop_model(**arrays)
    with pytest.raises(RuntimeError, match="extra_loss=model.extra_loss"):
        loop_model(**arrays)
    loop_model.extra_loss()
    loop_model.eval()(**arrays)
    assert loop_model.extra_loss() is None
    plain = SplitForLoop(SplitQA(qa, 1), Q, PAD).train()
    plain(**arrays)
    assert plain.extra_loss() is None


def test_split_infer_reads_served_windows_as_the_whole_model_does(model):
    from build_model.evaluation.evaluate import torch_infer
    from build_model.training.split import SplitQA
    from build_model.training.split_loop import split_infer
    from function.model.windows import WindowSpec, build_batch

    spec = WindowSpec(max_seq_len=40, stride=8, max_query_tokens=MAX_QUERY, cls_id=CLS, sep_id=SEP, pad_id=PAD)
    batch = build_batch(list(range(20, 20 + MAX_QUERY)), [np.arange(30, 90), np.arange(100, 110)], spec)
    split = SplitQA(model, 0, passage_positions_from=Q).eval()  # a full question: positions as in the window
    got, want = split_infer(split, Q, PAD)(batch), torch_infer(model)(batch)
    keep = batch.attention_mask.astype(bool)
    for g, w in zip(got, want):
        assert g.shape == w.shape and np.allclose(g[keep], w[keep], atol=1e-5)


def test_the_question_s_padding_changes_nothing_so_it_is_not_computed(model):
    """The loop adapter trims the padding to the batch's longest question and ``split_infer`` leaves it
    out: both equal the split model on the full Q-wide layout, at every split and passage position."""
    import torch

    from build_model.training.split import SplitQA
    from build_model.training.split_features import split_rows, window_logits
    from build_model.training.split_loop import SplitForLoop, split_infer
    from function.model.windows import WindowSpec, build_batch

    spec = WindowSpec(max_seq_len=40, stride=8, max_query_tokens=MAX_QUERY, cls_id=CLS, sep_id=SEP, pad_id=PAD)
    batch = build_batch([20, 21, 22], [np.arange(30, 90)], spec)
    _, arrays = collated(window_features(5))
    for k, first in ((1, 0), (2, Q)):
        split = SplitQA(model, k, passage_positions_from=first).eval()
        full = split_rows(batch.input_ids, batch.attention_mask, batch.context_start, Q, PAD)
        with torch.inference_mode():
            padded = split(**{name: torch.from_numpy(v) for name, v in full.items()})
            trimmed = SplitForLoop(split, Q, PAD).eval()(**arrays)
            parts = SplitForLoop(split, Q, PAD).segments(arrays["input_ids"], arrays["attention_mask"])
            whole_q = split(**parts)
        keep = batch.attention_mask.astype(bool)
        for got, want in zip(split_infer(split, Q, PAD)(batch), padded[:2]):
            assert np.allclose(got[keep], window_logits(want.numpy(), batch.context_start, Q)[keep], atol=1e-5)
        real = torch.cat([parts["question_mask"], parts["passage_mask"]], 1).bool()
        assert torch.allclose(trimmed.start_logits[real], whole_q[0][real], atol=1e-5)
        assert torch.allclose(trimmed.end_logits[real], whole_q[1][real], atol=1e-5)


# -- training: the loss goes down, and a resumed run is the uninterrupted one -----------------------------

class _Stop(Exception):
    pass


def _loop_model(seed_model: int, interrupt_after: int = 0):
    """The split model (k = 1) as the loop trains it, from a tiny model made with ``seed_model``; the frozen
    whole model it compares its hidden states with is always the same one."""
    from build_model.training.split import SplitQA
    from build_model.training.split_loop import SplitForLoop

    class Interrupted(SplitForLoop):
        calls = 0

        def forward(self, *a, **kw):
            if self.training:
                if interrupt_after and self.calls == interrupt_after:
                    raise _Stop  # the process dies before step interrupt_after + 1
                self.calls += 1
            return super().forward(*a, **kw)

    qa = tiny_bert(vocab_size=200, hidden=32, layers=3, seed=seed_model)
    whole = tiny_bert(vocab_size=200, hidden=32, layers=3, seed=2)
    return qa, Interrupted(SplitQA(qa, 1), Q, PAD, whole=whole, hidden_loss=0.5)


def _train(work, features, targets, seed_model: int = 2, interrupt_after: int = 0):
    from build_model.config import Training
    from build_model.training.loop import train
    from build_model.training.split_features import to_split_feature

    qa, loop_model = _loop_model(seed_model, interrupt_after)
    settings = Training(epochs=2, batch_size=len(features), learning_rate=3e-3, warmup_ratio=0.0, seed=5)
    split = [to_split_feature(f, Q) for f in features]
    train(loop_model, split, settings, work, PAD, teacher_logits=targets, threads=1, checkpoint_every=1,
          extra_loss=loop_model.extra_loss)
    return qa, loop_model


def _objective(loop_model, features, targets) -> float:
    """The loop's CE/KD mix (alpha 0.5, T 2) on the features, dropout off."""
    import torch
    import torch.nn.functional as F

    split, arrays = collated(features)
    loop_model.eval()
    total = 0.0
    with torch.inference_mode():
        out = loop_model(**arrays)
        for r, f in enumerate(split):
            n = len(f.input_ids)
            s_start, s_end = out.start_logits[r : r + 1, :n], out.end_logits[r : r + 1, :n]
            ce = (F.cross_entropy(s_start, torch.tensor([f.start]))
                  + F.cross_entropy(s_end, torch.tensor([f.end]))) / 2
            if targets[r] is None:
                total += float(ce)
                continue
            t = [torch.from_numpy(x.astype(np.float32))[None] for x in targets[r]]
            kd = sum(F.kl_div(F.log_softmax(s / 2, -1), F.softmax(x / 2, -1), reduction="sum")
                     for s, x in zip((s_start, s_end), t)) / 2 * 4
            total += 0.5 * float(kd) + 0.5 * float(ce)
    return total / len(split)


def test_two_steps_lower_the_loss_and_a_resume_is_the_uninterrupted_run(tmp_path):
    import json

    import torch

    from build_model.training.split_features import split_targets

    features = window_features(6, seed=4)
    targets = split_targets(features, window_logits_of(features)[:-1] + [None], Q)  # the last one: CE alone

    before = _objective(_loop_model(2)[1], features, targets)
    qa, loop_model = _train(tmp_path / "straight", features, targets)
    assert _objective(loop_model, features, targets) < before
    log = [json.loads(line) for line in (tmp_path / "straight" / "train.log.jsonl").read_text().splitlines()]
    assert log[-1]["step"] == 2 and log[-1]["kd"] is not None and log[-1]["ce"] is not None

    with pytest.raises(_Stop):
        _train(tmp_path / "resumed", features, targets, interrupt_after=1)
    assert torch.load(tmp_path / "resumed" / "checkpoint.pt", weights_only=False)["step"] == 1
    resumed, _ = _train(tmp_path / "resumed", features, targets, seed_model=9)  # its weights: the checkpoint's
    for (name, a), (_, b) in zip(qa.state_dict().items(), resumed.state_dict().items()):
        assert torch.equal(a, b), name


def test_a_checkpoint_of_the_step_seeded_adapter_still_resumes(tmp_path):
    """The adapter used to seed dropout itself and keep a step counter (``steps``) in the model state, and the
    loop kept no random state: such a checkpoint loads and its run finishes."""
    import json

    import torch

    from build_model.training.split_features import split_targets

    features = window_features(6, seed=4)
    targets = split_targets(features, window_logits_of(features)[:-1] + [None], Q)
    work = tmp_path / "old"
    with pytest.raises(_Stop):
        _train(work, features, targets, interrupt_after=1)
    state = torch.load(work / "checkpoint.pt", weights_only=False)
    state["model"]["steps"] = torch.tensor(1)
    del state["rng"]
    torch.save(state, work / "checkpoint.pt")
    _, loop_model = _train(work, features, targets, seed_model=9)
    log = [json.loads(line) for line in (work / "train.log.jsonl").read_text().splitlines()]
    assert {"event": "resume", "step": 1, "rng": False} in log and log[-1]["step"] == 2
    assert "steps" not in loop_model.state_dict()
