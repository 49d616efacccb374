#!/usr/bin/env bash
# After build/dbk/run.sh: the trained student averaged half and half with the start (WiSE-FT), exported,
# quantized and packaged into build/dbk-artifact, its threshold moved by -ln 3, then the docs benchmark's dev part.
set -euo pipefail
cd /work/main
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
START=build/soup/distil/model
W=build/dbk-soup
mkdir -p $W/distil $W/export $W/package
cp -n build/soup/export/teacher.entry.json $W/export/; cp -n build/soup/package/teacher.rows.json $W/package/
for d in base teacher teacher_logits; do [ -e $W/$d ] || cp -r build/soup/$d $W/; done
cp build/dbk/distil/stage.json $W/distil/stage.json; cp build/dbk/distil/train.log.jsonl $W/distil/train.log.jsonl
[ -f $W/distil/model/model.safetensors ] || \
  .venv/bin/python records/build/sandbox/docs-cpu/soup.py 0.5 $START build/dbk/distil/model $W/distil/model
SETS=(--config build_model/configs/sandbox.toml --set work_dir=$W --set student.model=$START --set student.base_weight=0
  --set student.extra_train=build/dbk/mix.json.gz --set student.epochs=1 --set student.learning_rate=5e-5
  --set package.out=build/dbk-artifact --set package.name=minilm-l6-squad-docs-int8)
echo "[$(date +%T)] chain"; .venv/bin/python -m build_model "${SETS[@]}" --from-stage export
echo "[$(date +%T)] shift"; .venv/bin/python -m build_model.no_answer build/dbk-artifact --dev ../shared/data/squad/dev.json \
  --threads 1 --write --shift -1.0986122886681098 --shift-why records/bench/no_answer/shift/RULE.md
echo "[$(date +%T)] docs"; .venv/bin/python -m bench docs --part dev --artifact build/dbk-artifact --out build/dbk-docs-dev
echo "[$(date +%T)] done"
