#!/usr/bin/env bash
# After run.sh: the trained student averaged half and half with where it started (WiSE-FT, docs-cpu/soup.py), then
# export, quantize and package through the sandbox chain into build/hn-artifact, its "no answer" threshold moved as
# the shipped one's was (-ln 3, records/bench/no_answer/shift/RULE.md). About 15 minutes on 2 CPUs.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONPATH=.
DATA=${DATA:-../shared/data/squad}
W=build/hn-soup
mkdir -p $W/distil $W/export $W/package
for d in base teacher teacher_logits; do [[ -e $W/$d ]] || cp -r build/hn/$d $W/; done
cp -n records/build/sandbox/teacher/teacher.entry.json $W/export/
cp -n records/build/sandbox/teacher/teacher.rows.json $W/package/
cp build/hn/distil/stage.json build/hn/distil/train.log.jsonl $W/distil/
[[ -f $W/distil/model/model.safetensors ]] || .venv/bin/python records/build/sandbox/docs-cpu/soup.py 0.5 \
  build/recover/shipped-int8w build/hn/distil/model $W/distil/model
.venv/bin/python -m build_model --config build_model/configs/sandbox.toml \
  --set work_dir=$W --set student.model=build/recover/shipped-int8w --set student.base_weight=0 \
  --set student.extra_train=build/hn/docqa-hardneg.json.gz --set student.epochs=0.7 \
  --set student.learning_rate=5e-5 --set package.out=build/hn-artifact --set package.name=minilm-l6-squad-docs-int8 \
  --from-stage export
.venv/bin/python -m build_model.no_answer build/hn-artifact --dev "$DATA/dev.json" --write --shift -1.0986122886681098 \
  --shift-why records/bench/no_answer/shift/RULE.md --json build/hn-no-answer.json
