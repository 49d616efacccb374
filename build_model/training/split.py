"""A QA encoder split at layer k (DeFormer: Cao et al., ACL 2020): lower layers per segment, upper layers joint.

Layers 0..k-1 (and the embeddings) run on the question segment ``[CLS] q [SEP]``
and on the passage segment ``p [SEP]`` apart, with the same weights, each with
its own attention mask, its own position ids (from 0, or from
``passage_positions_from`` for the passage) and its token type (0 and 1). Their
outputs are concatenated, question first, and layers k..n-1 and the span head
run on the concatenation: ``[CLS] q [SEP] p [SEP]``, the function's window
layout. A passage's lower states do not depend on the question, so they can be
computed once, at ingestion, and stored: a question then costs the lower layers
on its own few tokens and the upper layers on the window.

``SplitQA`` wraps a BERT-family ``...ForQuestionAnswering`` model (its weights
are shared, not copied), so training it trains the model it was made from.
"""

from __future__ import annotations

import torch
from torch import nn


def _encoder_parts(model) -> tuple[nn.Module, nn.Module, nn.ModuleList, nn.Module]:
    """(embeddings, the base model, its layers, the span head) of a BERT-style QA model."""
    base = getattr(model, model.base_model_prefix)
    return base.embeddings, base, base.encoder.layer, model.qa_outputs


def additive_mask(mask: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """[batch, tokens] of 1/0 -> [batch, 1, 1, tokens] added to attention scores (0 or the dtype's minimum)."""
    return (1.0 - mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min


class SplitQA(nn.Module):
    def __init__(self, model, k: int, passage_positions_from: int = 0):
        super().__init__()
        self.model = model
        self.embeddings, _, self.layers, self.head = _encoder_parts(model)
        if not 0 <= k <= len(self.layers):
            raise ValueError(f"split at layer {k}: the model has {len(self.layers)} layers")
        self.k = k
        self.passage_positions_from = passage_positions_from

    def _run(self, hidden: torch.Tensor, mask: torch.Tensor, layers) -> list[torch.Tensor]:
        """``hidden`` through ``layers``: each layer's output, in order (empty without layers)."""
        extended = additive_mask(mask, hidden.dtype)
        outputs = []
        for layer in layers:
            out = layer(hidden, attention_mask=extended)
            hidden = out[0] if isinstance(out, tuple) else out
            outputs.append(hidden)
        return outputs

    def lower(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type: int,
              position_start: int = 0) -> torch.Tensor:
        """One segment through the embeddings and layers 0..k-1: its hidden states [batch, tokens, hidden]."""
        positions = torch.arange(position_start, position_start + input_ids.shape[1], device=input_ids.device)
        hidden = self.embeddings(input_ids=input_ids, token_type_ids=torch.full_like(input_ids, token_type),
                                 position_ids=positions[None, :].expand_as(input_ids))
        states = self._run(hidden, attention_mask, self.layers[: self.k])
        return states[-1] if states else hidden

    def upper(self, question_states: torch.Tensor, question_mask: torch.Tensor, passage_states: torch.Tensor,
              passage_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, tuple[torch.Tensor, ...]]:
        """Layers k..n-1 and the span head on the two segments' states, question first:
        (start logits, end logits, each upper layer's output), over the concatenated positions.

        Every upper layer's output is returned, not only the last, for DeFormer's layerwise
        representation-similarity loss (``build_model.training.split_loop``)."""
        hidden = torch.cat([question_states, passage_states], dim=1)
        mask = torch.cat([question_mask, passage_mask], dim=1)
        states = self._run(hidden, mask, self.layers[self.k :])
        start, end = self.head(states[-1] if states else hidden).split(1, dim=-1)
        return start.squeeze(-1), end.squeeze(-1), tuple(states)

    def forward(self, question_ids, question_mask, passage_ids, passage_mask):
        q = self.lower(question_ids, question_mask, 0)
        p = self.lower(passage_ids, passage_mask, 1, self.passage_positions_from)
        return self.upper(q, question_mask, p, passage_mask)
