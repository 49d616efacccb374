"""Reassemble all-MiniLM-L6-v2 (fp32 safetensors) from the two fp16 halves carried to the GPU machine
(the 64 MiB transfer limit: the fp32 file is 87 MiB); position_ids is rebuilt as int64."""
import shutil
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file, save_file

part1, part2, meta, out = (Path(p) for p in sys.argv[1:5])
out.mkdir(parents=True, exist_ok=True)
weights = {k: v.astype(np.float32) for p in (part1, part2) for k, v in load_file(p).items()}
weights["embeddings.position_ids"] = np.arange(512, dtype=np.int64)[None, :]
save_file(weights, out / "model.safetensors", metadata={"format": "pt"})
for name in ("config.json", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json", "README.md"):
    shutil.copy(meta / name, out / name)
print(f"restored {len(weights)} tensors into {out}")
