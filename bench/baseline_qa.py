"""What a user of transformers runs for extractive QA: ``pipeline("question-answering")``, on PyTorch or ONNX Runtime.

transformers 5 removed that pipeline (its task now points to text generation
with a chat model). Where the installed transformers still has it (4.x), it
is used as is for PyTorch; otherwise ``ManualQA`` does what its 4.x
implementation did, with the same tokenizer call (question first,
``truncation="only_second"``, overflowing windows with ``stride`` overlap),
one forward pass, and the same span selection (softmax over the passage
tokens, start <= end < start + max_answer_len, score p(start) * p(end)); the
one difference is that all windows of a question go through the model as one
batch instead of one at a time, which can only make it faster.

The forward pass is PyTorch's (``load``: the fine-tuned checkpoint) or ONNX
Runtime's (``load_onnx``: the artifact's own int8 graph), the second being
what Optimum's ``ORTModelForQuestionAnswering`` inside that pipeline runs,
and txtai's extractive QA on top of it: an ``InferenceSession`` with ONNX
Runtime's default options (the memory arena on, every graph optimisation),
fed the tokenizer's arrays. Optimum itself does not install beside the pinned
transformers 5 (optimum-onnx 0.1.0 needs transformers < 4.58), so its steps
are taken here.
"""

from __future__ import annotations

import time
from pathlib import Path


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 1)


def has_qa_pipeline() -> bool:
    try:
        from transformers.pipelines import QuestionAnsweringPipeline  # noqa: F401
    except ImportError:
        return False
    return True


def best_spans(start, end, allowed, max_answer_len: int, top_k: int):
    """(start, end, score) of the ``top_k`` best spans of one window (numpy arrays of logits)."""
    import numpy as np

    start = np.where(allowed, start, -10000.0)
    end = np.where(allowed, end, -10000.0)
    p_start = np.exp(start - start.max())
    p_start /= p_start.sum()
    p_end = np.exp(end - end.max())
    p_end /= p_end.sum()
    scores = np.tril(np.triu(np.outer(p_start, p_end)), max_answer_len - 1)
    scores[~allowed, :] = 0.0
    scores[:, ~allowed] = 0.0
    flat = np.argsort(-scores, axis=None)[:top_k]
    return [(int(i), int(j), float(scores[i, j])) for i, j in zip(*np.unravel_index(flat, scores.shape))]


class ManualQA:
    """The 4.x question-answering pipeline's steps around a forward pass: ``forward(arrays) -> (start, end)``."""

    def __init__(self, tokenizer, forward, sequence: dict, kind: str):
        self.tokenizer, self.forward, self.seq, self.kind = tokenizer, forward, sequence, kind

    def __call__(self, question: str, context: str, top_k: int, max_answer_len: int, timings: dict) -> list[dict]:
        import numpy as np

        t0 = time.perf_counter()
        enc = self.tokenizer(question, context, truncation="only_second", max_length=self.seq["max_seq_len"],
                             stride=self.seq["stride"], return_overflowing_tokens=True,
                             return_offsets_mapping=True, return_token_type_ids=True, padding="longest",
                             return_tensors="np")
        offsets = enc.pop("offset_mapping")
        enc.pop("overflow_to_sample_mapping", None)
        allowed = np.array([[s == 1 for s in enc.sequence_ids(w)] for w in range(len(offsets))])
        timings["tokenize"] = _ms(t0)
        t0 = time.perf_counter()
        start, end = self.forward(dict(enc))
        timings["inference"] = _ms(t0)
        t0 = time.perf_counter()
        found = []
        for w in range(len(offsets)):
            for i, j, score in best_spans(start[w], end[w], allowed[w], max_answer_len, top_k):
                a, b = int(offsets[w][i][0]), int(offsets[w][j][1])
                found.append({"text": context[a:b], "score": round(score, 6), "start": a, "end": b})
        found.sort(key=lambda x: -x["score"])
        unique = list({(f["start"], f["end"]): f for f in found[::-1]}.values())  # the best of each span
        unique.sort(key=lambda x: -x["score"])
        timings["postprocess"] = _ms(t0)
        return unique[:top_k]


def torch_forward(model):
    """A PyTorch QA model as ``ManualQA``'s forward pass (numpy arrays in and out, no copies)."""
    import torch

    def forward(arrays: dict):
        with torch.inference_mode():
            out = model(**{k: torch.from_numpy(v) for k, v in arrays.items()})
        return out.start_logits.numpy(), out.end_logits.numpy()

    return forward


def onnx_forward(session):
    """An ONNX Runtime session as ``ManualQA``'s forward pass: fed the inputs the graph declares."""
    names = [i.name for i in session.get_inputs()]

    def forward(arrays: dict):
        start, end = session.run(["start_logits", "end_logits"], {n: arrays[n] for n in names})
        return start, end

    return forward


class PipelineQA:
    """transformers 4.x ``pipeline("question-answering")``."""

    kind = "pipeline('question-answering')"

    def __init__(self, pipe, sequence: dict):
        self.pipe, self.seq = pipe, sequence

    def __call__(self, question: str, context: str, top_k: int, max_answer_len: int, timings: dict) -> list[dict]:
        t0 = time.perf_counter()
        out = self.pipe(question=question, context=context, top_k=top_k, max_answer_len=max_answer_len,
                        max_seq_len=self.seq["max_seq_len"], doc_stride=self.seq["stride"],
                        max_question_len=self.seq["max_query_tokens"])
        timings["pipeline"] = _ms(t0)
        out = out if isinstance(out, list) else [out]
        return [{"text": a["answer"], "score": round(float(a["score"]), 6), "start": a["start"], "end": a["end"]}
                for a in out]


def load(model_dir: str, sequence: dict, threads: int) -> tuple[object, dict]:
    """The QA callable for ``model_dir`` and the load timings (imports, tokenizer, model)."""
    timings = {}
    t0 = time.perf_counter()
    import torch
    from transformers import AutoModelForQuestionAnswering, AutoTokenizer

    use_pipeline = has_qa_pipeline()
    timings["imports_ms"] = _ms(t0)
    torch.set_num_threads(threads)
    t0 = time.perf_counter()
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    timings["tokenizer_ms"] = _ms(t0)
    t0 = time.perf_counter()
    model = AutoModelForQuestionAnswering.from_pretrained(model_dir).eval()
    if use_pipeline:
        from transformers import pipeline

        qa = PipelineQA(pipeline("question-answering", model=model, tokenizer=tokenizer, device=-1), sequence)
    else:
        qa = ManualQA(tokenizer, torch_forward(model), sequence,
                      "transformers 5 equivalent of pipeline('question-answering')")
    timings["model_ms"] = _ms(t0)
    return qa, timings


def load_onnx(artifact_dir: str, sequence: dict, threads: int) -> tuple[ManualQA, dict]:
    """The pipeline's steps around an ONNX Runtime session of the artifact's graph (as Optimum's
    ``ORTModelForQuestionAnswering`` creates it: default session options, ``threads`` intra-op threads as
    every contender has), with a transformers tokenizer of the artifact's ``tokenizer.json``; load timings."""
    from function.model.artifact import load_manifest

    timings = {}
    manifest = load_manifest(Path(artifact_dir))
    t0 = time.perf_counter()
    import onnxruntime as ort
    from tokenizers.processors import TemplateProcessing
    from transformers import PreTrainedTokenizerFast

    timings["imports_ms"] = _ms(t0)
    t0 = time.perf_counter()
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=str(manifest.tokenizer_path))
    special = manifest.special_tokens
    pad, cls, sep = (tokenizer.convert_ids_to_tokens(special[k]) for k in ("pad", "cls", "sep"))
    tokenizer.pad_token, tokenizer.cls_token, tokenizer.sep_token = pad, cls, sep
    # the artifact's pair layout (function.model.windows), as a hub tokenizer's template would give it
    seps = " ".join([sep] * manifest.pair_seps)
    tokenizer.backend_tokenizer.post_processor = TemplateProcessing(
        single=f"{cls} $A {sep}", pair=f"{cls} $A {seps} $B:1 {sep}:1",
        special_tokens=[(cls, special["cls"]), (sep, special["sep"])])
    timings["tokenizer_ms"] = _ms(t0)
    t0 = time.perf_counter()
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(str(manifest.model_path), options, providers=["CPUExecutionProvider"])
    timings["model_ms"] = _ms(t0)
    return ManualQA(tokenizer, onnx_forward(session), sequence,
                    "transformers' pipeline('question-answering') steps around an ONNX Runtime session"), timings
