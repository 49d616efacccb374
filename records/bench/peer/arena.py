"""Does ONNX Runtime's memory arena (on in the peer's session, off in ours) change one window's run time? The shipped
graph on the function's session options, arena off / on / on with memory patterns, 6 rotating blocks of 25 runs (the first
3 of each unrecorded), medians. Run from the repository root: python records/bench/peer/arena.py"""
import statistics, time, sys
import numpy as np
import onnxruntime as ort
from function.model.onnx_model import session_options
from function.model.artifact import load_manifest
m = load_manifest("artifact")
def sess(arena, pattern):
    so = session_options(2, m.graph_optimized)
    so.enable_cpu_mem_arena = arena; so.enable_mem_pattern = pattern
    return ort.InferenceSession(str(m.model_path), so, providers=["CPUExecutionProvider"])
variants = {"off": sess(False, False), "arena": sess(True, False), "arena+pattern": sess(True, True)}
rng = np.random.default_rng(0)
for n in (124, 256, 384):
    feed = {"input_ids": rng.integers(1000, 20000, (1, n)).astype(np.int64), "attention_mask": np.ones((1, n), np.int64),
            "token_type_ids": np.zeros((1, n), np.int64)}
    feed = {i.name: feed[i.name] for i in variants["off"].get_inputs()}
    times = {k: [] for k in variants}
    for b in range(6):
        order = list(variants)[b % 3:] + list(variants)[:b % 3]
        for k in order:
            time.sleep(0.05)
            for j in range(25):
                t0 = time.perf_counter(); variants[k].run(None, feed); dt = (time.perf_counter() - t0) * 1000
                if j >= 3: times[k].append(dt)
    print(n, {k: round(statistics.median(v), 2) for k, v in times.items()}, flush=True)
