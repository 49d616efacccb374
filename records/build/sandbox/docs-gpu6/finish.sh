#!/usr/bin/env bash
# After run.sh (RULE.md): the students back from the device ($BACK, from the bundle; wire4.py unpack-delta onto the
# fp16 encoder $START, unpacked from build/gpu6/start), snd averaged half and half with sn (../docs-cpu/soup.py),
# each candidate exported, quantized, packaged into build/g6c-NAME-artifact, its threshold moved by -ln 3, then the
# documentation benchmark's dev part and SQuAD dev asked alone. CANDS: "sn snd-soup"; FROM: the first stage of the chain (export).
set -euo pipefail
cd /work/main
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
R=records/build/sandbox/docs-gpu4
BACK=${BACK:-build/g6back}
START=${START:-build/g6start}
M=${M:-build/g6m}
PY=.venv/bin/python
[ -f $START/model.safetensors ] || $PY $R/wire4.py unpack-start build/gpu6/start $START
for a in control sn snd; do
  [ -f $M/$a/model.safetensors ] || [ ! -e $BACK/arm-$a.index.json ] || $PY $R/wire4.py unpack-delta $START $BACK/arm-$a $M/$a
done
[ -f $M/snd-soup/model.safetensors ] || $PY records/build/sandbox/docs-cpu/soup.py 0.5 $M/sn $M/snd $M/snd-soup
for c in ${CANDS:-sn snd-soup}; do
  arm=${c%-soup}
  EXTRA=(--set student.shared_norm=1.0)
  [ $arm = snd ] && EXTRA+=(--set student.extra_train=records/build/sandbox/docs-gpu/docqa-corpus-negatives.json.gz
                          --set student.extra_limit=16000 --set student.extra_distractors=2)
  W=build/g6c-$c
  mkdir -p $W/distil $W/export $W/package $W/base/model $W/teacher/model
  cp records/build/sandbox/teacher/stage.json $W/teacher/
  cp records/build/sandbox/teacher/config.json records/build/sandbox/teacher/tokenizer.json $W/teacher/model/
  cp $BACK/base.stage.json $W/base/stage.json
  # [base]'s weights stayed on the device; the package stage reads only its config (its depth, for the report)
  cp $M/$c/config.json $W/base/model/config.json
  if [ ! -f $W/distil/model/model.safetensors ]; then
    cp $BACK/arm-$arm.stage.json $W/distil/stage.json; cp $BACK/arm-$arm.train.log.jsonl $W/distil/train.log.jsonl
    rm -rf $W/distil/model && cp -r $M/$c $W/distil/model
  fi
  cp -n records/build/sandbox/teacher/teacher.entry.json $W/export/
  cp -n records/build/sandbox/teacher/teacher.rows.json $W/package/
  echo "[$(date +%T)] $c chain"
  $PY -m build_model --config build_model/configs/sandbox.toml "${EXTRA[@]}" \
    --set package.name=minilm-l6-squad-docs-int8 --set work_dir=$W --set package.out=$W-artifact --from-stage ${FROM:-export}
  echo "[$(date +%T)] $c shift"
  $PY -m build_model.no_answer $W-artifact --dev ../shared/data/squad/dev.json --threads 1 --write \
    --shift -1.0986122886681098 --shift-why records/bench/no_answer/shift/RULE.md
  echo "[$(date +%T)] $c docs"
  $PY -m bench docs --part dev --artifact $W-artifact --out $W-docs-dev
  echo "[$(date +%T)] $c cascade"
  $PY -m bench cascade --questions 0 --timed 0 --artifact $W-artifact --out $W-cascade
done
echo "[$(date +%T)] done"
