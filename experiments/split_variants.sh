#!/usr/bin/env bash
# The DeFormer split runs (issue 28.3) in one resumable background chain (about an hour a run on 2 cores):
#   nohup experiments/split_variants.sh > build/logs/split_variants.log 2>&1 &
# 0. the whole 6-layer model they start from: build/distil/model when the distil stage left it, else the
#    shipped artifact read back into PyTorch (build_model.recover: its int8 tensors come back bit for bit);
# 1. k = 2, one epoch of split training, soft targets from the whole model (DeFormer's recipe);
# 2. k = 3 with DeFormer's layerwise hidden-state loss (k = 3 without it fell off a cliff in the pilot);
# 3. k = 3 without it, the control.
# Each run resumes from its checkpoint (every 50 steps) and skips itself once result.json exists: after an
# interruption start the chain again, from the same checkout (the resume guard records the config's path).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
config=build_model/configs/sandbox.toml
py=.venv/bin/python
mkdir -p build/logs
init=build/distil/model
if [ ! -f "$init/config.json" ]; then
  init=build/distil/recovered
  [ -f "$init/config.json" ] || "$py" -m build_model.recover artifact --config-from ../shared/models/all-MiniLM-L6-v2 --out "$init"
fi
for run in "k2 --k 2" "k3-lrs --k 3 --hidden-loss 1.0" "k3 --k 3"; do
  # shellcheck disable=SC2086  # the run's words are its name and options
  set -- $run
  name=$1
  shift
  echo "$(date -u +%FT%TZ) split chain: $name" >&2
  "$py" -m experiments.split_distil --config "$config" --init "$init" --kd-from whole --epochs 1 \
    --out "build/split-$name" --threads 2 "$@" || echo "$(date -u +%FT%TZ) split chain: $name failed (above)" >&2
done
echo "$(date -u +%FT%TZ) split chain: done" >&2
