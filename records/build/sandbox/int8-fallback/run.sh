#!/usr/bin/env bash
# The shipped model's int8 weights taken back to fp32 (recover.py), exported and quantised again through the build
# chain (given.toml: no training), the quality gate at 0 so that every fp32 fallback (1-9 MatMuls kept fp32) is tried
# and scored on SQuAD dev; candidates in build/q8/quantize/candidates.json. About 15 minutes on 2 CPUs.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONPATH=.
DATA=${DATA:-../shared/data/squad}
[[ -f build/recover/shipped-int8w/model.safetensors ]] \
  || .venv/bin/python records/build/sandbox/int8-fallback/recover.py artifact build/recover/shipped-int8w
.venv/bin/python -m build_model --config build_model/configs/given.toml --set work_dir=build/q8 \
  --set given.model=build/recover/shipped-int8w --set data.dev="$DATA/dev.json" \
  --set quantize.max_f1_drop=0 --set "quantize.fp32_fallback=[1,2,3,4,6,9]" --set quantize.max_model_mb=0 \
  --set package.out=build/q8-artifact --stage all || true  # fails at the quantize gate by design (0): the table is the point
