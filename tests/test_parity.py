"""The function's code path gives the same answers as a straightforward reference implementation.

Reference: the transformers tokenizer's own question/context pair encoding with
overflowing windows (``truncation="only_second"``, ``stride``), the PyTorch
model run window by window, and a plain loop over every allowed (start, end)
pair. Function: pre-tokenised passages, ``function.model.windows`` batching, one
ONNX Runtime run, vectorised decoding. Same answers on SQuAD questions means
the build stage's EM/F1 (computed through the function's code) is what the
function serves.
"""

import json

import numpy as np
import pytest

from function.config import Settings
from function.model.reader import shape
from function.service.pipeline import QAService
from function.service.qa_request import QARequest
from function.service.runtime import Runtime
from tests.support.decoding import model_own_span
from tests.support.tiny import SEQUENCE

N_QUESTIONS = 40


def reference_answer(hf_tok, model, question: str, context: str, max_answer_tokens: int) -> tuple[int, int, float]:
    import torch

    enc = hf_tok(question, context, truncation="only_second", max_length=SEQUENCE["max_seq_len"],
                 stride=SEQUENCE["stride"], return_overflowing_tokens=True, return_offsets_mapping=True,
                 return_token_type_ids=True)
    best = (-1, -1, -1.0)
    for w in range(len(enc["input_ids"])):
        ids = torch.tensor([enc["input_ids"][w]])
        with torch.no_grad():
            out = model(input_ids=ids, attention_mask=torch.ones_like(ids),
                        token_type_ids=torch.tensor([enc["token_type_ids"][w]]))
        seq_ids = enc.sequence_ids(w)
        ctx = [i for i, s in enumerate(seq_ids) if s == 1]
        allowed = [0] + ctx  # [CLS] and the passage tokens
        start = out.start_logits[0].double().numpy()
        end = out.end_logits[0].double().numpy()
        p_start = np.exp(start[allowed] - np.logaddexp.reduce(start[allowed]))
        p_end = np.exp(end[allowed] - np.logaddexp.reduce(end[allowed]))
        offsets = enc["offset_mapping"][w]
        for a, i in enumerate(ctx):
            for b, j in enumerate(ctx):
                if i <= j < i + max_answer_tokens:
                    score = p_start[1 + a] * p_end[1 + b]
                    if score > best[2]:
                        best = (offsets[i][0], offsets[j][1], score)
    return best


@pytest.fixture(scope="module")
def questions(repo):
    data = json.loads((repo / "samples" / "squad_sample.json").read_text())["data"]
    qs = [(qa["question"], p["context"]) for a in data for p in a["paragraphs"] for qa in p["qas"]]
    # A spread of paragraphs, long ones included so that several windows are compared.
    qs.sort(key=lambda q: -len(q[1]))
    return qs[:10] + qs[10::len(qs) // (N_QUESTIONS - 10)][: N_QUESTIONS - 10]


def test_function_answers_equal_the_reference_implementation(tiny_artifact, questions, tmp_path, monkeypatch):
    from transformers import BertTokenizerFast

    # the reference decodes the model's own best span; ours then weighs the question's words in each span's
    # sentence (function.model.sentence, tested in tests/test_sentence.py): off here
    model_own_span(monkeypatch)

    assert not tiny_artifact.model.training  # exporting must not switch dropout back on

    hf_tok = BertTokenizerFast(tokenizer_file=str(tiny_artifact.tokenizer_file))
    settings = Settings.from_env({"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_CACHE": "0",
                                  "QA_SQLITE_PATH": str(tmp_path / "unused.sqlite")})
    service = QAService(Runtime(settings))
    multi_window = 0
    for question, context in questions:
        got = service.answer(QARequest(question, context, None, top_k=1, max_answer_tokens=30))
        [a] = got.payload["answers"]
        start, end, score = reference_answer(hf_tok, tiny_artifact.model, question, context, 30)
        start, end = shape(context, start, end, question)  # the reference's span as the reader shapes an answer
        assert (a["start"], a["end"]) == (start, end), question
        assert a["text"] == context[start:end]
        assert a["score"] == pytest.approx(score, rel=1e-3, abs=1e-6)
        multi_window += len(hf_tok(question, context, truncation="only_second", max_length=SEQUENCE["max_seq_len"],
                                   stride=SEQUENCE["stride"], return_overflowing_tokens=True)["input_ids"]) > 1
        assert hf_tok(question, context)["input_ids"][0] == hf_tok.cls_token_id  # pair layout, not raw
    assert multi_window >= 10  # the comparison covered passages split into several windows
