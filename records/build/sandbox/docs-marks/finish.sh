#!/usr/bin/env bash
# RULE.md's S' after run.sh: 0.5 A + 0.5 B' through the sandbox chain from export into build/mk/s-artifact, its
# threshold moved by -ln 3 as S's was, then the documentation benchmark (dev and test) and rules 1-4.
# Runs in a checkout with render.patch applied (ROOT, default /work/marks), its Python from /work/main/.venv.
set -euo pipefail
ROOT=${ROOT:-/work/marks}
cd "$ROOT"
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
PY=${PY:-/work/main/.venv/bin/python}
R=records/build/sandbox
W=build/mk/s
[ -f build/mk/b/distil/model/model.safetensors ] || { echo "B' not trained yet: run.sh first"; exit 1; }
mkdir -p $W
for s in teacher base distil; do [ -e $W/$s ] || cp -r build/mk/b/$s $W/$s; done
if [ ! -f $W/soup.done ]; then
  rm -rf $W/distil/model
  $PY $R/docs-cpu/soup.py 0.5 build/mk/A build/mk/b/distil/model $W/distil/model
  touch $W/soup.done
fi
mkdir -p $W/export $W/package
cp -n $R/teacher/teacher.entry.json $W/export/
cp -n $R/teacher/teacher.rows.json $W/package/
echo "[$(date +%T)] chain"
[ -f $W-artifact/manifest.json ] || $PY -m build_model --config build_model/configs/sandbox.toml \
  --set work_dir=$W --set student.model=build/mk/A --set student.base_weight=0 \
  --set student.extra_train=$R/docs-gpu/docqa-corpus-negatives.json.gz --set student.extra_limit=16000 \
  --set student.epochs=1 --set student.learning_rate=5e-5 \
  --set package.name=minilm-l6-squad-docs-int8 --set package.out=$W-artifact --from-stage export
echo "[$(date +%T)] shift"
if [ ! -f $W-artifact/shifted ]; then
  $PY -m build_model.no_answer $W-artifact --dev ../shared/data/squad/dev.json --threads 1 --write \
    --shift -1.0986122886681098 --shift-why records/bench/no_answer/shift/RULE.md
  touch $W-artifact/shifted
fi
echo "[$(date +%T)] docs"
[ -f $W-docs/docs.json ] || $PY -m bench docs --part all --artifact $W-artifact --out $W-docs
$PY - $W-artifact/manifest.json $W-docs/docs.json <<'PYEOF'
import json, sys
m, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
dev, q = d["tables"]["pooled"]["dev"], m["metrics"]["student_onnx_int8"]
ok = dev["f1"] >= 64.6 and dev["f1_right_passage"] >= 67.67 and dev["no_answer_answerable"] <= 5 \
    and dev["no_answer_off_topic"] >= 85.7 and q["f1"] >= 72.0 and q["bytes"] <= 30e6
print(f"docs dev F1 {dev['f1']}, right passage {dev['f1_right_passage']}, abstained {dev['no_answer_answerable']}%, "
      f"off-topic {dev['no_answer_off_topic']}%, SQuAD int8 {q['f1']:.2f}, {q['bytes']} bytes: "
      f"rules 1-4 {'hold' if ok else 'fail'}")
PYEOF
echo "[$(date +%T)] finished"
