"""Micro-batching and the other inference modes: every request gets its own answer, error and timings."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest

from function.config import Settings
from function.http.parse import parse
from function.model.artifact import load_manifest
from function.model.load import load_model
from function.model.reader import PassageTokens, answers_from_logits, prepare
from function.service.batcher import MicroBatcher, concat_batches, split_logits
from function.service.pipeline import QAService
from function.service.runtime import Runtime
from tests.support.tiny import SAMPLE


@pytest.fixture(scope="module")
def model(tiny_artifact):
    return load_model(load_manifest(tiny_artifact.folder), threads=1)[0]


@pytest.fixture(scope="module")
def asks():
    """(question, context) pairs: questions of different lengths, passages of one to several windows."""
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))["data"]
    pairs = [(qa["question"], p["context"]) for a in data for p in a["paragraphs"] for qa in p["qas"]]
    picked = pairs[::7][:10]
    picked.append(("Who?", pairs[0][1][:60]))  # a short question on a short passage: a narrow batch
    return picked


def batch_of(model, question: str, context: str):
    q = model.tokenizer.encode(question).ids
    enc = model.tokenizer.encode(context)
    passages = [PassageTokens(enc.ids, enc.offsets)]
    return prepare(q, passages, model.spec), passages, context


def answers(model, batch, passages, text, logits):
    found = answers_from_logits(logits[0], logits[1], batch, passages, 3, 30, texts=[text])
    return [(a.start, a.end) for a in found], [a.score for a in found]


def test_concat_keeps_each_batch_s_rows_and_pads_only_the_sequence_axis(model, asks):
    made = [batch_of(model, q, c)[0] for q, c in asks[:3] + asks[-1:]]
    assert len({b.context_start for b in made}) > 1 and len({b.input_ids.shape[1] for b in made}) > 1
    stacked, slices = concat_batches(made, model.spec.pad_id)
    width = max(b.input_ids.shape[1] for b in made)
    assert stacked.input_ids.shape == (sum(len(b) for b in made), width)
    for b, rows in zip(made, slices, strict=True):
        w = b.input_ids.shape[1]
        for name in ("input_ids", "attention_mask", "token_type_ids"):
            assert np.array_equal(getattr(stacked, name)[rows, :w], getattr(b, name))
        assert (stacked.input_ids[rows, w:] == model.spec.pad_id).all()
        assert (stacked.attention_mask[rows, w:] == 0).all() and (stacked.token_type_ids[rows, w:] == 0).all()
        assert np.array_equal(stacked.passage_index[rows], b.passage_index)
    start = np.arange(stacked.input_ids.size, dtype=np.float32).reshape(stacked.input_ids.shape)
    for b, (s, e), rows in zip(made, split_logits(start, -start, made, slices), slices, strict=True):
        assert s.shape == b.input_ids.shape and np.array_equal(s, start[rows, : b.input_ids.shape[1]])
        assert np.array_equal(e, -s)


class Gate:
    """The model, whose first run waits until ``expected`` more requests are waiting in the batcher."""

    def __init__(self, model, expected: int, fail_run: int | None = None):
        self.model, self.expected, self.fail_run = model, expected, fail_run
        self.batcher: MicroBatcher | None = None
        self.sizes: list[int] = []

    def __call__(self, batch):
        self.sizes.append(len(batch))
        if len(self.sizes) == 1:
            deadline = time.monotonic() + 60
            while len(self.batcher._waiting) < self.expected and time.monotonic() < deadline:
                time.sleep(0.002)
        if self.fail_run == len(self.sizes):
            raise RuntimeError("the model run failed")
        return self.model.infer(batch)


def submit_all(batcher, batches):
    """``batcher.run`` of each batch on a thread of its own, the first one first; outcomes or exceptions."""
    results: list = [None] * len(batches)

    def go(i):
        try:
            results[i] = batcher.run(batches[i])
        except Exception as e:  # noqa: BLE001 - the test looks at it
            results[i] = e

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(batches))]
    threads[0].start()
    while batcher.runs == 0 and not batcher._busy:
        time.sleep(0.001)
    for t in threads[1:]:
        t.start()
    for t in threads:
        t.join(120)
    return results


def test_requests_batched_together_get_the_answers_they_get_alone(model, asks):
    made = [batch_of(model, q, c) for q, c in asks]
    assert any(len(b) > 1 for b, _, _ in made)  # multi-window passages among them
    gate = Gate(model, expected=len(made) - 1)
    batcher = gate.batcher = MicroBatcher(gate, model.spec.pad_id, max_windows=1000, width_ratio=100)
    outcomes = submit_all(batcher, [b for b, _, _ in made])
    assert batcher.runs == 2 and gate.sizes == [len(made[0][0]), sum(len(b) for b, _, _ in made[1:])]
    for (b, passages, text), out in zip(made, outcomes, strict=True):
        alone = model.infer(b)
        assert out.start_logits.shape == alone[0].shape
        np.testing.assert_allclose(out.start_logits, alone[0], rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(out.end_logits, alone[1], rtol=1e-4, atol=1e-4)
        spans, scores = answers(model, b, passages, text, (out.start_logits, out.end_logits))
        spans_alone, scores_alone = answers(model, b, passages, text, alone)
        assert spans == spans_alone and scores == pytest.approx(scores_alone, rel=1e-3, abs=1e-6)
    assert [o.batch_requests for o in outcomes[1:]] == [len(made) - 1] * (len(made) - 1)
    assert all(o.queue_ms >= 0 and o.run_ms > 0 for o in outcomes)


def test_an_error_reaches_every_request_of_its_run_and_no_later_one(model, asks):
    made = [batch_of(model, q, c)[0] for q, c in asks[:4]]
    gate = Gate(model, expected=3, fail_run=2)
    batcher = gate.batcher = MicroBatcher(gate, model.spec.pad_id, max_windows=1000, width_ratio=100)
    outcomes = submit_all(batcher, made)
    assert not isinstance(outcomes[0], Exception)
    assert all(isinstance(o, RuntimeError) and "failed" in str(o) for o in outcomes[1:])
    later = batcher.run(made[1])  # the next run is fine
    np.testing.assert_allclose(later.start_logits, model.infer(made[1])[0], rtol=1e-4, atol=1e-4)


def test_a_run_holds_at_most_max_windows_and_similar_widths(model, asks):
    made = [batch_of(model, q, c)[0] for q, c in asks]
    limit = max(len(b) for b in made)
    gate = Gate(model, expected=len(made) - 1)
    batcher = gate.batcher = MicroBatcher(gate, model.spec.pad_id, max_windows=limit, width_ratio=1.2)
    outcomes = submit_all(batcher, made)
    assert all(not isinstance(o, Exception) for o in outcomes)
    assert max(gate.sizes) <= limit and batcher.runs == len(gate.sizes) >= 3
    widths = [b.input_ids.shape[1] for b in made]
    assert max(widths[:-1]) > 1.2 * widths[-1]  # the short question on a short passage is narrower than all
    assert outcomes[-1].batch_requests == 1  # so it ran alone


def test_alone_with_no_wait_a_request_runs_at_once(model, asks):
    class NoWait(threading.Condition):
        def wait(self, timeout=None):
            raise AssertionError("a lone request waited")

    batcher = MicroBatcher(model.infer, model.spec.pad_id, wait_ms=0)
    batcher._cond = NoWait()
    b = batch_of(model, *asks[0])[0]
    out = batcher.run(b)
    assert out.batch_requests == 1 and batcher.runs == 1
    np.testing.assert_allclose(out.start_logits, model.infer(b)[0], rtol=1e-4, atol=1e-4)


def test_the_bounded_wait_collects_requests_and_ends_when_the_batch_is_full(model, asks):
    one = batch_of(model, *asks[1])[0]
    waited = MicroBatcher(model.infer, model.spec.pad_id, wait_ms=150).run(one)
    assert waited.queue_ms >= 140 and waited.batch_requests == 1  # it waited, then ran alone
    # Two requests and room for exactly their windows: the second fills the batch and ends the wait.
    batcher = MicroBatcher(model.infer, model.spec.pad_id, max_windows=2 * len(one), wait_ms=1000, width_ratio=100)
    results = []
    threads = [threading.Thread(target=lambda: results.append(batcher.run(one))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert batcher.runs == 1 and [r.batch_requests for r in results] == [2, 2]


@pytest.mark.parametrize("mode", ["batch", "parallel", "pool", "adaptive", "adaptive one session"])
def test_every_mode_answers_concurrent_requests_as_serial_does(tiny_artifact, asks, mode):
    def service(extra):
        env = {"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_CACHE": "0", "QA_INFERENCE_CONCURRENCY": "3",
               **extra}
        return QAService(Runtime(Settings.from_env(env)))

    second = {"QA_SECOND_SESSION": "0" if mode.endswith("one session") else "1"}
    serial = service({"QA_INFERENCE_MODE": "serial"})
    other = service({"QA_INFERENCE_MODE": mode.split()[0], **second})
    reqs = [parse(json.dumps({"question": q, "context": c, "top_k": 3}).encode(), serial.rt.settings, 30)
            for q, c in asks] * 2
    expected = [serial.answer(r).payload for r in reqs]
    got: list = [None] * len(reqs)

    def ask(i):
        got[i] = other.answer(reqs[i])

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(reqs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    for want, result in zip(expected, got, strict=True):
        assert [(a["start"], a["end"], a["text"]) for a in result.payload["answers"]] == \
               [(a["start"], a["end"], a["text"]) for a in want["answers"]]
        assert [a["score"] for a in result.payload["answers"]] == \
               pytest.approx([a["score"] for a in want["answers"]], rel=1e-3, abs=1e-5)
        assert list(result.timings_ms) == ["tokenize", "fetch", "queue", "inference", "postprocess", "total"]
    if mode == "pool":
        assert len(other.rt.model().infer) == 3


@pytest.mark.parametrize("second", [True, False])
def test_adaptive_runs_a_lone_request_wide_and_one_beside_it_narrow(tiny_artifact, asks, second):
    rt = Runtime(Settings.from_env({"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_INFERENCE_MODE": "adaptive",
                                    "QA_INFERENCE_CONCURRENCY": "2", "QA_THREADS": "2",
                                    "QA_SECOND_SESSION": "1" if second else "0"}))
    model, inference = rt.model(), rt.inference
    b = batch_of(model, *asks[0])[0]
    inference.run(model, b)
    assert (inference.wide_runs, inference.narrow_runs) == (1, 0)  # alone: every thread
    # nothing loaded beyond the model's own session until a run beside another wants it
    assert inference.describe()["sessions"] == 1 and inference.narrow_load_ms is None
    with inference._lock:
        first_beside = inference._beside(model)  # starts the second session's load (in the background)
    if not second:
        assert first_beside is model.infer  # QA_SECOND_SESSION=0: the wide one, never another
    deadline = time.monotonic() + 60
    while second and inference.narrow_load_ms is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert inference.describe()["sessions"] == (2 if second else 1)
    with inference._lock:
        assert (inference._beside(model) is model.infer) is not second
    entered, release = threading.Event(), threading.Event()
    wide = model.infer

    class Held:
        def __init__(self):
            self.input_names = wide.input_names

        def __call__(self, batch):
            if not entered.is_set():  # the first run's first window holds; every other call runs at once (with
                entered.set()  # QA_SECOND_SESSION=0 the run beside it comes here too, and used to wait out the
                release.wait(60)  # 60 s a window: 180 s of the suite's 16 minutes)
            return wide(batch)

    model.infer = Held()
    try:
        first = threading.Thread(target=inference.run, args=(model, b))
        first.start()
        assert entered.wait(60)
        beside = inference.run(model, b)  # while the wide run is held: the 1-thread session (or the wide one)
        release.set()
        first.join(60)
    finally:
        model.infer = wide
    assert (inference.wide_runs, inference.narrow_runs) == (2, 1)
    padded = wide(b)[0]
    for w in range(len(b)):  # each window's own positions: unpadded runs leave the rest -inf
        width = b.context_start + int(b.context_len[w]) + 1
        np.testing.assert_allclose(beside.start_logits[w, :width], padded[w, :width], rtol=1e-4, atol=1e-4)
