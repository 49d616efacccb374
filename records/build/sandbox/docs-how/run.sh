#!/usr/bin/env bash
# docs-how: the shipped student's fp32 weights (build/recover/shipped-int8w) trained 0.15 epoch at 5e-5 on SQuAD (MPNet's
# logits alone) beside the how template's questions x6 (build/how/how-x6.json.gz). Resumes (QA_CHECKPOINT_EVERY=50).
set -euo pipefail
cd /work/r-ft
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QA_CHECKPOINT_EVERY=50 PYTHONPATH=.
if [[ ! -d build/hw/teacher ]]; then
  mkdir -p build/hw/teacher/model build/hw/teacher_logits build/hw/base/model
  cp records/build/sandbox/teacher/stage.json build/hw/teacher/
  cp records/build/sandbox/teacher/config.json records/build/sandbox/teacher/tokenizer.json build/hw/teacher/model/
  cp records/build/sandbox/teacher_logits/*.npz build/hw/teacher_logits/
  cp records/build/sandbox/docs-gpu/base.stage.json build/hw/base/stage.json
  cp build/recover/shipped-int8w/config.json build/recover/shipped-int8w/tokenizer.json build/hw/base/model/
fi
exec .venv/bin/python -m build_model --config build_model/configs/sandbox.toml \
  --set work_dir=build/hw --set student.model=build/recover/shipped-int8w --set student.base_weight=0 \
  --set student.extra_train=build/how/how-x6.json.gz --set student.epochs=0.15 \
  --set student.learning_rate=5e-5 --stage distil
