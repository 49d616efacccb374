"""The ONNX graph as the walk reads it: initializers, who produces and who reads each value, int8 dequantised.

The shipped graph is quantised to int8 (``build_model.stages.quantize``, then possibly pre-optimised by ONNX
Runtime: ``build_model.conversion.load_variants``). Its weights are dequantised here as ONNX Runtime computes
them, ``x = (q - zero_point) * scale``, per tensor or per output column, whichever node holds them
(``MatMulInteger`` with its scale in the ``Mul`` after it, ``DynamicQuantizeMatMul``, ``MatMulIntegerToFloat``,
``QAttention``, ``QEmbedLayerNormalization``, ``DequantizeLinear``). ``Graph`` also records the nodes the walk
explained, so that one it did not is named instead of silently dropped.
"""

from __future__ import annotations

import numpy as np


class RecoverError(ValueError):
    """The graph (or a configuration given with it) is not one this module can read back."""


class Graph:
    """Initializers, producers and consumers of one ONNX graph, and which nodes the walk explained."""

    def __init__(self, model):
        from onnx import numpy_helper

        graph = model.graph
        self.nodes = list(graph.node)
        self.inits = {t.name: t for t in graph.initializer}
        self._array = numpy_helper.to_array
        self.producer = {o: n for n in self.nodes for o in n.output if o}
        self.consumers: dict[str, list] = {}
        for n in self.nodes:
            for i in n.input:
                if i:
                    self.consumers.setdefault(i, []).append(n)
        self.outputs = [o.name for o in graph.output]
        self.seen: set[int] = set()
        self.quantized: list[str] = []

    def use(self, node):
        self.seen.add(id(node))
        return node

    @staticmethod
    def name(node) -> str:
        return f"{node.op_type} node '{node.name or node.output[0]}'"

    @staticmethod
    def attrs(node) -> dict:
        from onnx import helper

        return {a.name: helper.get_attribute_value(a) for a in node.attribute}

    def input(self, node, i: int) -> str:
        return node.input[i] if len(node.input) > i else ""

    def const(self, name: str, what: str) -> np.ndarray:
        """The fp32 value of a constant: an initializer, or a ``DequantizeLinear`` / ``Identity`` of one."""
        if name in self.inits:
            value = self._array(self.inits[name])
            if value.dtype != np.float32:
                raise RecoverError(f"{what}: initializer '{name}' is {value.dtype}, expected float32")
            return value
        node = self.producer.get(name)
        if node is not None and node.op_type == "Identity":
            return self.const(self.use(node).input[0], what)
        if node is not None and node.op_type == "DequantizeLinear":
            self.use(node)
            axis = self.attrs(node).get("axis", 1)
            if self.attrs(node).get("block_size"):
                raise RecoverError(f"{what}: {self.name(node)} is block-quantised, which is not supported")
            return self.dequantize(node.input[0], self.input(node, 1), self.input(node, 2), axis, what)
        where = f"computed by {self.name(node)}" if node is not None else "neither an initializer nor a node output"
        raise RecoverError(f"{what}: '{name}' is not a constant this module reads ({where})")

    def raw(self, name: str, what: str) -> np.ndarray:
        if name not in self.inits:
            node = self.producer.get(name)
            where = f"computed by {self.name(node)}" if node is not None else "not an initializer"
            raise RecoverError(f"{what}: '{name}' is {where}; expected a stored quantised weight")
        return self._array(self.inits[name])

    def dequantize(self, q_name: str, scale_name: str, zp_name: str, axis: int | None, what: str) -> np.ndarray:
        """``(q - zero_point) * scale`` in float32, as ONNX Runtime computes it; a per-channel scale runs
        along ``axis`` (None: the weight's consumer allows a per-tensor scale only)."""
        q = self.raw(q_name, what)
        if q.dtype not in (np.int8, np.uint8):
            raise RecoverError(f"{what}: quantised weight '{q_name}' is {q.dtype}, expected int8 or uint8")
        scale = self.raw(scale_name, what).astype(np.float32)
        zp = self.raw(zp_name, what).astype(np.int32) if zp_name else np.zeros((), np.int32)
        if scale.size > 1 or zp.size > 1:
            if axis is None or q.ndim == 0:
                raise RecoverError(f"{what}: '{q_name}' has a per-channel scale where only a per-tensor one is "
                                   f"expected (scale shape {list(scale.shape)})")
            axis = axis % q.ndim
            shape = [1] * q.ndim
            shape[axis] = q.shape[axis]
            for part, label in ((scale, scale_name), (zp, zp_name)):
                if part.size not in (1, q.shape[axis]):
                    raise RecoverError(f"{what}: '{label}' has {part.size} values for {q.shape[axis]} channels "
                                       f"of '{q_name}' {list(q.shape)} (axis {axis})")
            scale = scale.reshape(shape) if scale.size > 1 else scale.reshape(())
            zp = zp.reshape(shape) if zp.size > 1 else zp.reshape(())
        else:
            scale, zp = scale.reshape(()), zp.reshape(())
        self.quantized.append(q_name)
        return ((q.astype(np.int32) - zp).astype(np.float32) * scale).astype(np.float32)

    def next(self, value: str, ops, what: str, required: bool = True):
        """The one node of ``ops`` reading ``value``, directly or through its ``DynamicQuantizeLinear``."""
        readers = list(self.consumers.get(value, ()))
        for n in list(readers):
            if n.op_type == "DynamicQuantizeLinear":
                readers += self.consumers.get(n.output[0], [])
        found = [n for n in readers if n.op_type in ops]
        if len(found) > 1:
            raise RecoverError(f"{what}: '{value}' feeds {len(found)} nodes of {'/'.join(ops)} "
                               f"({', '.join(self.name(n) for n in found)}); expected one")
        if not found:
            if not required:
                return None
            others = ", ".join(self.name(n) for n in readers) or "nothing"
            raise RecoverError(f"{what}: expected a {'/'.join(ops)} node reading '{value}', found {others}")
        return self.use(found[0])

    def only_reader(self, value: str):
        readers = self.consumers.get(value, [])
        return readers[0] if len(readers) == 1 and value not in self.outputs else None
