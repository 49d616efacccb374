"""Any extractive-QA architecture, taken as given, is packaged and served with the answers of a plain reference.

For each architecture in ``tests.support.tiny_arch.ARCHITECTURES`` a tiny random
model folder (its tokenizer trained here, no hub) goes through the build's one
command for a model taken as given (``build_model/configs/given.toml``); the
function then serves the artifact. Its answers must equal those of
``tests.support.reference_qa``, which knows nothing of the function: the
tokenizer's own pair encoding with overflowing windows, a loop over spans. The
questions include passages of several windows and hostile text (accents
composed and decomposed, CJK, emoji, runs of white space, tabs, newlines).

Two comparisons, because the given command ships a dynamically quantised int8
graph whose logits differ from PyTorch's: the shipped artifact against the
reference running that same graph (exact: the serving path), and an fp32 export
made directly with the build's export and artifact-writing code against the
reference running the PyTorch model (exact: export plus serving path).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from function.config import Settings
from function.model.reader import shape
from function.service.pipeline import QAService
from function.service.qa_request import QARequest
from function.service.runtime import Runtime
from tests.support.decoding import model_own_span
from tests.support.reference_qa import encode_windows, onnx_logits, reads_segments, reference_spans
from tests.support.tiny_arch import ARCHITECTURES, ARCHS, HOSTILE_QUESTIONS, HOSTILE_TEXTS, make_tiny_qa_model

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "samples" / "squad_sample.json"
GIVEN_CONFIG = REPO / "build_model" / "configs" / "given.toml"
SEQUENCE = {"max_seq_len": 96, "stride": 32, "max_query_tokens": 32, "max_answer_tokens": 30}
MAX_ANSWER_TOKENS = 30
SCORE = {"rel": 1e-3, "abs": 2e-6}  # the reply rounds scores to 6 decimals
TIE = 1e-5  # spans whose scores are this close (relative) are the same answer to within rounding; int8 ties exactly


# ---- inputs -------------------------------------------------------------------------------------

def _squad() -> list[dict]:
    return json.loads(SAMPLE.read_text(encoding="utf-8"))["data"]


def question_pairs() -> list[tuple[str, str]]:
    """15 (question, context) pairs: the longest sample paragraphs, two joined into one passage of many
    windows, a few short ones, and the hostile texts."""
    qs = [(qa["question"], p["context"]) for a in _squad() for p in a["paragraphs"] for qa in p["qas"]]
    by_length = sorted(qs, key=lambda q: -len(q[1]))
    long_two = by_length[0][1] + "\n\n" + by_length[1][1]
    return ([by_length[0], by_length[5], (by_length[0][0], long_two), by_length[-1], by_length[len(qs) // 2],
             qs[3], qs[40]] + list(HOSTILE_QUESTIONS))


def write_dev_file(path: Path) -> Path:
    """A small SQuAD-format dev set: a few sample paragraphs and the hostile texts (answers located in them)."""
    article = _squad()[0]
    paragraphs = [{"context": p["context"], "qas": p["qas"][:2]} for p in article["paragraphs"][:3]]
    hostile = []
    for n, text in enumerate(HOSTILE_TEXTS):
        answer = next(w for w in text.split() if w.strip(".,;()") and any(c.isdigit() or ord(c) > 127 for c in w))
        hostile.append({"context": text, "qas": [{"id": f"hostile-{n}", "question": f"What is in text {n}?",
                                                   "answers": [{"text": answer, "answer_start": text.index(answer)}]}]})
    data = {"version": "1.1", "data": [{"title": article["title"], "paragraphs": paragraphs},
                                       {"title": "Hostile", "paragraphs": hostile}]}
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


# ---- artifacts ----------------------------------------------------------------------------------

@dataclass
class Built:
    folder: Path  # the model folder taken as given
    artifact: Path
    hf_tok: object
    model: object  # the PyTorch model (eval mode, eager attention)


def build_with_given_command(folder: Path, out: Path, work: Path, dev: Path) -> None:
    """The artifact made by the build's command for a model taken as given, quick settings for a tiny model."""
    from build_model import cli

    overrides = {
        "threads": 1, "given.model": folder, "package.out": out, "data.dev": dev, "work_dir": work,
        "sequence.max_seq_len": SEQUENCE["max_seq_len"], "sequence.stride": SEQUENCE["stride"],
        "sequence.max_query_tokens": SEQUENCE["max_query_tokens"],
        "export.parity_windows": 8, "package.latency_runs": 2, "package.load_runs": 1,
        "quantize.latency_runs": 2, "quantize.per_channel": "[false]", "quantize.reduce_range": "[false]",
        "quantize.op_types": '[["MatMul"]]',
        # a random model's F1 is arbitrary: the int8 gate is not what is tested here
        "quantize.max_f1_drop": 100, "quantize.max_em_drop": 100, "targets.max_int8_f1_drop": 100,
    }
    argv = ["--config", str(GIVEN_CONFIG)]
    for key, value in overrides.items():
        argv += ["--set", f"{key}={value}"]
    assert cli.main(argv) == 0, f"python -m build_model {' '.join(argv)} failed"


def build_directly(folder: Path, out: Path, work: Path, model) -> dict:
    """An fp32 artifact made with the build's export and artifact writer (no given stage): fused where
    ONNX Runtime's BERT fusion keeps the logits, plain otherwise."""
    from build_model.conversion.onnx_export import export_onnx, optimize_bert
    from build_model.packaging.writer import write_artifact

    work.mkdir(parents=True, exist_ok=True)
    onnx_path = work / "model.onnx"
    export_onnx(model, onnx_path, opset=17)
    optimized = False
    try:
        fused = work / "model.opt.onnx"
        optimize_bert(onnx_path, fused, num_heads=model.config.num_attention_heads,
                      hidden_size=model.config.hidden_size)
        optimized = _same_logits(onnx_path, fused)
        if optimized:
            onnx_path = fused
    except Exception as e:  # noqa: BLE001 - report, then ship the unfused graph
        print(f"{folder.name}: no fusion ({type(e).__name__}: {str(e)[:200]})")
    tokenizer_json = (folder / "tokenizer.json").read_text(encoding="utf-8")
    return write_artifact(out, onnx_path, tokenizer_json, f"tiny-{folder.name}", SEQUENCE,
                          extra={"onnx": {"opset": 17, "optimized": optimized}})


def _same_logits(a: Path, b: Path) -> bool:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    sessions = [ort.InferenceSession(str(p), options, providers=["CPUExecutionProvider"]) for p in (a, b)]
    rng = np.random.default_rng(0)
    ids = rng.integers(5, 900, size=(2, 40), dtype=np.int64)
    mask = np.ones_like(ids)
    mask[1, 30:] = 0
    feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": (np.arange(40) >= 12).astype(np.int64)[None]
            .repeat(2, axis=0)}
    outs = [s.run(None, {i.name: feed[i.name] for i in s.get_inputs()})[0] for s in sessions]
    return bool(np.abs(outs[0] - outs[1])[mask.astype(bool)].max() < 1e-3)


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """One intra-op thread for PyTorch and ONNX Runtime: tiny models gain nothing from more, and on a
    busy machine two threads waiting on each other make a forward pass a hundred times slower."""
    import torch

    from build_model.evaluation import benchmark

    before, threads = torch.get_num_threads(), benchmark.THREADS
    torch.set_num_threads(1)
    benchmark.THREADS = 1
    yield
    torch.set_num_threads(before)
    benchmark.THREADS = threads


@pytest.fixture(scope="module")
def dev_file(tmp_path_factory) -> Path:
    return write_dev_file(tmp_path_factory.mktemp("given-dev") / "dev.json")


@pytest.fixture(scope="module")
def given_models(tmp_path_factory):
    """Model folders, made once per architecture for the module."""
    root = tmp_path_factory.mktemp("given-models")
    cache: dict[str, Built] = {}

    def get(arch: str) -> Built:
        if arch not in cache:
            from transformers import AutoModelForQuestionAnswering, AutoTokenizer

            folder = make_tiny_qa_model(arch, root / arch)
            model = AutoModelForQuestionAnswering.from_pretrained(folder, attn_implementation="eager").eval()
            cache[arch] = Built(folder, root / f"{arch}-artifact", AutoTokenizer.from_pretrained(folder), model)
        return cache[arch]

    return get


def serve(artifact: Path, tmp_path: Path) -> QAService:
    settings = Settings.from_env({"QA_ARTIFACT_DIR": str(artifact), "QA_CACHE": "0", "QA_THREADS": "1",
                                  "QA_SQLITE_PATH": str(tmp_path / "unused.sqlite")})
    return QAService(Runtime(settings))


def compare_with_reference(service: QAService, built: Built, logits, segments: bool) -> int:
    """Every question's served answer equals the reference's; returns how many passages took several windows.

    Where two spans tie (an int8 graph's logits take few distinct values) either is accepted: which one
    is first is an accident of the sort, not of the serving path. The reference has no ranking by the question's
    words in each span's sentence (``function.model.sentence``): callers set its weight to 0; its spans are
    compared as the reader shapes an answer (``function.model.reader.shape``: a dotted name whole, ...).
    """
    multi_window = 0
    for question, context in question_pairs():
        # the best span itself, even where the build found that the (random) model may abstain
        got = service.answer(QARequest(question, context, None, top_k=1, max_answer_tokens=MAX_ANSWER_TOKENS,
                                       abstain=False))
        [a] = got.payload["answers"]
        spans = reference_spans(built.hf_tok, logits, question, context, SEQUENCE["max_seq_len"],
                                SEQUENCE["stride"], MAX_ANSWER_TOKENS, segments=segments)
        start, end, score = spans[0]
        tied: dict = {}
        for s, e, p in spans:  # each reference span as the reader shapes an answer (reader.shape)
            if p >= score * (1 - TIE):
                key = shape(context, s, e, question)
                tied[key] = max(p, tied.get(key, 0.0))
        where = f"{built.folder.name}: {question!r} on {context[:40]!r}..."
        assert (a["start"], a["end"]) in tied, f"{where}: served {a}, reference {context[start:end]!r} ({score:.6f})"
        assert a["text"] == context[a["start"] : a["end"]] == context[a["start"] : a["end"]].strip(), where
        assert a["score"] == pytest.approx(tied[a["start"], a["end"]], **SCORE), where
        windows = encode_windows(built.hf_tok, question, context, SEQUENCE["max_seq_len"], SEQUENCE["stride"], False)
        multi_window += len(windows["input_ids"]) > 1
    return multi_window


def check_manifest(artifact: Path, built: Built) -> dict:
    """What serving needs is in the manifest, as the model's own tokenizer says."""
    manifest = json.loads((artifact / "manifest.json").read_text(encoding="utf-8"))
    spec, tok = ARCHS[built.folder.name], built.hf_tok
    assert manifest["special_tokens"] == {"cls": tok.cls_token_id, "sep": tok.sep_token_id, "pad": tok.pad_token_id,
                                          "pair_seps": spec.pair_seps}
    pair = tok("q", "p")["input_ids"]
    assert pair.count(tok.sep_token_id) == spec.pair_seps + 1  # the tokenizer agrees on the layout
    normalizer = tok.backend_tokenizer.normalizer
    folds = normalizer is not None and normalizer.normalize_str("QA") == "qa"
    assert manifest["lowercase"] is spec.uncased is folds
    return manifest


def check_graph_inputs(artifact: Path, manifest: dict, built: Built) -> None:
    import onnxruntime as ort

    names = [i.name for i in ort.InferenceSession(str(artifact / manifest["model_file"]),
                                                   providers=["CPUExecutionProvider"]).get_inputs()]
    expected = ["input_ids", "attention_mask"] + (["token_type_ids"] if ARCHS[built.folder.name].segment_ids else [])
    assert names == expected
    assert reads_segments(built.model) is ARCHS[built.folder.name].segment_ids


# ---- tests --------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_given_command_artifact_serves_the_reference_answers(arch, given_models, dev_file, tmp_path, monkeypatch):
    model_own_span(monkeypatch)  # see compare_with_reference
    built = given_models(arch)
    out = tmp_path / "artifact"
    build_with_given_command(built.folder, out, tmp_path / "work", dev_file)
    manifest = check_manifest(out, built)
    check_graph_inputs(out, manifest, built)
    assert isinstance(manifest["no_answer"]["supported"], bool)  # measured at build time, for any model

    # the reference runs the shipped int8 graph itself, on transformers' windows, each at its own length as the
    # function runs them (function.model.unpadded: an int8 graph's activation scale is taken over a whole run)
    logits, segments = onnx_logits(out / manifest["model_file"])
    multi_window = compare_with_reference(serve(out, tmp_path), built, logits, segments)
    assert multi_window >= 3  # passages of several windows were compared


@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_fp32_export_serves_the_pytorch_models_answers(arch, given_models, tmp_path, monkeypatch):
    model_own_span(monkeypatch)  # see compare_with_reference
    built = given_models(arch)
    out = tmp_path / "artifact"
    manifest = build_directly(built.folder, out, tmp_path / "work", built.model)
    check_manifest(out, built)
    check_graph_inputs(out, manifest, built)
    assert not built.model.training  # exporting must not switch dropout back on

    multi_window = compare_with_reference(serve(out, tmp_path), built, built.model, reads_segments(built.model))
    assert multi_window >= 3
