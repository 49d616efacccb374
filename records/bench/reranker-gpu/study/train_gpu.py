"""train_gpu.py ARM: a cross-encoder passage re-ranker (all-MiniLM-L6-v2, one logit on [CLS]) trained listwise on
build/ce-gpu/data.json.gz (a question, its right passage, up to 7 hard negatives of its article / package), then
its logits on every (question, passage read) pair of build/ce-gpu/eval.json.gz. ARM: name:src:epochs where src is
all or squad. Env: OUT (results), DEADLINE_S (training time budget, steps cut to fit), SAVE (1: weights to OUT),
STEPS_CAP (a smoke run), SCORE_EPOCHS (1: score after every epoch)."""
import gzip
import json
import os
import random
import sys
import time

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "start")
MAXLEN, NEG, LR = 256, 7, 5e-5
GROUPS = int(os.environ.get("CE_GROUPS", "32"))


def encode(tok, q_ids, p_ids):
    """[CLS] q [SEP] p [SEP], the passage cut to fit: what tok(q, p, truncation="only_second") makes."""
    cls, sep = tok.cls_token_id, tok.sep_token_id
    room = MAXLEN - len(q_ids) - 3
    ids = [cls, *q_ids, sep, *p_ids[:room], sep]
    types = [0] * (len(q_ids) + 2) + [1] * (len(ids) - len(q_ids) - 2)
    return ids, types


def batch(rows, dev):
    n = max(len(r[0]) for r in rows)
    ids = torch.zeros(len(rows), n, dtype=torch.long)
    types = torch.zeros_like(ids)
    mask = torch.zeros_like(ids)
    for i, (a, t) in enumerate(rows):
        ids[i, :len(a)] = torch.tensor(a)
        types[i, :len(t)] = torch.tensor(t)
        mask[i, :len(a)] = 1
    return {"input_ids": ids.to(dev), "token_type_ids": types.to(dev), "attention_mask": mask.to(dev)}


@torch.no_grad()
def score(model, tok, ev, dev, path):
    model.eval()
    out = {}
    qcache = {}
    for item in ev:
        q = qcache.setdefault(item["q"], tok(item["q"], add_special_tokens=False)["input_ids"][:64])
        rows = [encode(tok, q, tok(t, add_special_tokens=False)["input_ids"]) for t in item["texts"]]
        with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=dev.type == "cuda"):
            r = model(**batch(rows, dev)).logits.float().view(-1)
        out[item["key"]] = [round(x, 4) for x in r.tolist()]
    json.dump(out, open(path, "w"))
    model.train()


def main():
    name, src, epochs = sys.argv[1].split(":")
    out_dir = os.environ.get("OUT", "/tmp/out")
    deadline = float(os.environ.get("DEADLINE_S", "1e9"))
    cap = int(os.environ.get("STEPS_CAP", "0"))
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.manual_seed(0)
    t0 = time.time()
    data = json.load(gzip.open(os.path.join(HERE, "data.json.gz"), "rt"))
    ev = json.load(gzip.open(os.path.join(HERE, "eval.json.gz"), "rt"))
    ev = ev[:int(os.environ.get("EVAL_LIMIT", "0")) or len(ev)]
    groups = [g for g in data["groups"] if src == "all" or g["src"] == src]
    tok = AutoTokenizer.from_pretrained(MODEL)
    enc = tok(data["passages"], add_special_tokens=False)["input_ids"]
    p_ids = [e[:MAXLEN] for e in enc]
    q_ids = tok([g["q"] for g in groups], add_special_tokens=False)["input_ids"]
    # check the hand-made pair encoding against the tokenizer's own, on a few groups
    for i in range(5):
        want = tok(groups[i]["q"], data["passages"][groups[i]["pos"]], truncation="only_second", max_length=MAXLEN)
        ids, types = encode(tok, q_ids[i][:64], p_ids[groups[i]["pos"]])
        assert len(q_ids[i]) > 64 or (ids == want["input_ids"] and types == want["token_type_ids"]), i
    model = AutoModelForSequenceClassification.from_pretrained(MODEL, num_labels=1).float().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
    per_epoch = len(groups) // GROUPS
    total = int(epochs) * per_epoch
    if cap:
        total = min(total, cap)
    warm = max(1, total // 20)
    rnd = random.Random(1)
    n_pass = len(data["passages"])
    print(f"[{name}] {len(groups)} groups, {total} steps planned, setup {time.time() - t0:.1f}s", flush=True)
    model.train()
    step, t1, losses, accs = 0, time.time(), [], []
    log = open(os.path.join(out_dir, f"train-{name}.jsonl"), "w")
    while step < total:
        if step % per_epoch == 0:
            order = list(range(len(groups)))
            rnd.shuffle(order)
        idx = [order[(step % per_epoch) * GROUPS + j] for j in range(GROUPS)]
        rows = []
        for i in idx:
            g = groups[i]
            neg = list(g["neg"])
            while len(neg) < NEG:
                neg.append(rnd.randrange(n_pass))
            for p in [g["pos"], *neg]:
                rows.append(encode(tok, q_ids[i][:64], p_ids[p]))
        lr = LR * min((step + 1) / warm, max(0.0, (total - step) / max(1, total - warm)))
        for pg in opt.param_groups:
            pg["lr"] = lr
        with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=dev.type == "cuda"):
            inputs = batch(rows, dev)
            if step == 0:
                print("batch", inputs["input_ids"].shape, flush=True)
            logits = model(**inputs).logits.float().view(GROUPS, NEG + 1)
        loss = torch.nn.functional.cross_entropy(logits, torch.zeros(GROUPS, dtype=torch.long, device=dev))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        step += 1
        losses.append(loss.item())
        accs.append((logits.argmax(1) == 0).float().mean().item())
        if step == 30:
            per_step = (time.time() - t1) / 30
            fit = int(deadline / per_step)
            if fit < total:
                print(f"[{name}] {per_step:.3f}s/step: steps cut {total} -> {fit}", flush=True)
                total = fit
                warm = min(warm, total // 20 or 1)
        if step % 50 == 0 or step == total:
            log.write(json.dumps({"step": step, "loss": round(sum(losses) / len(losses), 4),
                                  "acc": round(sum(accs) / len(accs), 4), "lr": lr,
                                  "s": round(time.time() - t1, 1)}) + "\n")
            log.flush()
            losses, accs = [], []
        if os.environ.get("SCORE_EPOCHS") == "1" and step % per_epoch == 0 and step < total:
            score(model, tok, ev, dev, os.path.join(out_dir, f"scores-{name}-e{step // per_epoch}.json"))
    print(f"[{name}] trained {step} steps in {time.time() - t1:.1f}s", flush=True)
    score(model, tok, ev, dev, os.path.join(out_dir, f"scores-{name}.json"))
    print(f"[{name}] scored, {time.time() - t0:.1f}s in all", flush=True)
    if os.environ.get("SAVE") == "1":
        model.half().save_pretrained(os.path.join(out_dir, f"w-{name}"))


if __name__ == "__main__":
    main()
