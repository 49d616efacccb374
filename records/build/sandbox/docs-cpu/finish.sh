#!/usr/bin/env bash
# After build/ft/run.sh: export, quantize and package the fine-tuned student into build/ft-artifact, then measure it.
set -uo pipefail
cd /work/main
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
SETS=(--config build_model/configs/sandbox.toml --set work_dir=build/ft --set student.model=build/recover/shipped-fp32
  --set student.base_weight=0 --set student.extra_train=records/build/sandbox/docs-gpu/docqa-corpus-negatives.json.gz
  --set student.extra_limit=16000 --set student.epochs=1 --set student.learning_rate=5e-5 --set package.out=build/ft-artifact
  --set package.name=minilm-l6-squad-docs-int8)
echo "[$(date +%T)] chain"; .venv/bin/python -m build_model "${SETS[@]}" --from-stage export || exit 1
echo "[$(date +%T)] docs"; .venv/bin/python -m bench docs --artifact build/ft-artifact --out build/ft-docs || exit 1
echo "[$(date +%T)] ooc"; .venv/bin/python -m bench out-of-corpus --artifact build/ft-artifact --sample --out build/ft-ooc || exit 1
echo "[$(date +%T)] done"
