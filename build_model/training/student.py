"""The student model: a given checkpoint, or a copy of some of the teacher's layers.

A derived student starts from the teacher's embeddings, the chosen encoder
layers (in the order given) and the QA head, so distillation starts close to
the teacher instead of from scratch (the DistilBERT initialisation).
"""

from __future__ import annotations

import json
import re

_LAYER = re.compile(r"^(.*\.(?:encoder|transformer)\.layers?\.)(\d+)\.(.+)$")


class StudentError(ValueError):
    """The student cannot be made: bad layer choice, or a tokenizer that differs from the teacher's."""


def derive_student(teacher, keep: tuple[int, ...]):
    """A new model of the teacher's class with ``len(keep)`` layers copied from the teacher."""
    import copy

    n = teacher.config.num_hidden_layers
    keep = tuple(int(i) for i in keep)
    if not keep or len(set(keep)) != len(keep) or not all(0 <= i < n for i in keep):
        raise StudentError(f"keep_layers {list(keep)} must be distinct layer indices of the "
                           f"{n}-layer teacher (0..{n - 1})")
    config = copy.deepcopy(teacher.config)
    config.num_hidden_layers = len(keep)
    student = type(teacher)(config)
    state = {}
    for name, value in teacher.state_dict().items():
        m = _LAYER.match(name)
        if m is None:
            state[name] = value.clone()
        elif int(m[2]) in keep:
            state[f"{m[1]}{keep.index(int(m[2]))}.{m[3]}"] = value.clone()
    student.load_state_dict(state, strict=True)  # every student weight comes from the teacher
    return student.eval()


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
