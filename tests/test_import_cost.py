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

