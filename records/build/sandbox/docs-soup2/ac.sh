#!/usr/bin/env bash
set -euo pipefail
cd /work/main
# 0.5 A + 0.5 C alone (build/soup2/ac, made by finish.sh), through the same chain: after the rule, to read C apart
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
PY=.venv/bin/python
W=build/soup2/ac-cand
mkdir -p $W
for s in teacher base distil; do [ -e $W/$s ] || cp -r build/g6c-mix/$s $W/$s; done
rm -rf $W/distil/model; cp -r build/soup2/ac $W/distil/model
mkdir -p $W/export $W/package
cp -n records/build/sandbox/teacher/teacher.entry.json $W/export/
cp -n records/build/sandbox/teacher/teacher.rows.json $W/package/
echo "[$(date +%T)] chain"
$PY -m build_model --config build_model/configs/sandbox.toml --set student.shared_norm=1.0 \
  --set package.name=minilm-l6-squad-docs-int8 --set work_dir=$W --set package.out=$W-artifact --from-stage export
echo "[$(date +%T)] shift"
$PY -m build_model.no_answer $W-artifact --dev ../shared/data/squad/dev.json --threads 1 --write \
  --shift -1.0986122886681098 --shift-why records/bench/no_answer/shift/RULE.md
echo "[$(date +%T)] docs"
$PY -m bench docs --part all --artifact $W-artifact --out $W-docs
echo "[$(date +%T)] done"
