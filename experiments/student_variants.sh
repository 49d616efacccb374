#!/usr/bin/env bash
# The student variants' CPU work in one resumable background chain (hours on 2 cores; run it with nohup):
#   nohup experiments/student_variants.sh > build/logs/student_variants.log 2>&1 &
# 1. the sandbox build (teacher: MPNet; base: MiniLM-L6; distil: 3 layers from the cached logits of both)
#    with export, quantize and package: writes artifact/ when every check passes and the new model scores
#    higher on dev than the artifact in place (else the package stage says so and the chain goes on);
# 2. the variants beside it, sharing the teacher, base and logit cache (build/exp-NAME), all of the same
#    recipe (the ensemble teacher, base_weight 0.5): 4 layers; 4 layers with feed-forward blocks narrowed
#    to 512 units (1.04-1.07x the shipped model's 384-token run in two runs, untrained, beside it; 640 units
#    1.08-1.09x, 768 units 1.10-1.13x, 4 full layers 1.36x: records/build/sandbox/ffn-width-latency.md);
#    6 layers. The MPNet-only 3-layer student (base_weight 0) is build/exp-l3-mpnet;
# 3. the Pareto table of them all against the shipped artifact (keep the machine quiet: it times).
# Every step skips what is finished and resumes what is not: after an interruption, start it again.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
config=build_model/configs/sandbox.toml
py=.venv/bin/python
mkdir -p build/logs
echo "$(date -u +%FT%TZ) chain: main build" >&2
"$py" -m build_model --config "$config" || echo "$(date -u +%FT%TZ) chain: the main build failed (above)" >&2
for variant in "l4 --set student.keep_layers=[0,2,4,5]" \
               "l4ffn512 --set student.keep_layers=[0,2,4,5] --set student.intermediate_size=512" \
               "l6 --set student.keep_layers=[0,1,2,3,4,5]"; do
  # shellcheck disable=SC2086  # the variant's words are its name and --set options
  set -- $variant
  echo "$(date -u +%FT%TZ) chain: variant $1" >&2
  experiments/experiment_distil.sh "$@" --config "$config"
done
echo "$(date -u +%FT%TZ) chain: pareto" >&2
"$py" -m experiments.pareto build/distil/model build/exp-l3-mpnet/distil/model build/exp-l4/distil/model \
  build/exp-l4ffn512/distil/model build/exp-l6/distil/model --dev ../shared/data/squad/dev.json \
  --artifact artifact --out records/build/sandbox/pareto
echo "$(date -u +%FT%TZ) chain: done" >&2
