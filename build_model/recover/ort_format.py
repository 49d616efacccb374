"""An ONNX Runtime format model (``model.ort``) read back as an ``onnx.ModelProto`` the walk can read.

The package stage ships the pre-optimised graph in ONNX Runtime's own flatbuffer format when that loads
faster (``build_model.conversion.load_variants``); ``onnx`` cannot read it. ONNX Runtime's wheel carries
the flatbuffer schema's generated Python classes (``onnxruntime.tools.ort_format_model``), so the nodes,
their attributes and the initializers are read with those, and put back into ONNX's own types: only what
the walk and the int8 comparison use (names, operators, attributes, weights), not value types or shapes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from build_model.recover.graph import RecoverError


def _fbs():
    from onnxruntime.tools.ort_format_model.ort_flatbuffers_py import fbs

    return fbs


def _text(value) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else (value or "")


def _tensor(t):
    """One flatbuffer ``Tensor`` as an ONNX ``TensorProto`` (raw data only: what ONNX Runtime writes)."""
    from onnx import helper, numpy_helper

    name = _text(t.Name())
    if t.ExternalDataOffset() >= 0:
        raise RecoverError(f"initializer '{name}' is stored outside the flatbuffer, which is not supported")
    if t.StringDataLength():
        raise RecoverError(f"initializer '{name}' holds strings; a BERT QA graph has none")
    dtype = helper.tensor_dtype_to_np_dtype(t.DataType())
    dims = [int(d) for d in t.DimsAsNumpy()] if t.DimsLength() else []
    raw = t.RawDataAsNumpy() if t.RawDataLength() else np.zeros(0, np.uint8)
    value = np.frombuffer(raw.tobytes(), dtype=dtype).reshape(dims)
    return numpy_helper.from_array(value, name)


def _attribute(a):
    from onnx import helper

    kind = _fbs().AttributeType.AttributeType
    name, t = _text(a.Name()), a.Type()
    if t == kind.FLOAT:
        return helper.make_attribute(name, a.F())
    if t == kind.INT:
        return helper.make_attribute(name, a.I())
    if t == kind.STRING:
        return helper.make_attribute(name, a.S())
    if t == kind.TENSOR:
        return helper.make_attribute(name, _tensor(a.T()))
    if t == kind.FLOATS:
        return helper.make_attribute(name, [a.Floats(j) for j in range(a.FloatsLength())], attr_type=6)
    if t == kind.INTS:
        return helper.make_attribute(name, [a.Ints(j) for j in range(a.IntsLength())], attr_type=7)
    if t == kind.STRINGS:
        return helper.make_attribute(name, [a.Strings(j) for j in range(a.StringsLength())], attr_type=8)
    raise RecoverError(f"attribute '{name}' is of a kind ({t}) a BERT QA graph does not use")


def load_ort(path: Path):
    """The ORT-format model at ``path`` as an ``onnx.ModelProto`` (nodes, attributes, initializers, the
    graph's input and output names)."""
    from onnx import helper

    fbs = _fbs()
    try:
        buf = Path(path).read_bytes()
        if not fbs.InferenceSession.InferenceSession.InferenceSessionBufferHasIdentifier(buf, 0):
            raise RecoverError(f"{path} is not an ONNX Runtime format model (no 'ORTM' identifier)")
        session = fbs.InferenceSession.InferenceSession.GetRootAs(buf, 0)
        model = session.Model()
        graph = model.Graph()
    except RecoverError:
        raise
    except Exception as e:  # a truncated or foreign buffer raises from deep in flatbuffers
        raise RecoverError(f"{path} could not be read as an ONNX Runtime format model ({type(e).__name__}: {e})") \
            from None
    if graph.SparseInitializersLength():
        raise RecoverError(f"{path} holds sparse initializers, which are not supported")
    nodes = []
    for i in range(graph.NodesLength()):
        n = graph.Nodes(i)
        nodes.append(helper.make_node(
            _text(n.OpType()), [_text(n.Inputs(j)) for j in range(n.InputsLength())],
            [_text(n.Outputs(j)) for j in range(n.OutputsLength())], name=_text(n.Name()), domain=_text(n.Domain())))
        nodes[-1].attribute.extend(_attribute(n.Attributes(j)) for j in range(n.AttributesLength()))
    inits = [_tensor(graph.Initializers(i)) for i in range(graph.InitializersLength())]
    inputs = [helper.make_empty_tensor_value_info(_text(graph.Inputs(j))) for j in range(graph.InputsLength())]
    outputs = [helper.make_empty_tensor_value_info(_text(graph.Outputs(j))) for j in range(graph.OutputsLength())]
    opsets = [helper.make_opsetid(_text(model.OpsetImport(j).Domain()), model.OpsetImport(j).Version())
              for j in range(model.OpsetImportLength())]
    return helper.make_model(helper.make_graph(nodes, "ort", inputs, outputs, inits), opset_imports=opsets)


def load_any(path: Path):
    """An ONNX model from ``path``: ``.ort`` through ``load_ort``, anything else through ``onnx.load``."""
    import onnx

    if Path(path).suffix == ".ort":
        return load_ort(path)
    try:
        return onnx.load(str(path))
    except Exception as e:  # onnx raises DecodeError, OSError...: say what could not be read
        raise RecoverError(f"{path} is not an ONNX model onnx can read ({type(e).__name__}: {e})") from None
