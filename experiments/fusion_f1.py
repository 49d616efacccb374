"""Dev F1 of questions asked alone with the mixed score against reciprocal ranks or BM25 alone, on the same tables.

    python -m experiments.fusion_f1 --store build/scale-run/w/reading-100000/passages.sqlite \
        --index build/scale-run/w/hybrid-100000/index.lance --out records/bench/fusion-f1-1e5

Reuses what ``python -m bench scale --keep`` left at a hybrid size: the reading
store and the hybrid Lance table. Every dev question is asked alone through
``QAService`` (top ``--top-k``, 5 by default, never abstaining) twice, question by question: once with
the function's fusion (``HybridSearcher``: BM25 over its best beside the
cosine) and once with each of ``--baselines``: ``rrf``, reciprocal-rank fusion of
the same two rankings (what the function did before), and ``bm25``, the same
table's terms alone (no encoder run, no vector search: what the function does
without ``QA_INDEX_ENCODER``). Per-question F1 differences get a 95% interval by
resampling the questions (``experiments.paired_f1.interval``).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import numpy as np

from bench import machine
from bench.scale_hybrid import ENCODER
from experiments.interleaved import kept_tables_parser, require


def rrf_searcher():
    """``HybridSearcher`` with the fusion it had before: reciprocal ranks, each hit with its BM25 score."""
    from function.retrieval.bm25 import Hit
    from function.retrieval.hybrid import HybridSearcher, reciprocal_rank_fusion

    class RRFSearcher(HybridSearcher):
        def fuse(self, terms, rankings, k):
            fused = reciprocal_rank_fusion([[h.passage_id for h in rankings.bm25],
                                            [h.passage_id for h in rankings.dense]])[:k]
            bm25 = {h.passage_id: h.score for h in rankings.bm25}
            missing = tuple(pid for pid, _ in fused if pid not in bm25)
            if missing and terms:
                bm25.update((h.passage_id, h.score) for h in self.index.search(terms, len(missing), among=missing))
            return [Hit(pid, bm25.get(pid, 0.0)) for pid, _ in fused]

    return RRFSearcher


def main(argv=None) -> int:
    p = kept_tables_parser("python -m experiments.fusion_f1", __doc__)
    p.add_argument("--encoder", type=Path, default=ENCODER)
    p.add_argument("--top-k", type=int, default=5, help="passages read per question")
    p.add_argument("--samples", type=int, default=5000)
    p.add_argument("--baselines", nargs="+", choices=("rrf", "bm25"), default=["rrf"],
                   help="what the mixed score is compared with")
    args = p.parse_args(argv)
    require(args.store, args.index, args.encoder)

    from bench.in_process import open_service
    from bench.scale_hybrid import hybrid_service
    from bench.scale_reading import dev_questions, reading_env
    from build_model.evaluation.metrics import best_over_golds, f1
    from experiments.interleaved import ask_interleaved, scored_rows, scored_table
    from experiments.paired_f1 import interval

    env = reading_env(args.artifact, args.store, args.threads, args.index)
    setups = {"mixed": (hybrid_service(env, args.index, args.encoder), args.top_k)}
    for name in args.baselines:
        setups[name] = ((hybrid_service(env, args.index, args.encoder, searcher_type=rrf_searcher())
                         if name == "rrf" else open_service(env)), args.top_k)
    questions = dev_questions(args.data, args.every)
    asked = ask_interleaved(questions, setups)
    rows = scored_rows(questions, asked, "fusion")
    per_q = {name: np.array([best_over_golds(f1, asked["answers"][name][q["id"]], q["answers"]) for q in questions])
             * 100 for name in setups}
    differences = {}
    for name in args.baselines:
        low, high = interval(per_q["mixed"] - per_q[name], args.samples)
        differences[name] = {"mean": round(float((per_q["mixed"] - per_q[name]).mean()), 2),
                             "interval_95": [round(low, 2), round(high, 2)]}
    result = {"command": "python -m experiments.fusion_f1 " + shlex.join(argv if argv is not None else sys.argv[1:]),
              "questions": len(questions), "machine": machine.describe(), "rows": rows,
              "f1_difference": differences}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "fusion_f1.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [f"`{result['command']}`: {len(questions)} dev questions asked alone (top {args.top_k}), "
             "never abstaining.", "", *scored_table(rows, "fusion", "fusion", f"gold passage among the {args.top_k}")]
    lines.append("")
    for name, d in differences.items():
        lines.append(f"F1, mixed minus {name.upper()}: {d['mean']:+.2f} (95% interval {d['interval_95'][0]:+.2f} to "
                     f"{d['interval_95'][1]:+.2f}, {args.samples} resamples of the questions)")
    (args.out / "fusion_f1.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
