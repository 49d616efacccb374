#!/usr/bin/env bash
# After run.sh: candidate A (the trained student) and B (A averaged half and half with the shipped student's
# fp32), each exported, quantized, packaged into build/fb{,-soup}-artifact, its threshold moved by -ln 3, and the
# documentation benchmark's dev part. ARMS="b a" by default (B first: A alone is unlikely to hold SQuAD).
set -euo pipefail
cd /work/main
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
START=build/soup/distil/model
COMMON=(--config build_model/configs/sandbox.toml --set student.base_weight=0 --set student.extra_train=build/dbk/mix.json.gz
  --set student.epochs=2 --set student.learning_rate=1e-4 --set package.name=minilm-l6-squad-docs-int8)
for arm in ${ARMS:-b a}; do
  if [ "$arm" = a ]; then W=build/fb; SETS=("${COMMON[@]}")
  else
    W=build/fb-soup; SETS=("${COMMON[@]}")  # the record copied is A's: the same settings
    mkdir -p $W/distil
    for d in base teacher teacher_logits; do [ -e $W/$d ] || cp -r build/fb/$d $W/; done
    cp build/fb/distil/stage.json build/fb/distil/train.log.jsonl $W/distil/
    [ -f $W/distil/model/model.safetensors ] || \
      .venv/bin/python records/build/sandbox/docs-cpu/soup.py 0.5 $START build/fb/distil/model $W/distil/model
  fi
  mkdir -p $W/export $W/package
  cp -n build/soup/export/teacher.entry.json $W/export/; cp -n build/soup/package/teacher.rows.json $W/package/
  echo "[$(date +%T)] $arm chain"
  .venv/bin/python -m build_model "${SETS[@]}" --set work_dir=$W --set package.out=$W-artifact --from-stage export
  echo "[$(date +%T)] $arm shift"
  .venv/bin/python -m build_model.no_answer $W-artifact --dev ../shared/data/squad/dev.json --threads 1 --write \
    --shift -1.0986122886681098 --shift-why records/bench/no_answer/shift/RULE.md
  echo "[$(date +%T)] $arm docs"
  .venv/bin/python -m bench docs --part dev --artifact $W-artifact --out $W-docs-dev
done
echo "[$(date +%T)] done"
