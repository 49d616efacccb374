#!/usr/bin/env bash
# B': A (SQuAD-only, dequantised from 03f0752) one epoch on SQuAD (MPNet logits) + the seeded 16,000 documentation
# questions B saw, with render.patch applied (marks before list entries). Resumes from build/mk/b/distil's checkpoint.
cd /work/marks
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QA_CHECKPOINT_EVERY=100
exec /work/main/.venv/bin/python -m build_model --config build_model/configs/sandbox.toml \
  --set work_dir=build/mk/b --set student.model=build/mk/A --set student.base_weight=0 \
  --set student.extra_train=records/build/sandbox/docs-gpu/docqa-corpus-negatives.json.gz \
  --set student.extra_limit=16000 --set student.epochs=1 --set student.learning_rate=5e-5 \
  --stage distil
