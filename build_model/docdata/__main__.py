"""``python -m build_model.docdata``: documentation packages -> build/docqa/train.json (SQuAD 2.0 layout).

    python -m build_model.docdata                                   # all of fetch.SOURCES
    python -m build_model.docdata --only python-flask-doc --only glob --out /tmp/some.json
    python -m build_model.docdata --generator man --limit 5

Output: ``{"version": "docqa-1", "packages": [{"name", "version", "generator", "files", "questions"}, ...],
"data": [{"title": "<package>/<file>", "paragraphs": [{"context", "qas": [{"id", "question", "answers":
[{"text", "answer_start"}], "is_impossible", "kind"}]}]}]}``, pages in a seeded shuffled order (so a
training run's ``extra_limit`` takes a mix), and a summary beside it (``<out stem>.summary.json``: counts per
package, generator and kind). Packages are fetched into ``build/docdata/`` and each package's articles are
cached there (``out/<name>_<version>.json``) under a digest of this code, the ingestion code and the
tokenizer, so an interrupted run resumes and a change to extraction redoes every package. The merged file is
rewritten every ``--write-every`` packages, so a partial run already leaves a usable file.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

from build_model.docdata import OUTPUT_VERSION, is_forbidden, refuse_forbidden
from build_model.docdata.fetch import SOURCES, FetchError, Source, fetch, source_files

ROOT = Path(__file__).resolve().parents[2]


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m build_model.docdata", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="build/docqa/train.json", help="the merged SQuAD 2.0-layout file")
    p.add_argument("--cache", default="build/docdata", help="downloads, unpacked packages and per-package output")
    p.add_argument("--artifact", default=os.environ.get("QA_ARTIFACT_DIR", "artifact"),
                   help="the artifact whose tokenizer and window decide the passages (as ingestion's)")
    p.add_argument("--only", action="append", default=[], metavar="NAME", help="only these packages (repeatable)")
    p.add_argument("--generator", action="append", default=[], help="only sources of these generators")
    p.add_argument("--limit", type=int, default=0, help="at most this many packages (0: all)")
    p.add_argument("--max-questions", type=int, default=0,
                   help="answerable questions kept per package at most, a seeded sample (default: CAPS by generator)")
    p.add_argument("--unanswerable-rate", type=float, default=0.25,
                   help="the share of answerable questions also asked of a passage without their answer")
    p.add_argument("--negatives", choices=("corpus", "page"), default="corpus",
                   help="where that passage comes from: the best BM25 match of another package (corpus, "
                        "build_model.docdata.negatives) or a neighbour on the question's own page (page)")
    p.add_argument("--templates", choices=("entries", "prose", "how", "all"), default="entries",
                   help="questions about API entries, about code spans named in prose (build_model.docdata.prose), "
                        "how-to questions from a guide's \"To ...:\" over a code block (build_model.docdata.how), "
                        "or all three")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--write-every", type=int, default=5, help="rewrite the merged file every N packages")
    p.add_argument("--quiet", action="store_true")
    return p.parse_args(argv)


# Answerable questions kept per package, by generator: many packages of one generator read alike (gtk-doc's most
# of all), so a cap keeps one package or one generator from filling the set (about 30,000 questions in all).
CAPS = {"sphinx": 220, "gtkdoc": 120, "man": 120, "javadoc": 300, "doxygen": 150, "docbook": 500, "markdown": 1000}


def _digest(tokenizer_fingerprint: str, budget, args) -> str:
    h = hashlib.sha256(f"{tokenizer_fingerprint}|{budget}|{args.seed}|{args.max_questions}|{sorted(CAPS.items())}|"
                       f"{args.unanswerable_rate}|{args.templates}".encode())
    for path in sorted((ROOT / "build_model" / "docdata").glob("*.py")) + [
            ROOT / "function" / "ingest" / "extract.py", ROOT / "function" / "ingest" / "docpages.py",
            ROOT / "function" / "ingest" / "split.py"]:
        if path.name not in ("__main__.py", "negatives.py"):  # both act at merge, after the per-package records
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def build_source(source: Source, root: Path, tokenizer, budget, args, log) -> dict:
    """A package's record: its articles and counts (cached by the caller)."""
    from build_model.docdata.build import build_page

    files = source_files(source, root)
    rng = random.Random(f"{args.seed}:{source.name}:{source.version}")
    order = list(files)
    rng.shuffle(order)  # a package over its cap then samples pages, not its first ones
    articles, read, started = [], 0, time.monotonic()
    answerable = 0
    cap = args.max_questions or CAPS.get(source.generator, 250)
    for path in order:
        rel = path.relative_to(root).as_posix()
        for prefix in ("package/", "usr/share/doc/"):
            rel = rel.removeprefix(prefix)
        if source.generator == "man":
            rel = path.name
        try:
            data = path.read_bytes()
            page_rng = random.Random(f"{args.seed}:{source.name}:{rel}")
            article, notes = build_page(source, rel, data, tokenizer, budget, page_rng, args.unanswerable_rate,
                                        args.templates)
        except Exception as e:  # noqa: BLE001 - one unreadable page must not stop the package; it is named
            log(f"  {source.name}/{rel}: skipped ({type(e).__name__}: {e})")
            continue
        for note in notes:
            log(f"  {source.name}/{rel}: {note}")
        read += 1
        if article is not None:
            articles.append(article)
            answerable += sum(1 for p in article["paragraphs"] for q in p["qas"] if not q["is_impossible"])
        if answerable >= cap * 1.3:
            break
    articles = _cap(articles, cap, rng)
    count = sum(len(p["qas"]) for a in articles for p in a["paragraphs"])
    log(f"{source.name} {source.version}: {len(files)} files, {read} read, {len(articles)} pages with questions, "
        f"{count} questions in {time.monotonic() - started:.0f} s")
    return {"package": {"name": source.name, "version": source.version, "origin": source.origin,
                        "generator": source.generator, "files": len(files), "pages": len(articles),
                        "questions": count}, "data": articles}


def _cap(articles: list[dict], cap: int, rng: random.Random) -> list[dict]:
    """At most ``cap`` answerable questions (a seeded sample; an unanswerable twin goes with its question)."""
    ids = [q["id"] for a in articles for p in a["paragraphs"] for q in p["qas"] if not q["is_impossible"]]
    if len(ids) <= cap:
        return articles
    keep = set(rng.sample(ids, cap))
    out = []
    for a in articles:
        paras = []
        for p in a["paragraphs"]:
            qas = [q for q in p["qas"] if q["id"].removesuffix("-u") in keep]
            if qas:
                paras.append({"context": p["context"], "qas": qas})
        if paras:
            out.append({"title": a["title"], "paragraphs": paras})
    return out


def _package_of(title: str, names: list[str]) -> str:
    """The package a title names ("@scope/name/docs/x.md" too; ``names`` longest first); else its first part."""
    return next((n for n in names if title.startswith(n + "/")), title.split("/")[0])


def check(data: dict) -> Counter:
    """Every answer is a span of its context, no title comes from a held-back package; counts per kind."""
    kinds: Counter = Counter()
    names = sorted((p["name"] for p in data["packages"]), key=len, reverse=True)
    for article in data["data"]:
        package = _package_of(article["title"], names)
        assert not is_forbidden(package), f"{article['title']}: from a held-back package"
        for para in article["paragraphs"]:
            context = para["context"]
            for qa in para["qas"]:
                kinds[qa["kind"]] += 1
                assert qa["is_impossible"] == (not qa["answers"]), qa["id"]
                for ans in qa["answers"]:
                    s, text = ans["answer_start"], ans["text"]
                    assert text and context[s:s + len(text)] == text, f"{qa['id']}: answer is not a span"
    for pkg in data["packages"]:
        assert not is_forbidden(pkg["name"]), pkg["name"]
    return kinds


def merge(records: list[dict], out: Path, seed: int, negatives: str = "page", rate: float = 0.25) -> dict:
    """Write the merged file (pages shuffled with ``seed``) and its summary; returns the summary.

    ``negatives="corpus"`` replaces the records' same-page unanswerable pairs with pairs from other packages
    (``build_model.docdata.negatives``) at ``rate``."""
    articles = [a for r in records for a in r["data"]]
    if negatives == "corpus":
        from build_model.docdata.negatives import add_corpus_negatives

        articles = json.loads(json.dumps(articles))  # the records stay as cached
        names = sorted((r["package"]["name"] for r in records), key=len, reverse=True)
        add_corpus_negatives(articles, lambda title: _package_of(title, names), rate, seed)
    random.Random(seed).shuffle(articles)
    data = {"version": OUTPUT_VERSION, "packages": [r["package"] for r in records], "data": articles}
    kinds = check(data)
    summary = _summary(records, articles, kinds)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    tmp.replace(out)
    summary["bytes"] = out.stat().st_size
    summary["gzip_bytes"] = len(gzip.compress(out.read_bytes(), 6))
    out.with_name(out.stem + ".summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary


def _summary(records: list[dict], articles: list[dict], kinds: Counter) -> dict:
    names = sorted((r["package"]["name"] for r in records), key=len, reverse=True)
    per_kind: dict[str, Counter] = {r["package"]["name"]: Counter() for r in records}
    for a in articles:
        c = per_kind.setdefault(_package_of(a["title"], names), Counter())
        for p in a["paragraphs"]:
            for q in p["qas"]:
                c[q["kind"]] += 1
    per_generator: dict[str, Counter] = {}
    per_package = {}
    for r in records:
        c = per_kind[r["package"]["name"]]
        per_package[r["package"]["name"]] = {"version": r["package"]["version"],
                                             "generator": r["package"]["generator"], **dict(sorted(c.items()))}
        per_generator.setdefault(r["package"]["generator"], Counter()).update(c)
    answerable = sum(v for k, v in kinds.items() if k != "unanswerable")
    return {"version": OUTPUT_VERSION, "packages": len(records), "answerable": answerable,
            "unanswerable": kinds.get("unanswerable", 0), "kinds": dict(sorted(kinds.items())),
            "generators": {g: dict(sorted(c.items())) for g, c in sorted(per_generator.items())},
            "per_package": per_package}


def main(argv=None) -> int:
    args = parse_args(argv)
    for name in args.only:
        refuse_forbidden(name)
    log = (lambda m: None) if args.quiet else (lambda m: print(m, file=sys.stderr, flush=True))
    sources = [s for s in SOURCES if (not args.only or s.name in args.only)
               and (not args.generator or s.generator in args.generator)]
    unknown = set(args.only) - {s.name for s in sources}
    if unknown:
        print(f"unknown packages (not in build_model.docdata.fetch.SOURCES): {', '.join(sorted(unknown))}",
              file=sys.stderr)
        return 2
    if args.limit:
        sources = sources[: args.limit]
    from function.ingest.split import budget_from_manifest
    from function.model.artifact import load_manifest
    from function.model.tokenizer import QATokenizer

    manifest = load_manifest(Path(args.artifact))
    tokenizer = QATokenizer(manifest.tokenizer_path)
    budget = budget_from_manifest(manifest)
    digest = _digest(tokenizer.fingerprint, budget, args)
    cache = Path(args.cache)
    outdir = cache / "out"
    outdir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    log(f"docdata: {len(sources)} packages, passages of at most {budget[0]} tokens (overlap {budget[1]}), "
        f"digest {digest}")
    records: list[dict] = []
    for n, source in enumerate(sources, 1):
        refuse_forbidden(source.name)
        suffix = "" if args.templates == "entries" else f".{args.templates}"  # one cache per set of templates
        cached = outdir / f"{source.key}{suffix}.json"
        record = None
        if cached.is_file():
            record = json.loads(cached.read_text(encoding="utf-8"))
            if record.get("digest") != digest:
                record = None
        if record is None:
            try:
                root = fetch(source, cache, log)
            except FetchError as e:
                log(f"{source.name}: not fetched ({e})")
                continue
            record = build_source(source, root, tokenizer, budget, args, log)
            record["digest"] = digest
            cached.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
        if record["data"]:
            records.append(record)
        if n % args.write_every == 0 and not Path(args.out).exists():  # a finished file is replaced only at the end
            summary = merge(records, Path(args.out), args.seed, args.negatives, args.unanswerable_rate)
            log(f"[{n}/{len(sources)}] {args.out}: {summary['answerable']} answerable + "
                f"{summary['unanswerable']} unanswerable from {summary['packages']} packages "
                f"({time.monotonic() - started:.0f} s)")
    if not records:
        print("no questions were made: no package could be fetched or read", file=sys.stderr)
        return 1
    summary = merge(records, Path(args.out), args.seed, args.negatives, args.unanswerable_rate)
    log(f"done: {args.out}: {summary['answerable']} answerable + {summary['unanswerable']} unanswerable questions "
        f"from {summary['packages']} packages, {summary['bytes'] / 1e6:.1f} MB "
        f"(gzip {summary['gzip_bytes'] / 1e6:.1f} MB), {time.monotonic() - started:.0f} s; kinds {summary['kinds']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
