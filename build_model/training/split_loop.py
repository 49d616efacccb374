"""A split model (``build_model.training.split``) trained by ``build_model.training.loop`` and scored by
``build_model.evaluation``, so that it meets the distil stage's losses and dev scores, not copies of them.

``SplitForLoop`` is what the loop calls ``model``: it takes the collated split
features (``build_model.training.split_features``: the concatenated layout,
``QUESTION_PAD`` in the question's padding) and returns start/end logits on the
concatenated positions, on which the loop computes the distil stage's
CE / KD mix. Three things the loop cannot be told are done in its forward pass:

- the question's padding is masked, in attention and in the logits (-1e4, as
  the loop masks a batch's padding), and the part past the batch's longest
  question is not computed at all (it changes nothing on the real tokens);
- DeFormer's layerwise representation similarity (LRS, Cao et al. 2020): the
  mean squared difference between each upper layer's states and those of the
  same layer of the whole model (a frozen copy) on the same window, weighted by
  ``hidden_loss``. The loop builds its loss from the logits alone, so the term
  joins the gradient through ``_WithAuxLoss``, the identity on the start logits
  whose backward pass hands the LRS term the gradient ``hidden_loss``: exactly
  the gradient of ``loss + hidden_loss * LRS`` (the way Megatron-LM's
  ``MoEAuxLossAutoScaler`` adds a load-balancing loss);
- dropout is seeded from the step number, which a buffer keeps in the
  checkpoint's model state: the loop restores model, optimiser, scheduler and
  position but not the random state, and a resumed run would otherwise draw
  other dropout masks than the uninterrupted one.

``split_infer`` runs the split model on the function's windows for
``build_model.evaluation.evaluate``: each window cut into its question and
passage segments, the logits on the window's own positions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from build_model.training.split import SplitQA
from build_model.training.split_features import QUESTION_PAD, split_rows

MASKED = -1e4  # the logit of a position that holds no token (the loop's value for a batch's padding)


@dataclass
class SpanLogits:
    start_logits: torch.Tensor
    end_logits: torch.Tensor


class _WithAuxLoss(torch.autograd.Function):
    """Identity on ``output``; the backward pass gives ``aux`` the gradient ``weight``."""

    @staticmethod
    def forward(ctx, output, aux, weight: float):
        ctx.aux_shape, ctx.weight = aux.shape, weight
        return output.view_as(output)

    @staticmethod
    def backward(ctx, grad):
        return grad, torch.full(ctx.aux_shape, ctx.weight, dtype=grad.dtype, device=grad.device), None


def whole_states(whole, question_ids, question_mask, passage_ids, passage_mask) -> tuple[torch.Tensor, ...]:
    """The whole model's hidden states (embeddings, then each layer) on the concatenated layout, at the
    positions it reads the window with (the passage right after the question): equal, on every real token,
    to its states on the window itself, and aligned with the split model's."""
    rows, q = question_ids.shape
    p = passage_ids.shape[1]
    lengths = question_mask.sum(1, keepdim=True)
    positions = torch.cat([torch.arange(q).expand(rows, q), lengths + torch.arange(p)[None, :]], 1)
    types = torch.cat([torch.zeros_like(question_ids), torch.ones_like(passage_ids)], 1)
    out = whole(input_ids=torch.cat([question_ids, passage_ids], 1),
                attention_mask=torch.cat([question_mask, passage_mask], 1),
                token_type_ids=types, position_ids=positions, output_hidden_states=True)
    return out.hidden_states


def layerwise_similarity(split_states, whole_states, mask: torch.Tensor) -> torch.Tensor:
    """DeFormer's LRS: per layer, the mean squared difference over real tokens and hidden units;
    the mean over layers (so its scale does not grow with the number of upper layers)."""
    weight = mask[..., None].to(split_states[0].dtype)
    count = weight.sum() * split_states[0].shape[-1]
    return torch.stack([((a - b) ** 2 * weight).sum() / count for a, b in zip(split_states, whole_states)]).mean()


class SplitForLoop(nn.Module):
    """``split`` as ``build_model.training.loop`` calls a model: ``(input_ids, attention_mask,
    token_type_ids)`` of collated ``SplitFeature`` s -> start/end logits.

    ``whole``: the frozen whole model the LRS term compares with (needed when ``hidden_loss`` > 0;
    kept out of the parameters, the state dict and so the optimiser and the checkpoint).
    ``log``: called with a record of the mean LRS every ``log_every`` steps.
    """

    def __init__(self, split: SplitQA, segment: int, pad_id: int, seed: int = 0, whole=None,
                 hidden_loss: float = 0.0, log: Callable[[dict], None] | None = None, log_every: int = 10):
        super().__init__()
        if hidden_loss and whole is None:
            raise ValueError("the hidden-state loss compares with the whole model: pass whole")
        if hidden_loss and split.k == len(split.layers):
            raise ValueError(f"the hidden-state loss compares the layers above the split: none above k = {split.k}")
        self.split, self.segment, self.pad_id, self.seed = split, segment, pad_id, seed
        self.hidden_loss, self.log, self.log_every = hidden_loss, log, log_every
        self._whole = (whole.eval().requires_grad_(False),) if whole is not None else ()
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))
        self._recent: list[float] = []

    def segments(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> dict[str, torch.Tensor]:
        q = self.segment
        question_mask = (input_ids[:, :q] != QUESTION_PAD) & attention_mask[:, :q].bool()
        return {"question_ids": input_ids[:, :q].masked_fill(~question_mask, self.pad_id),
                "question_mask": question_mask.long(),
                "passage_ids": input_ids[:, q:], "passage_mask": attention_mask[:, q:]}

    def forward(self, input_ids, attention_mask, token_type_ids=None) -> SpanLogits:
        parts = self.segments(input_ids, attention_mask)
        # The question's padding is masked and the passage's position ids do not depend on where it
        # starts: the padding past the batch's longest question changes nothing and is not computed
        # (a quarter of the tokens of an average training window with Q = 66).
        width = int(parts["question_mask"].sum(1).max())
        for name in ("question_ids", "question_mask"):
            parts[name] = parts[name][:, :width]
        if self.training:
            self.steps += 1
            torch.manual_seed(self.seed * 100_003 + int(self.steps))
        start, end, states = self.split(**parts)
        mask = torch.cat([parts["question_mask"], parts["passage_mask"]], 1).bool()
        start, end = (self._full_segment(x.masked_fill(~mask, MASKED), width) for x in (start, end))
        if self.training and self.hidden_loss:
            with torch.no_grad():
                reference = whole_states(self._whole[0], **parts)[self.split.k + 1 :]
            lrs = layerwise_similarity(states, reference, mask)
            start = _WithAuxLoss.apply(start, lrs, self.hidden_loss)
            self._note(lrs.item())
        return SpanLogits(start, end)

    def _full_segment(self, logits: torch.Tensor, width: int) -> torch.Tensor:
        """Logits of a question segment ``width`` wide back on the Q-wide layout (MASKED on the padding)."""
        pad = logits.new_full((logits.shape[0], self.segment - width), MASKED)
        return torch.cat([logits[:, :width], pad, logits[:, width:]], 1)

    def _note(self, lrs: float) -> None:
        self._recent.append(lrs)
        step = int(self.steps)
        if self.log is not None and step % self.log_every == 0:
            self.log({"event": "hidden_loss", "step": step, "lrs": round(float(np.mean(self._recent)), 5),
                      "weight": self.hidden_loss})
            self._recent.clear()


def split_infer(split: SplitQA, segment: int, pad_id: int):
    """An ``Infer`` (``build_model.evaluation.evaluate``): the function's window batch through the split
    model, as question and passage segments, its logits on the window's positions.

    The question segment is not padded to ``segment`` (Q) here: the padding is masked and changes
    nothing (``SplitForLoop.forward``), so the concatenation is the window itself; ``segment`` only
    bounds the question accepted."""

    def run(batch) -> tuple[np.ndarray, np.ndarray]:
        cs = batch.context_start
        if cs > segment:
            raise ValueError(f"a question segment of {cs} tokens does not fit in Q = {segment}")
        rows = split_rows(batch.input_ids, batch.attention_mask, cs, cs, pad_id)
        with torch.inference_mode():
            start, end, _ = split(**{name: torch.from_numpy(v) for name, v in rows.items()})
        return start.float().numpy(), end.float().numpy()

    return run
