"""``python -m build_model.no_answer ARTIFACT --dev DEV.json [--write]``: can this model say "no answer"?

Scores an artifact through the function's own loader on the dev split (SQuAD
v1.1 EM/F1) and on the same questions asked against a paragraph of another
article (unanswerable; ``build_model/evaluation/squad2.py``), prints the SQuAD
2.0 metrics and the F1-best threshold on the no-answer margin, and with
``--write`` records them as the manifest's ``no_answer`` entry, which the
function reads to abstain. The package stage calls ``measure`` and
``manifest_entry`` on the artifact it builds; this command does the same for an
artifact that exists.

The model "can abstain" (``supported``) only when abstaining at the best
threshold beats both never and always abstaining; otherwise the entry is
written with ``supported: false`` and the function never abstains.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from build_model.evaluation.squad2 import evaluate_v2
from build_model.squad import SquadSplit, load_squad

if TYPE_CHECKING:
    from function.model.load import Model

SCORE = ("margin = null - best span of the same window, in raw start + end logits (null: its [CLS] "
         "start + end), for the window whose span beats its [CLS] the most; abstain when margin > threshold")


def measure(model: Model, split: SquadSplit, seed: int = 0, same_article: bool = False,
            threshold: float | None = None) -> dict:
    """``evaluate_v2`` of a loaded artifact at its manifest's ``max_answer_tokens``."""
    return evaluate_v2(split, model.tokenizer, model.spec, model.infer,
                       model.manifest.sequence["max_answer_tokens"], seed, same_article, threshold)


def manifest_entry(result: dict, dev_file: Path | None = None, default: bool = True) -> dict:
    """The manifest's ``no_answer`` entry from ``measure``'s result.

    ``default``: whether requests abstain unless they ask otherwise (``"abstain"``
    in the request); meaningful only when ``supported``.
    """
    from build_model.stage_record import file_sha256

    v2 = result["v2"]
    figures = {k: round(v2[k], 2) for k in ("best_f1", "best_exact", "f1_never_abstain", "f1_always_abstain",
                                            "f1_two_fold")}
    at = v2["at_best_f1"]
    figures |= {f"at_threshold_{k}": round(at[k], 2) for k in ("HasAns_f1", "NoAns_f1", "exact", "f1")}
    built = result["unanswerable"]
    chosen_on: dict = {"answerable": result["v1"]["questions"], "unanswerable": built["questions"],
                       "unanswerable_built_from": built["built_from"], "seed": built["seed"]}
    if dev_file is not None:
        chosen_on |= {"file": Path(dev_file).name, "sha256": file_sha256(dev_file)}
    return {
        "supported": bool(result["can_abstain"]),
        "default": bool(default and result["can_abstain"]),
        "threshold": float(result["threshold"]),
        "score": SCORE,
        "chosen_on": chosen_on,
        "metrics": {"v1": {k: round(result["v1"][k], 2) for k in ("exact_match", "f1")}, "v2": figures},
    }


def shifted(entry: dict, moved: dict, shift: float, why: str) -> dict:
    """``entry`` with its threshold moved by ``shift`` (log-odds) from the F1-best one, the figures at the moved
    one (``moved``: ``measure`` at it) and why; the best threshold's figures stay under ``metrics``."""
    at = moved["at_given_threshold"]
    return {**entry, "threshold": float(entry["threshold"] + shift),
            "shifted": {"from": entry["threshold"], "by": shift, "why": why,
                        "at_threshold": {"exact": round(at["exact"], 2), "f1": round(at["f1"], 2),
                                         "HasAns_f1": round(at["HasAns_f1"], 2),
                                         "NoAns_f1": round(at.get("NoAns_f1", 0.0), 2),
                                         "abstained": at["abstained"], "total": at["total"]}}}


def record(folder: Path, entry: dict) -> dict:
    """Write ``entry`` as the manifest's ``no_answer`` (files re-described; the artifact hash is unchanged)."""
    from build_model.packaging.writer import update_manifest
    from function.model.artifact import load_manifest

    manifest = dict(load_manifest(folder).raw)
    manifest["no_answer"] = entry
    return update_manifest(Path(folder), manifest)


def summary(result: dict) -> str:
    v1, v2, at = result["v1"], result["v2"], result["v2"]["at_best_f1"]
    lines = [
        f"SQuAD v1.1 ({v1['questions']} answerable questions): EM {v1['exact_match']:.2f} / F1 {v1['f1']:.2f}",
        f"SQuAD 2.0-style ({v2['HasAns_total']} answerable + {v2['NoAns_total']} unanswerable: each question "
        f"against {result['unanswerable']['built_from'].removeprefix('each question against ')})",
        f"  never abstaining:      EM {v2['exact']:.2f} / F1 {v2['f1']:.2f}",
        f"  always abstaining:     F1 {v2['f1_always_abstain']:.2f}",
        f"  best threshold (F1):   {v2['best_f1_thresh']:.4f} -> EM {at['exact']:.2f} / F1 {at['f1']:.2f} "
        f"(HasAns EM {at['HasAns_exact']:.2f} / F1 {at['HasAns_f1']:.2f}; "
        f"NoAns {at.get('NoAns_f1', 0.0):.2f}); abstains on {at['abstained']} of {at['total']}",
        f"  best threshold (EM):   {v2['best_exact_thresh']:.4f} -> EM {v2['best_exact']:.2f}",
        f"  threshold chosen on the other half (2-fold): F1 {v2['f1_two_fold']:.2f}",
        f"  can abstain (beats never and always abstaining): {'yes' if result['can_abstain'] else 'no'}",
        "  thresholds around it: threshold | answerable abstained | HasAns EM / F1 | NoAns | F1",
    ]
    for row in result["sweep"]:
        lines.append(f"    {row['threshold']:8.4f} ({row['offset']:+g}) | {row['HasAns_abstained']:5d} "
                     f"| {row['HasAns_exact']:.2f} / {row['HasAns_f1']:.2f} | {row.get('NoAns_f1', 0.0):.2f} "
                     f"| {row['f1']:.2f}")
    given = result.get("at_given_threshold")
    if given:
        lines.append(f"  at the given threshold {given['threshold']:.4f}: EM {given['exact']:.2f} / "
                     f"F1 {given['f1']:.2f} (HasAns EM {given['HasAns_exact']:.2f} / F1 {given['HasAns_f1']:.2f}; "
                     f"NoAns {given.get('NoAns_f1', 0.0):.2f}); abstains on {given['abstained']} of {given['total']}")
    lines.append(f"  {result['seconds']} s")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m build_model.no_answer", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("artifact", type=Path, help="artifact folder (with manifest.json)")
    p.add_argument("--dev", type=Path, required=True, help="SQuAD v1.1-format dev file")
    p.add_argument("--limit", type=int, default=None, help="first N questions only (quick runs)")
    p.add_argument("--seed", type=int, default=0, help="seed of the unanswerable pairing")
    p.add_argument("--threads", type=int, default=0, help="ONNX Runtime threads (0: the available CPUs)")
    p.add_argument("--no-default", action="store_true",
                   help="record abstention as supported but off unless a request asks for it")
    p.add_argument("--same-article", action="store_true",
                   help="ask each question of another paragraph of its own article instead (a harder set; "
                        "not for --write)")
    p.add_argument("--threshold", type=float, default=None,
                   help="also report the figures at this threshold (default: the manifest's, if it has one)")
    p.add_argument("--write", action="store_true", help="record the result as manifest.json's no_answer")
    p.add_argument("--shift", type=float, default=0.0, metavar="LOG_ODDS",
                   help="with --write: record the best threshold plus this (negative: abstain more; -ln 3 abstains "
                        "where the best threshold's no-answer probability is 0.25 or more)")
    p.add_argument("--shift-why", default="", help="with --shift: why, recorded beside it (a record's path)")
    p.add_argument("--json", type=Path, default=None, help="also write the full result as JSON here")
    args = p.parse_args(argv)
    if args.write and args.same_article:
        p.error("--write records the threshold chosen on the other-article set: leave out --same-article")
    if args.shift and not (args.write and args.shift_why):
        p.error("--shift is recorded with --write, and says why with --shift-why")

    from function.model.artifact import load_manifest
    from function.model.load import load_model

    model, _ = load_model(load_manifest(args.artifact), args.threads)
    split = load_squad(args.dev, args.limit)
    threshold = args.threshold
    if threshold is None and isinstance(model.manifest.raw.get("no_answer"), dict):
        threshold = model.manifest.raw["no_answer"].get("threshold")
    result = measure(model, split, args.seed, args.same_article, threshold)
    entry = manifest_entry(result, args.dev, default=not args.no_default)
    if args.shift:  # the figures at the moved threshold, measured again there
        moved = measure(model, split, args.seed, False, result["threshold"] + args.shift)
        entry = shifted(entry, moved, args.shift, args.shift_why)
        result["at_given_threshold"] = moved["at_given_threshold"]
    print(f"{model.manifest.name} ({args.artifact}), {args.dev}")
    print(summary(result))
    if args.json is not None:
        args.json.write_text(json.dumps({"result": result, "no_answer": entry}, indent=2) + "\n")
    if args.write:
        record(args.artifact, entry)
        print(f"recorded no_answer (supported: {entry['supported']}, threshold {entry['threshold']:.4f}) in "
              f"{args.artifact / 'manifest.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
