"""A plain reference answerer for any extractive-QA model: transformers' own pair encoding, a loop over spans.

Nothing of the function's code is used: the windows are the Hugging Face fast
tokenizer's pair encoding with overflowing windows (``truncation="only_second"``,
``stride``), the logits come from the PyTorch model (or from any callable that
takes the same tensors, e.g. an ONNX Runtime session over the artifact's graph),
and every allowed (start, end) pair is scored in a Python loop. If the function
answers exactly as this does, its pre-tokenised passages, window layout,
special tokens, batching and vectorised decoding are right for that model.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")  # a paragraph break: no answer runs across one

# (input_ids, attention_mask, token_type_ids or None), each [W, T] int64 -> (start_logits, end_logits), each [W, T]
Logits = Callable[[np.ndarray, np.ndarray, np.ndarray | None], tuple[np.ndarray, np.ndarray]]


def reads_segments(model) -> bool:
    """Whether a PyTorch QA model reads ``token_type_ids``: its forward takes them and it has two segments or more.

    RoBERTa's forward takes them with one segment row (all zeros, which is what it gets without them),
    DeBERTa-v3 has none (``type_vocab_size`` 0). ALBERT reads them, although transformers 5's
    ``AlbertTokenizer`` no longer returns them unless asked (its ``model_input_names``): ALBERT QA
    models were fine-tuned with segment ids, so the reference asks the tokenizer for them whenever the
    model reads them, rather than only when the tokenizer returns them by default.
    """
    takes = "token_type_ids" in inspect.signature(model.forward).parameters
    return takes and getattr(model.config, "type_vocab_size", 2) >= 2


def torch_logits(model) -> Logits:
    """The PyTorch model as a ``Logits`` callable (no gradients, float64-free: the model's own float32)."""
    import torch

    def run(ids: np.ndarray, mask: np.ndarray, types: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        extra = {} if types is None else {"token_type_ids": torch.from_numpy(types)}
        with torch.no_grad():
            out = model(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask), **extra)
        return out.start_logits.numpy(), out.end_logits.numpy()

    return run


def onnx_logits(path: Path, threads: int = 1) -> tuple[Logits, bool]:
    """An ONNX Runtime session over ``path`` as a ``Logits`` callable, and whether the graph reads segment ids."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]

    def run(ids: np.ndarray, mask: np.ndarray, types: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in names:
            feed["token_type_ids"] = types if types is not None else np.zeros_like(ids)
        start, end = session.run(["start_logits", "end_logits"], feed)
        return start, end

    return run, "token_type_ids" in names


def strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` moved inwards over white space (``str.isspace``); ``start == end`` if nothing is left.

    The function never answers with white space at either end (``text == passage[start:end]``, stripped).
    Token offsets may hold some: a byte-level BPE token carries the space before its word
    (``Ġworld``) unless the post-processor trims offsets, a SentencePiece token may be the word
    separator ``▁`` alone. Applying the same rule here makes the offsets comparable.
    """
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def encode_windows(hf_tok, question: str, context: str, max_seq_len: int, stride: int, segments: bool):
    """transformers' own overflowing pair encoding of (question, context)."""
    return hf_tok(question, context, truncation="only_second", max_length=max_seq_len, stride=stride,
                  return_overflowing_tokens=True, return_offsets_mapping=True, return_token_type_ids=segments)


def reference_answer(hf_tok, model, question: str, context: str, max_seq_len: int, stride: int,
                     max_answer_tokens: int, *, segments: bool | None = None) -> tuple[int, int, float]:
    """The best span of ``context`` for ``question``: ``(start_char, end_char, score)``; ``(-1, -1, -1.0)`` if none.

    ``model``: a PyTorch ``*ForQuestionAnswering`` model, or a ``Logits`` callable (then say whether it
    reads ``segments``). Score: ``p_start * p_end``, each a softmax over position 0 (``[CLS]``/``<s>``) and
    the window's passage tokens only; a span lies on passage tokens of one window with
    ``start <= end < start + max_answer_tokens`` and no blank line (a paragraph break) starting after its
    first token's start and at or before its last token's start; the best over all windows wins (the first found, on a
    tie: earlier window, earlier start, shorter span). Offsets are stripped of white space
    (``strip_span``) and a span of white space only is no answer.

    Each window runs alone at its own length, as the function runs them (``function.model.unpadded``): an
    int8 graph with dynamic quantisation takes its activation scales over its whole input, so its logits
    would depend on what else ran beside a window.
    """
    spans = reference_spans(hf_tok, model, question, context, max_seq_len, stride, max_answer_tokens,
                            segments=segments)
    return spans[0] if spans else (-1, -1, -1.0)


def reference_spans(hf_tok, model, question: str, context: str, max_seq_len: int, stride: int,
                    max_answer_tokens: int, *, segments: bool | None = None) -> list[tuple[int, int, float]]:
    """Every distinct answer ``(start_char, end_char, score)``, best first, each with its best score over the
    windows (``reference_answer``'s rules): what a test needs to accept either of two spans that tie exactly,
    as int8 logits can."""
    if callable(model) and not hasattr(model, "config"):
        run = model
        if segments is None:
            raise ValueError("say whether a Logits callable reads segment ids")
    else:
        run = torch_logits(model)
        segments = reads_segments(model) if segments is None else segments
    enc = encode_windows(hf_tok, question, context, max_seq_len, stride, segments)
    rows = len(enc["input_ids"])
    windows = [np.asarray(enc["input_ids"][w], dtype=np.int64) for w in range(rows)]
    types = [np.asarray(enc["token_type_ids"][w], dtype=np.int64) for w in range(rows)] if segments else None

    logits: list[tuple[np.ndarray, np.ndarray]] = []
    for w, row in enumerate(windows):
        start, end = run(row[None, :], np.ones((1, len(row)), dtype=np.int64),
                         None if types is None else types[w][None, :])
        logits.append((start[0], end[0]))

    breaks = [m.start() for m in BLANK_LINE.finditer(context)]
    best: dict[tuple[int, int], float] = {}  # in the order found: window, start, end
    for w, (start, end) in enumerate(logits):
        ctx = [i for i, s in enumerate(enc.sequence_ids(w)) if s == 1]
        allowed = [0] + ctx  # [CLS] / <s> and the passage tokens
        s = np.asarray(start, dtype=np.float64)[allowed]
        e = np.asarray(end, dtype=np.float64)[allowed]
        p_start = np.exp(s - np.logaddexp.reduce(s))
        p_end = np.exp(e - np.logaddexp.reduce(e))
        offsets = enc["offset_mapping"][w]
        for a, i in enumerate(ctx):
            for b, j in enumerate(ctx[a:], start=a):
                if j < i + max_answer_tokens and not any(offsets[i][0] < b <= offsets[j][0] for b in breaks):
                    first, last = strip_span(context, offsets[i][0], offsets[j][1])
                    score = float(p_start[1 + a] * p_end[1 + b])
                    if first < last and score > best.get((first, last), -1.0):
                        best[(first, last)] = score
    ranked = sorted(best.items(), key=lambda item: -item[1])  # stable: ties keep the order found
    return [(first, last, score) for (first, last), score in ranked]
