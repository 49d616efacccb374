"""A split QA model (``build_model.training.split``) as two ONNX graphs, fused and quantised as the whole one is.

* ``lower``: one segment through the embeddings and layers 0..k-1, ``(input_ids, attention_mask,
  token_type_ids) -> hidden``. It is exported as a ``BertModel`` of k layers sharing the split model's
  weights, so ONNX Runtime's transformer optimizer fuses it as any BERT encoder (embeddings, attention,
  LayerNorm, GELU). Positions count from 0 in each segment: models trained with
  ``passage_positions_from = 0`` only (DeFormer's layout, the one trained here).
* ``upper``: layers k..n-1 and the span head on the two segments' states concatenated, question first,
  ``(hidden, attention_mask) -> (start_logits, end_logits)``. The concatenation is the caller's (the
  passage's states come from the store), so the graph reads what it computes on.

Both go through the whole model's chain: eager-attention export, ``optimize_bert``, ``quantize_candidate``
with the shipped artifact's settings; ``SplitOnnx`` runs them as the function would (the question's lower
states once, every passage window's from its segment, optionally round-tripped through a storage format).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from function.model.windows import Batch

LOWER_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
UPPER_INPUTS = ("hidden", "attention_mask")


def _given():
    """Embeddings that hand the states they are given on: the upper layers' ``BertModel``."""
    from torch import nn

    class Given(nn.Module):
        def forward(self, inputs_embeds=None, **_):
            return inputs_embeds

    return Given()


def _bert_part(split, layers, embeddings):
    """``layers`` of ``split`` as a ``BertModel`` (copies: the export must not hold the training model's
    modules) with ``embeddings``: a BERT encoder as transformers builds it, attention mask included, the
    pattern ONNX Runtime's transformer optimizer fuses."""
    import copy

    from torch import nn
    from transformers import BertConfig, BertModel

    config = BertConfig.from_dict({**split.model.config.to_dict(), "num_hidden_layers": len(layers)},
                                  attn_implementation="eager")
    part = BertModel(config, add_pooling_layer=False).eval()
    part.embeddings = embeddings
    part.encoder.layer = nn.ModuleList(list(layers))
    return copy.deepcopy(part)


def export_split(split, lower_path: Path, upper_path: Path, opset: int) -> None:
    """``split`` (a ``SplitQA`` of a BERT model, eval mode) as the two graphs above, dynamic batch and length."""
    import copy

    import torch

    if getattr(split.model.config, "_attn_implementation", "eager") != "eager":
        raise ValueError("load the model with attn_implementation='eager' before exporting it")
    if split.passage_positions_from != 0:
        raise ValueError("the lower graph counts positions from 0 in each segment: a model trained with "
                         f"passage_positions_from = {split.passage_positions_from} needs a position input")
    lower = _bert_part(split, split.layers[: split.k], split.embeddings)
    upper = _bert_part(split, split.layers[split.k :], _given())
    head = copy.deepcopy(split.head)

    class _Lower(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = lower

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    class _Upper(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert, self.head = upper, head

        def forward(self, hidden, attention_mask):
            states = self.bert(inputs_embeds=hidden, attention_mask=attention_mask).last_hidden_state
            start, end = self.head(states).split(1, dim=-1)
            return start.squeeze(-1), end.squeeze(-1)

    hidden_size = split.model.config.hidden_size
    ids = torch.full((2, 16), min(1000, split.model.config.vocab_size - 1), dtype=torch.long)
    mask = torch.ones_like(ids)
    mask[1, 12:] = 0
    for path in (lower_path, upper_path):
        path.parent.mkdir(parents=True, exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(_Lower().eval(), (ids, mask, torch.zeros_like(ids)), str(lower_path), dynamo=False,
                          input_names=list(LOWER_INPUTS), output_names=["hidden"],
                          dynamic_axes={n: {0: "batch", 1: "sequence"} for n in (*LOWER_INPUTS, "hidden")},
                          opset_version=opset, do_constant_folding=True)
        torch.onnx.export(_Upper().eval(), (torch.randn(2, 16, hidden_size), mask), str(upper_path), dynamo=False,
                          input_names=list(UPPER_INPUTS), output_names=["start_logits", "end_logits"],
                          dynamic_axes={n: {0: "batch", 1: "sequence"}
                                        for n in (*UPPER_INPUTS, "start_logits", "end_logits")},
                          opset_version=opset, do_constant_folding=True)


def build_split_int8(split, quantization: dict, opset: int, work: Path) -> dict[str, Path]:
    """Both graphs through the whole model's chain: export, fusion, int8 with ``quantization`` (the manifest's
    settings), ONNX Runtime's offline optimisation. Returns {"lower"|"upper": {"fp32"|"int8": path}} and the
    fused operators of each."""
    from build_model.conversion.load_variants import preoptimize
    from build_model.conversion.onnx_export import optimize_bert
    from build_model.stages.quantize import Candidate, graph_ops, quantize_candidate

    config = split.model.config
    raw = {part: work / f"{part}.raw.onnx" for part in ("lower", "upper")}
    export_split(split, raw["lower"], raw["upper"], opset)
    candidate = Candidate(quantization["per_channel"], tuple(quantization["op_types"]), quantization["reduce_range"])
    out: dict = {}
    for part, src in raw.items():
        fused, int8, ship = (work / f"{part}.{s}.onnx" for s in ("fused", "int8", "ship"))
        ops = optimize_bert(src, fused, num_heads=config.num_attention_heads, hidden_size=config.hidden_size)
        quantize_candidate(fused, int8, candidate, graph_ops(fused))
        preoptimize(int8, ship, ort_format=False)
        out[part] = {"fp32": fused, "int8": ship, "fused_ops": ops}
    return out


# Storage formats of a passage window's lower states [..., tokens, hidden]: the bytes a store would hold.
def _fp32_encode(states: np.ndarray) -> bytes:
    return np.ascontiguousarray(states, dtype=np.float32).tobytes()


def _fp32_decode(blob: bytes, shape: tuple) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.float32).reshape(shape)


def _fp16_encode(states: np.ndarray) -> bytes:
    return np.ascontiguousarray(states, dtype=np.float16).tobytes()


def _fp16_decode(blob: bytes, shape: tuple) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.float16).reshape(shape).astype(np.float32)


def _int8_encode(states: np.ndarray) -> bytes:
    """Symmetric int8 with one float32 scale per token (its largest |value| maps to 127)."""
    scale = (np.abs(states).max(axis=-1, keepdims=True) / 127.0).astype(np.float32)
    scale = np.where(scale == 0, np.float32(1.0), scale)
    q = np.clip(np.rint(states / scale), -127, 127).astype(np.int8)
    return scale.tobytes() + q.tobytes()


def _int8_decode(blob: bytes, shape: tuple) -> np.ndarray:
    n_scales = int(np.prod(shape[:-1]))
    scale = np.frombuffer(blob, dtype=np.float32, count=n_scales).reshape(*shape[:-1], 1)
    return np.frombuffer(blob, dtype=np.int8, offset=4 * n_scales).reshape(shape).astype(np.float32) * scale


@dataclass(frozen=True)
class StateFormat:
    name: str
    encode: Callable[[np.ndarray], bytes]
    decode: Callable[[bytes, tuple], np.ndarray]

    def round_trip(self, states: np.ndarray) -> np.ndarray:
        return self.decode(self.encode(states), states.shape)

    def bytes_per_token(self, hidden_size: int) -> int:
        return len(self.encode(np.zeros((1, hidden_size), dtype=np.float32)))


STATE_FORMATS = {
    "fp32": StateFormat("fp32", _fp32_encode, _fp32_decode),
    "fp16": StateFormat("fp16", _fp16_encode, _fp16_decode),
    "int8": StateFormat("int8 + fp32 scale per token", _int8_encode, _int8_decode),
}


class SplitOnnx:
    """An ``Infer`` (``build_model.evaluation.evaluate``) over the two graphs: the function's window batch
    cut into its question segment (run once: every window holds the same question) and passage segments
    (each window's own, as stored at ingestion), their states concatenated, the upper graph on them.
    ``state_format``: the passage states round-tripped through that storage format first."""

    def __init__(self, lower: Path, upper: Path, threads: int, state_format: StateFormat | None = None):
        import onnxruntime as ort

        from function.model.onnx_model import session_options

        options = session_options(threads, optimized=True)
        self.lower = ort.InferenceSession(str(lower), options, providers=["CPUExecutionProvider"])
        self.upper = ort.InferenceSession(str(upper), options, providers=["CPUExecutionProvider"])
        self.round_trip = state_format.round_trip if state_format else None  # states as stored and read back
        # split at its last layer, the upper graph is the span head alone and reads no mask
        self._upper_inputs = [i.name for i in self.upper.get_inputs()]

    def question_states(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.lower.run(["hidden"], {"input_ids": ids, "attention_mask": mask,
                                           "token_type_ids": np.zeros_like(ids)})[0]

    def passage_states(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        states = self.lower.run(["hidden"], {"input_ids": ids, "attention_mask": mask,
                                             "token_type_ids": np.ones_like(ids)})[0]
        return self.round_trip(states) if self.round_trip else states

    def answer(self, question: np.ndarray, passages: np.ndarray, batch: Batch) -> tuple[np.ndarray, np.ndarray]:
        """The upper graph on the question's states (``[1, cs, H]``) and the windows' passage states."""
        hidden = np.concatenate([np.broadcast_to(question, (len(batch), *question.shape[1:])), passages], axis=1)
        feed = {"hidden": np.ascontiguousarray(hidden, dtype=np.float32), "attention_mask": batch.attention_mask}
        start, end = self.upper.run(["start_logits", "end_logits"], {n: feed[n] for n in self._upper_inputs})
        return start, end

    def __call__(self, batch: Batch) -> tuple[np.ndarray, np.ndarray]:
        cs = batch.context_start
        question = self.question_states(batch.input_ids[:1, :cs], batch.attention_mask[:1, :cs])
        passages = self.passage_states(batch.input_ids[:, cs:], batch.attention_mask[:, cs:])
        return self.answer(question, passages, batch)
