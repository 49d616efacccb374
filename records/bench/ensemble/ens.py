"""Study: two readers' logits averaged (ENS_MODEL: the second graph; ENS_W: its weight), run as `python -m bench ...`."""
import os, runpy, sys
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[3]))
import numpy as np
from function.model import onnx_model

second = os.environ["ENS_MODEL"]; w = float(os.environ.get("ENS_W", "0.5"))
orig_init, orig_call = onnx_model.OnnxQAModel.__init__, onnx_model.OnnxQAModel.__call__

def init(self, path, threads, optimized=False):
    orig_init(self, path, threads, optimized)
    import onnxruntime as ort
    self.second = ort.InferenceSession(second, onnx_model.session_options(threads, False), providers=["CPUExecutionProvider"])
    self.second_names = [i.name for i in self.second.get_inputs()]

def call(self, batch):
    s1, e1 = orig_call(self, batch)
    feed = {n: getattr(batch, n) for n in self.second_names}
    s2, e2 = self.second.run(["start_logits", "end_logits"], feed)
    return (1 - w) * s1 + w * s2, (1 - w) * e1 + w * e2

onnx_model.OnnxQAModel.__init__, onnx_model.OnnxQAModel.__call__ = init, call
sys.argv = ["bench"] + sys.argv[1:]
runpy.run_module("bench", run_name="__main__")
