#!/usr/bin/env bash
# After run.sh (RULE.md): the students back from the device (build/g4back, wire4.py unpack-delta onto the fp16
# encoder build/g4smoke/minilm, unpacked from build/gpu4/start), the documentation arms averaged half and half
# with the control (../docs-cpu/soup.py), each candidate exported, quantized, packaged into build/g4c-NAME-artifact,
# its threshold moved by -ln 3, then the documentation benchmark's dev part. CANDS: "d-soup dnn-soup dnn".
set -euo pipefail
cd /work/main
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
R=records/build/sandbox/docs-gpu4
M=build/g4m
for a in control d dnn; do
  [ -f $M/$a/model.safetensors ] || .venv/bin/python $R/wire4.py unpack-delta build/g4smoke/minilm build/g4back/arm-$a $M/$a
done
for a in d dnn; do
  [ -f $M/$a-soup/model.safetensors ] || .venv/bin/python records/build/sandbox/docs-cpu/soup.py 0.5 $M/control $M/$a $M/$a-soup
done
for c in ${CANDS:-d-soup dnn-soup dnn}; do
  arm=${c%-soup}
  if [ $arm = d ]; then EXTRA=(--set student.extra_train=build/gpu4/d.json.gz)
  else EXTRA=(--set student.extra_train=build/gpu4/dnn.json.gz --set student.extra_limit=24000); fi
  W=build/g4c-$c
  mkdir -p $W/distil $W/export $W/package
  for d in base teacher teacher_logits; do [ -e $W/$d ] || cp -r build/fb/$d $W/; done
  cp build/g4back/base.stage.json $W/base/stage.json
  cp build/g4back/arm-$arm.stage.json $W/distil/stage.json; cp build/g4back/arm-$arm.train.log.jsonl $W/distil/train.log.jsonl
  rm -rf $W/distil/model && cp -r $M/$c $W/distil/model
  cp -n build/soup/export/teacher.entry.json $W/export/; cp -n build/soup/package/teacher.rows.json $W/package/
  echo "[$(date +%T)] $c chain"
  .venv/bin/python -m build_model --config build_model/configs/sandbox.toml "${EXTRA[@]}" \
    --set package.name=minilm-l6-squad-docs-int8 --set work_dir=$W --set package.out=$W-artifact --from-stage export
  echo "[$(date +%T)] $c shift"
  .venv/bin/python -m build_model.no_answer $W-artifact --dev ../shared/data/squad/dev.json --threads 1 --write \
    --shift -1.0986122886681098 --shift-why records/bench/no_answer/shift/RULE.md
  echo "[$(date +%T)] $c docs"
  .venv/bin/python -m bench docs --part dev --artifact $W-artifact --out $W-docs-dev
done
echo "[$(date +%T)] done"
