#!/usr/bin/env bash
# RULE.md's C: the SQuAD-only student A (build/alpha/A, from ../docs-alpha/run.sh) trained one epoch on SQuAD (MPNet
# logits) + 16,000 of the documentation questions the shipped half did not see. Resumes from
# build/soup2/c/distil's checkpoint when run again. The teacher and [base] stage records come from any sandbox work
# dir (SKEL), the teacher's logits from records/.
set -euo pipefail
cd /work/main
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QA_CHECKPOINT_EVERY=100
W=build/soup2/c
SKEL=${SKEL:-build/g6c-mix}
mkdir -p $W/teacher_logits
for s in teacher base; do [ -e $W/$s ] || cp -r $SKEL/$s $W/$s; done
cp -n records/build/sandbox/teacher_logits/*.npz $W/teacher_logits/
[ -f build/soup2/docqa-rest.json.gz ] || .venv/bin/python records/build/sandbox/docs-cpu/complement.py \
  records/build/sandbox/docs-gpu/docqa-corpus-negatives.json.gz build/soup2/docqa-rest.json.gz
exec .venv/bin/python -m build_model --config build_model/configs/sandbox.toml \
  --set work_dir=$W --set student.model=build/alpha/A --set student.base_weight=0 \
  --set student.extra_train=build/soup2/docqa-rest.json.gz --set student.extra_limit=16000 \
  --set student.epochs=1 --set student.learning_rate=5e-5 \
  --stage distil
