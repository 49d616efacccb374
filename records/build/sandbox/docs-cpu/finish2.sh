#!/usr/bin/env bash
# After run2.sh: average with where it started (soup.py 0.5), export, quantize and package into build/soup2-artifact,
# then the figures of build/ft2/RULE.md.
set -uo pipefail
cd /work/main
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
mkdir -p build/soup2/distil build/soup2/export; cp -n build/soup/export/teacher.entry.json build/soup2/export/
for d in base teacher teacher_logits; do [ -e build/soup2/$d ] || cp -r build/ft2/$d build/soup2/; done
cp build/ft2/distil/stage.json build/ft2/distil/train.log.jsonl build/soup2/distil/
[ -f build/soup2/distil/model/model.safetensors ] || .venv/bin/python records/build/sandbox/docs-cpu/soup.py 0.5 build/soup/distil/model build/ft2/distil/model build/soup2/distil/model || exit 1
SETS=(--config build_model/configs/sandbox.toml --set work_dir=build/soup2 --set student.model=build/soup/distil/model
  --set student.base_weight=0 --set student.extra_train=build/ft2/docqa-rest.json.gz
  --set student.epochs=1 --set student.learning_rate=5e-5 --set package.out=build/soup2-artifact
  --set package.name=minilm-l6-squad-docs-int8)
echo "[$(date +%T)] chain"; .venv/bin/python -m build_model "${SETS[@]}" --from-stage package || exit 1
echo "[$(date +%T)] docs"; .venv/bin/python -m bench docs --part all --artifact build/soup2-artifact --out build/soup2-docs || exit 1
echo "[$(date +%T)] ooc"; .venv/bin/python -m bench out-of-corpus --artifact build/soup2-artifact --sample --out build/soup2-ooc || exit 1
echo "[$(date +%T)] done"
