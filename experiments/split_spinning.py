"""Where the split's extra model time goes: ONNX Runtime's spinning intra-op threads (2026-11-25).

    .venv/bin/python -m experiments.split_spinning   # needs build/split-k2/model (experiments/split_variants.sh)

A split request runs two sessions one after the other (the lower graph on the question, the upper graph on
the windows); with the function's session options each session's threads spin after their work and take
the cores the next session needs. The same requests as ``experiments.split_pareto`` (60 dev questions, a
stored passage and the question alone, int8 states) with spinning on and off (``session.intra_op.
allow_spinning``), beside the whole model, 7 alternating rounds. Prints ms per request and the ratio to
the whole model with the function's options.
"""
import dataclasses
import tempfile
from pathlib import Path

import onnxruntime as ort

from build_model import hf
from build_model.conversion.split_export import STATE_FORMATS, SplitOnnx, build_split_int8
from build_model.training.split import SplitQA
from experiments.split_pareto import Reader, corpus, stored_requests, timed, whole_requests
from function.model.artifact import load_manifest
from function.model.load import window_spec
from function.model.onnx_model import OnnxQAModel, session_options
from function.model.tokenizer import QATokenizer
from harness.paths import SQUAD

m = load_manifest(Path("artifact").resolve())
tok = QATokenizer(m.tokenizer_path)
spec = window_spec(m)
fixed = dataclasses.replace(spec, question_budget=64)
questions, texts, ranked = corpus(SQUAD, Path("artifact").resolve(), 60, 5)
q_ids = tok.encode_many([q["question"] for q in questions])
split = SplitQA(hf.load_qa_model("build/split-k2/model", attn="eager").eval(), 2)
g = build_split_int8(split, m.raw["quantization"], 17, Path(tempfile.mkdtemp()))
fmt = STATE_FORMATS["int8"]

def batches(s, lists):
    r = Reader(tok, s, None, 30)
    return [r.batch(q_ids[i].ids, texts, lists[i])[0] for i in range(len(questions))]

def no_spin(_model):
    """The function's session options, with the intra-op threads sleeping when they run out of work."""
    so = session_options(2, optimized=True)
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return so

whole = OnnxQAModel(m.model_path, 2, optimized=True)
split_spin = SplitOnnx(g["lower"]["int8"], g["upper"]["int8"], 2, fmt)
split_nospin = SplitOnnx(g["lower"]["int8"], g["upper"]["int8"], 2, fmt)
split_nospin.lower = ort.InferenceSession(str(g["lower"]["int8"]), no_spin(None), providers=["CPUExecutionProvider"])
split_nospin.upper = ort.InferenceSession(str(g["upper"]["int8"]), no_spin(None), providers=["CPUExecutionProvider"])
whole_nospin = OnnxQAModel(m.model_path, 2, optimized=True)
whole_nospin.session = ort.InferenceSession(str(m.model_path), no_spin(None), providers=["CPUExecutionProvider"])
# the upper graph alone on the stored windows: what 4 of 6 layers cost
for name, lists in (("stored passage", [[q["gold"]] for q in questions]), ("question alone", ranked)):
    wb, fb = batches(spec, lists), batches(fixed, lists)
    runs = {"whole": whole_requests(whole, wb), "whole no-spin": whole_requests(whole_nospin, wb),
            "whole on fixed windows": whole_requests(whole, fb),
            "split": stored_requests(split_spin, fmt, fb), "split no-spin": stored_requests(split_nospin, fmt, fb)}
    ms = timed(runs, 7)
    base = ms["whole"]
    print(name, {k: f"{v/len(wb):.2f} ms ({v/base:.2f}x)" for k, v in ms.items()}, flush=True)
