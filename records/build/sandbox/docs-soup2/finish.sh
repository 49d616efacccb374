#!/usr/bin/env bash
# RULE.md's candidate after run.sh: M = 0.5 A + 0.5 C, then 0.5 S + 0.5 M (= 0.25 A + 0.5 S + 0.25 C), through the
# sandbox chain from export into build/soup2/artifact, its threshold moved by -ln 3 as the shipped one's was, then
# the documentation benchmark's dev part (rules 1-2; rule 3 is the chain's package report).
set -euo pipefail
cd /work/main
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
PY=.venv/bin/python
D=records/build/sandbox/docs-cpu
SKEL=${SKEL:-build/g6c-mix}
W=build/soup2/cand
[ -f build/soup2/c/distil/model/model.safetensors ] || { echo "C not trained yet: run.sh first"; exit 1; }
mkdir -p $W
for s in teacher base distil; do [ -e $W/$s ] || cp -r $SKEL/$s $W/$s; done
if [ ! -f $W/soup.done ]; then
  rm -rf $W/distil/model build/soup2/ac
  $PY $D/soup.py 0.5 build/alpha/A build/soup2/c/distil/model build/soup2/ac
  $PY $D/soup.py 0.5 build/recover/shipped-fp32 build/soup2/ac $W/distil/model
  touch $W/soup.done
fi
mkdir -p $W/export $W/package
cp -n records/build/sandbox/teacher/teacher.entry.json $W/export/
cp -n records/build/sandbox/teacher/teacher.rows.json $W/package/
echo "[$(date +%T)] chain"
[ -f $W-artifact/manifest.json ] || $PY -m build_model --config build_model/configs/sandbox.toml --set student.shared_norm=1.0 \
  --set package.name=minilm-l6-squad-docs-int8 --set work_dir=$W --set package.out=$W-artifact --from-stage export
echo "[$(date +%T)] shift"
if [ ! -f $W-artifact/shifted ]; then
  $PY -m build_model.no_answer $W-artifact --dev ../shared/data/squad/dev.json --threads 1 --write \
    --shift -1.0986122886681098 --shift-why records/bench/no_answer/shift/RULE.md
  touch $W-artifact/shifted
fi
echo "[$(date +%T)] docs"
$PY -m bench docs --part all --artifact $W-artifact --out $W-docs
echo "[$(date +%T)] done"
# Rules 1-3 (RULE.md) from the figures just written; only then rule 4, SQuAD dev asked alone (hybrid; all five
# passages read and the cascade, against the shipped 67.61 / 67.21 of records/bench/two-stage).
if $PY - $W-artifact/manifest.json $W-docs/docs.json <<'PY'
import json, sys
m, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
dev, f1 = d["tables"]["pooled"]["dev"], m["metrics"]["student_onnx_int8"]["f1"]
ok = dev["f1"] >= 64.6 and dev["no_answer_answerable"] <= 5 and dev["no_answer_off_topic"] >= 85.7 and f1 >= 72.0 \
    and m["metrics"]["student_onnx_int8"]["bytes"] <= 30e6
print(f"docs dev F1 {dev['f1']}, abstained {dev['no_answer_answerable']}%, off-topic {dev['no_answer_off_topic']}%, "
      f"SQuAD int8 {f1:.2f}: rules 1-3 {'hold' if ok else 'fail'}")
sys.exit(0 if ok else 1)
PY
then
  echo "[$(date +%T)] squad alone"
  $PY -m bench cascade --hybrid --questions 0 --timed 0 --artifact $W-artifact --out $W-cascade
fi
echo "[$(date +%T)] finished"
