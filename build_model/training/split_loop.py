"""A split model (``build_model.training.split``) trained by ``build_model.training.loop`` and scored by
``build_model.evaluation``, so that it meets the distil stage's losses and dev scores, not copies of them.

``SplitForLoop`` is what the loop calls ``model``: it takes the collated split
features (``build_model.training.split_features``: the concatenated layout,
``QUESTION_PAD`` in the question's padding) and returns start/end logits on the
concatenated positions, on which the loop computes the distil stage's
CE / KD mix. Its forward pass also

- masks the question's padding, in attention and in the logits (-1e4, as the
  loop masks a batch's padding), and does not compute the part past the batch's
  longest question at all (it changes nothing on the real tokens);
- computes DeFormer's layerwise representation similarity (LRS, Cao et al.
  2020): the mean squared difference between each upper layer's states and
  those of the same layer of the whole model (a frozen copy) on the same
  window. ``extra_loss`` hands it to the loop, weighted by ``hidden_loss``
  (``train(..., extra_loss=model.extra_loss)``), which adds it to its CE / KD
  loss before the backward pass.

Dropout draws from the loop's random state, which its checkpoint keeps, so a
resumed run draws the masks of the uninterrupted one.

``split_infer`` runs the split model on the function's windows for
``build_model.evaluation.evaluate``: each window cut into its question and
passage segments, the logits on the window's own positions.
"""

from __future__ import annotations

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
    """

    def __init__(self, split: SplitQA, segment: int, pad_id: int, whole=None, hidden_loss: float = 0.0):
        super().__init__()
        if hidden_loss and whole is None:
            raise ValueError("the hidden-state loss compares with the whole model: pass whole")
        if hidden_loss and split.k == len(split.layers):
            raise ValueError(f"the hidden-state loss compares the layers above the split: none above k = {split.k}")
        self.split, self.segment, self.pad_id, self.hidden_loss = split, segment, pad_id, hidden_loss
        self._whole = (whole.eval().requires_grad_(False),) if whole is not None else ()
        self._lrs: torch.Tensor | None = None  # the last training forward pass's, until extra_loss takes it
        self.register_load_state_dict_pre_hook(_without_step_counter)

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
        start, end, states = self.split(**parts)
        mask = torch.cat([parts["question_mask"], parts["passage_mask"]], 1).bool()
        start, end = (self._full_segment(x.masked_fill(~mask, MASKED), width) for x in (start, end))
        if self.training and self.hidden_loss:
            if self._lrs is not None:
                raise RuntimeError("the hidden-state loss of the last step was never added to the loss: "
                                   "train(..., extra_loss=model.extra_loss)")
            with torch.no_grad():
                reference = whole_states(self._whole[0], **parts)[self.split.k + 1 :]
            self._lrs = layerwise_similarity(states, reference, mask)
        return SpanLogits(start, end)

    def extra_loss(self) -> torch.Tensor | None:
        """``hidden_loss`` x the LRS of the last training forward pass, for the loop to add to its loss
        (``build_model.training.loop.train``'s ``extra_loss``); None without the hidden-state loss."""
        lrs, self._lrs = self._lrs, None
        return None if lrs is None else self.hidden_loss * lrs

    def _full_segment(self, logits: torch.Tensor, width: int) -> torch.Tensor:
        """Logits of a question segment ``width`` wide back on the Q-wide layout (MASKED on the padding)."""
        pad = logits.new_full((logits.shape[0], self.segment - width), MASKED)
        return torch.cat([logits[:, :width], pad, logits[:, width:]], 1)


def _without_step_counter(module, state_dict, prefix, *_) -> None:
    """Checkpoints of the adapter that seeded dropout itself keep its step counter (``steps``): they load
    without it, and the resumed run draws from the loop's random state from there."""
    state_dict.pop(prefix + "steps", None)


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
