"""train.py STEPS: listwise cross-encoder training on /work/ce/groups.json (8 groups of 4 a step), resumable from
/work/ce/ckpt.pt (written every 100 steps), log /work/ce/train.log.jsonl; the final weights in /work/ce/final/."""
import json
import os
import random
import sys
import time

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup

BASE = "/work/shared/models/all-MiniLM-L6-v2"
MAXLEN, GROUPS, LR = 192, 8, 5e-5
CKPT, LOG = "/work/ce/ckpt.pt", "/work/ce/train.log.jsonl"


def main():
    steps = int(sys.argv[1])
    torch.set_num_threads(2)
    torch.manual_seed(0)
    groups = json.load(open("/work/ce/groups.json"))
    tok = AutoTokenizer.from_pretrained(BASE)
    model = AutoModelForSequenceClassification.from_pretrained(BASE, num_labels=1)
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
    sched = get_linear_schedule_with_warmup(opt, 60, steps)
    step = 0
    if os.path.exists(CKPT):
        ck = torch.load(CKPT, weights_only=False)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        step = ck["step"]
        print("resumed at", step, flush=True)
    order = list(range(len(groups)))
    random.Random(1).shuffle(order)
    model.train()
    t0 = time.time()
    log = open(LOG, "a")
    while step < steps:
        idx = [order[(step * GROUPS + j) % len(order)] for j in range(GROUPS)]
        qs, ps = [], []
        for i in idx:
            g = groups[i]
            for p in [g["pos"], *g["neg"]]:
                qs.append(g["q"])
                ps.append(p)
        enc = tok(qs, ps, truncation="only_second", max_length=MAXLEN, padding=True, return_tensors="pt")
        logits = model(**enc).logits.view(GROUPS, 4)
        loss = torch.nn.functional.cross_entropy(logits, torch.zeros(GROUPS, dtype=torch.long))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        step += 1
        acc = (logits.argmax(1) == 0).float().mean().item()
        log.write(json.dumps({"step": step, "loss": round(loss.item(), 4), "acc": acc,
                              "s": round(time.time() - t0, 1)}) + "\n")
        log.flush()
        if step % 100 == 0 or step == steps:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                        "step": step}, CKPT + ".tmp")
            os.replace(CKPT + ".tmp", CKPT)
    model.save_pretrained("/work/ce/final")
    tok.save_pretrained("/work/ce/final")
    print("done", step, flush=True)


if __name__ == "__main__":
    main()
