"""The shipped artifact's graph read back into a PyTorch checkpoint: ``recover(folder)``.

The artifact's ONNX graph holds every weight of the student it was exported from: fused by ONNX Runtime's
transformer optimizer (``build_model.conversion.onnx_export.optimize_bert``) and, in the shipped model,
quantised to int8 (``build_model.stages.quantize``). This package walks that graph along the hidden state,
from the embeddings to the logits, and undoes what was done to the weights, one concern a module:

* ``ort_format``: a ``model.ort`` (ONNX Runtime's own format, what the package stage may ship) as ONNX;
* ``graph``: the ONNX graph's initializers, producers and readers; int8 weights dequantised;
* ``fused_ops``: what one fused node holds (dense layer and bias, LayerNorm, packed QKV), ONNX's layout;
* ``bert_weights``: the walk, ``read_graph``: every weight under ``BertForQuestionAnswering``'s name;
* ``config``: the BertConfig, sizes from the graph and the rest from ``--config-from``;
* ``check``: the recovered model against the artifact's session and, for int8, quantised again;
* ``cli``: ``python -m build_model.recover``, which checks before it writes anything.

The recovered weights are the int8 grid's values, not the fp32 ones before quantisation (those are gone):
a model to train on from there, not the original checkpoint.

    python -m build_model.recover artifact --config-from build/base/model --out build/recovered
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from build_model.recover.bert_weights import Recovered, read_graph
from build_model.recover.config import model_config
from build_model.recover.graph import RecoverError

__all__ = ["RecoverError", "Recovered", "build_model", "model_config", "read_graph", "recover"]


def recover(folder: Path, config_from: Path | None = None) -> tuple[object, Recovered, dict, list[str]]:
    """The artifact in ``folder`` as a PyTorch model: (model, what the graph held, its config, notes)."""
    from function.model.artifact import load_manifest

    manifest = load_manifest(folder)
    recovered = read_graph(manifest.model_path)
    config, notes = model_config(recovered.sizes, manifest.raw, config_from)
    return build_model(recovered, config), recovered, config, notes


def build_model(recovered: Recovered, config: dict):
    """A BertForQuestionAnswering (eval mode) holding the recovered weights."""
    import torch
    from transformers import BertConfig, BertForQuestionAnswering

    # eager attention: traced as MatMul/Softmax, what the export stage fuses (``requantize``); not saved
    model = BertForQuestionAnswering(BertConfig.from_dict(config, attn_implementation="eager")).eval()
    expected = model.state_dict()
    missing = sorted(set(expected) - set(recovered.weights) - {b for b, _ in model.named_buffers()})
    extra = sorted(set(recovered.weights) - set(expected))
    if missing or extra:
        raise RecoverError(f"the graph's weights do not fill BertForQuestionAnswering: missing {missing[:5]}, "
                           f"unexpected {extra[:5]}")
    for name, value in recovered.weights.items():
        if tuple(expected[name].shape) != value.shape:
            raise RecoverError(f"{name}: the graph holds {list(value.shape)}, the configuration makes "
                               f"{list(expected[name].shape)}")
    state = {k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in recovered.weights.items()}  # own copies
    model.load_state_dict(state, strict=False)
    return model
