"""The fused graph's weights under ``BertForQuestionAnswering``'s names: ``read_graph``.

The walk follows the hidden state from the embeddings to the logits, so that every weight is placed by where
it sits on that path, not by its initializer's name (which quantisation and pre-optimisation change):

* ``EmbedLayerNormalization`` gives the three embedding tables and the embeddings' LayerNorm;
* each layer is an ``Attention`` (its packed QKV split into query, key, value), the attention output's dense
  layer and ``SkipLayerNormalization``, the intermediate dense layer and its GELU, the output dense layer
  and ``SkipLayerNormalization``;
* ``qa_outputs`` ends in a ``Split`` whose outputs say which column is ``start_logits``.

ONNX ``MatMul`` weights are ``[in, out]``, ``nn.Linear``'s ``[out, in]``: transposed. A graph of another
shape (unfused, another architecture, an op not listed here) is refused with the node or initializer it
could not place, never guessed at; so is a graph with a node the walk never reached.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from build_model.recover.config import graph_sizes
from build_model.recover.fused_ops import (
    ATTENTION_OPS,
    GELU_OPS,
    LINEAR_OPS,
    attention_qkv,
    bias_sum,
    dense_layer,
    skip_layer_norm,
)
from build_model.recover.graph import Graph, RecoverError
from build_model.recover.ort_format import load_any

# nodes that only move activations about: casts of the inputs, activation quantisation, constants
PLUMBING = ("Cast", "DynamicQuantizeLinear", "Constant")


@dataclass
class Recovered:
    """What the graph holds: PyTorch-named fp32 weights and the sizes read from it."""

    weights: dict[str, np.ndarray]
    sizes: dict  # config.SIZES, layer_norm_eps, hidden_act
    quantized: list[str] = field(default_factory=list)  # initializers dequantised

    @property
    def int8(self) -> bool:
        return bool(self.quantized)


def read_graph(path: Path) -> Recovered:
    """Every weight of the fused (fp32 or int8) BERT QA graph at ``path`` (ONNX, or ONNX Runtime's ``.ort``),
    under PyTorch's names."""
    g = Graph(load_any(path))
    weights: dict[str, np.ndarray] = {}
    h, emb_eps = _embeddings(g, weights)
    hidden = weights["bert.embeddings.word_embeddings.weight"].shape[1]
    heads, eps, acts, i = set(), [emb_eps], set(), 0
    while (attn := g.next(h, ATTENTION_OPS, f"layer {i}", required=False)) is not None:
        h, n_heads, layer_eps, act = _layer(g, attn, h, i, hidden, weights)
        heads.add(n_heads)
        eps += layer_eps
        acts.add(act)
        i += 1
    if i == 0:
        raise RecoverError(f"no Attention or QAttention reads the embeddings' output '{h}': attention not fused")
    _head(g, h, hidden, weights)
    unexplained = [n for n in g.nodes if id(n) not in g.seen and n.op_type not in PLUMBING]
    if unexplained:
        raise RecoverError(f"the graph does more than a BERT QA model: {len(unexplained)} node(s) outside the walk "
                           f"from embeddings to logits ({', '.join(g.name(n) for n in unexplained[:5])})")
    return Recovered(weights, graph_sizes(weights, i, heads, eps, acts), sorted(set(g.quantized)))


def _embeddings(g: Graph, weights: dict) -> tuple[str, float]:
    """The embedding tables and their LayerNorm into ``weights``; the hidden state they make, and its epsilon."""
    found = [n for n in g.nodes if n.op_type in ("EmbedLayerNormalization", "QEmbedLayerNormalization")]
    if len(found) != 1:
        ops = sorted({n.op_type for n in g.nodes})
        raise RecoverError(f"expected one EmbedLayerNormalization (a BERT graph fused by ONNX Runtime's transformer "
                           f"optimizer), found {len(found)}; the graph's ops: {', '.join(ops)}")
    node, what = g.use(found[0]), "embeddings"
    if any(node.input[i] for i in range(8, len(node.input))) and node.op_type == "EmbedLayerNormalization":
        raise RecoverError(f"{what}: {g.name(node)} reads position ids: not BERT's absolute positions")
    names = ("word_embeddings", "position_embeddings", "token_type_embeddings", "LayerNorm.weight", "LayerNorm.bias")
    if not all(g.input(node, i) for i in range(2, 7)):
        raise RecoverError(f"{what}: {g.name(node)} lacks one of {', '.join(names)}")
    for i, name in enumerate(names):
        if node.op_type == "EmbedLayerNormalization":
            value = g.const(node.input[2 + i], what)
        else:  # tables and gamma/beta quantised, their scales at 8 + i, zero points at 13 + i: per tensor
            value = g.dequantize(node.input[2 + i], node.input[8 + i], g.input(node, 13 + i), None, what)
        weights[f"bert.embeddings.{name}" + ("" if "." in name else ".weight")] = value
    return node.output[0], g.attrs(node).get("epsilon", 1e-12)


def _layer(g: Graph, attn, h: str, i: int, hidden: int, weights: dict) -> tuple[str, int, list[float], str]:
    """Encoder layer ``i``, from its attention node, into ``weights``; the hidden state after it, its heads,
    LayerNorm epsilons and GELU flavour (which must agree across layers: one BertConfig describes them)."""
    what, p = f"layer {i}", f"bert.encoder.layer.{i}."
    qkv, qkv_b, heads = attention_qkv(g, attn, hidden, what)
    for k, part in enumerate(("query", "key", "value")):
        weights[f"{p}attention.self.{part}.weight"] = qkv[:, k * hidden:(k + 1) * hidden].T
        weights[f"{p}attention.self.{part}.bias"] = qkv_b[k * hidden:(k + 1) * hidden]
    dense = g.next(attn.output[0], LINEAR_OPS, f"{what} attention output")
    w, b, out = dense_layer(g, dense, f"{what} attention output")
    norm, skip_b, h1, eps1 = skip_layer_norm(g, out, h, f"{what} attention output")
    _put(weights, f"{p}attention.output.dense", w, bias_sum(b, skip_b), f"{what} attention output")
    weights.update({f"{p}attention.output.LayerNorm.{k}": v for k, v in norm.items()})

    inter = g.next(h1, LINEAR_OPS, f"{what} intermediate")
    w, b, out = dense_layer(g, inter, f"{what} intermediate")
    act = g.next(out, tuple(GELU_OPS), f"{what} intermediate activation")
    hidden_act = GELU_OPS[act.op_type]
    if act.op_type == "Gelu" and g.attrs(act).get("approximate", b"none") in ("tanh", b"tanh"):
        hidden_act = "gelu_new"
    if act.op_type in ("BiasGelu", "FastGelu") and g.input(act, 1):
        b = bias_sum(b, g.const(act.input[1], f"{what} intermediate"))
    _put(weights, f"{p}intermediate.dense", w, b, f"{what} intermediate")

    dense = g.next(act.output[0], LINEAR_OPS, f"{what} output")
    w, b, out = dense_layer(g, dense, f"{what} output")
    norm, skip_b, h2, eps2 = skip_layer_norm(g, out, h1, f"{what} output")
    _put(weights, f"{p}output.dense", w, bias_sum(b, skip_b), f"{what} output")
    weights.update({f"{p}output.LayerNorm.{k}": v for k, v in norm.items()})
    return h2, heads, [eps1, eps2], hidden_act


def _put(weights: dict, prefix: str, w: np.ndarray, b: np.ndarray | None, what: str) -> None:
    """An ``[in, out]`` ONNX weight as ``nn.Linear``'s ``[out, in]``; a dense layer without bias is not BERT's."""
    if b is None:
        raise RecoverError(f"{what}: found no bias for the dense layer (none in the node, an Add after it, "
                           f"the SkipLayerNormalization or the GELU)")
    weights[f"{prefix}.weight"] = np.ascontiguousarray(w.T)
    weights[f"{prefix}.bias"] = b


def _head(g: Graph, h: str, hidden: int, weights: dict) -> None:
    """``qa_outputs`` and which of its two columns is ``start_logits``."""
    what = "qa_outputs"
    node = g.next(h, LINEAR_OPS, what)
    w, b, out = dense_layer(g, node, what)
    if w.shape != (hidden, 2) or b is None:
        raise RecoverError(f"{what}: {g.name(node)} has weight {list(w.shape)} and {'a' if b is not None else 'no'} "
                           f"bias, expected [{hidden}, 2] and a bias")
    split = g.next(out, ("Split",), what)
    if g.attrs(split).get("axis", 0) not in (-1, 2) or len(split.output) != 2:
        raise RecoverError(f"{what}: {g.name(split)} does not split the last axis in two")
    order = []
    for value in split.output:
        while value not in g.outputs:
            nxt = g.only_reader(value)
            if nxt is None or nxt.op_type not in ("Squeeze", "Identity"):
                raise RecoverError(f"{what}: '{value}' of {g.name(split)} does not lead to a graph output")
            value = g.use(nxt).output[0]
        order.append(value)
    if sorted(order) != ["end_logits", "start_logits"]:
        raise RecoverError(f"{what}: {g.name(split)} leads to {order}, expected start_logits and end_logits")
    if order[0] == "end_logits":
        w, b = w[:, ::-1], b[::-1]
    weights["qa_outputs.weight"] = np.ascontiguousarray(w.T)
    weights["qa_outputs.bias"] = np.ascontiguousarray(b)
