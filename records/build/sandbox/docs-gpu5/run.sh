#!/usr/bin/env bash
# Issue 39 on a lent GPU (RULE.md): the shipped student (build/soup/distil/model, carried as fp16 by ../docs-gpu3/wire.py)
# one more epoch on SQuAD (MPNet's logits) beside the shipped half's 16,000 documentation questions under shared_norm,
# with each answerable documentation question's distractors (passages of its own package, [student]
# extra_distractors) read in its softmax; arms side by side (ARMS), then packed (int8 deltas from the start, first)
# and scored with their half-and-half averages (../docs-gpu3/eval3.py, bounded by EVAL_S); $OUT/bundle.part*.
# ARMS: "name extra_train extra_limit k=v k=v;..."
set -euo pipefail
T0=$(date +%s)
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QA_CHECKPOINT_EVERY=${QA_CHECKPOINT_EVERY:-100000}
R3=records/build/sandbox/docs-gpu3
G=${G:-build/gpu5}
B=${B:-build/g5}
OUT=${OUT:-/tmp/out}
PY=${PY:-python3}
mkdir -p "$OUT" $B/squad $B/logs $B/back
log() { echo "[$(date +%T) +$(( $(date +%s) - T0 ))s] $*"; }
[ -f $B/start/model.safetensors ] || $PY $R3/wire.py unpack-start $G $B/start
for f in train dev; do [ -f $B/squad/$f.json ] || gunzip -c $G/squad-$f.json.gz > $B/squad/$f.json; done
W=$B/w
mkdir -p $W/teacher/model $W/teacher_logits $W/base
cp records/build/sandbox/teacher/stage.json $W/teacher/
cp records/build/sandbox/teacher/config.json records/build/sandbox/teacher/tokenizer.json $W/teacher/model/
cp -n records/build/sandbox/teacher_logits/*.npz $W/teacher_logits/
cp $R3/base.stage.json $W/base/stage.json
rm -rf $W/base/model && cp -r $B/start $W/base/model  # base_weight = 0: [base] only names the tokenizer
SETS=(--config build_model/configs/sandbox.toml --set data.train=$B/squad/train.json
      --set data.dev=$B/squad/dev.json --set student.model=$B/start --set student.base_weight=0
      --set student.epochs=${EPOCHS:-1} --set student.learning_rate=5e-5 ${EXTRA_SETS:-})
left=$(( ${DEADLINE:-210} - ($(date +%s) - T0) ))
log "arms get ${left} s"
pids=()
while read -r name extra limit more; do
  [ -n "$name" ] || continue
  A=$B/arm-$name
  mkdir -p $A
  for d in teacher base teacher_logits; do [ -e $A/$d ] || cp -r $W/$d $A/$d; done
  arm_sets=(); for m in $more; do arm_sets+=(--set "$m"); done
  log "arm $name: extra_train=$extra limit=$limit ${more:-}"
  timeout "$left" $PY -m build_model "${SETS[@]}" --set work_dir=$A --set "student.extra_train=$extra" \
    --set student.extra_limit=$limit "${arm_sets[@]}" --stage distil > $B/logs/arm-$name.log 2>&1 &
  pids+=($!)
done < <(printf '%s\n' "${ARMS:?}" | tr ';' '\n')
fail=0
for p in "${pids[@]}"; do wait "$p" || fail=1; done
log "arms done (fail=$fail)"
for f in $B/logs/arm-*.log; do echo "== $f"; grep -E 'extra|epoch_end|distil:|Error|FAILED' "$f" | tail -4 | cut -c1-400 || true; done
[ $fail = 0 ] || { for f in $B/logs/arm-*.log; do tail -15 "$f"; done; }
arms=$(for a in $B/arm-*; do [ -f $a/distil/stage.json ] && echo $a; done)
[ -n "$arms" ] || { echo "no arm finished"; exit 1; }
for a in $arms; do $PY $R3/wire.py pack-delta $B/start $a/distil/model $B/back/$(basename $a) & done
wait
for a in $arms; do n=$(basename $a); cp $a/distil/stage.json $B/back/$n.stage.json
  cp $a/distil/train.log.jsonl $B/back/$n.train.log.jsonl; cp $B/logs/$n.log $B/back/$n.log; done
log "packed"
timeout "${EVAL_S:-60}" $PY $R3/eval3.py $B/start ${SQUAD_DEV_EVAL:-$B/squad/dev.json} \
  ${DOCS_DEV:-records/build/sandbox/docs-gpu/docs-dev.json} $B/back/arms.json $arms || true
log "scored"
tar cf - -C $B/back . | split -b 15M -d - "$OUT/bundle.part"
ls -la "$OUT"
log "done"
