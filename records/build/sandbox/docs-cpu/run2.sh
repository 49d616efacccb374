#!/usr/bin/env bash
# Issue 39 on a CPU, second epoch: the shipped average (build/soup/distil/model, d8ee9936c065's fp32)
# trained one more epoch on SQuAD (MPNet logits) + the 23,613 documentation questions the first
# epoch did not see (complement.py). Resumes from build/ft2/distil's checkpoint when run again.
cd /work/main
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QA_CHECKPOINT_EVERY=100
[ -f build/ft2/docqa-rest.json.gz ] || .venv/bin/python records/build/sandbox/docs-cpu/complement.py \
  records/build/sandbox/docs-gpu/docqa-corpus-negatives.json.gz build/ft2/docqa-rest.json.gz
exec .venv/bin/python -m build_model --config build_model/configs/sandbox.toml \
  --set work_dir=build/ft2 --set student.model=build/soup/distil/model --set student.base_weight=0 \
  --set student.extra_train=build/ft2/docqa-rest.json.gz \
  --set student.epochs=1 --set student.learning_rate=5e-5 \
  --stage distil
