"""Latency of student shapes before training: layers kept and feed-forward width, against the shipped artifact.

    .venv/bin/python -m experiments.ffn_latency build/base/model 0,2,4 0,2,4,5:768 0,2,4,5:640 0,2,4,5:512 \\
        --out records/build/sandbox/ffn-width-latency

Each SHAPE is ``LAYERS[:WIDTH]`` (layers of MODEL to keep, comma-separated; WIDTH: feed-forward units
kept per layer, ``build_model.training.student.derive_student``). The students are cut, untrained (speed
does not depend on the weights' values), quantised with the shipped artifact's settings and timed on one
128- and 384-token window in alternating rounds beside it (``experiments.pareto``; its dev columns,
on the first 5 questions of an untrained model, mean nothing). It says which shapes fit issue 15's
"at most 1.1x the shipped model's 384-token run" before hours of distillation are spent on them.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from experiments.pareto import REPO, command_line, measure, write


def cut(model: Path, shape: str, out: Path) -> Path:
    from build_model import hf
    from build_model.training.student import derive_student

    layers, _, width = shape.partition(":")
    student = derive_student(hf.load_qa_model(str(model)), tuple(int(i) for i in layers.split(",")),
                             int(width or 0))
    folder = out / shape.replace(",", "-").replace(":", "-ffn")
    student.save_pretrained(folder)
    shutil.copy(model / "tokenizer.json", folder / "tokenizer.json")
    return folder


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.ffn_latency", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", type=Path, help="the encoder the students are cut from (a transformers QA folder)")
    p.add_argument("shapes", nargs="+", help="LAYERS[:WIDTH], e.g. 0,2,4,5:512")
    p.add_argument("--artifact", type=Path, default=REPO / "artifact")
    p.add_argument("--dev", type=Path, default=REPO.parent / "shared" / "data" / "squad" / "dev.json")
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--out", type=Path, required=True, help="writes OUT.md and OUT.json")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ffn-") as tmp:
        students = [cut(args.model, shape, Path(tmp)) for shape in args.shapes]
        result = measure(students, args.artifact, args.dev, args.rounds, args.runs, dev_limit=5)
    command = command_line("experiments.ffn_latency", argv)
    for row, shape in zip(result["rows"][1:], args.shapes):
        row["name"] = f"{shape} (untrained)"
    write(result, command, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
