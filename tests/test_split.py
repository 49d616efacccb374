"""build_model.training.split: lower layers per segment, upper layers joint (DeFormer)."""

from __future__ import annotations

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
