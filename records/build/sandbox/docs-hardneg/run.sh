#!/usr/bin/env bash
# Issue 39 on a CPU: the shipped student's fp32 weights (build/recover/shipped-int8w: records/build/sandbox/int8-fallback,
# recover.py at 4864203) trained 0.7 epoch at 5e-5 on SQuAD (MPNet's logits alone) beside make_data.py's documentation
# questions with encoder-nearest negatives of other packages. Resumes from build/hn/distil's checkpoint when run
# again (QA_CHECKPOINT_EVERY=100 steps). The work dir needs the teacher's record and logits and a [base] record
# (records/README.md, "After a lost machine"; [base]'s weights are not read: the student starts from student.model).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QA_CHECKPOINT_EVERY=100 PYTHONPATH=.
if [[ ! -d build/hn/teacher ]]; then  # the work dir: the teacher's record and logits, a [base] record
  mkdir -p build/hn/teacher/model build/hn/teacher_logits build/hn/base/model
  cp records/build/sandbox/teacher/stage.json build/hn/teacher/
  cp records/build/sandbox/teacher/config.json records/build/sandbox/teacher/tokenizer.json build/hn/teacher/model/
  cp records/build/sandbox/teacher_logits/*.npz build/hn/teacher_logits/
  cp records/build/sandbox/docs-gpu/base.stage.json build/hn/base/stage.json
  cp build/recover/shipped-int8w/config.json build/recover/shipped-int8w/tokenizer.json build/hn/base/model/
fi
[[ -f build/hn/docqa-hardneg.json.gz ]] \
  || .venv/bin/python records/build/sandbox/docs-hardneg/make_data.py build/hn/docqa-hardneg.json.gz
exec .venv/bin/python -m build_model --config build_model/configs/sandbox.toml \
  --set work_dir=build/hn --set student.model=build/recover/shipped-int8w --set student.base_weight=0 \
  --set student.extra_train=build/hn/docqa-hardneg.json.gz --set student.epochs=0.7 \
  --set student.learning_rate=5e-5 --stage distil
