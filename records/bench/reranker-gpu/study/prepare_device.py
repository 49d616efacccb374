"""prepare_device.py: build/ce-gpu as run.sh needs it on a lent GPU (about 50 MB, under the 64 MiB a call carries):
all-MiniLM-L6-v2's weights as fp16 (start/), the training groups (make_data2.py, about a minute), the evaluation pairs
committed beside this file (eval.json.gz), train_gpu.py and run.sh. Run from a checkout's root, ../shared beside it."""
import shutil
import subprocess
import sys
from pathlib import Path

from safetensors.torch import load_file, save_file

HERE = Path(__file__).resolve().parent
OUT = Path("build/ce-gpu")
SRC = Path("../shared/models/all-MiniLM-L6-v2")
(OUT / "start").mkdir(parents=True, exist_ok=True)
weights = load_file(SRC / "model.safetensors")
save_file({k: (v.half() if v.is_floating_point() else v).contiguous() for k, v in weights.items()},
          OUT / "start" / "model.safetensors")
for f in ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
    shutil.copy(SRC / f, OUT / "start" / f)
for f in ("train_gpu.py", "run.sh", "eval.json.gz"):
    shutil.copy(HERE / f, OUT / f)
subprocess.run([sys.executable, str(HERE / "make_data2.py")], check=True)
