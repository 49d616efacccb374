"""train_cpu.py STEPS: the CPU re-ranker of cross-encoder-choice (/work/ce/ckpt.pt, 900 steps on SQuAD + documentation)
trained on: SQuAD train's groups alone (build/ce-gpu/data.json.gz, its 3 hardest BM25 negatives of the same article),
8 groups of 4 a step, 192 tokens, lr 3e-5 (warm-up 30 steps, linear decay to STEPS). Resumable from
/work/ce2/ckpt.pt (every 50 steps); log /work/ce2/train.log.jsonl; final weights /work/ce2/final/."""
import gzip
import json
import os
import random
import sys
import time

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

BASE = "/work/shared/models/all-MiniLM-L6-v2"
MAXLEN, GROUPS, LR = 192, 8, 3e-5
CKPT, LOG = "/work/ce2/ckpt.pt", "/work/ce2/train.log.jsonl"


def main():
    steps = int(sys.argv[1])
    torch.set_num_threads(2)
    torch.manual_seed(0)
    data = json.load(gzip.open("/work/main/build/ce-gpu/data.json.gz", "rt"))
    P = data["passages"]
    groups = [g for g in data["groups"] if g["src"] == "squad" and len(g["neg"]) >= 3]
    tok = AutoTokenizer.from_pretrained(BASE)
    model = AutoModelForSequenceClassification.from_pretrained(BASE, num_labels=1)
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
    step = 0
    if os.path.exists(CKPT):
        ck = torch.load(CKPT, weights_only=False)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        step = ck["step"]
        print("resumed at", step, flush=True)
    else:
        model.load_state_dict(torch.load("/work/ce/ckpt.pt", weights_only=False)["model"])
        print("from /work/ce/ckpt.pt (900 steps)", len(groups), "groups", flush=True)
    order = list(range(len(groups)))
    random.Random(2).shuffle(order)
    model.train()
    t0 = time.time()
    log = open(LOG, "a")
    while step < steps:
        lr = LR * min((step + 1) / 30, (steps - step) / (steps - 30))
        for pg in opt.param_groups:
            pg["lr"] = lr
        idx = [order[(step * GROUPS + j) % len(order)] for j in range(GROUPS)]
        qs, ps = [], []
        for i in idx:
            g = groups[i]
            for p in [g["pos"], *g["neg"][:3]]:
                qs.append(g["q"])
                ps.append(P[p])
        enc = tok(qs, ps, truncation="only_second", max_length=MAXLEN, padding=True, return_tensors="pt")
        logits = model(**enc).logits.view(GROUPS, 4)
        loss = torch.nn.functional.cross_entropy(logits, torch.zeros(GROUPS, dtype=torch.long))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
        step += 1
        acc = (logits.argmax(1) == 0).float().mean().item()
        log.write(json.dumps({"step": step, "loss": round(loss.item(), 4), "acc": acc, "lr": lr,
                              "s": round(time.time() - t0, 1)}) + "\n")
        log.flush()
        if step % 50 == 0 or step == steps:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, CKPT + ".tmp")
            os.replace(CKPT + ".tmp", CKPT)
    model.save_pretrained("/work/ce2/final")
    tok.save_pretrained("/work/ce2/final")
    print("done", step, flush=True)


if __name__ == "__main__":
    main()
