#!/usr/bin/env bash
# Issue 39, DocBook: the shipped student (build/soup/distil/model, d8ee9936c065's fp32) one more epoch on SQuAD
# (MPNet logits) + the shipped half's 16,000 documentation questions + 1,919 DocBook questions
# (build_model.docdata --generator docbook). Resumes from build/dbk/distil's checkpoint when run again.
cd /work/main
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QA_CHECKPOINT_EVERY=100
exec .venv/bin/python -m build_model --config build_model/configs/sandbox.toml \
  --set work_dir=build/dbk --set student.model=build/soup/distil/model --set student.base_weight=0 \
  --set student.extra_train=build/dbk/mix.json.gz \
  --set student.epochs=1 --set student.learning_rate=5e-5 \
  --stage distil
