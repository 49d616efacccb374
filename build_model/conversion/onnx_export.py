"""PyTorch QA model -> ONNX (dynamic batch and sequence axes) -> fused BERT graph, with a parity check.

The model must be loaded with ``attn_implementation="eager"``: that attention
is traced as plain MatMul/Softmax, the pattern ONNX Runtime's transformer
optimizer fuses into its ``Attention`` kernel.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from build_model.errors import ParityError
from function.model.windows import Batch

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUTS = ("start_logits", "end_logits")


def graph_inputs(model) -> tuple[str, ...]:
    """The inputs the model reads (``build_model.hf.reads_segments``): the function feeds what the graph asks for."""
    from build_model.hf import reads_segments

    return INPUTS if reads_segments(model) else INPUTS[:2]


def export_onnx(model, path: Path, opset: int) -> None:
    """Export with the inputs of ``graph_inputs`` and dynamic batch and sequence axes."""
    import torch

    names = graph_inputs(model)

    class _Logits(torch.nn.Module):
        def __init__(self, qa):
            super().__init__()
            self.qa = qa

        def forward(self, input_ids, attention_mask, token_type_ids=None):
            extra = {} if token_type_ids is None else {"token_type_ids": token_type_ids}
            out = self.qa(input_ids=input_ids, attention_mask=attention_mask, **extra)
            return out.start_logits, out.end_logits

    if getattr(model.config, "_attn_implementation", "eager") != "eager":
        raise ValueError("load the model with attn_implementation='eager' before exporting it")
    # torch.onnx.export restores the wrapper's training flag afterwards, recursively:
    # an un-eval'd wrapper would leave the caller's model with dropout switched on.
    wrapper = _Logits(model).eval()
    ids = torch.full((2, 16), min(1000, model.config.vocab_size - 1), dtype=torch.long)
    mask = torch.ones_like(ids)
    mask[1, 12:] = 0
    types = torch.zeros_like(ids)
    types[:, 8:] = 1
    path.parent.mkdir(parents=True, exist_ok=True)
    axes = {name: {0: "batch", 1: "sequence"} for name in names + OUTPUTS}
    with torch.no_grad():
        torch.onnx.export(
            wrapper, (ids, mask, types)[: len(names)], str(path), dynamo=False,
            input_names=list(names), output_names=list(OUTPUTS), dynamic_axes=axes,
            opset_version=opset, do_constant_folding=True,
        )


def optimize_bert(src: Path, dst: Path, num_heads: int, hidden_size: int) -> dict:
    """Fuse attention, layer norms and GELU with ONNX Runtime's transformer optimizer."""
    from onnxruntime.transformers import optimizer

    opt = optimizer.optimize_model(str(src), model_type="bert", num_heads=num_heads,
                                   hidden_size=hidden_size, opt_level=1, use_gpu=False)
    opt.save_model_to_file(str(dst))
    return {k: v for k, v in opt.get_fused_operator_statistics().items() if v}


def max_logit_diff(reference, candidate, batches: list[Batch]) -> float:
    """Largest |difference| of start/end logits over the real (unpadded) positions."""
    worst = 0.0
    for b in batches:
        ref = reference(b)
        got = candidate(b)
        valid = b.attention_mask.astype(bool)
        for r, g in zip(ref, got):
            worst = max(worst, float(np.abs(r - g)[valid].max()))
    return worst


def check_parity(reference, candidate, batches: list[Batch], atol: float, what: str) -> float:
    diff = max_logit_diff(reference, candidate, batches)
    if not diff <= atol:
        raise ParityError(f"{what}: max |logit difference| {diff:.2e} exceeds the tolerance {atol:.0e}")
    return diff
