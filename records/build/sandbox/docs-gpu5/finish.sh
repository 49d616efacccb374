#!/usr/bin/env bash
# After run.sh on the device (RULE.md): each arm's student back from its int8 delta (../docs-gpu3/wire.py) onto the
# shipped student's fp32 start, averaged half and half with it (../docs-cpu/soup.py), exported, quantized and packaged
# into build/g5c-ARM-artifact, its threshold moved by -ln 3, then the documentation benchmark's dev part.
# Usage: finish.sh BUNDLE_DIR "dd2 dd4"
set -euo pipefail
cd /work/main
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
B=${1:?the folder holding bundle.part*}
R3=records/build/sandbox/docs-gpu3
START=build/soup/distil/model   # the shipped student d8ee9936c065's fp32 weights
mkdir -p build/g5ret
[ -f build/g5ret/arms.json ] || cat "$B"/bundle.part* | tar xf - -C build/g5ret
for ARM in ${2:-dd2 dd4}; do
  k=${ARM#dd}
  [ -f build/g5ret/$ARM-trained/model.safetensors ] || \
    .venv/bin/python $R3/wire.py unpack-delta $START build/g5ret/arm-$ARM build/g5ret/$ARM-trained
  W=build/g5c-$ARM
  mkdir -p $W/distil $W/export $W/package
  cp -n build/soup/export/teacher.entry.json $W/export/; cp -n build/soup/package/teacher.rows.json $W/package/
  for d in base teacher teacher_logits; do [ -e $W/$d ] || cp -r build/soup/$d $W/; done
  cp build/g5ret/arm-$ARM.stage.json $W/distil/stage.json; cp build/g5ret/arm-$ARM.train.log.jsonl $W/distil/train.log.jsonl
  [ -f $W/distil/model/model.safetensors ] || \
    .venv/bin/python records/build/sandbox/docs-cpu/soup.py 0.5 $START build/g5ret/$ARM-trained $W/distil/model
  SETS=(--config build_model/configs/sandbox.toml --set work_dir=$W --set student.model=$START --set student.base_weight=0
    --set student.extra_train=records/build/sandbox/docs-gpu/docqa-corpus-negatives.json.gz --set student.extra_limit=16000
    --set student.shared_norm=1.0 --set student.extra_distractors=$k --set student.epochs=1 --set student.learning_rate=5e-5
    --set package.out=$W-artifact --set package.name=minilm-l6-squad-docs-int8)
  echo "[$(date +%T)] $ARM chain"; .venv/bin/python -m build_model "${SETS[@]}" --from-stage export
  echo "[$(date +%T)] $ARM shift"
  .venv/bin/python -m build_model.no_answer $W-artifact --dev ../shared/data/squad/dev.json --threads 1 --write \
    --shift -1.0986122886681098 --shift-why records/bench/no_answer/shift/RULE.md
  echo "[$(date +%T)] $ARM docs"; .venv/bin/python -m bench docs --part dev --artifact $W-artifact --out $W-docs-dev
done
echo "[$(date +%T)] done"
