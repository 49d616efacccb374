"""The contenders, the environment they all run with, and the passages they are asked about."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from bench import passages
from harness.launch import FunctionServer
from harness.launch import ingest as run_ingest
from harness.paths import MAIN, REPO

THREADS = 2  # intra-op threads of every contender (ONNX Runtime and PyTorch alike)
LOADS = ("eager", "lazy")  # eager: QA_EAGER_LOAD=1, as infra/deploy.sh deploys it


@dataclass(frozen=True)
class Contender:
    """What to serve: a functions-framework source file and the environment it runs with."""

    name: str
    label: str
    source: Path
    env: dict = field(default_factory=dict)
    target: str = "answer"

    def server(self, base_env: dict) -> FunctionServer:
        """Its server (not started), with ``base_env`` under its own environment."""
        return FunctionServer(self.env, source=self.source, target=self.target, base_env=base_env)


def base_env(sqlite_path: Path, threads: int = THREADS, load: str = "eager") -> dict:
    """Environment of every server: same threads, same gunicorn shape, same store, no answer cache.

    The passage cache is off too, so that every request reads its passage from
    the store and the fetch time is a real store round trip. ``load`` is when
    every contender loads its model: ``eager`` as soon as the gunicorn worker
    is forked (``QA_EAGER_LOAD=1``, the deployed setting), ``lazy`` inside the
    first request.
    """
    if load not in LOADS:
        raise ValueError(f"load must be one of {LOADS}, got {load!r}")
    return {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(REPO),
            "QA_STORE": "sqlite", "QA_SQLITE_PATH": str(sqlite_path), "QA_CACHE": "0",
            "QA_PASSAGE_CACHE_BYTES": "0", "QA_THREADS": str(threads),
            "QA_EAGER_LOAD": "1" if load == "eager" else "0",
            "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads),
            # numpy's BLAS does none of the model's work in any contender; our function sets this itself
            "OPENBLAS_NUM_THREADS": "1",
            # as the image runs it (Dockerfile): one gunicorn worker with 8 threads, bounded heap arenas
            "WORKERS": "1", "THREADS": "8", "MALLOC_ARENA_MAX": "2"}


def ours(artifact: Path, name: str = "ours", label: str = "ours (int8 ONNX)") -> Contender:
    return Contender(name, label, MAIN, {"QA_ARTIFACT_DIR": str(artifact)})


def pipeline(checkpoint: Path, artifact: Path) -> Contender:
    return Contender("pipeline", "transformers + PyTorch", REPO / "bench" / "baseline_server.py",
                     {"BENCH_PYTORCH_MODEL": str(checkpoint), "QA_ARTIFACT_DIR": str(artifact)})


def onnx_pipeline(artifact: Path) -> Contender:
    """The artifact's int8 graph in ONNX Runtime inside transformers' QA pipeline steps (Optimum's path)."""
    return Contender("onnx-pipeline", "transformers pipeline + ONNX Runtime (int8)",
                     REPO / "bench" / "baseline_server.py",
                     {"BENCH_BACKEND": "onnxruntime", "QA_ARTIFACT_DIR": str(artifact)})


def make_passages(artifact: Path, lengths: list[int]) -> list[dict]:
    from function.model.artifact import load_manifest
    from function.model.tokenizer import QATokenizer

    manifest = load_manifest(artifact)
    return passages.make_passages(QATokenizer(manifest.tokenizer_path), passages.QUESTION,
                                  passages.article_text(), lengths)


def ingest(env: dict, artifact: Path, work: Path, lengths: list[int]) -> list[dict]:
    """Make the benchmark passages and ingest them with the artifact's tokenizer into ``env``'s store."""
    made = make_passages(artifact, lengths)
    corpus = passages.write_jsonl(made, work / "bench-passages.jsonl")
    run_ingest({}, str(corpus), "--quiet", "--artifact", str(artifact), base_env=env, check=True)
    return made
