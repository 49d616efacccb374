#!/usr/bin/env bash
# Issue 15's CPU work in one resumable background chain (hours on 2 cores; run it with nohup):
#   nohup experiments/issue15_chain.sh > build/logs/issue15_chain.log 2>&1 &
# 1. the sandbox build up to the student (teacher: MPNet, resumes from its checkpoint; base: MiniLM-L6;
#    distil: 3 layers from the teacher's cached logits) with export, quantize and package: writes artifact/
#    when every check passes (REPORT.md's targets say whether issue 15's are met);
# 2. the variants beside it, sharing the teacher, base and logit cache (build/exp-NAME):
#    4- and 6-layer students of the same recipe (the ensemble teacher, base_weight 0.5) for the
#    Pareto table. The MPNet-only 3-layer student (base_weight 0) is build/exp-l3-mpnet.
# Every step skips what is finished and resumes what is not: after an interruption, start it again.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
config=build_model/configs/sandbox.toml
py=.venv/bin/python
mkdir -p build/logs
echo "$(date -u +%FT%TZ) chain: main build" >&2
# the package stage refuses to replace an artifact that scored higher on the same dev file: the variants go on
"$py" -m build_model --config "$config" || echo "$(date -u +%FT%TZ) chain: the main build failed (above)" >&2
for variant in "l4 --set student.keep_layers=[0,2,4,5]" \
               "l6 --set student.keep_layers=[0,1,2,3,4,5]"; do
  # shellcheck disable=SC2086  # the variant's words are its name and --set options
  set -- $variant
  echo "$(date -u +%FT%TZ) chain: variant $1" >&2
  experiments/experiment_distil.sh "$@" --config "$config"
done
# 3. issue 15's Pareto table: int8 dev EM/F1, size, and 128-/384-token latency interleaved with the shipped artifact
echo "$(date -u +%FT%TZ) chain: pareto" >&2
"$py" -m experiments.pareto build/distil/model build/exp-l3-mpnet/distil/model build/exp-l4/distil/model \
  build/exp-l6/distil/model --dev ../shared/data/squad/dev.json --artifact artifact \
  --out build_model/runs/sandbox/pareto
echo "$(date -u +%FT%TZ) chain: done" >&2
