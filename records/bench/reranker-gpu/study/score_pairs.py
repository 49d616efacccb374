"""score_pairs.py CKPT OUT [PREFIX]: a re-ranker's logits (192 tokens) on every (question, passage read) pair of
/work/ce2/{squad,docs}-pairs.json whose key starts with PREFIX; writes {key: [logit per passage]}."""
import json
import sys

import torch

sys.path.insert(0, "/work/ce")
from eval_docs import load_model, logits  # noqa: E402

ckpt, out = sys.argv[1], sys.argv[2]
prefix = sys.argv[3] if len(sys.argv) > 3 else ""
torch.set_num_threads(2)
tok, model = load_model(ckpt)
items = json.load(open("/work/ce2/squad-pairs.json")) + json.load(open("/work/ce2/docs-pairs.json"))
res = {it["key"]: [round(x, 4) for x in logits(tok, model, it["q"], it["texts"]).tolist()]
       for it in items if it["key"].startswith(prefix)}
json.dump(res, open(out, "w"))
print(len(res))
