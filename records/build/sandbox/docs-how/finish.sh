#!/usr/bin/env bash
# docs-how, after run.sh: averaged half and half with where it started (docs-cpu/soup.py), then export, quantize and
# package through the sandbox chain into build/hw-artifact, "no answer" threshold moved by -ln 3 as shipped.
set -euo pipefail
cd /work/r-ft
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONPATH=.
DATA=${DATA:-../shared/data/squad}
W=build/hw-soup
mkdir -p $W/distil $W/export $W/package
for d in base teacher teacher_logits; do [[ -e $W/$d ]] || cp -r build/hw/$d $W/; done
cp -n records/build/sandbox/teacher/teacher.entry.json $W/export/
cp -n records/build/sandbox/teacher/teacher.rows.json $W/package/
cp build/hw/distil/stage.json build/hw/distil/train.log.jsonl $W/distil/
[[ -f $W/distil/model/model.safetensors ]] || .venv/bin/python records/build/sandbox/docs-cpu/soup.py 0.5 \
  build/recover/shipped-int8w build/hw/distil/model $W/distil/model
.venv/bin/python -m build_model --config build_model/configs/sandbox.toml \
  --set work_dir=$W --set student.model=build/recover/shipped-int8w --set student.base_weight=0 \
  --set student.extra_train=build/how/how-x6.json.gz --set student.epochs=0.15 \
  --set student.learning_rate=5e-5 --set package.out=build/hw-artifact --set package.name=minilm-l6-squad-docs-int8 \
  --from-stage export
.venv/bin/python -m build_model.no_answer build/hw-artifact --dev "$DATA/dev.json" --write --shift -1.0986122886681098 \
  --shift-why records/bench/no_answer/shift/RULE.md --json build/hw-no-answer.json
