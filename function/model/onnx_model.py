"""ONNX Runtime session for the QA model.

Session options are explicit: intra-op threads follow the CPUs the container
may use (``function.cpus``), one inter-op thread, and no memory arena or
memory pattern. The arena keeps the largest buffers it ever allocated, so with
batches whose shapes vary per request it ratchets the resident memory up; with
it off, memory returns to the allocator after each run. The feed is built from
``session.get_inputs()``, so a model without ``token_type_ids`` (DistilBERT)
works unchanged.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from function.model.windows import Batch

_FEEDS = ("input_ids", "attention_mask", "token_type_ids")


def session_options(threads: int, optimized: bool = False):
    """The function's session options (above); ``optimized``: the graph was optimised offline."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    # A graph the build stage already optimised only needs the cheap passes.
    so.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_BASIC if optimized
        else ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    )
    so.enable_cpu_mem_arena = False
    so.enable_mem_pattern = False
    so.log_severity_level = 3
    return so


class OnnxQAModel:
    def __init__(self, path: Path, threads: int, optimized: bool = False):
        import onnxruntime as ort

        so = session_options(threads, optimized)
        self.session = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
        names = [i.name for i in self.session.get_inputs()]
        unknown = [n for n in names if n not in _FEEDS]
        if unknown:
            raise ValueError(f"{path} has inputs this function cannot feed: {unknown}")
        self.input_names = names
        outputs = [o.name for o in self.session.get_outputs()]
        if outputs[:2] != ["start_logits", "end_logits"]:
            raise ValueError(f"{path} outputs {outputs}, expected start_logits and end_logits")

    def __call__(self, batch: Batch) -> tuple[np.ndarray, np.ndarray]:
        feed = {name: getattr(batch, name) for name in self.input_names}
        start, end = self.session.run(["start_logits", "end_logits"], feed)
        return start, end
