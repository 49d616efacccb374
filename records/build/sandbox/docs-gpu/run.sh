#!/usr/bin/env bash
# The sandbox recipe's [base] and distil stages on a GPU machine, with documentation questions mixed into the
# student's training (issue 39), several amounts side by side; the chosen student comes back as fp16 chunks.
# Call 1 left build/gpu1 (the first half of all-MiniLM-L6-v2 in fp16, SQuAD) in /root/keep.
set -euo pipefail
T0=$(date +%s)
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QA_CHECKPOINT_EVERY=${QA_CHECKPOINT_EVERY:-400}
K=${KEEP:-/root/keep/gpu1}
G=build/gpu2
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" build/gpu/squad build/logs
log() { echo "[$(date +%T)] $*"; }
[ -f build/gpu/minilm/model.safetensors ] || python3 $G/restore_minilm.py $K/minilm-part1.fp16.safetensors $G/minilm-part2.fp16.safetensors $G build/gpu/minilm
for f in train dev; do [ -f build/gpu/squad/$f.json ] || gunzip -c $G/squad-$f.json.gz > build/gpu/squad/$f.json; done
[ -f build/gpu/docqa.json ] || gunzip -c $G/docqa.json.gz > build/gpu/docqa.json
W=build/gpuw
mkdir -p $W/teacher/model $W/teacher_logits
cp records/build/sandbox/teacher/stage.json $W/teacher/
cp records/build/sandbox/teacher/config.json records/build/sandbox/teacher/tokenizer.json $W/teacher/model/
cp -n records/build/sandbox/teacher_logits/*.npz $W/teacher_logits/
SETS=(--config build_model/configs/sandbox.toml --set data.train=build/gpu/squad/train.json
      --set data.dev=build/gpu/squad/dev.json --set base.model=build/gpu/minilm ${EXTRA_SETS:-})
log "base"
python3 -m build_model "${SETS[@]}" --set work_dir=$W --stage base > build/logs/base.log 2>&1 || { tail -30 build/logs/base.log; exit 1; }
tail -3 build/logs/base.log
# arms: name, extra_train ('-' for none), extra_limit; each stops by DEADLINE s after the start (eval and packing after)
left=$(( ${DEADLINE:-520} - ($(date +%s) - T0) ))
log "arms get ${left} s"
pids=()
while read -r name extra limit; do
  [ -n "$name" ] || continue
  A=build/arm-$name
  mkdir -p $A
  for d in teacher base teacher_logits; do [ -e $A/$d ] || cp -r $W/$d $A/$d; done
  x=$([ "$extra" = "-" ] && echo "" || echo "$extra")
  log "arm $name: extra_train=${x:-none} limit=$limit"
  timeout "$left" python3 -m build_model "${SETS[@]}" --set work_dir=$A --set "student.extra_train=$x" --set student.extra_limit=$limit \
    --stage distil > build/logs/arm-$name.log 2>&1 &
  pids+=($!)
done < <(printf '%s\n' "${ARMS:-control - 0}" | tr ';' '\n')
fail=0
for p in "${pids[@]}"; do wait "$p" || fail=1; done
for f in build/logs/arm-*.log; do echo "== $f"; grep -E 'epoch_end|distil:|Error|FAILED' "$f" | tail -5; done
[ $fail = 0 ] || { for f in build/logs/arm-*.log; do tail -20 "$f"; done; }
arms=$(for a in build/arm-*; do [ -f $a/distil/stage.json ] && echo $a; done)
[ -n "$arms" ] || { echo "no arm finished"; exit 1; }
python3 $G/eval_arms.py $G/docs-dev.json build/arms.json $arms
chosen=$(python3 -c "import json; print(json.load(open('build/arms.json'))['chosen'])")
python3 - "$chosen" "$OUT" <<'PY'
import sys
from pathlib import Path
import numpy as np
from safetensors.numpy import load_file, save_file
arm, out = sys.argv[1], Path(sys.argv[2])
w = load_file(f"build/arm-{arm}/distil/model/model.safetensors")
chunks = []  # (name, array) of at most 8 MiB: a tensor above that is cut by rows, "name@@i" (the 16 MiB file limit)
for k, v in w.items():
    v = v.astype(np.float16) if v.dtype == np.float32 else v
    rows = max(1, (8 * 2**20) // max(1, v[0].nbytes if v.ndim > 1 else v.nbytes))
    if v.nbytes > 8 * 2**20:
        chunks += [(f"{k}@@{i}", np.ascontiguousarray(v[r : r + rows])) for i, r in enumerate(range(0, len(v), rows))]
    else:
        chunks.append((k, v))
parts, cur, size = [], {}, 0
for k, v in chunks:
    if size + v.nbytes > 15 * 2**20 and cur:
        parts.append(cur); cur, size = {}, 0
    cur[k] = v; size += v.nbytes
parts.append(cur)
for i, p in enumerate(parts):
    save_file(p, out / f"student-{arm}.part{i}.fp16.safetensors")
print(len(parts), "parts")
PY
tar czf "$OUT/records.tar.gz" build/arms.json build/logs $W/base/stage.json $W/base/train.log.jsonl \
  $W/base/model/config.json $W/base/model/tokenizer.json \
  $(for a in $arms; do echo $a/distil/stage.json $a/distil/train.log.jsonl $a/distil/distil.log.jsonl $a/distil/model/config.json $a/distil/model/tokenizer.json; done) 2>/dev/null || true
ls -la "$OUT"
