"""``python -m build_model.encoder_tune``: the sentence encoder of hybrid retrieval, trained on questions.

The shipped ``encoder/`` is all-MiniLM-L6-v2 trained this way (``encoder/README.md``); export the result with
``python -m build_model.encoder_export --source OUT/model``.

Pairs of a question and the passage that answers it: the answerable questions of generated documentation
(``--docqa``, ``python -m build_model.docdata``'s SQuAD 2.0-style file, gzip'd or not; a passage is its context
as generated, which carries its title) and, with ``--squad``, SQuAD train questions (a paragraph as the function
embeds it: its article's title, then its text, ``function.retrieval.hybrid.dense_text``). A batch holds
``--batch-size`` questions of one package (a documentation title's first path part) or one SQuAD article, so that
its other passages, the negatives, are the passage's neighbours; other questions of the same passage are masked out
of a row's negatives. The loss is the cross-entropy of 20 x the cosines (multiple negatives ranking), mean pooling
to unit length as served; AdamW, a linear warm-up over a tenth of the steps then linear decay, gradients clipped at
norm 1. A seeded fifth of the packages (``--hold-out``) is left out, to measure on them. ``--batches N`` keeps N
batches, a third of them SQuAD's where ``--squad`` is given. The order of everything is seeded.

Checkpoints (``OUT/state.pt``: weights, optimizer, schedule, step, random state) every ``--checkpoint-s``
seconds and at the end; a run started again resumes from it. Writes ``OUT/model`` (weights, config.json,
tokenizer.json) and logs a JSON line every 20 steps.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SCALE = 20.0  # cosine -> logit
QUESTION_TOKENS = 64
SEED = 0


@dataclass
class Pairs:
    passages: list[str]  # every passage a batch may hold, documentation first
    pairs: list[tuple[str, int, str]]  # (question, passage index, group: package or "squad:" + article)
    docs_passages: int  # passages below this index are documentation passages
    held_out: list[str]  # the packages left out


def load_pairs(docqa: Path, squad: Path | None, hold_out: float = 0.2, seed: int = SEED) -> Pairs:
    """The question-passage pairs of both sources (read by ``build_model.squad.load_squad``: a malformed file is a
    ``SquadFormatError`` naming it), the held-out packages' questions left out."""
    from build_model.squad import load_squad
    from function.retrieval.hybrid import dense_text

    docs = load_squad(docqa)  # answerable questions only
    asked: dict[str, list[str]] = {}
    for q in docs.questions:
        asked.setdefault(q.paragraph_id, []).append(q.question)
    answered = [p for p in docs.paragraphs.values() if p.id in asked]  # in the file's order
    passages = [p.context for p in answered]
    groups = [p.title.split("/")[0] for p in answered]
    packages = sorted(set(groups))
    held = set(np.random.default_rng(seed).choice(packages, size=int(len(packages) * hold_out), replace=False)
               if packages else [])
    pairs = [(q, i, g) for i, (g, p) in enumerate(zip(groups, answered, strict=True)) if g not in held
             for q in asked[p.id]]
    docs_passages = len(passages)
    if squad is not None:
        split = load_squad(squad)
        where = {}  # paragraph id -> (passage index, group)
        for p in split.paragraphs.values():
            title = p.title.replace("_", " ")
            where[p.id] = (len(passages), "squad:" + title)
            passages.append(dense_text(title, p.context))
        pairs += [(q.question, *where[q.paragraph_id]) for q in split.questions]
    return Pairs(passages, pairs, docs_passages, sorted(held))


def make_batches(data: Pairs, batch_size: int, limit: int = 0, squad_share: float = 1 / 3,
                 seed: int = SEED) -> list[list[tuple[str, int]]]:
    """Batches of one group's questions each (a group's remainder short of a batch dropped), in a seeded order;
    ``limit``: that many, ``squad_share`` of them SQuAD's where there are SQuAD pairs."""
    rng = random.Random(seed)
    pairs = list(data.pairs)
    rng.shuffle(pairs)
    groups: dict[str, list[tuple[str, int]]] = {}
    for question, passage, group in pairs:
        groups.setdefault(group, []).append((question, passage))
    batches = [rows[i:i + batch_size] for rows in groups.values() for i in range(0, len(rows) - batch_size + 1,
                                                                                  batch_size)]
    rng.shuffle(batches)
    if limit:
        squad = [b for b in batches if b[0][1] >= data.docs_passages]
        docs = [b for b in batches if b[0][1] < data.docs_passages]
        n_squad = min(len(squad), int(limit * squad_share + 1e-9)) if squad else 0
        batches = squad[:n_squad] + docs[:limit - n_squad]
        rng.shuffle(batches)
    return batches


def schedule(step: int, total: int) -> float:
    """The learning rate's factor: linear warm-up over a tenth of the steps, then linear decay to 0."""
    warm = max(1, total // 10)
    if step < warm:
        return (step + 1) / warm
    return max(0.0, (total - step) / max(1, total - warm))


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m build_model.encoder_tune", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source", type=Path, required=True, help="a BERT sentence-encoder folder (all-MiniLM-L6-v2)")
    p.add_argument("--docqa", type=Path, required=True, help="generated documentation questions (SQuAD 2.0 JSON)")
    p.add_argument("--squad", type=Path, default=None, help="SQuAD train questions beside them (train.json)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--batches", type=int, default=0, help="how many batches (0: all)")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--max-tokens", type=int, default=192, help="a passage cut at this many word pieces")
    p.add_argument("--lr", type=float, default=2e-5)
    p.add_argument("--hold-out", type=float, default=0.2, help="share of the packages left out")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--checkpoint-s", type=float, default=600.0)
    return p.parse_args(argv)


def _tokenizer(source: Path):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(source / "tokenizer.json"))
    pad = tok.token_to_id("[PAD]")
    tok.enable_padding(pad_id=0 if pad is None else pad, pad_token="[PAD]")
    return tok


def _embed(model, tok, texts: list[str], max_tokens: int):
    """Mean-pooled, unit-length embeddings with gradients (the runtime's pooling, in torch)."""
    import torch

    tok.enable_truncation(max_tokens)
    encoded = tok.encode_batch(texts)
    ids = torch.tensor([e.ids for e in encoded])
    mask = torch.tensor([e.attention_mask for e in encoded])
    hidden = model(input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids)).last_hidden_state
    m = mask.unsqueeze(-1).float()
    return torch.nn.functional.normalize((hidden * m).sum(1) / m.sum(1).clamp(min=1e-9), dim=1)


def batch_loss(model, tok, batch: list[tuple[str, int]], passages: list[str], max_tokens: int):
    """Multiple negatives ranking over the batch, another row of the same passage not counted a negative."""
    import torch

    questions = _embed(model, tok, [q for q, _ in batch], QUESTION_TOKENS)
    texts = _embed(model, tok, [passages[p] for _, p in batch], max_tokens)
    logits = SCALE * questions @ texts.T
    ids = torch.tensor([p for _, p in batch])
    same = (ids[:, None] == ids[None, :]) & ~torch.eye(len(batch), dtype=torch.bool)
    return torch.nn.functional.cross_entropy(logits.masked_fill(same, -1e4), torch.arange(len(batch)))


def main(argv=None) -> int:
    args = parse_args(argv)
    import torch
    from transformers import BertModel

    for path in (args.source / "tokenizer.json", args.docqa, *([args.squad] if args.squad else [])):
        if not path.is_file():
            print(f"encoder_tune: {path} not found", file=sys.stderr)
            return 2
    from build_model.squad import SquadFormatError

    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    try:
        data = load_pairs(args.docqa, args.squad, args.hold_out)
    except SquadFormatError as e:
        print(f"encoder_tune: {e}", file=sys.stderr)
        return 2
    batches = make_batches(data, args.batch_size, args.batches)
    if not batches:
        print(f"encoder_tune: no batch of {args.batch_size} questions of one package or article", file=sys.stderr)
        return 2
    total = len(batches)
    print(json.dumps({"pairs": len(data.pairs), "passages": len(data.passages), "steps": total,
                      "squad_batches": sum(b[0][1] >= data.docs_passages for b in batches),
                      "held_out": data.held_out}), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    tok = _tokenizer(args.source)
    model = BertModel.from_pretrained(str(args.source), add_pooling_layer=False)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: schedule(s, total))
    state, step = args.out / "state.pt", 0
    if state.exists():
        saved = torch.load(state, weights_only=False)
        model.load_state_dict(saved["model"])
        opt.load_state_dict(saved["opt"])
        sched.load_state_dict(saved["sched"])
        torch.set_rng_state(saved["rng"])
        step = saved["step"]
        print(json.dumps({"resume": step}), flush=True)
    model.train()
    started, saved_at, losses = time.monotonic(), time.monotonic(), []
    while step < total:
        loss = batch_loss(model, tok, batches[step], data.passages, args.max_tokens)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        step += 1
        losses.append(loss.item())
        if step % 20 == 0 or step == total:
            print(json.dumps({"step": step, "of": total, "loss": round(float(np.mean(losses[-20:])), 4),
                              "s": round(time.monotonic() - started)}), flush=True)
        if time.monotonic() - saved_at > args.checkpoint_s or step == total:
            tmp = state.with_suffix(".tmp")
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                        "step": step, "rng": torch.get_rng_state()}, tmp)
            tmp.replace(state)
            saved_at = time.monotonic()
    model.save_pretrained(args.out / "model")
    shutil.copyfile(args.source / "tokenizer.json", args.out / "model" / "tokenizer.json")
    print(json.dumps({"done": str(args.out / "model")}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
