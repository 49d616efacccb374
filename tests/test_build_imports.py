"""No module of build_model imports torch when it is imported: PyTorch (seconds and hundreds of MB to load) is
imported inside the functions that train or run a model, so the CLI, the config checks and the stages that
only read records stay light."""

import json
import subprocess
import sys

# Every module of the package imported in one fresh interpreter; the first one after which torch is loaded
# is named (listing the package imports its subpackages' __init__ already).
CODE = """
import importlib, json, pkgutil, sys
import build_model
names = sorted(m.name for m in pkgutil.walk_packages(build_model.__path__, "build_model.")
               if not m.name.endswith(".__main__"))
culprit = "listing the subpackages" if "torch" in sys.modules else None
for name in names:
    importlib.import_module(name)
    if culprit is None and "torch" in sys.modules:
        culprit = name
print(json.dumps({"modules": names, "torch_loaded_by": culprit}))
"""


def test_no_build_model_module_imports_torch_at_import_time(repo):
    out = subprocess.run([sys.executable, "-c", CODE], cwd=repo, capture_output=True, text=True, check=True)
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert "build_model.training.loop" in found["modules"] and "build_model.stages.distil" in found["modules"]
    assert found["torch_loaded_by"] is None, f"importing {found['torch_loaded_by']} loads torch"
