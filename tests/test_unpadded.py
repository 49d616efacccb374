"""Windows run at their own lengths give the answers one padded run gives, on every path and in every mode."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest

from bench.in_process import ingest_into, open_service
from function.http.parse import parse
from function.model.artifact import load_manifest
from function.model.load import load_model
from function.model.reader import PassageTokens, prepare
from function.model.unpadded import gather, longest_first, run_unpadded, spreads, window_batches
from function.model.windows import Batch, WindowSpec, build_batch
from tests.support.tiny import SAMPLE, sample_records, set_no_answer

SPEC = WindowSpec(max_seq_len=16, stride=3, max_query_tokens=5, cls_id=101, sep_id=102, pad_id=0)


def test_each_window_is_cut_to_its_own_width_and_its_logits_go_back_to_its_row():
    b = build_batch([11, 12], [np.arange(1000, 1025), np.array([7, 8])], SPEC)  # windows of 11, 11, 9, 2 tokens
    parts = window_batches(b)
    assert [p.input_ids.shape for p in parts] == [(1, 16), (1, 16), (1, 14), (1, 7)]
    for w, p in enumerate(parts):
        width = p.input_ids.shape[1]
        assert p.input_ids[0].tolist() == b.input_ids[w, :width].tolist()
        assert p.attention_mask.all() and p.input_ids[0, -1] == SPEC.sep_id
        assert (p.passage_index[0], p.token_start[0], p.context_len[0]) == \
               (b.passage_index[w], b.token_start[w], b.context_len[w])
    logits = [(np.full((1, p.input_ids.shape[1]), w, np.float32), -np.ones((1, p.input_ids.shape[1]), np.float32))
              for w, p in enumerate(parts)]
    start, end = gather(b, logits)
    assert start.shape == end.shape == b.input_ids.shape
    assert start[3, :7].tolist() == [3] * 7 and np.isneginf(start[3, 7:]).all() and (end[2, :14] == -1).all()


def test_windows_go_longest_first_and_come_back_in_their_order():
    b = build_batch([11, 12], [np.array([7, 8]), np.arange(1000, 1025)], SPEC)  # 2, 11, 11, 9 tokens
    assert longest_first(b) == [1, 2, 3, 0]
    seen = []

    def infer(batch):
        seen.append(int(batch.context_len[0]))
        return batch.input_ids.astype(np.float32), batch.input_ids.astype(np.float32)

    start, _ = run_unpadded(infer, b)
    assert seen == [11, 11, 9, 2]
    for w in range(len(b)):
        width = b.context_start + int(b.context_len[w]) + 1
        assert start[w, :width].tolist() == b.input_ids[w, :width].tolist()


def test_a_window_cut_out_of_a_wider_batch_runs_at_its_own_width():
    b = build_batch([11, 12], [np.arange(1000, 1025), np.array([7, 8])], SPEC)
    last = Batch(b.input_ids[3:], b.attention_mask[3:], b.token_type_ids[3:], b.passage_index[3:],
                 b.token_start[3:], b.context_len[3:], b.context_start)  # 2 passage tokens in 16 positions
    widths = []

    def infer(batch):
        widths.append(batch.input_ids.shape[1])
        return batch.input_ids.astype(np.float32), batch.input_ids.astype(np.float32)

    start, _ = run_unpadded(infer, last)
    assert widths == [7] and start.shape == (1, 16) and start[0, :7].tolist() == b.input_ids[3, :7].tolist()


def test_a_spread_is_chosen_only_where_it_finishes_before_the_windows_one_after_another():
    def batch(*lengths):
        return build_batch([11], [np.arange(n) + 1000 for n in lengths], SPEC)

    assert not spreads(batch(12), 2, 1.7)  # one window: nothing to spread
    assert not spreads(batch(12, 12), 1, 1.7)  # one worker
    assert spreads(batch(12, 12), 2, 1.7)  # two equal windows: each on a core
    assert spreads(batch(10, 9, 8, 3, 2), 2, 1.7)  # passages of many lengths, as a question asked alone reads
    assert not spreads(batch(12, 1), 2, 1.7)  # a long window and a short one: the long one alone takes longer
    assert spreads(batch(12, 1), 2, 1.0)  # ... unless more threads on one window gain nothing


def test_the_tiny_model_s_logits_alone_are_the_padded_ones_on_every_position_decoding_reads(tiny_artifact):
    model = load_model(load_manifest(tiny_artifact.folder), threads=1)[0]
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))["data"]
    texts = [p["context"] for p in data[0]["paragraphs"][:4]]
    encs = [model.tokenizer.encode(t) for t in texts]
    batch = prepare(model.tokenizer.encode("Who ruled Normandy?").ids,
                    [PassageTokens(e.ids, e.offsets) for e in encs], model.spec)
    assert len(set(batch.context_len.tolist())) > 2  # windows of several lengths: padding to take away
    padded, alone = model.infer(batch), run_unpadded(model.infer, batch)
    for p, a in zip(padded, alone):
        for w in range(len(batch)):
            width = batch.context_start + int(batch.context_len[w]) + 1
            np.testing.assert_allclose(a[w, :width], p[w, :width], atol=1e-4)


# -- the service: the three paths, abstention, the modes ----------------------------------------------------


@pytest.fixture(scope="module")
def abstaining_artifact(tiny_artifact, tmp_path_factory):
    """The tiny artifact with a no-answer threshold between its margins on the sample questions: some abstain."""
    import shutil

    folder = tmp_path_factory.mktemp("abstaining") / "artifact"
    shutil.copytree(tiny_artifact.folder, folder)
    return set_no_answer(folder, 0.0)


@pytest.fixture(scope="module")
def records():
    return sample_records()


@pytest.fixture(scope="module")
def questions(records):
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))["data"]
    pairs = [(qa["question"], r) for a in data for p in a["paragraphs"] for qa in p["qas"]
             for r in records if r.text == p["context"]]
    return pairs[::9][:12]


def services(folder, tmp_path, records, mode="adaptive"):
    env = {"QA_ARTIFACT_DIR": str(folder), "QA_CACHE": "0", "QA_STORE": "sqlite",
           "QA_SQLITE_PATH": str(tmp_path / "p.sqlite"), "QA_INFERENCE_MODE": mode,
           "QA_INFERENCE_CONCURRENCY": "2", "QA_THREADS": "2", "QA_SPREAD_WINDOWS": "1"}
    padded, unpadded = open_service(env), open_service(env)
    padded.rt.inference.padded = True
    ingest_into(padded, records)
    return padded, unpadded


def bodies(questions):
    out = []
    for question, record in questions:
        out += [{"question": question, "context": record.text, "top_k": 3},
                {"question": question, "passage_ids": [record.id], "top_k": 3},
                {"question": question, "top_k": 3},
                {"question": question, "top_k": 3, "abstain": False}]
    return out


def assert_same_reply(got: dict, want: dict):
    assert [(a["text"], a["start"], a["end"], a.get("passage_id")) for a in got["answers"]] == \
           [(a["text"], a["start"], a["end"], a.get("passage_id")) for a in want["answers"]]
    assert [a["score"] for a in got["answers"]] == pytest.approx([a["score"] for a in want["answers"]], abs=1e-4)
    assert got["no_answer"]["abstained"] == want["no_answer"]["abstained"]
    assert got["no_answer"]["probability"] == pytest.approx(want["no_answer"]["probability"], abs=1e-4)


def test_unpadded_answers_are_the_padded_ones_on_every_path_abstaining_or_not(abstaining_artifact, tmp_path,
                                                                              records, questions):
    padded, unpadded = services(abstaining_artifact, tmp_path, records)
    abstained = answered = 0
    for body in bodies(questions):
        req = parse(json.dumps(body).encode(), padded.rt.settings, 30)
        want, got = padded.answer(req).payload, unpadded.answer(req).payload
        assert_same_reply(got, want)
        abstained += want["no_answer"]["abstained"]
        answered += bool(want["answers"])
    assert abstained and answered  # both decisions were met
    inference = unpadded.rt.inference
    assert inference.spread_runs and inference.wide_runs  # alone: spread over the cores, or one after another
    assert padded.rt.inference.spread_runs == 0 and padded.rt.inference.describe()["windows"] == "padded"


@pytest.mark.parametrize("mode", ["serial", "parallel", "pool", "adaptive"])
def test_concurrent_unpadded_requests_get_the_padded_answers_in_every_mode(abstaining_artifact, tmp_path, records,
                                                                           questions, mode):
    padded, unpadded = services(abstaining_artifact, tmp_path, records, mode)
    reqs = [parse(json.dumps(b).encode(), padded.rt.settings, 30) for b in bodies(questions[:6])]
    expected = [padded.answer(r).payload for r in reqs]
    got: list = [None] * len(reqs)

    def ask(i):
        got[i] = unpadded.answer(reqs[i]).payload

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(reqs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    for g, want in zip(got, expected, strict=True):
        assert_same_reply(g, want)


def test_a_lone_request_spreads_its_windows_only_when_asked_in_adaptive_mode_with_runs_beside_it_allowed(
        tiny_artifact):
    env = {"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_THREADS": "2"}
    for mode, concurrency, asked, spread in (("adaptive", "2", "1", True), ("adaptive", "2", None, False),
                                             ("adaptive", "2", "0", False), ("adaptive", "1", "1", False),
                                             ("serial", "1", "1", False)):
        svc = open_service({**env, "QA_INFERENCE_MODE": mode, "QA_INFERENCE_CONCURRENCY": concurrency,
                            **({} if asked is None else {"QA_SPREAD_WINDOWS": asked})})
        model = svc.rt.model()
        enc = model.tokenizer.encode(" ".join(["The Normans gave their name to Normandy, a region in France."] * 8))
        batch = prepare(model.tokenizer.encode("Who?").ids, [PassageTokens(enc.ids, enc.offsets)] * 2, model.spec)
        svc.rt.inference.run(model, batch)
        assert (svc.rt.inference.spread_runs == 1) is spread
