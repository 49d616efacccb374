"""Training loop for extractive QA: plain fine-tuning, or distillation from teacher logits.

Resumable: a checkpoint (model, optimiser, scheduler, position and the random
state of torch, numpy and Python) is written every ``checkpoint_every`` steps,
and a restarted run carries on from it with the same batch order and the same
dropout masks as the uninterrupted run. A checkpoint written before the random
state was kept still resumes, with the seeded state ``train`` starts from.
Batches are grouped by length and padded to their longest window, which saves
about a third of the compute on SQuAD.

Distillation loss (Hinton et al.; DistilBERT's SQuAD recipe)::

    alpha * T^2 * KL(softmax(teacher / T) || softmax(student / T))
      + (1 - alpha) * cross-entropy(student, gold)

over start and end positions. Features without gold labels (a question paired
with another paragraph) take the distillation term alone; features without
teacher logits (``None``: unanswerable pairs, whose target is [CLS]) take the
cross-entropy term alone.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np

from build_model.config import Training
from build_model.training.features import Feature, collate


def length_grouped_batches(lengths: np.ndarray, batch_size: int, seed: int) -> list[np.ndarray]:
    """Shuffled batches of similar lengths (sorted within chunks of 50 batches)."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(lengths))
    chunk = batch_size * 50
    batches = []
    for c in range(0, len(order), chunk):
        part = order[c : c + chunk]
        part = part[np.argsort(-lengths[part], kind="stable")]
        batches.extend(part[b : b + batch_size] for b in range(0, len(part), batch_size))
    rng.shuffle(batches)
    return batches


def question_batches(groups: np.ndarray, batch_size: int, seed: int) -> list[np.ndarray]:
    """Shuffled batches that keep each question's windows together (``groups``: a question key per feature,
    -1 for a feature of its own), about ``batch_size`` features each: what a shared softmax needs."""
    rng = np.random.default_rng(seed)
    by: dict[int, list[int]] = {}
    singles = []
    for i, g in enumerate(groups.tolist()):
        (singles.append(i) if g < 0 else by.setdefault(g, []).append(i))
    units = [np.asarray(v) for v in by.values()] + [np.asarray([i]) for i in singles]
    batches, cur, n = [], [], 0
    for u in rng.permutation(len(units)):
        unit = units[u]
        if n and n + len(unit) > batch_size:
            batches.append(np.concatenate(cur))
            cur, n = [], 0
        cur.append(unit)
        n += len(unit)
    if cur:
        batches.append(np.concatenate(cur))
    return batches


def shared_norm_loss(s_start, s_end, feats: list[Feature], keys: np.ndarray, starts, ends):
    """Mean over the batch's questions with an answer in one of their windows of -log p(gold start) and
    -log p(gold end) (halved), each a softmax over the passage tokens of all the question's windows in the
    batch; None if no question has one."""
    import torch

    device = s_start.device
    pos = torch.arange(s_start.shape[1], device=device)
    cs = torch.tensor([f.context_start for f in feats], device=device)
    ce = cs + torch.tensor([f.context_len for f in feats], device=device)
    passage = (pos[None, :] >= cs[:, None]) & (pos[None, :] < ce[:, None])
    a_start, a_end = s_start.masked_fill(~passage, -1e4), s_end.masked_fill(~passage, -1e4)
    answered = np.asarray([f.gold and f.start > 0 for f in feats])
    terms = []
    for key in np.unique(keys[(keys >= 0) & answered]):
        rows = np.flatnonzero(keys == key)
        gold = rows[answered[rows]]
        g = torch.as_tensor(gold, device=device)
        num_s = torch.logsumexp(a_start[g, starts[g]], 0)
        num_e = torch.logsumexp(a_end[g, ends[g]], 0)
        r = torch.as_tensor(rows, device=device)
        terms.append((torch.logsumexp(a_start[r].reshape(-1), 0) - num_s
                      + torch.logsumexp(a_end[r].reshape(-1), 0) - num_e) / 2)
    return torch.stack(terms).mean() if terms else None


def training_device():
    """Where training runs: the GPU when PyTorch sees one (``QA_BUILD_DEVICE=cpu`` keeps it on the CPU)."""
    import torch

    if os.environ.get("QA_BUILD_DEVICE", "") != "cpu" and torch.cuda.is_available():
        torch.backends.cuda.matmul.allow_tf32 = True  # tensor cores for fp32 training; a 10-bit mantissa is
        torch.backends.cudnn.allow_tf32 = True  # plenty for gradients, and the model ships as int8
        return torch.device("cuda")
    return torch.device("cpu")


def rng_state() -> dict:
    """The random state a training step draws from (dropout: torch; numpy's and Python's for any
    code that uses them), to be kept in a checkpoint. Reading it draws nothing."""
    import torch

    return {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()}


def set_rng_state(state: dict) -> None:
    import torch

    torch.set_rng_state(state["torch"].cpu())  # a checkpoint loaded onto a GPU maps it there
    np.random.set_state(state["numpy"])
    random.setstate(state["python"])


def _log(path: Path, record: dict) -> None:
    line = json.dumps(record)
    print(line, flush=True)
    with path.open("a") as f:
        f.write(line + "\n")


def train(
    model,
    features: list[Feature],
    settings: Training,
    work_dir: Path,
    pad_id: int,
    teacher_logits: list[tuple[np.ndarray, np.ndarray]] | None = None,
    on_epoch_end: Callable[[object, int], dict] | None = None,
    threads: int = 0,
    checkpoint_every: int = 50,
    groups: np.ndarray | None = None,
    shared_norm: float = 0.0,
) -> dict:
    """Train ``model`` in place; returns the training record (also in ``work_dir``).

    ``shared_norm`` > 0 with ``groups`` (a question key per feature, -1 for none): batches keep a question's
    windows together and the loss adds ``shared_norm`` times ``shared_norm_loss``.
    ``threads``: PyTorch threads (0: all CPUs this process may use); a checkpoint
    is written every ``checkpoint_every`` steps (``QA_CHECKPOINT_EVERY`` overrides it: on a GPU,
    50 steps take seconds and the checkpoint's write would cost as much) and at each epoch's end.
    """
    import torch
    import torch.nn.functional as F

    from function.cpus import available_cpus

    torch.set_num_threads(threads or available_cpus())
    torch.manual_seed(settings.seed)
    checkpoint_every = int(os.environ.get("QA_CHECKPOINT_EVERY", checkpoint_every))
    device = training_device()
    model.to(device)
    work_dir.mkdir(parents=True, exist_ok=True)
    log_path = work_dir / "train.log.jsonl"
    ckpt_path = work_dir / "checkpoint.pt"

    lengths = np.asarray([len(f.input_ids) for f in features])
    shared = shared_norm > 0 and groups is not None
    keys = np.asarray(groups) if shared else None
    if shared:
        steps_per_epoch = len(question_batches(keys, settings.batch_size, settings.seed))
    else:
        steps_per_epoch = math.ceil(len(features) / settings.batch_size)
    total_steps = max(1, int(round(settings.epochs * steps_per_epoch)))
    warmup = int(settings.warmup_ratio * total_steps)

    no_decay = ("bias", "LayerNorm.weight", "layer_norm.weight")
    groups = [
        {"params": [p for n, p in model.named_parameters() if not n.endswith(no_decay)],
         "weight_decay": settings.weight_decay},
        {"params": [p for n, p in model.named_parameters() if n.endswith(no_decay)],
         "weight_decay": 0.0},
    ]
    optim = torch.optim.AdamW(groups, lr=settings.learning_rate)

    def lr_at(step: int) -> float:
        if step < warmup:
            return (step + 1) / max(1, warmup)
        return max(0.0, (total_steps - step) / max(1, total_steps - warmup))

    sched = torch.optim.lr_scheduler.LambdaLR(optim, lr_at)
    step, history = 0, []
    if ckpt_path.exists():
        state = torch.load(ckpt_path, weights_only=False, map_location=device)
        model.load_state_dict(state["model"])
        optim.load_state_dict(state["optim"])
        sched.load_state_dict(state["sched"])
        step, history = state["step"], state["history"]
        if "rng" in state:
            set_rng_state(state["rng"])
        # an older checkpoint keeps no random state: the run goes on from the seeded one
        _log(log_path, {"event": "resume", "step": step, "rng": "rng" in state})

    def save_checkpoint() -> None:
        tmp = ckpt_path.with_suffix(".tmp")
        torch.save({"model": model.state_dict(), "optim": optim.state_dict(),
                    "sched": sched.state_dict(), "step": step, "history": history, "rng": rng_state()}, tmp)
        os.replace(tmp, ckpt_path)

    t = settings.temperature
    model.train()
    started = time.perf_counter()
    first_step = step
    while step < total_steps:
        epoch, pos = divmod(step, steps_per_epoch)
        if shared:  # a question's windows in one batch; the count can differ by a few between epochs, so an
            # epoch is cut or topped up (its first batches again) to the first epoch's count
            batches = question_batches(keys, settings.batch_size, settings.seed + epoch)
            batches = [batches[i % len(batches)] for i in range(steps_per_epoch)]
        else:
            batches = length_grouped_batches(lengths, settings.batch_size, settings.seed + epoch)
        for idx in batches[pos:]:
            if step >= total_steps:
                break
            feats = [features[i] for i in idx]
            arrays = {k: torch.from_numpy(v).to(device) for k, v in collate(feats, pad_id).items()}
            mask = arrays["attention_mask"] == 0
            out = model(input_ids=arrays["input_ids"], attention_mask=arrays["attention_mask"],
                        token_type_ids=arrays["token_type_ids"])
            s_start = out.start_logits.masked_fill(mask, -1e4)
            s_end = out.end_logits.masked_fill(mask, -1e4)
            gold = torch.tensor([f.gold for f in feats], device=device)
            ce = (F.cross_entropy(s_start, arrays["start_positions"], reduction="none")
                  + F.cross_entropy(s_end, arrays["end_positions"], reduction="none")) / 2
            if teacher_logits is None:
                loss = ce.mean()
                parts = {"ce": loss.item()}
            else:
                t_start = torch.full_like(s_start, -1e4)
                t_end = torch.full_like(s_end, -1e4)
                soft = torch.ones(len(idx), dtype=torch.bool, device=device)
                for r, i in enumerate(idx):
                    if teacher_logits[i] is None:
                        soft[r] = False
                        continue
                    ts, te = teacher_logits[i]
                    t_start[r, : len(ts)] = torch.from_numpy(ts.astype(np.float32))
                    t_end[r, : len(te)] = torch.from_numpy(te.astype(np.float32))
                kd = (
                    F.kl_div(F.log_softmax(s_start / t, -1), F.softmax(t_start / t, -1), reduction="none").sum(-1)
                    + F.kl_div(F.log_softmax(s_end / t, -1), F.softmax(t_end / t, -1), reduction="none").sum(-1)
                ) / 2 * t * t
                w_ce = torch.where(gold, torch.where(soft, 1.0 - settings.alpha, 1.0), 0.0)
                w_kd = torch.where(soft, torch.where(gold, settings.alpha, 1.0), 0.0)
                loss = (w_kd * kd + w_ce * ce).mean()
                parts = {"kd": kd[soft].mean().item() if soft.any() else None,
                         "ce": ce[gold].mean().item() if gold.any() else None}
            if shared:
                sn = shared_norm_loss(s_start, s_end, feats, keys[idx], arrays["start_positions"],
                                      arrays["end_positions"])
                if sn is not None:
                    loss = loss + shared_norm * sn
                    parts["shared"] = sn.item()
            optim.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optim.step()
            sched.step()
            step += 1
            if step % 10 == 0 or step == total_steps:
                rate = (step - first_step) / (time.perf_counter() - started)
                _log(log_path, {"event": "step", "step": step, "of": total_steps, "epoch": epoch,
                                "loss": round(loss.item(), 4), **parts, "lr": sched.get_last_lr()[0],
                                "steps_per_s": round(rate, 3)})
            if step % checkpoint_every == 0:
                save_checkpoint()
            if step % steps_per_epoch == 0 or step == total_steps:
                if on_epoch_end is not None:
                    model.eval()
                    record = {"epoch": step / steps_per_epoch, **on_epoch_end(model, epoch)}
                    model.train()
                    history.append(record)
                    _log(log_path, {"event": "epoch_end", **record})
                save_checkpoint()
    model.eval()
    return {"settings": asdict(settings), "steps": total_steps, "features": len(features),
            "history": history, "train_seconds": round(time.perf_counter() - started, 1)}
