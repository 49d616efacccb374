"""``python -m bench <command>``: the one entry for measurements (see bench/README.md).

Without a command (or with options only) it runs ``serving``, as it always has.
"""

from __future__ import annotations

import importlib
import sys

# command -> (module with main(argv), what it measures)
COMMANDS = {
    "serving": ("bench.serving", "cold start, warm latency, throughput and memory of ours against the other contenders "
                             "(the default)"),
    "cold-start": ("bench.cold_start", "cold starts of our function alone; --load and --variant for A/B runs"),
    "load": ("bench.load_test", "bounded load test against the Firestore emulator (exit 1 on errors or growth)"),
    "throughput": ("bench.throughput", "the inference modes (serial, batch, parallel) side by side: requests/s, "
                                       "p50/p99 and memory at 1-8 clients, 1 and 2 CPUs"),
    "retrieval": ("bench.retrieval", "questions without passage ids: recall, EM/F1, retrieve time"),
    "out-of-corpus": ("bench.out_of_corpus", "questions asked alone against a corpus with and without their answer: "
                                             "\"no answer\" rate, in-corpus abstention and F1"),
    "scale": ("bench.scale", "the retrieval step from 10^4 to 10^6 passages per backend (Lance, SQLite FTS5): "
                             "ingestion rows/s, index size, cold and warm search, recall@5, memory"),
    "filters": ("bench.filters", "questions asked alone within documents, a source prefix or tags against unfiltered "
                                 "ones on a Lance index: search and whole-question p50/p95, recall@5, F1"),
    "documents": ("bench.documents", "SQuAD articles as whole .txt/.md/.html/.pdf documents, split by the ingestion "
                                     "code: recall@5, EM/F1 next to the paragraph corpus, split speed"),
    "docs": ("bench.docs", "hand-written questions about real documentation sets (Sphinx, Markdown, ...) fetched by "
                           "pinned package: EM/F1 asked alone, F1 with the right passage, recall@5, \"no answer\""),
    "cascade": ("bench.cascade", "questions asked alone: the first passage read first (QA_CASCADE) against all at "
                                 "once, and the span rankings of several passages: F1, gap, passages read, time"),
    "evaluate": ("function.evaluate.cli", "your own questions (JSON Lines or SQuAD) about your documents, in "
                                          "process or --url of a running function: EM/F1, recall@k, \"no answer\", "
                                          "latency"),
    "windows": ("bench.windows", "a request's windows padded to the longest against run at their own lengths, per "
                                 "path (context, passage ids, alone): server time, answers, EM/F1"),
    "memory": ("bench.memory_steps", "resident memory after each step of a cold start, in one process"),
    "image": ("bench.image", "the serving image laid out without Docker: size, startup, profile"),
    "stand-in": ("bench.standin", "an int8 artifact of the shipped shape from a public encoder (junk answers)"),
    "cost": ("bench.cost", "dollars per million questions on Cloud Run + Firestore from measured instance time and "
                           "counted Firestore operations, by request kind and answer-cache hit rate"),
    "all": ("bench.measure_all", "every measurement the README cites, one after the other, a log each"),
}
DEFAULT = "serving"


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: python -m bench [COMMAND] [OPTIONS]   (python -m bench COMMAND --help for its options)",
             "", "commands:"]
    lines += [f"  {name:{width}}  {what}" for name, (_, what) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    if argv and not argv[0].startswith("-"):
        name, rest = argv[0], argv[1:]
        if name not in COMMANDS:
            print(f"python -m bench: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
            return 2
    else:
        name, rest = DEFAULT, argv
    return importlib.import_module(COMMANDS[name][0]).main(rest)
