#!/usr/bin/env bash
# Issue 39 on a CPU: the shipped student (dequantised from artifact/model.ort, records/build/sandbox/docs-cpu/dequantise.py)
# trained one more epoch on SQuAD (MPNet logits) + 16,000 documentation questions with corpus negatives.
# Resumes from build/ft/distil's checkpoint when run again.
cd /work/main
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QA_CHECKPOINT_EVERY=100
exec .venv/bin/python -m build_model --config build_model/configs/sandbox.toml \
  --set work_dir=build/ft --set student.model=build/recover/shipped-fp32 --set student.base_weight=0 \
  --set student.extra_train=records/build/sandbox/docs-gpu/docqa-corpus-negatives.json.gz \
  --set student.extra_limit=16000 --set student.epochs=1 --set student.learning_rate=5e-5 \
  --stage distil
