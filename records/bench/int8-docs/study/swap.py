"""swap.py bench-args...: `python -m bench ...` with the reader's ONNX graph replaced by SWAP_MODEL (same inputs and
outputs); everything else (tokenizer, manifest, thresholds) is the artifact's."""
import os, runpy, sys
sys.path.insert(0, "/work/main")
from function.model import onnx_model

orig_init = onnx_model.OnnxQAModel.__init__

def init(self, path, threads, optimized=False):
    orig_init(self, os.environ["SWAP_MODEL"], threads, False)

onnx_model.OnnxQAModel.__init__ = init
sys.argv = ["bench"] + sys.argv[1:]
runpy.run_module("bench", run_name="__main__")
