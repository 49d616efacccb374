#!/usr/bin/env bash
# The device command of records/bench/reranker-gpu (RULE.md): two cross-encoder arms side by side on one GPU, their
# logits on every (question, passage read) pair of eval.json.gz, arm A's fp16 weights back in 15 MB parts.
set -uo pipefail
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/r"
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
OUT=$OUT/r DEADLINE_S=${DL:-270} SAVE=1 SCORE_EPOCHS=1 python3 train_gpu.py A:all:2 > "$OUT/r/A.log" 2>&1 &
OUT=$OUT/r DEADLINE_S=${DL:-270} python3 train_gpu.py B:squad:4 > "$OUT/r/B.log" 2>&1 &
wait
grep -h "^\[\|Error" "$OUT"/r/*.log
tail -n 2 "$OUT"/r/train-*.jsonl
if [ -f "$OUT/r/w-A/model.safetensors" ]; then
  (cd "$OUT/r/w-A" && split -b 15M model.safetensors "$OUT/wA.part." && rm model.safetensors)
fi
tar czf "$OUT/results.tgz" -C "$OUT/r" . && rm -rf "$OUT/r"
ls -la "$OUT"
