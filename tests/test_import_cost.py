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


def test_eager_load_fails_softly_without_an_artifact(repo, tmp_path):
    out = subprocess.run([sys.executable, "-c", "import main"], cwd=repo, capture_output=True, text=True,
                         env={"PATH": "", "QA_EAGER_LOAD": "1", "QA_ARTIFACT_DIR": str(tmp_path / "none")})
    assert out.returncode == 0
    line = json.loads(out.stdout.strip().splitlines()[-1])
    assert line["severity"] == "ERROR" and "eager load failed" in line["message"] and "manifest.json" in line["message"]
