"""The BertConfig of the recovered model: sizes read from the graph, everything else from ``--config-from``.

The sizes (layers, hidden, heads, intermediate, vocabulary, positions, segments, LayerNorm epsilon, GELU
flavour) are read from the graph itself; the rest of the configuration (dropout, pad id, initializer range)
from ``--config-from`` (a ``config.json`` or its folder, e.g. the [base] model's: the student keeps its
configuration with fewer layers), checked against the graph. The manifest's ``model.config``, which newer
artifacts record, must agree with the graph too.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from build_model.recover.graph import RecoverError

SIZES = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
         "max_position_embeddings", "type_vocab_size")
GELU_FAMILY = {"gelu": ("gelu",), "gelu_new": ("gelu_new", "gelu_pytorch_tanh", "gelu_fast")}


def graph_sizes(weights: dict[str, np.ndarray], layers: int, heads: set, eps: list[float], acts: set) -> dict:
    """``SIZES``, ``layer_norm_eps`` and ``hidden_act`` from the weights the walk placed and what each layer
    said of itself (its heads, LayerNorm epsilons, GELU flavour): these must agree, one BertConfig for all."""
    if len(heads) > 1 or len(acts) > 1 or max(eps) - min(eps) > 1e-6 * max(eps):
        raise RecoverError(f"layers differ (heads {sorted(heads)}, activations {sorted(acts)}, LayerNorm epsilons "
                           f"{sorted(set(eps))}): one BertConfig cannot describe them")
    word = weights["bert.embeddings.word_embeddings.weight"]
    hidden = word.shape[1]
    sizes = {"vocab_size": word.shape[0], "hidden_size": hidden, "num_hidden_layers": layers,
             "num_attention_heads": heads.pop(),
             "intermediate_size": weights["bert.encoder.layer.0.intermediate.dense.weight"].shape[0],
             "max_position_embeddings": weights["bert.embeddings.position_embeddings.weight"].shape[0],
             "type_vocab_size": weights["bert.embeddings.token_type_embeddings.weight"].shape[0],
             "layer_norm_eps": float(eps[0]), "hidden_act": acts.pop()}
    if hidden % sizes["num_attention_heads"]:
        raise RecoverError(f"{sizes['num_attention_heads']} heads do not divide hidden size {hidden}")
    return sizes


def _read_config(source: Path) -> dict:
    path = source / "config.json" if source.is_dir() else source
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise RecoverError(f"--config-from {source}: cannot read {path} ({type(e).__name__})") from None


def model_config(sizes: dict, manifest: dict, config_from: Path | None) -> tuple[dict, list[str]]:
    """The BertConfig's fields: the sizes read from the graph over ``config_from``'s other fields;
    returns them and notes on what was overridden. Sizes the manifest or the configuration states
    otherwise than the graph fail (but the layer count of a configuration: a student is cut from it)."""
    recorded = (manifest.get("model") or {}).get("config") or {}
    wrong = {k: (v, sizes[k]) for k, v in recorded.items() if k in sizes and v != sizes[k]}
    if wrong:
        raise RecoverError("the manifest's model.config disagrees with the graph: " +
                           ", ".join(f"{k} {a} vs {b}" for k, (a, b) in wrong.items()))
    notes, base = [], {}
    if config_from is not None:
        base = _read_config(config_from)
        if base.get("model_type", "bert") != "bert":
            raise RecoverError(f"--config-from {config_from} is a {base['model_type']} configuration; "
                               f"this module rebuilds BertForQuestionAnswering only")
        for k in SIZES:
            if k in base and base[k] != sizes[k]:
                if k != "num_hidden_layers":
                    raise RecoverError(f"--config-from {config_from} has {k} = {base[k]}, the graph {sizes[k]}")
                notes.append(f"num_hidden_layers {base[k]} in {config_from}, {sizes[k]} in the graph: "
                             f"the graph's kept")
        eps = base.get("layer_norm_eps", sizes["layer_norm_eps"])
        if abs(eps - sizes["layer_norm_eps"]) > 1e-6 * eps:
            raise RecoverError(f"--config-from {config_from} has layer_norm_eps = {eps}, the graph "
                               f"{sizes['layer_norm_eps']:.3g}")
        act = base.get("hidden_act", sizes["hidden_act"])
        if act not in GELU_FAMILY[sizes["hidden_act"]]:
            raise RecoverError(f"--config-from {config_from} has hidden_act = {act!r}, the graph computes "
                               f"{sizes['hidden_act']!r}")
        sizes = {**sizes, "layer_norm_eps": eps, "hidden_act": act}  # its exact spelling of the same thing
    else:
        notes.append("no --config-from: dropout, initializer range and the like are BertConfig's defaults")
    pad = (manifest.get("special_tokens") or {}).get("pad")
    config = {**{k: v for k, v in base.items() if k not in ("architectures", "transformers_version")},
              **sizes, "model_type": "bert", "architectures": ["BertForQuestionAnswering"]}
    if "pad_token_id" not in base and pad is not None:
        config["pad_token_id"] = pad
    return config, notes
