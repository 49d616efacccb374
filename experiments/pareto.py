"""Students of several depths against the shipped artifact: int8 dev EM/F1, latency, size (issue 15's table).

    .venv/bin/python -m experiments.pareto build/distil/model build/exp-l4/distil/model \\
        build/exp-l6/distil/model --dev ../shared/data/squad/dev.json --out records/build/sandbox/pareto

Each trained student (a transformers folder from the distil stage) goes through the build
stage's own chain with the shipped artifact's quantisation settings (``layers_latency.build_int8``,
every layer kept), is scored on the dev set through the function's session and reader, and is
timed on one full 128- and 384-token window with 2 threads in alternating rounds beside the
shipped ``artifact/``, so the latency column is a ratio to the shipped model measured in the
same run. Writes ``OUT.md`` (the table) and ``OUT.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from build_model.evaluation import benchmark
from build_model.evaluation.evaluate import evaluate
from build_model.squad import load_squad
from experiments.layers_latency import REPO, build_int8
from function.model.artifact import load_manifest
from function.model.load import window_spec
from function.model.onnx_model import OnnxQAModel
from function.model.tokenizer import QATokenizer

LENGTHS = (128, 384)


def _layers(model_dir: Path) -> int:
    return int(json.loads((model_dir / "config.json").read_text())["num_hidden_layers"])


def measure(students: list[Path], artifact: Path, dev_file: Path, rounds: int, runs: int, dev_limit: int = 0) -> dict:
    manifest = load_manifest(artifact.resolve())
    tok = QATokenizer(manifest.tokenizer_path)
    spec = window_spec(manifest)
    dev = load_squad(dev_file, dev_limit or None)
    max_answer = manifest.sequence["max_answer_tokens"]
    longest = manifest.sequence["max_seq_len"]
    batches = benchmark.windows(tok, [n for n in LENGTHS if n <= longest] or [longest])
    rows = {"shipped": {"name": f"shipped artifact ({manifest.name})", "file": manifest.model_path,
                        "optimized": manifest.graph_optimized}}
    with tempfile.TemporaryDirectory(prefix="pareto-") as tmp:
        for i, student in enumerate(students):
            work = Path(tmp) / str(i)
            work.mkdir()
            layers = _layers(student)
            rows[str(student)] = {"name": f"{layers} layers ({student})", "layers": layers, "optimized": True,
                                  "file": build_int8(student, layers, manifest.raw["quantization"],
                                                     manifest.raw["onnx"]["opset"], work)}
        models = {key: OnnxQAModel(row["file"], benchmark.THREADS, optimized=row["optimized"])
                  for key, row in rows.items()}
        for key, row in rows.items():
            scores = evaluate(dev, tok, spec, models[key], max_answer_tokens=max_answer)
            row.update(exact_match=round(scores["exact_match"], 2), f1=round(scores["f1"], 2),
                       mb=round(Path(row["file"]).stat().st_size / 1e6, 1))
        timed: dict[str, dict[int, list[float]]] = {key: {n: [] for n in batches} for key in rows}
        for r in range(rounds):
            for key in (list(models) if r % 2 == 0 else list(reversed(models))):
                for n, batch in batches.items():
                    timed[key][n].append(benchmark.p50_ms(models[key], batch, runs))
    shipped = {n: statistics.median(v) for n, v in timed["shipped"].items()}
    for key, row in rows.items():
        row["file"] = str(row["file"])
        p50 = {n: statistics.median(v) for n, v in timed[key].items()}
        row["p50_ms"] = {n: round(v, 2) for n, v in p50.items()}
        row["vs_shipped"] = {n: round(p50[n] / shipped[n], 3) for n in batches}
    return {"dev": {"file": str(dev_file), "questions": len(dev.questions)}, "rows": list(rows.values()),
            "rounds": rounds, "runs": runs, "threads": benchmark.THREADS, "machine": benchmark.machine()}


def markdown(result: dict, command: str) -> str:
    lengths = sorted(result["rows"][0]["p50_ms"])
    lines = ["| model | int8 MB | dev EM | dev F1 | " + " | ".join(f"p50 {n} tokens (ms)" for n in lengths)
             + " | " + " | ".join(f"vs shipped, {n}" for n in lengths) + " |",
             "|---|---|---|---|" + "---|" * (2 * len(lengths))]
    for row in result["rows"]:
        lines.append(f"| {row['name']} | {row['mb']} | {row['exact_match']:.2f} | {row['f1']:.2f} | "
                     + " | ".join(f"{row['p50_ms'][n]:.1f}" for n in lengths) + " | "
                     + " | ".join(f"{row['vs_shipped'][n]:.2f}x" for n in lengths) + " |")
    m = result["machine"]
    lines += ["", f"Dev: {result['dev']['questions']} questions of {Path(result['dev']['file']).name}. Latency: "
              f"one full window, {result['threads']} threads, median of {result['rounds']} alternating rounds of "
              f"{result['runs']} runs each; {m['cpu']} ({', '.join(m['isa']) or 'no avx2'}).",
              "", f"Command: `{command}`", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.pareto", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("students", type=Path, nargs="+", help="trained students (transformers folders)")
    p.add_argument("--artifact", type=Path, default=REPO / "artifact")
    p.add_argument("--dev", type=Path, required=True, help="SQuAD-format dev file")
    p.add_argument("--dev-limit", type=int, default=0, help="first N dev questions only (0: all)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--out", type=Path, required=True, help="writes OUT.md and OUT.json")
    args = p.parse_args(argv)
    for student in args.students:
        if not (student / "config.json").is_file():
            p.error(f"{student} holds no trained student (no config.json)")
    result = measure(args.students, args.artifact, args.dev, args.rounds, args.runs, args.dev_limit)
    command = command_line("experiments.pareto", argv)
    write(result, command, args.out)
    return 0


def command_line(module: str, argv) -> str:
    """The command that reproduces this run, as written beside its results."""
    return f"python -m {module} " + " ".join(sys.argv[1:] if argv is None else argv)


def write(result: dict, command: str, out: Path) -> None:
    """``OUT.json`` (the result and its command) and ``OUT.md`` (the table), which is also printed."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps({**result, "command": command}, indent=2))
    text = markdown(result, command)
    out.with_suffix(".md").write_text(text)
    print(text)


if __name__ == "__main__":
    raise SystemExit(main())
