"""How many retrieved passages should the reader read? Dev F1 and server time of questions asked alone by depth.

    python -m experiments.read_depth --store build/scale-run2/w/reading-1000000/passages.sqlite \
        --index build/scale-run2/w/lance-1000000/index.lance --ks 5 10 20 --out records/bench/read-depth-1e6

Reuses what ``python -m bench scale --keep`` left: a reading store (the corpus
tokenised by the artifact, SQLite) and the Lance table over the same ids. Every
dev question is asked alone through ``QAService`` with ``top_k_passages`` = k,
never abstaining, as ``bench.retrieval.read_all`` asks one depth, the depths interleaved
question by question so that a slow spell of this shared machine falls on all
of them alike. Recall@k of the gold paragraph is reported beside each: what the
reader could at best find.
"""

from __future__ import annotations

import json
import shlex
import sys

from bench import machine
from bench.scale_reading import dev_questions, reading_env
from experiments.interleaved import kept_tables_parser, require


def main(argv=None) -> int:
    p = kept_tables_parser("python -m experiments.read_depth", __doc__)
    p.add_argument("--ks", type=int, nargs="+", default=[5, 10, 20])
    args = p.parse_args(argv)
    require(args.store, args.index)

    from bench.in_process import open_service
    from experiments.interleaved import ask_interleaved, scored_rows, scored_table

    service = open_service(reading_env(args.artifact, args.store, args.threads, index_uri=args.index))
    questions = dev_questions(args.data, args.every)
    rows = scored_rows(questions, ask_interleaved(questions, {k: (service, k) for k in args.ks}), "k")
    result = {"command": "python -m experiments.read_depth " + shlex.join(argv if argv is not None else sys.argv[1:]),
              "questions": len(questions), "machine": machine.describe(), "rows": rows}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "read_depth.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [f"`{result['command']}`: {len(questions)} dev questions asked alone, never abstaining.", "",
             *scored_table(rows, "k", "passages read", "gold passage among them")]
    (args.out / "read_depth.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
