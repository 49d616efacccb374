# ruff: noqa  (a study script kept as it ran)
"""Fine-tune all-MiniLM-L6-v2 (both towers, shared weights) on (question, passage) pairs with in-batch negatives.

Pairs: generated documentation questions (docqa-corpus-negatives, answerable; a fifth of the packages held out, the
same seed as train.py) and, optionally, SQuAD train questions. Mean pooling, unit length, scale 20 (MNRL), other
questions of the same passage masked out of a row's negatives. Checkpoints every CKPT_S seconds; resumes.
usage: finetune.py OUT [--squad] [--limit N] [--max-len 256] [--epochs 1]
"""
import argparse, gzip, json, os, random, sys, time
from pathlib import Path
import numpy as np
import torch
from transformers import AutoModel, AutoTokenizer

sys.path.insert(0, "/work/main")
from function.retrieval.hybrid import dense_text

SRC = "/work/shared/models/all-MiniLM-L6-v2"
CKPT_S = 600
p = argparse.ArgumentParser()
p.add_argument("out", type=Path)
p.add_argument("--squad", action="store_true")
p.add_argument("--limit", type=int, default=0, help="batches")
p.add_argument("--max-len", type=int, default=256)
p.add_argument("--bs", type=int, default=32)
p.add_argument("--lr", type=float, default=2e-5)
p.add_argument("--epochs", type=int, default=1)
args = p.parse_args()
torch.manual_seed(0)
torch.set_num_threads(2)

meta = json.load(open("/work/main/build/qadapt/meta.json"))
pkg = meta["docs"]["pkg"]
pkgs = sorted(set(pkg))
held = set(np.random.default_rng(0).choice(pkgs, size=len(pkgs) // 5, replace=False))
d = json.load(gzip.open("/work/main/records/build/sandbox/docs-gpu/docqa-corpus-negatives.json.gz"))["data"]
passages, pairs = [], []
for art in d:
    for para in art["paragraphs"]:
        ans = [qa for qa in para["qas"] if not qa.get("is_impossible")]
        if not ans:
            continue
        pi = len(passages)
        passages.append(para["context"])
        if pkg[pi] in held:
            continue
        pairs += [(qa["question"], pi, pkg[pi]) for qa in ans]
assert len(passages) == len(pkg)
if args.squad:
    for art in json.load(open("/work/shared/data/squad/train.json"))["data"]:
        title = art["title"].replace("_", " ")
        for para in art["paragraphs"]:
            pi = len(passages)
            passages.append(dense_text(title, para["context"]))
            pairs += [(qa["question"], pi, "squad:" + title) for qa in para["qas"]]
rng = random.Random(0)
rng.shuffle(pairs)
groups = {}
for q, pi, g in pairs:  # a batch holds one package's (or article's) questions: its negatives are its neighbours
    groups.setdefault(g, []).append((q, pi))
batches = [v[i:i + args.bs] for v in groups.values() for i in range(0, len(v) - args.bs + 1, args.bs)]
rng.shuffle(batches)
squad_b = [b for b in batches if b[0][1] >= len(pkg)]
docs_b = [b for b in batches if b[0][1] < len(pkg)]
if args.limit:
    n_s = min(len(squad_b), args.limit // 3) if args.squad else 0
    batches = squad_b[:n_s] + docs_b[: args.limit - n_s]
    rng.shuffle(batches)
print(f"batches: docs {sum(b[0][1] < len(pkg) for b in batches)} squad {sum(b[0][1] >= len(pkg) for b in batches)}", flush=True)
steps_per_epoch = len(batches)
total = steps_per_epoch * args.epochs
print(f"pairs {len(pairs)} passages {len(passages)} steps {total}", flush=True)

args.out.mkdir(parents=True, exist_ok=True)
tok = AutoTokenizer.from_pretrained(SRC)
state = args.out / "state.pt"
model = AutoModel.from_pretrained(SRC)
opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
warm = max(1, total // 10)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (total - s) / max(1, total - warm)) if s >= warm else (s + 1) / warm)
step = 0
if state.exists():
    ck = torch.load(state, weights_only=False)
    model.load_state_dict(ck["model"]); opt.load_state_dict(ck["opt"]); sched.load_state_dict(ck["sched"]); step = ck["step"]
    print(f"resumed at step {step}", flush=True)


def embed(texts, max_len):
    b = tok(texts, padding=True, truncation=True, max_length=max_len, return_tensors="pt")
    h = model(**b).last_hidden_state
    m = b["attention_mask"].unsqueeze(-1).float()
    return torch.nn.functional.normalize((h * m).sum(1) / m.sum(1).clamp(min=1e-9), dim=1)


model.train()
last = time.time(); t0 = time.time(); losses = []
while step < total:
    e, i = divmod(step, steps_per_epoch)
    batch = batches[i]
    qv = embed([q for q, _ in batch], 64)
    pv = embed([passages[pi] for _, pi in batch], args.max_len)
    logits = 20.0 * qv @ pv.T
    ids = torch.tensor([pi for _, pi in batch])
    same = (ids[:, None] == ids[None, :]) & ~torch.eye(len(batch), dtype=torch.bool)
    logits = logits.masked_fill(same, -1e4)
    loss = torch.nn.functional.cross_entropy(logits, torch.arange(len(batch)))
    opt.zero_grad(); loss.backward(); torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0); opt.step(); sched.step()
    step += 1; losses.append(loss.item())
    if step % 20 == 0:
        print(json.dumps({"step": step, "of": total, "loss": round(float(np.mean(losses[-20:])), 4),
                          "s": round(time.time() - t0)}), flush=True)
    if time.time() - last > CKPT_S or step == total:
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "step": step}, state)
        last = time.time()
        print(f"checkpoint at step {step}", flush=True)
model.save_pretrained(args.out / "model")
tok.save_pretrained(args.out / "model")
print("done", flush=True)
