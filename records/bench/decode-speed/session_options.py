"""One window's run time with the function's session options and with ONNX Runtime's defaults (the peer's).

    for k in ours default; do python records/bench/decode-speed/session_options.py $k 124; done

``ours``: ``function.model.onnx_model.session_options`` (2 threads, arena off, basic graph passes on the
offline-optimised graph); ``arena``: the same with the memory arena and pattern on; ``all``: with every graph
pass; ``default``: ``SessionOptions()`` with 2 intra-op threads. 200 timed runs of the shipped model after 20,
4 ms apart (a request's gap, so the threads' spinning ends as between requests); prints the median in ms.
"""

import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
from function.model.onnx_model import session_options  # noqa: E402

kind, length = sys.argv[1], int(sys.argv[2])
options = session_options(2, optimized=True)
if kind == "arena":
    options.enable_cpu_mem_arena = True
    options.enable_mem_pattern = True
elif kind == "all":
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
elif kind == "default":
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
session = ort.InferenceSession(str(ROOT / "artifact" / "model.onnx"), options, providers=["CPUExecutionProvider"])
rng = np.random.default_rng(0)
feeds = {"input_ids": rng.integers(1000, 5000, (1, length)).astype(np.int64),
         "attention_mask": np.ones((1, length), np.int64), "token_type_ids": np.zeros((1, length), np.int64)}
times = []
for _ in range(220):
    t0 = time.perf_counter()
    session.run(["start_logits", "end_logits"], feeds)
    times.append(time.perf_counter() - t0)
    time.sleep(0.004)
print(kind, length, round(1000 * float(np.median(times[20:])), 2))
