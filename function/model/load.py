"""The loaded model: the artifact's tokenizer, its ONNX session and its window layout, after ``verify``.

``load_model`` is the one way the artifact is loaded: the function's runtime
calls it on its first request (or at worker start), and the build stage scores
the packaged artifact through it. Only the manifest is imported with this
module; numpy, tokenizers and onnxruntime come with the first ``load_model``,
so that importing the function stays cheap.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from function.errors import ArtifactError
from function.model.artifact import Manifest, verify

if TYPE_CHECKING:
    from function.model.onnx_model import OnnxQAModel
    from function.model.pool import SessionPool
    from function.model.tokenizer import QATokenizer
    from function.model.windows import WindowSpec


@dataclass
class Model:
    """What a request reads through: ``infer(prepare(question, passages, spec))`` gives the logits."""

    manifest: Manifest
    tokenizer: QATokenizer  # text -> token ids and character offsets
    infer: OnnxQAModel | SessionPool  # Batch -> (start_logits, end_logits), one ONNX Runtime session run
    spec: WindowSpec  # the window layout of the artifact's sequence settings


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 1)


def window_spec(manifest: Manifest) -> WindowSpec:
    """The artifact's window layout."""
    from function.model.windows import WindowSpec

    seq, special = manifest.sequence, manifest.special_tokens
    return WindowSpec(seq["max_seq_len"], seq["stride"], seq["max_query_tokens"],
                      special["cls"], special["sep"], special["pad"], manifest.pair_seps)


def load_model(manifest: Manifest, threads: int, sessions: int = 1) -> tuple[Model, dict]:
    """Verify the artifact's files, then load the tokenizer and the ONNX session (and their timings).

    ``sessions`` > 1: that many sessions behind one ``SessionPool`` (``QA_INFERENCE_MODE=pool``)."""
    from function.cpus import available_cpus
    from function.model.onnx_model import OnnxQAModel
    from function.model.tokenizer import QATokenizer

    timings = {}
    t0 = time.perf_counter()
    verify(manifest)
    timings["verify_ms"] = _ms(t0)

    t0 = time.perf_counter()
    # verify() has matched tokenizer.json's sha256 with the manifest, which the build wrote
    # together with the fingerprint of those very bytes: no need to hash the vocabulary again.
    tokenizer = QATokenizer(manifest.tokenizer_path, fingerprint=manifest.tokenizer_fingerprint)
    timings["tokenizer_ms"] = _ms(t0)

    t0 = time.perf_counter()
    try:
        made = [OnnxQAModel(manifest.model_path, threads or available_cpus(), optimized=manifest.graph_optimized)
                for _ in range(max(1, sessions))]
        if len(made) == 1:
            infer = made[0]
        else:
            from function.model.pool import SessionPool

            infer = SessionPool(made)
    except Exception as e:  # noqa: BLE001 - onnxruntime raises its own exception types
        raise ArtifactError(f"ONNX Runtime cannot load {manifest.model_path}: {str(e)[:300]}",
                            {"file": str(manifest.model_path)}) from None
    timings["model_ms"] = _ms(t0)

    return Model(manifest, tokenizer, infer, window_spec(manifest)), timings
