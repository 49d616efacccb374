"""eval_docs.py WEIGHTS [--ckpt PATH]: the re-ranker's logits over the passages each captured documentation question
asked alone read, added to the first stage's per-passage bias as w x (r - max r); F1 per part through the function's
own decoding (/work/study/evaluate.py's decode). Writes /work/ce/eval-docs.json."""
import json
import sys

import numpy as np
import torch

sys.path.insert(0, "/work/study")
import evaluate as ev  # noqa: E402
from transformers import AutoModelForSequenceClassification, AutoTokenizer  # noqa: E402

from function.evaluate.scoring import score  # noqa: E402

BASE = "/work/shared/models/all-MiniLM-L6-v2"


def load_model(path):
    tok = AutoTokenizer.from_pretrained(BASE)
    if path.endswith(".pt"):
        model = AutoModelForSequenceClassification.from_pretrained(BASE, num_labels=1)
        model.load_state_dict(torch.load(path, weights_only=False)["model"])
    else:
        model = AutoModelForSequenceClassification.from_pretrained(path)
    model.eval()
    return tok, model


@torch.no_grad()
def logits(tok, model, question, texts, maxlen=192):
    enc = tok([question] * len(texts), texts, truncation="only_second", max_length=maxlen, padding=True,
              return_tensors="pt")
    return model(**enc).logits.view(-1).numpy().astype(np.float64)


def main():
    weights = [float(w) for w in sys.argv[1].split(",")]
    ckpt = sys.argv[2] if len(sys.argv) > 2 else "/work/ce/ckpt.pt"
    torch.set_num_threads(int(__import__("os").environ.get("THREADS", "2")))
    tok, model = load_model(ckpt)
    out = {"ckpt": ckpt, "parts": {}}
    per_q = []
    for name in ("docs", "blind"):
        caps, rows = ev.load(name)
        import os
        limit = int(os.environ.get("LIMIT", "0"))
        for j, (key, row) in enumerate(rows.items()):
            if limit and j >= limit:
                break
            c = caps.get((*key, "alone"))
            if c is None:
                continue
            rd = c["reading"]
            n = len(rd.tokens)
            part = row["part"] if name == "docs" else "blind"
            rec = {"key": list(key), "part": part, "f1": {str(w): row["f1"] for w in weights}, "moved": False}
            rec["f1"]["alone"] = row["f1"]
            if not c["stopped"] and n > 1 and not row["no_answer"]:
                r = logits(tok, model, c["req"].question, rd.texts)
                rec["r"] = r.tolist()
                rec["moved"] = True
                for w in weights:
                    text, _ = ev.decode(c, np.asarray(rd.bias) + w * (r - r.max()))
                    rec["f1"][str(w)] = score(text, row["answers"])[1]
                forced = np.full(n, -1e4)
                forced[int(r.argmax())] = 0.0
                text, _ = ev.decode(c, forced)
                rec["f1"]["alone"] = score(text, row["answers"])[1]
            per_q.append(rec)
    for part in ("dev", "test", "blind"):
        qs = [q for q in per_q if q["part"] == part]
        out["parts"][part] = {"questions": len(qs), "moved": sum(q["moved"] for q in qs),
                              **{k: round(100 * sum(q["f1"][k] for q in qs) / len(qs), 2) for k in qs[0]["f1"]}}
    out["questions"] = per_q
    json.dump(out, open("/work/ce/eval-docs.json", "w"))
    print(json.dumps(out["parts"], indent=1))


if __name__ == "__main__":
    main()
