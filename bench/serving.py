"""``python -m bench serving``: cold start, warm latency and throughput of our function and the other contenders.

Contenders (all served by functions-framework the same way, see bench/README.md):
  ours      our function serving the int8 artifact (``--artifact``)
  ours-other-session  the same with ``QA_SECOND_SESSION`` the other way round from its default (adaptive
            mode's runs beside another on a second 1-thread session, or on the model's own)
  ours-env  the same with the variables of ``--ours-env NAME=VALUE`` (any process setting, e.g. the C
            library's ``MALLOC_ARENA_MAX``), beside ``ours`` in the same run; added when that option is given
  fp32      our function serving the fp32 ONNX graph of the same checkpoint
  pipeline  transformers + PyTorch with the same fine-tuned weights (``bench/baseline_server.py``)
  onnx-pipeline  the artifact's own int8 graph in ONNX Runtime inside transformers' QA pipeline steps,
            the path Optimum's ``ORTModelForQuestionAnswering`` (and txtai) users run (same server)

Without a PyTorch checkpoint of the artifact (a fresh clone has no build
folder), pipeline and fp32 serve stand-in weights: random, in the artifact's
architecture (``bench/standin.py``); their speed and memory compare with
ours, their answers do not, and the results say so.

Writes ``serving.json``, ``serving.md`` and ``serving-*.png`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench import charts, cold_start, contender_models, contenders, machine, passages, report, warm
from bench.contenders import Contender
from harness.paths import ARTIFACT, REPO

RESULTS = REPO / "records" / "bench"
CONTENDERS = ("ours", "ours-other-session", "fp32", "pipeline", "onnx-pipeline")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench serving", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifact", type=Path, default=ARTIFACT, help="the int8 artifact folder (ours)")
    p.add_argument("--runs", type=int, default=10, help="cold starts per contender")
    p.add_argument("--requests", type=int, default=300, help="warm requests per passage")
    p.add_argument("--warmup", type=int, default=10, help="unrecorded warm requests per passage")
    p.add_argument("--lengths", type=int, nargs="+", default=[128, 256, 384], help="window lengths (tokens)")
    p.add_argument("--clients", type=int, nargs="*", default=[1, 2, 4, 8], help="throughput concurrency levels")
    p.add_argument("--throughput-requests", type=int, default=200, help="requests per concurrency level")
    p.add_argument("--contenders", nargs="+", choices=CONTENDERS,
                   default=[c for c in CONTENDERS if c != "ours-other-session"])
    p.add_argument("--ours-env", action="append", default=[], metavar="NAME=VALUE",
                   help="add the contender ours-env: ours with these environment variables (repeatable)")
    p.add_argument("--pytorch-model", type=Path, help="PyTorch checkpoint folder for the pipeline "
                   "(default: found in --build-dir from the artifact's manifest, else stand-in weights)")
    p.add_argument("--fp32-artifact", type=Path, help="artifact folder with the fp32 ONNX model "
                   "(default: made from the export stage's graph, or exported from the PyTorch checkpoint)")
    p.add_argument("--build-dir", type=Path, default=REPO / "build", help="where the build stage's work folders are")
    p.add_argument("--no-firestore", action="store_true", help="skip the Firestore emulator measurements")
    p.add_argument("--threads", type=int, default=contenders.THREADS, help="intra-op threads of every contender")
    p.add_argument("--load", choices=contenders.LOADS, default="eager",
                   help="when every contender loads its model: as soon as its worker starts (QA_EAGER_LOAD=1, as "
                        "deployed) or inside the first request")
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--allow-noisy", action="store_true",
                   help=f"write into {RESULTS.relative_to(REPO)} even while a training job is running")
    p.add_argument("--render", type=Path, metavar="JSON",
                   help="measure nothing: write the report and charts of an earlier run's serving.json into --out")
    args = p.parse_args(argv)
    bad = [kv for kv in args.ours_env if "=" not in kv or not kv.split("=", 1)[0]]
    if bad:
        p.error(f"--ours-env takes NAME=VALUE, not {bad[0]!r}")
    return args


def resolve_contenders(args, work: Path, log) -> tuple[list[Contender], list[dict], dict]:
    """The contenders to run, their descriptions for the report, and where their models came from."""
    artifact = args.artifact.resolve()
    manifest = json.loads((artifact / "manifest.json").read_text())
    chosen, described, sources = [contenders.ours(artifact)], [], {"artifact": str(artifact)}
    described.append({"name": "ours", "label": "ours (int8 ONNX)", "short": "int8", "weights": "trained",
                      "description": f"this function serving `{manifest['name']}` "
                                     f"({manifest['artifact_hash'][:12]}) from {artifact}"})
    if "ours-other-session" in args.contenders:  # adaptive mode's second session, the other way round
        from function.config import Settings

        second = not Settings.from_env({}).second_session
        label = f"ours, {'two sessions' if second else 'one session'} (int8 ONNX)"
        chosen.append(contenders.ours(artifact, "ours-other-session", label))
        chosen[-1].env["QA_SECOND_SESSION"] = "1" if second else "0"
        described.append({"name": "ours-other-session", "label": label, "short": "int8, other",
                          "weights": "trained",
                          "description": f"this function with `QA_SECOND_SESSION={int(second)}` (adaptive mode's "
                                         f"runs beside another on {'a second, 1-thread' if second else 'the model'}'s "
                                         f"session), the same artifact"})
    if args.ours_env:
        env = dict(kv.split("=", 1) for kv in args.ours_env)
        shown = " ".join(f"{k}={v}" for k, v in env.items())
        chosen.append(contenders.ours(artifact, "ours-env", f"ours, {shown} (int8 ONNX)"))
        chosen[-1].env.update(env)
        described.append({"name": "ours-env", "label": f"ours, {shown} (int8 ONNX)", "short": "int8, env",
                          "weights": "trained", "description": f"this function with `{shown}`, the same artifact"})
    pytorch = None
    if "pipeline" in args.contenders or ("fp32" in args.contenders and not args.fp32_artifact):
        pytorch = (contender_models.Source(args.pytorch_model.resolve(), "given with --pytorch-model", True)
                   if args.pytorch_model else contender_models.find_pytorch(manifest, args.build_dir))
        if pytorch is None:
            log("no PyTorch checkpoint of the artifact: making one of its architecture with random weights")
            pytorch = contender_models.stand_in(artifact, work)
        sources["pytorch"] = pytorch.record()
    if "fp32" in args.contenders:
        if args.fp32_artifact:
            fp32 = contender_models.Source(args.fp32_artifact.resolve(), "given with --fp32-artifact", True)
        else:
            log("preparing the fp32 artifact")
            fp32 = contender_models.fp32_artifact(manifest, artifact, args.build_dir, pytorch, work)
        sources["fp32"] = fp32.record()
        chosen.append(contenders.ours(fp32.path, "fp32", "ours (fp32 ONNX)"))
        described.append({"name": "fp32", "label": "ours (fp32 ONNX)", "short": "fp32",
                          "weights": sources["fp32"]["weights"],
                          "description": f"this function serving the fp32 ONNX graph ({fp32.how})"})
    if "pipeline" in args.contenders:
        from bench.baseline_qa import has_qa_pipeline

        kind = ("`pipeline(\"question-answering\")`" if has_qa_pipeline() else
                "the steps of transformers 4.x's `pipeline(\"question-answering\")`, which transformers "
                "5 removed (`bench/baseline_qa.py`)")
        chosen.append(contenders.pipeline(pytorch.path, artifact))
        described.append({"name": "pipeline", "label": "transformers + PyTorch", "short": "PyTorch",
                          "weights": sources["pytorch"]["weights"],
                          "description": f"{kind} on PyTorch with the checkpoint {pytorch.path} ({pytorch.how}), "
                                         f"served by `bench/baseline_server.py`, a functions-framework target of the "
                                         f"same shape as ours"})
    if "onnx-pipeline" in args.contenders:
        chosen.append(contenders.onnx_pipeline(artifact))
        described.append({"name": "onnx-pipeline", "label": "transformers pipeline + ONNX Runtime (int8)",
                          "short": "ORT pipeline", "weights": "trained",
                          "description": f"the artifact's own graph ({manifest.get('model_file', 'model.onnx')}) in "
                                         f"an ONNX Runtime session with its default options (memory arena on, every "
                                         f"graph optimisation) inside the steps of transformers 4.x's "
                                         f"`pipeline(\"question-answering\")` with a transformers tokenizer of the "
                                         f"artifact's `tokenizer.json` (`bench/baseline_qa.py`): what Optimum's "
                                         f"`ORTModelForQuestionAnswering` runs (Optimum itself does not install beside "
                                         f"transformers 5), served by `bench/baseline_server.py`"})
    return chosen, described, sources


def run(args, argv: list[str], log=print) -> dict:
    started, t0 = datetime.now(UTC).isoformat(timespec="seconds"), time.perf_counter()
    described_machine = machine.describe()
    if not described_machine["quiet"]:
        log("warning: other work is running on this machine; the figures will be noisy: "
            + "; ".join(described_machine["competing_processes"])[:300])
    work_root = args.build_dir / "bench"
    work_root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        tmp = Path(tmp)
        chosen, described, sources = resolve_contenders(args, work_root, log)
        env = contenders.base_env(tmp / "passages.sqlite", args.threads, args.load)
        made = contenders.ingest(env, args.artifact.resolve(), tmp, sorted(args.lengths))
        question = {"question": passages.QUESTION, "passage_ids": [made[-1]["id"]]}

        cold_results = cold_start.profile({c.name: (c, env) for c in chosen}, question, args.runs, log)

        warm_results = [{**w, "store": "sqlite"} for w in warm.measure_all(
            chosen, env, made, args.requests, args.warmup, args.clients, args.throughput_requests, log)]
        if not args.no_firestore:
            warm_results.append(firestore_latency(chosen[0], env, args, tmp, made, log))

    results = {"meta": {"command": "python -m bench serving " + shlex.join(argv),
                        "started": started, "machine": described_machine, "sources": sources,
                        "settings": {"threads": args.threads, "load": args.load, "runs": args.runs,
                                     "requests": args.requests,
                                     "warmup": args.warmup, "clients": args.clients,
                                     "throughput_requests": args.throughput_requests, "question": passages.QUESTION,
                                     "answer_cache": False, "passage_cache": False}},
               "contenders": described,
               "passages": [{k: p[k] for k in ("id", "window_tokens", "passage_tokens", "question_tokens")}
                            for p in made],
               "cold_start": cold_results, "warm": warm_results}
    results["ratios"] = report.ratios(results)
    results["meta"]["duration_s"] = round(time.perf_counter() - t0, 1)
    return results


def firestore_latency(ours: Contender, env: dict, args, tmp: Path, made: list[dict], log) -> dict:
    """Warm latency of our function with its passages in the Firestore emulator (no throughput series)."""
    from harness.firestore import running_emulator

    log("starting the Firestore emulator")
    with running_emulator(tmp / "firestore-emulator.log", timeout_s=120) as emulator:
        fs_env = {**env, **emulator}
        contenders.ingest(fs_env, args.artifact.resolve(), tmp, sorted(args.lengths))
        contender = Contender(ours.name, ours.label, ours.source, {**ours.env, **emulator})
        w = warm.measure(contender, fs_env, made, args.requests, args.warmup, [], 0, log)
    return {**w, "store": "firestore"}


def write(results: dict, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    json_path = out / "serving.json"
    json_path.write_text(json.dumps(results, indent=1) + "\n")
    md_path = out / "serving.md"
    md_path.write_text(report.render(results))
    return [json_path, md_path] + charts.write_all(results, out)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    if args.render:
        results = json.loads(args.render.read_text())
        results["ratios"] = report.ratios(results)
        for path in write(results, args.out):
            print(f"wrote {path}")
        return 0
    if not (args.artifact / "manifest.json").is_file():
        raise SystemExit(f"{args.artifact} is not an artifact folder (no manifest.json); pass --artifact")
    busy = machine.busy_processes()
    if busy and args.out.resolve() == RESULTS.resolve() and not args.allow_noisy:
        raise SystemExit("other work is running on this machine (" + "; ".join(busy)[:200] + "): its figures "
                         "would not be reference figures; pass --out DIR for a trial run (or --allow-noisy)")
    results = run(args, argv)
    for path in write(results, args.out):
        print(f"wrote {path}")
    print(report.render(results))
    return 0
