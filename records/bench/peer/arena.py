"""Does ONNX Runtime's memory arena (on in the peer's session, off in ours) change one window's run time?

The shipped graph on the function's session options with the arena off, on, and on with memory patterns;
6 rotating blocks of 25 runs per variant and length (the first 3 of each block unrecorded: another
session's spinning threads slow the next run), medians. From the repository root:
``python records/bench/peer/arena.py`` (output: arena.txt beside it).
"""

import statistics
import time

import numpy as np
import onnxruntime as ort

from function.model.artifact import load_manifest
from function.model.onnx_model import session_options

manifest = load_manifest("artifact")


def session(arena: bool, pattern: bool) -> ort.InferenceSession:
    so = session_options(2, manifest.graph_optimized)
    so.enable_cpu_mem_arena = arena
    so.enable_mem_pattern = pattern
    return ort.InferenceSession(str(manifest.model_path), so, providers=["CPUExecutionProvider"])


variants = {"off": session(False, False), "arena": session(True, False), "arena+pattern": session(True, True)}
rng = np.random.default_rng(0)
for n in (124, 256, 384):
    inputs = {"input_ids": rng.integers(1000, 20000, (1, n)).astype(np.int64),
              "attention_mask": np.ones((1, n), np.int64), "token_type_ids": np.zeros((1, n), np.int64)}
    feed = {i.name: inputs[i.name] for i in variants["off"].get_inputs()}
    times: dict = {k: [] for k in variants}
    for b in range(6):
        for k in list(variants)[b % 3:] + list(variants)[:b % 3]:
            time.sleep(0.05)
            for j in range(25):
                t0 = time.perf_counter()
                variants[k].run(None, feed)
                if j >= 3:
                    times[k].append((time.perf_counter() - t0) * 1000)
    print(n, {k: round(statistics.median(v), 2) for k, v in times.items()}, flush=True)
