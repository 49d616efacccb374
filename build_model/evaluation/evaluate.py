"""Predict answers for a SQuAD split through the function's reader, and score them.

``infer`` is any callable from a ``function.model.windows.Batch`` to (start, end)
logits as numpy arrays: a PyTorch model, or an ONNX Runtime session through
``function.model.onnx_model``. Windowing and decoding are the function's own code, so
these scores are the scores the function gives.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from build_model.evaluation.metrics import squad_scores
from build_model.squad import Question, SquadSplit, encode_paragraphs
from function.model.reader import PassageTokens, answers_from_logits, prepare
from function.model.tokenizer import QATokenizer
from function.model.windows import Batch, WindowSpec

Infer = Callable[[Batch], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Reading:
    """One question read against its own paragraph: the best span's text and the run it came from."""

    question: Question
    text: str  # the best span ("" when the decoder found none)
    start_logits: np.ndarray
    end_logits: np.ndarray
    batch: Batch


def read_questions(split: SquadSplit, questions: Sequence[Question], tok: QATokenizer, spec: WindowSpec,
                   infer: Infer, max_answer_tokens: int = 30) -> Iterator[Reading]:
    """Each question against its paragraph, one model run each, decoded by the function's reader."""
    encoded = encode_paragraphs(tok, split)
    q_ids = tok.encode_many([q.question for q in questions])
    for q, qe in zip(questions, q_ids):
        enc = encoded[q.paragraph_id]
        passages = [PassageTokens(enc.ids, enc.offsets)]
        batch = prepare(qe.ids[: spec.max_query_tokens], passages, spec)
        start, end = infer(batch)
        text = split.paragraphs[q.paragraph_id].context
        best = answers_from_logits(start, end, batch, passages, 1, max_answer_tokens, texts=[text],
                                   question=q.question)
        yield Reading(q, text[best[0].start : best[0].end] if best else "", start, end, batch)


def predict(
    split: SquadSplit,
    tok: QATokenizer,
    spec: WindowSpec,
    infer: Infer,
    max_answer_tokens: int = 30,
) -> dict[str, str]:
    """Question id -> answer text (the passage substring at the answer's offsets)."""
    return {r.question.id: r.text for r in read_questions(split, split.questions, tok, spec, infer, max_answer_tokens)}


def evaluate(split: SquadSplit, tok: QATokenizer, spec: WindowSpec, infer: Infer, **kw) -> dict:
    t0 = time.perf_counter()
    preds = predict(split, tok, spec, infer, **kw)
    scores = squad_scores(preds, {q.id: q.answers for q in split.questions})
    scores["seconds"] = round(time.perf_counter() - t0, 1)
    return scores


def torch_infer(model) -> Infer:
    """Wrap a PyTorch QA model (eval mode, no grad) as an ``Infer`` callable.

    A model without segment ids (DistilBERT, RoBERTa: ``build_model.hf.reads_segments``) is not
    given ``token_type_ids``.
    """
    import torch

    from build_model.hf import reads_segments

    names = ["input_ids", "attention_mask"] + (["token_type_ids"] if reads_segments(model) else [])
    device = next(model.parameters()).device  # a model trained on a GPU is scored there

    def run(batch: Batch) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            out = model(**{name: torch.from_numpy(getattr(batch, name)).to(device) for name in names})
        return out.start_logits.float().cpu().numpy(), out.end_logits.float().cpu().numpy()

    return run
