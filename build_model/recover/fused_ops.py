"""What one fused node holds, in ONNX's layout: a dense layer's weight and bias, a LayerNorm, a packed QKV.

ONNX Runtime's transformer optimizer (``build_model.conversion.onnx_export.optimize_bert``) moves biases
about: ``SkipLayerNormalization`` takes the bias of the dense layer before it, ``BiasGelu`` / ``FastGelu``
the intermediate one, and a separate ``Add`` of a constant is a bias too. ``Attention`` packs query, key and
value into one ``[hidden, 3 * hidden]`` weight and bias. Weights stay ONNX's ``[in, out]`` here:
``bert_weights`` splits, transposes and names them.
"""

from __future__ import annotations

import numpy as np

from build_model.recover.graph import Graph, RecoverError

LINEAR_OPS = ("MatMul", "MatMulInteger", "DynamicQuantizeMatMul", "MatMulIntegerToFloat")
ATTENTION_OPS = ("Attention", "QAttention")
GELU_OPS = {"BiasGelu": "gelu", "Gelu": "gelu", "FastGelu": "gelu_new"}


def bias_sum(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    """Two parts of one bias, either absent: fusion may leave a bias in the node and another in what follows."""
    return b if a is None else a if b is None else a + b


def dense_layer(g: Graph, node, what: str) -> tuple[np.ndarray, np.ndarray | None, str]:
    """A dense layer's ``[in, out]`` weight, its bias when the node or an ``Add`` after it holds one,
    and the value it produces (after that ``Add``)."""
    op, bias = node.op_type, None
    if op == "MatMul":
        w, out = g.const(node.input[1], what), node.output[0]
    elif op == "DynamicQuantizeMatMul":  # A, B, b_scale, b_zero_point, bias
        w = g.dequantize(node.input[1], node.input[2], g.input(node, 3), 1, what)
        bias = g.const(node.input[4], what) if g.input(node, 4) else None
        out = node.output[0]
    elif op == "MatMulIntegerToFloat":  # A, B, a_scale, b_scale, a_zero_point, b_zero_point, bias
        w = g.dequantize(node.input[1], node.input[3], g.input(node, 5), 1, what)
        bias = g.const(node.input[6], what) if g.input(node, 6) else None
        out = node.output[0]
    elif op == "MatMulInteger":  # quantize_dynamic: Cast(MatMulInteger(Aq, Bq, a_zp, b_zp)) * (a_scale * b_scale)
        cast = g.only_reader(node.output[0])
        mul = g.only_reader(cast.output[0]) if cast is not None and cast.op_type == "Cast" else None
        factor = next((i for i in mul.input if i != cast.output[0]), "") if mul is not None else ""
        scales = g.producer.get(factor)
        if mul is None or mul.op_type != "Mul" or scales is None or scales.op_type != "Mul":
            raise RecoverError(f"{what}: {g.name(node)} is not followed by Cast and Mul by the scales' product "
                               f"(quantize_dynamic's pattern)")
        weight_scale = [i for i in scales.input if i in g.inits]
        if len(weight_scale) != 1:
            raise RecoverError(f"{what}: {g.name(scales)} should multiply one stored weight scale, "
                               f"found {len(weight_scale)}")
        for n in (cast, mul, scales):
            g.use(n)
        w = g.dequantize(node.input[1], weight_scale[0], g.input(node, 3), 1, what)
        out = mul.output[0]
    else:
        raise RecoverError(f"{what}: {g.name(node)} is not a dense layer this module reads")
    if w.ndim != 2:
        raise RecoverError(f"{what}: {g.name(node)} has a weight of shape {list(w.shape)}, expected [in, out]")
    add = g.only_reader(out)
    if add is not None and add.op_type == "Add":
        other = next(i for i in add.input if i != out)
        try:
            b = g.const(other, what)
        except RecoverError:
            b = None
        if b is not None and b.shape == (w.shape[1],):
            bias, out = bias_sum(bias, b), g.use(add).output[0]
    return w, bias, out


def skip_layer_norm(g: Graph, value: str, residual: str, what: str) -> tuple[dict, np.ndarray | None, str, float]:
    """The ``SkipLayerNormalization`` adding ``value`` to ``residual``: its LayerNorm, the bias it adds,
    its output and epsilon."""
    node = g.next(value, ("SkipLayerNormalization",), what)
    if sorted(node.input[:2]) != sorted((value, residual)):
        raise RecoverError(f"{what}: {g.name(node)} adds {list(node.input[:2])}, expected '{value}' and the "
                           f"residual '{residual}'")
    if not g.input(node, 3):
        raise RecoverError(f"{what}: {g.name(node)} has no beta (a LayerNorm without bias is not BERT's)")
    norm = {"weight": g.const(node.input[2], what), "bias": g.const(node.input[3], what)}
    bias = g.const(node.input[4], what) if g.input(node, 4) else None
    eps = g.attrs(node).get("epsilon", 1e-12)
    return norm, bias, node.output[0], eps


def attention_qkv(g: Graph, node, hidden: int, what: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Packed ``[hidden, 3 * hidden]`` QKV weight, its bias and the number of heads of a fused attention."""
    attrs = g.attrs(node)
    allowed = {"num_heads", "unidirectional", "mask_filter_value", "scale", "qkv_hidden_sizes"}
    odd = sorted(k for k, v in attrs.items() if k not in allowed and v)
    if odd or attrs.get("unidirectional"):
        raise RecoverError(f"{what}: {g.name(node)} has attributes BERT's attention has not: "
                           f"{odd or ['unidirectional']}")
    sizes = list(attrs.get("qkv_hidden_sizes", []))
    if sizes and sizes != [hidden] * 3:
        raise RecoverError(f"{what}: {g.name(node)} has qkv_hidden_sizes {sizes}, expected 3 x {hidden}")
    heads = int(attrs["num_heads"])
    if attrs.get("scale") and abs(attrs["scale"] - (hidden // heads) ** -0.5) > 1e-6:
        raise RecoverError(f"{what}: {g.name(node)} scales scores by {attrs['scale']}, not 1/sqrt(head size)")
    if node.op_type == "Attention":  # input, weights, bias, mask_index, past, attention_bias, past_sequence_length
        extra = [i for i in node.input[4:] if i]
        w = g.const(node.input[1], what)
    else:  # QAttention: input, weight, bias, input_scale, weight_scale, mask_index, input_zp, weight_zp, past
        extra = [i for i in node.input[8:] if i]
        w = g.dequantize(node.input[1], node.input[4], g.input(node, 7), 1, what)
    if extra:
        raise RecoverError(f"{what}: {g.name(node)} reads {extra} (past state or an attention bias): not BERT's")
    if not g.input(node, 2):
        raise RecoverError(f"{what}: {g.name(node)} has no QKV bias")
    b = g.const(node.input[2], what)
    if w.shape != (hidden, 3 * hidden) or b.shape != (3 * hidden,):
        raise RecoverError(f"{what}: {g.name(node)} has a QKV weight {list(w.shape)} and bias {list(b.shape)}, "
                           f"expected [{hidden}, {3 * hidden}] and [{3 * hidden}]")
    return w, b, heads
