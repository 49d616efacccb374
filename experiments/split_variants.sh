#!/usr/bin/env bash
# The DeFormer split runs (issue 28.3) in one resumable background chain (about an hour a run on 2 cores):
#   nohup experiments/split_variants.sh > build/logs/split_variants.log 2>&1 &
# 0. the whole 6-layer model they start from: build/distil/model when the distil stage left it, else the
#    shipped artifact read back into PyTorch (build_model.recover: its int8 tensors come back bit for bit);
# 1. k = 2, one epoch of split training, soft targets from the whole model (DeFormer's recipe): dev F1
#    69.12 against the whole model's 72.78, 3.7 short, so
# 2. k = 2 one more epoch from there (--init the k = 2 model, --whole the model it was split from);
# 3. k = 2 with DeFormer's layerwise hidden-state loss, one epoch from the whole model;
# 4. k = 3 with it (k = 3 without it fell off a cliff in the pilot).
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
for run in "k2 --k 2" "k2-more --k 2 --init build/split-k2/model --whole $init" "k2-lrs --k 2 --hidden-loss 1.0" \
           "k3-lrs --k 3 --hidden-loss 1.0"; do
  # shellcheck disable=SC2086  # the run's words are its name and options
  set -- $run
  name=$1
  shift
  echo "$(date -u +%FT%TZ) split chain: $name" >&2
  # the whole model's logits on the training features are the same for every run: computed once
  mkdir -p "build/split-$name"
  cp -n build/split-k2/whole_logits-*.npz "build/split-$name/" 2>/dev/null || true
  "$py" -m experiments.split_distil --config "$config" --init "$init" --kd-from whole --epochs 1 \
    --out "build/split-$name" --threads 2 "$@" || echo "$(date -u +%FT%TZ) split chain: $name failed (above)" >&2
done
echo "$(date -u +%FT%TZ) split chain: done" >&2
