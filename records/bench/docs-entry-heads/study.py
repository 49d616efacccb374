"""Study docs-entry-heads: `python -m bench docs` with `sentence._heads` taken from ingestion's entries.

    PYTHONPATH=. python records/bench/docs-entry-heads/study.py [--count] -- BENCH-DOCS-ARGS

Builds, for every HTML / Markdown file of every set's corpus (`build/docs-bench/SET/corpus`, fetched by an earlier
`python -m bench docs`), the passages ingestion makes of it (`extract` + `split`, the artifact's budget) and the entry
heads it found in each, then runs the benchmark in this process with `sentence.STUDY_HEADS` filled (RULE.md).
`--count` prints how the regexes' heads and ingestion's agree instead.
"""

import collections
import re
import sys
from pathlib import Path

from function.ingest.extract import ExtractError, extract
from function.ingest.split import budget_from_manifest, split
from function.model import sentence
from function.model.artifact import load_manifest
from function.model.tokenizer import QATokenizer

_TYPE = re.compile(r"\s*\([^()]*\)\s*$")


def names(entry_name: str) -> list[str]:
    out = []
    for part in entry_name.split(", "):
        part = _TYPE.sub("", part.strip())
        part = part.split("=", 1)[0].split("(", 1)[0].strip()
        part = part.split()[-1] if part.split() else ""  # "exception requests.X" -> "requests.X"
        if part:
            out.append(sentence._name_part(part))
    return out


def build(root: Path = Path("build/docs-bench")) -> tuple[dict, collections.Counter]:
    manifest = load_manifest("artifact")
    tok = QATokenizer(manifest.tokenizer_path)
    budget, overlap = budget_from_manifest(manifest)
    heads: dict[str, tuple] = {}
    stats = collections.Counter()
    for f in sorted(root.glob("*/corpus/**/*")):
        if not f.is_file() or f.suffix.lower() not in (".html", ".htm", ".md", ".markdown"):
            continue
        try:
            doc = extract(f.name, f.read_bytes())
        except ExtractError:
            continue
        entries = [sp for sp in doc.spans if sp.kind == "entry" and sp.name]
        for c in split(doc, tok, budget, overlap):
            found = []
            for e in entries:
                if c.start <= e.start < c.end:
                    at = c.text.rfind("\n", 0, e.start - c.start) + 1
                    found += [(at, n, True) for n in names(e.name)]
            heads[c.text] = tuple(sorted(set(found)))
            stats["passages"] += 1
            stats["with heads (ingestion)"] += bool(found)
            stats["with heads (regexes)"] += bool(sentence._heads(c.text))
    return heads, stats


def main() -> int:
    args = sys.argv[1:]
    count = "--count" in args
    rest = args[args.index("--") + 1:] if "--" in args else []
    heads, stats = build()
    print(f"study docs-entry-heads: {dict(stats)}", file=sys.stderr)
    if count:
        return 0
    sentence.STUDY_HEADS.update(heads)
    from bench.cli import main as bench_main
    try:
        return bench_main(["docs", *rest])
    finally:
        seen = sentence.STUDY_SEEN
        print(f"study docs-entry-heads: {len(seen)} passages' heads asked, {len(seen & heads.keys())} of them from "
              "ingestion", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
