#!/usr/bin/env bash
# Work dir for the marks-trained student B' (A one epoch on SQuAD + the same seeded 16,000 docs questions, marks on).
set -euo pipefail
cd /work/marks
PY=/work/main/.venv/bin/python
R=records/build/sandbox
W=build/mk/b
mkdir -p build/mk/A0 $W/teacher/model $W/base/model $W/teacher_logits
git show 03f0752:artifact/model.ort > build/mk/A0/model.ort
git show 03f0752:artifact/tokenizer.json > build/mk/A0/tokenizer.json
# a QA checkpoint of the student's layout, for config.json (its head is untrained: only the layout is used)
[ -f build/mk/like/model.safetensors ] || $PY - <<'PYEOF'
from transformers import BertForQuestionAnswering
m = BertForQuestionAnswering.from_pretrained("../shared/models/all-MiniLM-L6-v2")
m.save_pretrained("build/mk/like")
PYEOF
[ -f build/mk/A/model.safetensors ] || $PY $R/docs-cpu/dequantise.py build/mk/A0/model.ort build/mk/A --like build/mk/like
cp $R/teacher/stage.json $W/teacher/stage.json
cp $R/teacher/config.json $R/teacher/tokenizer.json $W/teacher/model/
cp $R/docs-gpu6/base.stage.json $W/base/stage.json
cp build/mk/A/config.json build/mk/A/tokenizer.json $W/base/model/
cp -n $R/teacher_logits/*.npz $W/teacher_logits/
echo ok
