"""WiSE-FT (Wortsman et al. 2022): ``(1 - a) x START + a x TRAINED``, weight by weight, into OUT (config and
tokenizer from TRAINED). The shipped student: ``a = 0.5``, START the dequantised SQuAD-only student
(``dequantise.py``), TRAINED its continuation on documentation questions (``run.sh``).

    python records/build/sandbox/docs-cpu/soup.py 0.5 build/recover/shipped-fp32 build/ft/distil/model \
        build/soup/distil/model
"""

import shutil
import sys
from pathlib import Path

from safetensors.numpy import load_file, save_file

a, start, trained, out = float(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])
w0, w1 = load_file(start / "model.safetensors"), load_file(trained / "model.safetensors")
if set(w0) != set(w1) or any(w0[k].shape != w1[k].shape for k in w0):
    raise SystemExit(f"{start} and {trained} are not the same layout")
out.mkdir(parents=True, exist_ok=True)
save_file({k: ((1 - a) * w0[k] + a * w1[k]).astype(w0[k].dtype) for k in w0}, out / "model.safetensors",
          metadata={"format": "pt"})
for name in ("config.json", "tokenizer.json"):
    shutil.copy(trained / name, out)
print(f"{a} x {trained} + {1 - a} x {start} -> {out}")
