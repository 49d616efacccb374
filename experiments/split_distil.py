"""Train a split QA model (DeFormer, issue 28.3) from the whole distilled student; resumable, one command.

    python -m experiments.split_distil --config build_model/configs/sandbox.toml \\
        --init build/distil/model --k 2 --epochs 1 --out build/split-k2 [--hidden-loss 1.0] \\
        [--temperature 2] [--passage-positions-from 0|66] [--kd-from auto|teacher|whole] [--threads 2]

The split model (``build_model.training.split``) starts from ``--init``, the whole
``BertForQuestionAnswering`` (a ``save_pretrained`` folder with ``tokenizer.json``),
and is trained by the distil stage's own loop (``build_model.training.loop``) on the
distil stage's training features (``distil.training_set``: the same pairs, augmented and
unanswerable) in the split layout (``build_model.training.split_features``), with the
same targets (``distil.soft_targets``): the cached teacher logits (mixed with
``[base]``'s by ``base_weight``) from ``<work_dir>/teacher_logits``, the unanswerable
pairs trained to [CLS]. Where that cache does not hold them (``--kd-from auto``), or
with ``--kd-from whole``, the target is the whole model's own logits (computed once,
cached in ``--out``). ``--hidden-loss`` adds DeFormer's layerwise representation
similarity to the frozen whole model (the loop's ``extra_loss``; ``extra`` in the step log).

Dev EM/F1 after each epoch go through the distil stage's evaluation (``distil.dev_scorer``:
the function's windows and decoding), the windows converted to the split layout; the whole model's and
the untrained split's scores are measured once first. Everything goes to ``--out``:
``train.log.jsonl`` (JSON lines), ``checkpoint.pt`` (every 50 steps and at each epoch's
end; a restart with the same arguments resumes from it, other arguments are refused),
``model/`` (``save_pretrained``, ``tokenizer.json`` and ``split.json``: k, Q and
``passage_positions_from`` for the export) and ``result.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

from build_model.cli import DEFAULT_CONFIG

WORK = ("args.json", "checkpoint.pt", "train.log.jsonl")  # a run's state in --out
IGNORED = ("threads",)  # arguments that do not change what is trained: a resume may differ in them


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m experiments.split_distil", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="the build configuration")
    p.add_argument("--init", type=Path, required=True, help="the whole model (save_pretrained folder)")
    p.add_argument("--whole", type=Path, default=None,
                   help="the whole model the split learns from (its logits with --kd-from whole, the hidden-state "
                        "loss's reference, the 'before' score); default: --init. Set it to go on training a split "
                        "model (--init build/split-k2/model --whole build/distil/model)")
    p.add_argument("--k", type=int, required=True, help="layers run per segment (0..n)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--epochs", type=float, default=None, help="default: the student's")
    p.add_argument("--hidden-loss", type=float, default=0.0, help="weight of DeFormer's LRS term (0: off)")
    p.add_argument("--temperature", type=float, default=None, help="KD temperature; default: the student's")
    p.add_argument("--learning-rate", type=float, default=None, help="default: the student's")
    p.add_argument("--passage-positions-from", type=int, default=0,
                   help="first position id of the passage segment: 0 (DeFormer) or Q (66: after the padded question)")
    p.add_argument("--kd-from", choices=("auto", "teacher", "whole"), default="auto",
                   help="soft targets: the distil stage's cached teacher logits, the whole model's, or the "
                        "first when cached (auto)")
    p.add_argument("--threads", type=int, default=None, help="PyTorch threads; default: the config's")
    p.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                   help="override a configuration value, as python -m build_model does")
    return p.parse_args(argv)


def _overrides(items: list[str]) -> dict:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--set needs SECTION.KEY=VALUE, got {item!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def run_arguments(args: argparse.Namespace, cfg, tr) -> dict:
    """What the run trains, as resolved: a restart must match it to resume."""
    from build_model.records import source_fingerprint

    return {"config": str(args.config.resolve()), "set": sorted(args.set),
            "config_sections": cfg.section_hash("data", "student", "sequence"),
            "init_fingerprint": source_fingerprint(str(args.init)),
            **({"whole_fingerprint": source_fingerprint(str(args.whole))} if args.whole else {}),
            "k": args.k, "epochs": tr.epochs, "hidden_loss": args.hidden_loss, "temperature": tr.temperature,
            "learning_rate": tr.learning_rate, "passage_positions_from": args.passage_positions_from,
            "kd_from": args.kd_from}


def check_resume(out: Path, arguments: dict) -> bool:
    """True when ``out`` holds this very run (resume it); SystemExit naming the arguments that differ
    when it holds another one."""
    path = out / "args.json"
    if not path.is_file():
        if any((out / name).exists() for name in WORK[1:]):
            raise SystemExit(f"{out} holds a training run without args.json: use another --out or empty it")
        return False
    before = json.loads(path.read_text())["arguments"]
    differ = [f"{k}: {before.get(k)!r} -> {arguments.get(k)!r}" for k in sorted(set(before) | set(arguments))
              if before.get(k) != arguments.get(k)]
    if differ:
        raise SystemExit(f"{out} holds a run with other arguments ({'; '.join(differ)}): rerun with its arguments "
                         f"to resume it, or use another --out")
    return True


def whole_targets(init: Path, features, pad_id: int, out: Path, batch: int, log):
    """The whole model's logits on each window, on [CLS] and the passage as the teacher's are (the question
    and separators take no mass), cached in ``out``."""
    import numpy as np

    from build_model import hf
    from build_model.records import source_fingerprint
    from build_model.training import kd
    from build_model.training.align import TeacherWindow

    windows = []
    for f in features:
        where = np.full(len(f.input_ids), -1, dtype=np.int64)
        where[0] = 0
        where[f.context_start : f.context_start + f.context_len] = np.arange(f.context_start,
                                                                             f.context_start + f.context_len)
        windows.append(TeacherWindow(f.input_ids, f.context_start, where, where))
    logits, _ = kd.cached_teacher_logits(out / "whole_logits", source_fingerprint(str(init)),
                                         lambda: hf.load_qa_model(str(init)).eval(), windows, pad_id, batch, log=log)
    return logits


def _write_json(path: Path, value) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(value, indent=2, sort_keys=True))
    tmp.replace(path)


def main(argv=None) -> int:
    args = parse_args(argv)
    from build_model import hf
    from build_model.config import load_config
    from build_model.errors import BuildFailed
    from build_model.evaluation.evaluate import torch_infer
    from build_model.specs import serving_spec
    from build_model.squad import load_squad
    from build_model.stages import distil
    from build_model.training.loop import train
    from build_model.training.split import SplitQA
    from build_model.training.split_features import question_segment, split_targets, to_split_feature
    from build_model.training.split_loop import SplitForLoop, split_infer
    from function.model.tokenizer import QATokenizer

    cfg = load_config(args.config, _overrides(args.set))
    tr = cfg.student.training
    tr = dataclasses.replace(tr, epochs=tr.epochs if args.epochs is None else args.epochs,
                             temperature=tr.temperature if args.temperature is None else args.temperature,
                             learning_rate=tr.learning_rate if args.learning_rate is None else args.learning_rate)
    out = args.out
    arguments = run_arguments(args, cfg, tr)
    resuming = check_resume(out, arguments)
    out.mkdir(parents=True, exist_ok=True)
    if (out / "result.json").is_file():
        print(f"{out}: finished already (result.json); nothing to do")
        return 0
    state = json.loads((out / "args.json").read_text()) if resuming else {"arguments": arguments}
    _write_json(out / "args.json", state)
    log_path = out / "train.log.jsonl"

    def log(record) -> None:
        line = record if isinstance(record, str) else json.dumps(record)
        print(line, flush=True)
        with log_path.open("a") as f:
            f.write(line + "\n")

    log({"event": "resume" if resuming else "start", "arguments": arguments, "threads": args.threads})
    tok = QATokenizer(args.init / "tokenizer.json")
    reference = args.whole or args.init  # the whole model: targets, hidden-state reference, the 'before' score
    serve = serving_spec(cfg, tok)
    q = question_segment(cfg.sequence.max_query_tokens, serve.pair_seps)
    split, features, absent, _ = distil.training_set(cfg, tok, tr)
    batch = distil.teacher_batch(tr)
    source = state.get("kd_source") or ("whole" if args.kd_from == "whole" else "teacher")
    logits = None
    if source == "teacher":
        try:
            logits = distil.soft_targets(cfg, tok, tr, split, features, compute=args.kd_from == "teacher",
                                         log=log).logits
        except BuildFailed as e:  # distil.NotCached among them: the cache lacks them and computing was refused
            if args.kd_from == "teacher":
                raise SystemExit(f"--kd-from teacher: {e}") from None
            log({"event": "targets", "note": f"the teacher cache does not hold these features ({e}): "
                                             f"distilling from the whole model"})
            source = "whole"
    if source == "whole":
        logits = whole_targets(reference, features, serve.pad_id, out, batch, log)
    if state.get("kd_source") != source:
        state["kd_source"] = source
        _write_json(out / "args.json", state)
    log({"event": "targets", "source": source, "features": len(features), "unanswerable": len(absent)})

    targets = split_targets(features + absent, logits + [None] * len(absent), q)
    train_features = [to_split_feature(f, q) for f in features + absent]
    model = hf.load_qa_model(str(args.init))
    split_model = SplitQA(model, args.k, args.passage_positions_from)
    whole = hf.load_qa_model(str(reference)) if args.hidden_loss or args.whole else None
    loop_model = SplitForLoop(split_model, q, serve.pad_id, whole, args.hidden_loss)
    dev = load_squad(cfg.data.dev, cfg.data.dev_limit or None)
    scores = distil.dev_scorer(cfg, dev, tok, serve)
    threads = cfg.threads if args.threads is None else args.threads

    if "before" not in state:
        import torch

        from function.cpus import available_cpus

        torch.set_num_threads(threads or available_cpus())
        model.eval()
        state["before"] = {"whole": scores(torch_infer((whole or model).eval())),
                           "split_untrained": scores(split_infer(split_model, q, serve.pad_id))}
        _write_json(out / "args.json", state)
        log({"event": "before", **state["before"]})

    t0 = time.perf_counter()
    training = train(loop_model, train_features, tr, out, serve.pad_id, teacher_logits=targets,
                     on_epoch_end=lambda m, _epoch: scores(split_infer(split_model, q, serve.pad_id)),
                     threads=threads, extra_loss=loop_model.extra_loss)
    model.save_pretrained(out / "model")
    (out / "model" / "tokenizer.json").write_text((args.init / "tokenizer.json").read_text(encoding="utf-8"),
                                                  encoding="utf-8")
    layout = {"k": args.k, "Q": q, "passage_positions_from": args.passage_positions_from,
              "pair_seps": serve.pair_seps, "layers": model.config.num_hidden_layers}
    _write_json(out / "model" / "split.json", layout)
    final = training["history"][-1] if training["history"] else {}
    result = {"arguments": arguments, "split": layout, "kd_source": source, "before": state["before"],
              "features": {"total": len(train_features), "unanswerable": len(absent)}, "training": training,
              "dev": {k: final[k] for k in ("exact_match", "f1", "questions") if k in final},
              "seconds": round(time.perf_counter() - t0, 1)}
    _write_json(out / "result.json", result)
    (out / "checkpoint.pt").unlink(missing_ok=True)
    whole_f1 = state["before"]["whole"]["f1"]
    print(f"split k={args.k}: dev F1 {result['dev'].get('f1', float('nan')):.2f} (whole {whole_f1:.2f}); {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
