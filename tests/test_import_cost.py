"""Importing the function module loads nothing heavy: the first request does."""

import json
import subprocess
import sys

HEAVY = ("onnxruntime", "tokenizers", "numpy", "google.cloud.firestore", "google.cloud.storage", "grpc")


def test_importing_the_function_loads_no_heavy_module(repo, tmp_path):
    code = ("import sys, json, main; "
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('onnxruntime', 'tokenizers', 'numpy', 'google', 'grpc'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, check=True,
                         env={"PATH": "", "QA_ARTIFACT_DIR": str(tmp_path / "none")})
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    for heavy in HEAVY:
        assert not any(m == heavy or m.startswith(heavy + ".") for m in loaded), (heavy, loaded)


def _numpy_threads(repo, tmp_path, extra_env: dict) -> tuple[str, int]:
    """OPENBLAS_NUM_THREADS as numpy saw it, and the threads of a process that imported main, then numpy."""
    code = ("import os, main, numpy; "
            "print(os.environ.get('OPENBLAS_NUM_THREADS'), len(os.listdir('/proc/self/task')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, check=True,
                         env={"PATH": "", "QA_ARTIFACT_DIR": str(tmp_path / "none"), **extra_env})
    setting, threads = out.stdout.split()
    return setting, int(threads)


def test_numpy_starts_no_blas_threads_in_the_function(repo, tmp_path):
    """The function runs no matrix product in numpy: OpenBLAS must not start its thread pool (a cold-start cost)."""
    assert _numpy_threads(repo, tmp_path, {}) == ("1", 1)


def test_an_explicit_blas_thread_setting_wins(repo, tmp_path):
    setting, _ = _numpy_threads(repo, tmp_path, {"OPENBLAS_NUM_THREADS": "2"})
    assert setting == "2"
