#!/usr/bin/env bash
# Issue 39 on a lent GPU: the shipped student (build/soup/distil/model, carried as fp16 by wire.py) trained one
# more epoch on SQuAD (MPNet's logits) beside documentation questions, several mixes side by side (ARMS), each
# then averaged half and half with the start and scored (eval3.py); every arm's change comes back as an int8
# delta (wire.py), all of it as one tar cut into 15 MiB parts ($OUT/bundle.part*).
# ARMS: "name extra_train extra_limit;..." (extra_train relative to the repository root).
set -euo pipefail
T0=$(date +%s)
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QA_CHECKPOINT_EVERY=${QA_CHECKPOINT_EVERY:-100000}
R=records/build/sandbox/docs-gpu3
G=${G:-build/gpu3}
OUT=${OUT:-/tmp/out}
PY=${PY:-python3}
mkdir -p "$OUT" build/g3/squad build/g3/logs
log() { echo "[$(date +%T) +$(( $(date +%s) - T0 ))s] $*"; }
[ -f build/g3/start/model.safetensors ] || $PY $R/wire.py unpack-start $G build/g3/start
for f in train dev; do [ -f build/g3/squad/$f.json ] || gunzip -c $G/squad-$f.json.gz > build/g3/squad/$f.json; done
# the docs arm's 16,000 questions plus every prose question, made there (the 64 MiB limit on what travels)
[ ! -f $G/prose.json.gz ] || [ -f build/g3/mix.json.gz ] || \
  $PY $R/mix.py records/build/sandbox/docs-gpu/docqa-corpus-negatives.json.gz 16000 42 $G/prose.json.gz build/g3/mix.json.gz
[ -z "${PREP:-}" ] || eval "$PREP"  # more training files made there from what travelled
W=build/g3/w
mkdir -p $W/teacher/model $W/teacher_logits $W/base
cp records/build/sandbox/teacher/stage.json $W/teacher/
cp records/build/sandbox/teacher/config.json records/build/sandbox/teacher/tokenizer.json $W/teacher/model/
cp -n records/build/sandbox/teacher_logits/*.npz $W/teacher_logits/
cp $R/base.stage.json $W/base/stage.json
rm -rf $W/base/model && cp -r build/g3/start $W/base/model  # base_weight = 0: [base] only names the tokenizer
SETS=(--config build_model/configs/sandbox.toml --set data.train=build/g3/squad/train.json
      --set data.dev=build/g3/squad/dev.json --set student.model=build/g3/start --set student.base_weight=0
      --set student.epochs=${EPOCHS:-1} --set student.learning_rate=5e-5 ${EXTRA_SETS:-})
left=$(( ${DEADLINE:-330} - ($(date +%s) - T0) ))
log "arms get ${left} s"
pids=()
while read -r name extra limit more; do
  [ -n "$name" ] || continue
  A=build/g3/arm-$name
  mkdir -p $A
  for d in teacher base teacher_logits; do [ -e $A/$d ] || cp -r $W/$d $A/$d; done
  [ "$extra" != "-" ] || extra=""  # "-": SQuAD alone
  arm_sets=(); for m in $more; do arm_sets+=(--set "$m"); done  # a fourth field: more settings, "k=v k=v"
  log "arm $name: extra_train=${extra:-none} limit=$limit ${more:-}"
  timeout "$left" $PY -m build_model "${SETS[@]}" --set work_dir=$A --set "student.extra_train=$extra" \
    --set student.extra_limit=$limit "${arm_sets[@]}" --stage distil > build/g3/logs/arm-$name.log 2>&1 &
  pids+=($!)
done < <(printf '%s\n' "${ARMS:?}" | tr ';' '\n')
fail=0
for p in "${pids[@]}"; do wait "$p" || fail=1; done
log "arms done (fail=$fail)"
for f in build/g3/logs/arm-*.log; do echo "== $f"; grep -E 'extra|epoch_end|distil:|Error|FAILED' "$f" | tail -4 | cut -c1-400; done
[ $fail = 0 ] || { for f in build/g3/logs/arm-*.log; do tail -15 "$f"; done; }
arms=$(for a in build/g3/arm-*; do [ -f $a/distil/stage.json ] && echo $a; done)
[ -n "$arms" ] || { echo "no arm finished"; exit 1; }
$PY $R/eval3.py build/g3/start ${SQUAD_DEV_EVAL:-build/g3/squad/dev.json} ${DOCS_DEV:-records/build/sandbox/docs-gpu/docs-dev.json} \
  build/g3/arms.json $arms
log "scored"
mkdir -p build/g3/back
for a in $arms; do $PY $R/wire.py pack-delta build/g3/start $a/distil/model build/g3/back/$(basename $a) & done
wait
cp build/g3/arms.json build/g3/back/
for a in $arms; do n=$(basename $a); cp $a/distil/stage.json build/g3/back/$n.stage.json
  cp $a/distil/train.log.jsonl build/g3/back/$n.train.log.jsonl; cp build/g3/logs/$n.log build/g3/back/$n.log; done
tar cf - -C build/g3/back . | split -b 15M -d - "$OUT/bundle.part"
ls -la "$OUT"
log "done"
