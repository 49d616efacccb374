#!/usr/bin/env bash
# Issues 39 and 42 on a lent GPU (RULE.md): ../docs-gpu4/run.sh with per-arm settings: [base] from
# all-MiniLM-L6-v2 (carried as fp16 by ../docs-gpu4/wire4.py), then students side by side from it, 3 epochs each;
# scored by ../docs-gpu4/eval4.py; every student back as its int8-per-row change from the fp16 encoder, all of it
# as one tar cut into 15 MiB parts ($OUT/bundle.part*). ARMS: "name extra_train|- extra_limit k=v k=v;...";
# EXTRA_SETS (e.g. data.train_limit=40) for a smoke run on a CPU.
set -euo pipefail
T0=$(date +%s)
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QA_CHECKPOINT_EVERY=${QA_CHECKPOINT_EVERY:-100000}
R=records/build/sandbox/docs-gpu4
G=${G:-build/gpu6}
B=${B:-build/g6}
OUT=${OUT:-/tmp/out}
PY=${PY:-python3}
mkdir -p "$OUT" $B/squad $B/logs
log() { echo "[$(date +%T) +$(( $(date +%s) - T0 ))s] $*"; }
[ -f $B/minilm/model.safetensors ] || $PY $R/wire4.py unpack-start $G/start $B/minilm
for f in train dev; do [ -f $B/squad/$f.json ] || gunzip -c $G/squad-$f.json.gz > $B/squad/$f.json; done
W=$B/w
mkdir -p $W/teacher/model $W/teacher_logits
cp records/build/sandbox/teacher/stage.json $W/teacher/
cp records/build/sandbox/teacher/config.json records/build/sandbox/teacher/tokenizer.json $W/teacher/model/
cp -n records/build/sandbox/teacher_logits/*.npz $W/teacher_logits/
SETS=(--config build_model/configs/sandbox.toml --set data.train=$B/squad/train.json
      --set data.dev=$B/squad/dev.json --set base.model=$B/minilm ${EXTRA_SETS:-})
log "base"
$PY -m build_model "${SETS[@]}" --set work_dir=$W --stage base > $B/logs/base.log 2>&1 || { tail -30 $B/logs/base.log; exit 1; }
grep -E 'base:|epoch_end' $B/logs/base.log | tail -3 | cut -c1-300
left=$(( ${DEADLINE:-420} - ($(date +%s) - T0) ))
log "arms get ${left} s"
pids=()
while read -r name extra limit more; do
  [ -n "$name" ] || continue
  A=$B/arm-$name
  mkdir -p $A
  for d in teacher base teacher_logits; do [ -e $A/$d ] || cp -r $W/$d $A/$d; done
  [ "$extra" != "-" ] || extra=""
  arm_sets=(); for m in $more; do arm_sets+=(--set "$m"); done
  log "arm $name: extra_train=${extra:-none} limit=$limit ${more:-}"
  timeout "$left" $PY -m build_model "${SETS[@]}" --set work_dir=$A --set "student.extra_train=$extra" \
    --set student.extra_limit=$limit "${arm_sets[@]}" --stage distil > $B/logs/arm-$name.log 2>&1 &
  pids+=($!)
done < <(printf '%s\n' "${ARMS:?}" | tr ';' '\n')
fail=0
for p in "${pids[@]}"; do wait "$p" || fail=1; done
log "arms done (fail=$fail)"
for f in $B/logs/arm-*.log; do echo "== $f"; grep -E 'extra|epoch_end|distil:|Error|FAILED' "$f" | tail -5 | cut -c1-300 || true; done
[ $fail = 0 ] || { for f in $B/logs/arm-*.log; do tail -15 "$f"; done; }
# the weights first (what must come back), then the scores, bounded by EVAL_S
mkdir -p $B/back
for a in $B/arm-*; do [ -f $a/distil/stage.json ] || continue
  $PY $R/wire4.py pack-delta $B/minilm $a/distil/model $B/back/$(basename $a) &
done
wait
log "packed"
C=${CONTROL:-control}  # the arm the others are averaged with
arms=$(for a in $B/arm-*; do [ -f $a/distil/stage.json ] && [ $a != $B/arm-$C ] && echo $a; done)
[ -f $B/arm-$C/distil/stage.json ] || { echo "no $C"; arms=""; }
[ -z "$arms" ] || timeout "${EVAL_S:-120}" $PY $R/eval4.py ${SQUAD_DEV_EVAL:-$B/squad/dev.json} \
  ${DOCS_DEV:-records/build/sandbox/docs-gpu/docs-dev.json} $B/back/arms.json $B/arm-$C $arms || true
log "scored"
cp $W/base/stage.json $B/back/base.stage.json; cp $W/base/train.log.jsonl $B/back/base.train.log.jsonl
for a in $B/arm-*; do n=$(basename $a); [ -f $a/distil/stage.json ] || continue
  cp $a/distil/stage.json $B/back/$n.stage.json; cp $a/distil/train.log.jsonl $B/back/$n.train.log.jsonl; done
cp $B/logs/*.log $B/back/
tar cf - -C $B/back . | split -b 15M -d - "$OUT/bundle.part"
ls -la "$OUT"
log "done"
