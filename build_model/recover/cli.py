"""``python -m build_model.recover``: the shipped artifact as a checkpoint, read back into PyTorch.

The command recovers the model (``build_model.recover.recover``), checks it (``build_model.recover.check``)
and writes it only when every check passes: ``save_pretrained``'s files, the artifact's tokenizer, and
``recovered.json`` saying where it came from and how close it came. Exit codes: 0 written, 1 a check
failed (nothing written), 2 a graph or configuration this package cannot read, or bad arguments
(the reason on stderr).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from build_model.recover import RecoverError, recover
from build_model.recover.check import FP32_ATOL, INT8_ATOL, SAMPLE, check

RECORD = "recovered.json"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m build_model.recover", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("artifact", type=Path, help="artifact folder (manifest.json, model.onnx, tokenizer.json)")
    p.add_argument("--out", type=Path, required=True, help="folder to write the model to (save_pretrained)")
    p.add_argument("--config-from", type=Path, default=None,
                   help="config.json (or its folder) the rest of the configuration comes from, e.g. "
                        "build/base/model; sizes are read from the graph")
    p.add_argument("--squad", type=Path, default=SAMPLE, help="SQuAD-format file the parity windows come from")
    p.add_argument("--windows", type=int, default=32, help="real windows compared (at least)")
    p.add_argument("--atol", type=float, default=None,
                   help=f"max |logit difference| between the recovered model and the artifact's graph (default "
                        f"{FP32_ATOL:g} for a fp32 graph, {INT8_ATOL:g} for an int8 one, whose activations are int8)")
    p.add_argument("--no-requantize", action="store_true",
                   help="for an int8 graph, skip quantising the recovered model again with the manifest's "
                        f"settings (the result must give the shipped logits within {FP32_ATOL:g})")
    p.add_argument("--threads", type=int, default=None, help="threads for both runtimes (default: CPUs available)")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    import torch

    from function.cpus import available_cpus
    from function.model.artifact import load_manifest

    threads = args.threads or available_cpus()
    torch.set_num_threads(threads)
    try:
        model, recovered, _, notes = recover(args.artifact, args.config_from)
        kind = "int8" if recovered.int8 else "fp32"
        s = recovered.sizes
        print(f"recover: {kind} graph, {s['num_hidden_layers']} layers, hidden {s['hidden_size']}, "
              f"{s['num_attention_heads']} heads, intermediate {s['intermediate_size']}, vocab {s['vocab_size']}; "
              f"{len(recovered.weights)} tensors ({len(recovered.quantized)} dequantised)")
        for note in notes:
            print(f"recover: {note}")
        atol = args.atol if args.atol is not None else INT8_ATOL if recovered.int8 else FP32_ATOL
        result = check(model, recovered, args.artifact, args.squad, args.windows, threads, atol,
                       recovered.int8 and not args.no_requantize)
    except RecoverError as e:
        print(f"recover: {e}", file=sys.stderr)
        return 2
    print(f"recover: max |logit difference| vs the artifact's ONNX session: {result['max_logit_diff']:.3g} over "
          f"{result['windows']} windows (tolerance {atol:g})")
    if rq := result.get("requantized"):
        print(f"recover: quantised again with the manifest's settings: {rq['int8_tensors_identical']}/"
              f"{rq['int8_tensors']} int8 tensors identical to the shipped graph's, max |logit difference| "
              f"{rq['max_logit_diff']:.3g} (tolerance {rq['atol']:g})")
    if not result["passed"]:
        print(f"recover: FAILED, a difference exceeds its tolerance; nothing written to {args.out}", file=sys.stderr)
        return 1
    manifest = load_manifest(args.artifact)
    args.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(args.out)
    shutil.copyfile(manifest.tokenizer_path, args.out / "tokenizer.json")
    record = {"artifact": {"folder": str(args.artifact), "name": manifest.name,
                           "artifact_hash": manifest.artifact_hash},
              "graph": kind, "dequantized": recovered.quantized,
              "config_from": str(args.config_from) if args.config_from else None, "notes": notes, "check": result}
    (args.out / RECORD).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(f"recover: wrote {args.out} (config.json, model.safetensors, tokenizer.json, {RECORD})")
    return 0
