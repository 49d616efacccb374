#!/usr/bin/env bash
# After the GPU run: the chosen student back into build/distil, then export, quantize and package here on the CPU.
set -euo pipefail
cd /work/main
R=${1:?folder the device returned (files_at)}
arm=$(ls $R/student-*.part0.fp16.safetensors | sed 's/.*student-\(.*\)\.part0.*/\1/')
mkdir -p build/gpuret && tar xzf $R/records.tar.gz -C build/gpuret
rm -rf build/distil build/base && mkdir -p build/distil/model build/base/model build/teacher/model build/teacher_logits build/export build/package
cp build/gpuret/build/arm-$arm/distil/stage.json build/gpuret/build/arm-$arm/distil/*.jsonl build/distil/
cp build/gpuret/build/arm-$arm/distil/model/config.json build/gpuret/build/arm-$arm/distil/model/tokenizer.json build/distil/model/
cp build/gpuret/build/gpuw/base/stage.json build/gpuret/build/gpuw/base/train.log.jsonl build/base/
cp build/gpuret/build/gpuw/base/model/config.json build/gpuret/build/gpuw/base/model/tokenizer.json build/base/model/
.venv/bin/python - "$R" "$arm" <<'PY'
import sys
from pathlib import Path
import numpy as np
from safetensors.numpy import load_file, save_file
R, arm = Path(sys.argv[1]), sys.argv[2]
pieces = {}
for p in sorted(R.glob(f"student-{arm}.part*.fp16.safetensors")):
    pieces.update(load_file(p))
w, cut = {}, {}
for k, v in pieces.items():
    v = v.astype(np.float32) if v.dtype == np.float16 else v
    if "@@" in k:
        name, i = k.split("@@")
        cut.setdefault(name, {})[int(i)] = v
    else:
        w[k] = v
for name, parts in cut.items():
    w[name] = np.concatenate([parts[i] for i in range(len(parts))])
save_file(w, "build/distil/model/model.safetensors", metadata={"format": "pt"})
print(len(w), "tensors")
PY
cp records/build/sandbox/teacher/stage.json build/teacher/
cp records/build/sandbox/teacher/config.json records/build/sandbox/teacher/tokenizer.json build/teacher/model/
cp -n records/build/sandbox/teacher_logits/*.npz build/teacher_logits/
cp records/build/sandbox/teacher/teacher.entry.json build/export/
cp records/build/sandbox/teacher/teacher.rows.json build/package/
echo "student $arm in build/distil; now: .venv/bin/python -m build_model --from-stage export ..."
