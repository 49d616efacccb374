#!/usr/bin/env bash
# Issue 39: a student cut from all-MiniLM-L6-v2 (build/fb/base/model: [base]'s record and tokenizer + ../shared's weights), trained 2 epochs on SQuAD (MPNet's logits) beside the
# shipped half's 16,000 documentation questions + 1,919 DocBook questions from its first step (RULE.md).
# Resumes from build/fb/distil's checkpoint when run again. Needs build/fb/{base,teacher,teacher_logits}.
cd /work/main
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QA_CHECKPOINT_EVERY=100
exec .venv/bin/python -m build_model --config build_model/configs/sandbox.toml \
  --set work_dir=build/fb --set student.base_weight=0 \
  --set student.extra_train=build/dbk/mix.json.gz \
  --set student.epochs=2 --set student.learning_rate=1e-4 \
  --stage distil
