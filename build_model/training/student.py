"""The student model: a given checkpoint, or a copy of some of the teacher's layers.

A derived student starts from the teacher's embeddings, the chosen encoder
layers (in the order given) and the QA head, so distillation starts close to
the teacher instead of from scratch (the DistilBERT initialisation).

Its feed-forward blocks may also be narrowed (``intermediate_size``): each layer
keeps the hidden units with the largest weights in and out (the product of the
norms of a unit's input row and output column), in their order, so a deeper
student can cost what a shallower one does. The config stays a standard one
(a single ``intermediate_size``), so export and serving need nothing new.
"""

from __future__ import annotations

import json
import re

from build_model.errors import StudentError

_LAYER = re.compile(r"^(.*\.(?:encoder|transformer)\.layers?\.)(\d+)\.(.+)$")


# A layer's feed-forward block: (its input projection, its output projection, the config's width attribute).
_FFN = {"bert": ("intermediate.dense", "output.dense", "intermediate_size"),
        "mpnet": ("intermediate.dense", "output.dense", "intermediate_size"),
        "distilbert": ("ffn.lin1", "ffn.lin2", "hidden_dim")}


def derive_student(teacher, keep: tuple[int, ...], intermediate_size: int = 0):
    """A new model of the teacher's class with ``len(keep)`` layers copied from the teacher, their
    feed-forward blocks narrowed to ``intermediate_size`` units when it is given (0: as they are)."""
    import copy

    n = teacher.config.num_hidden_layers
    keep = tuple(int(i) for i in keep)
    if not keep or len(set(keep)) != len(keep) or not all(0 <= i < n for i in keep):
        raise StudentError(f"keep_layers {list(keep)} must be distinct layer indices of the "
                           f"{n}-layer teacher (0..{n - 1})")
    config = copy.deepcopy(teacher.config)
    config.num_hidden_layers = len(keep)
    state = {}
    for name, value in teacher.state_dict().items():
        m = _LAYER.match(name)
        if m is None:
            state[name] = value.clone()
        elif int(m[2]) in keep:
            state[f"{m[1]}{keep.index(int(m[2]))}.{m[3]}"] = value.clone()
    if intermediate_size:
        _narrow_ffn(config, state, intermediate_size)
    student = type(teacher)(config)
    student.load_state_dict(state, strict=True)  # every student weight comes from the teacher
    return student.eval()


def _narrow_ffn(config, state: dict, width: int) -> None:
    """Keep ``width`` units of every layer's feed-forward block in ``state`` (in place) and ``config``."""
    import torch

    if config.model_type not in _FFN:
        raise StudentError(f"intermediate_size: narrowing the feed-forward blocks of a {config.model_type!r} "
                           f"model is not supported ({', '.join(sorted(_FFN))} are)")
    into, out_of, attribute = _FFN[config.model_type]
    full = getattr(config, attribute)
    if not 0 < width <= full:
        raise StudentError(f"intermediate_size {width} must be between 1 and the teacher's {full}")
    layers = sorted({m[1] + m[2] for name in state if (m := _LAYER.match(name))})
    for layer in layers:
        w_in, b_in = state[f"{layer}.{into}.weight"], state[f"{layer}.{into}.bias"]
        w_out = state[f"{layer}.{out_of}.weight"]
        importance = w_in.norm(dim=1) * w_out.norm(dim=0)
        kept = torch.topk(importance, width).indices.sort().values
        state[f"{layer}.{into}.weight"], state[f"{layer}.{into}.bias"] = w_in[kept].clone(), b_in[kept].clone()
        state[f"{layer}.{out_of}.weight"] = w_out[:, kept].clone()
    setattr(config, attribute, width)


def tokenizer_fingerprint_of(model: str) -> str:
    from build_model import hf
    from function.model.tokenizer import tokenizer_fingerprint

    return tokenizer_fingerprint(json.loads(hf.tokenizer_json(model)))


def check_same_tokenizer(student: str, teacher_fingerprint: str) -> None:
    """Distillation compares logits position by position: both models must see the same token ids."""
    got = tokenizer_fingerprint_of(student)
    if got != teacher_fingerprint:
        raise StudentError(
            f"the student {student!r} tokenizes differently from the teacher (tokenizer fingerprint "
            f"{got[:12]}... vs {teacher_fingerprint[:12]}...): distillation needs the same vocabulary "
            f"and normalisation; pick a student with the teacher's tokenizer")


def accepts_token_type_ids(model) -> bool:
    """BERT reads segment ids; DistilBERT has none (``build_model.hf.reads_segments``)."""
    from build_model.hf import reads_segments

    return reads_segments(model)


def trainable(model):
    """``model`` itself, or, for a model without segment ids, a wrapper that drops them.

    ``build_model.training.loop`` always passes ``token_type_ids``; the wrapper shares
    the model's parameters, so training it trains the model.
    """
    if accepts_token_type_ids(model):
        return model
    import torch

    class _NoTokenTypes(torch.nn.Module):
        def __init__(self, qa):
            super().__init__()
            self.qa = qa

        def forward(self, input_ids, attention_mask, token_type_ids=None):
            return self.qa(input_ids=input_ids, attention_mask=attention_mask)

    return _NoTokenTypes(model)


def parameters(model) -> int:
    return sum(p.numel() for p in model.parameters())
