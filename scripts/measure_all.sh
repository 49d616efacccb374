#!/usr/bin/env bash
# Every measurement the README cites for the shipped artifact, one after the other, on a quiet machine.
#   scripts/measure_all.sh [ARTIFACT]      (default: artifact)
# Writes bench/results/ (serving, retrieval, load) and one log per command in logs/measure/,
# so that a session stopped part way keeps what finished. About 35 minutes on the 2-core sandbox.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
artifact=${1:-artifact}
py=.venv/bin/python
logs=logs/measure
mkdir -p "$logs"

failed=()
step() {  # step NAME COMMAND...: run it, its output in logs/measure/NAME.log; a failure does not stop the rest
  local name=$1
  shift
  echo "$(date -u +%H:%M:%S) $name: $*"
  "$@" >"$logs/$name.log" 2>&1 || { echo "$name failed: see $logs/$name.log" >&2; failed+=("$name"); }
}

step serving "$py" -m bench --artifact "$artifact" --runs 10
step serving-lazy "$py" -m bench --artifact "$artifact" --runs 10 --load lazy --contenders ours pipeline \
  --requests 20 --warmup 2 --clients 1 --throughput-requests 10 --no-firestore --out build/bench-lazy
step memory-steps "$py" bench/memory_steps.py --artifact "$artifact"
step load "$py" -m bench.load_test --artifact "$artifact" --clients 8 --seconds 120
step image-size "$py" -m tests.support.image --artifact "$artifact" size
step image-profile "$py" -m tests.support.image --artifact "$artifact" profile --threads 1 --requests 200 \
  --concurrency 8 16
step image-startup "$py" -m tests.support.image --artifact "$artifact" startup --runs 11
step retrieval "$py" -m bench.retrieval --artifact "$artifact" --firestore
echo "$(date -u +%H:%M:%S) done"
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed: ${failed[*]}" >&2
  exit 1
fi
