#!/usr/bin/env bash
# After run.sh on the device: an arm's student back from its int8 delta (wire.py), averaged half and half with the
# start (../docs-cpu/soup.py), then export, quantize and package here into build/soup3-ARM-artifact and the
# documentation benchmark (dev and test parts). Usage: finish3.sh BUNDLE_DIR ARM [A] (A: the trained weights' share
# in the average, default 0.5; 1: the trained student itself)
set -euo pipefail
cd /work/main
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
B=${1:?the folder holding bundle.part*}; ARM=${2:?arm}; A=${3:-0.5}
R=records/build/sandbox/docs-gpu3
START=build/soup/distil/model   # the shipped student d8ee9936c065's fp32 weights
mkdir -p build/g3ret
[ -f build/g3ret/arm-$ARM.index.json ] || cat "$B"/bundle.part* | tar xf - -C build/g3ret
[ -f build/g3ret/$ARM-trained/model.safetensors ] || \
  .venv/bin/python $R/wire.py unpack-delta $START build/g3ret/arm-$ARM build/g3ret/$ARM-trained
N=$ARM$([ "$A" = 0.5 ] || echo "-a$A")
W=build/soup3-$N
mkdir -p $W/distil $W/export $W/package
cp -n build/soup/export/teacher.entry.json $W/export/; cp -n build/soup/package/teacher.rows.json $W/package/
for d in base teacher teacher_logits; do [ -e $W/$d ] || cp -r build/soup/$d $W/; done
cp build/g3ret/arm-$ARM.stage.json $W/distil/stage.json; cp build/g3ret/arm-$ARM.train.log.jsonl $W/distil/train.log.jsonl
[ -f $W/distil/model/model.safetensors ] || \
  .venv/bin/python records/build/sandbox/docs-cpu/soup.py $A $START build/g3ret/$ARM-trained $W/distil/model
case $ARM in
  docs) EXTRA=(--set student.extra_train=records/build/sandbox/docs-gpu/docqa-corpus-negatives.json.gz --set student.extra_limit=16000) ;;
  mix) EXTRA=(--set student.extra_train=build/g3/mix.json.gz) ;;
  prose2) EXTRA=(--set student.extra_train=build/gpu3-prose/prose2.json.gz) ;;
  sn-docs) EXTRA=(--set student.extra_train=records/build/sandbox/docs-gpu/docqa-corpus-negatives.json.gz --set student.extra_limit=16000 --set student.shared_norm=1.0) ;;
  sn) EXTRA=(--set student.extra_train= --set student.shared_norm=1.0) ;;
  prose-nn|prose2-nn) f=build/g3/$ARM.json.gz
    [ -f $f ] || .venv/bin/python $R/answerable.py build/gpu3-prose/${ARM%-nn}.json.gz $f
    EXTRA=(--set student.extra_train=$f) ;;
  *) EXTRA=(--set student.extra_train=build/gpu3-prose/prose.json.gz) ;;
esac
SETS=(--config build_model/configs/sandbox.toml --set work_dir=$W --set student.model=$START --set student.base_weight=0
  "${EXTRA[@]}" --set student.epochs=1 --set student.learning_rate=5e-5 --set package.out=build/soup3-$N-artifact
  --set package.name=minilm-l6-squad-docs-int8)
echo "[$(date +%T)] chain"; .venv/bin/python -m build_model "${SETS[@]}" --from-stage export
echo "[$(date +%T)] docs"; .venv/bin/python -m bench docs --part all --artifact build/soup3-$N-artifact --out build/soup3-$N-docs
echo "[$(date +%T)] done"
