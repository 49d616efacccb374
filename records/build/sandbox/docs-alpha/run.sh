#!/usr/bin/env bash
# RULE.md: the SQuAD-only student A and the shipped average S taken back from their int8 graphs, (1 - t) A + t S for
# each t in $TS (t = 2a: a is B's weight in WiSE-FT's average), each through the sandbox chain from export into
# build/alpha/cT-artifact, its threshold moved by -ln 3, then the documentation dev part and SQuAD dev asked alone.
# The chain's other stage records (teacher, [base], distil) are copied from a work dir that holds them ($SKEL).
set -euo pipefail
cd /work/main
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
PY=.venv/bin/python
D=records/build/sandbox/docs-cpu
SKEL=${SKEL:-build/g6c-mix}
mkdir -p build/alpha
[ -f build/alpha/squadonly.ort ] || git show 03f0752:artifact/model.ort > build/alpha/squadonly.ort
[ -f build/alpha/A/model.safetensors ] || $PY $D/dequantise.py build/alpha/squadonly.ort build/alpha/A --like build/recover/shipped-fp32
[ -f build/recover/shipped-fp32/model.safetensors ] || $PY build/recover/deq_onnx.py artifact/model.onnx build/recover/shipped-fp32 --like build/alpha/A
for t in ${TS:-0.8 1.2}; do
  W=build/alpha/c$t
  mkdir -p $W
  for s in teacher base distil; do [ -e $W/$s ] || cp -r $SKEL/$s $W/$s; done
  [ -f $W/soup.done ] || { rm -rf $W/distil/model; $PY $D/soup.py $t build/alpha/A build/recover/shipped-fp32 $W/distil/model; touch $W/soup.done; }
  mkdir -p $W/export $W/package
  cp -n records/build/sandbox/teacher/teacher.entry.json $W/export/
  cp -n records/build/sandbox/teacher/teacher.rows.json $W/package/
  echo "[$(date +%T)] c$t chain"
  [ -f $W-artifact/manifest.json ] || $PY -m build_model --config build_model/configs/sandbox.toml --set student.shared_norm=1.0 \
    --set package.name=minilm-l6-squad-docs-int8 --set work_dir=$W --set package.out=$W-artifact --from-stage export
  echo "[$(date +%T)] c$t shift"
  $PY -m build_model.no_answer $W-artifact --dev ../shared/data/squad/dev.json --threads 1 --write \
    --shift -1.0986122886681098 --shift-why records/bench/no_answer/shift/RULE.md
  echo "[$(date +%T)] c$t docs"
  $PY -m bench docs --part dev --artifact $W-artifact --out $W-docs-dev
done
for t in ${TS:-0.8 1.2}; do
  echo "[$(date +%T)] c$t cascade"
  $PY -m bench cascade --questions 0 --timed 0 --artifact build/alpha/c$t-artifact --out build/alpha/c$t-cascade
done
echo "[$(date +%T)] done"
