"""``python -m infra.monitoring.logs LOGFILE [--out DIR]``: the dashboard's figures from a log file of the function.

Reads the function's JSON log lines (the stdout of functions-framework or
gunicorn, one JSON object a line; other lines are skipped), or a
``gcloud logging read --format=json`` export, and applies the log-based metrics
of ``metrics/*.json`` beside this file (``infra/monitoring/``, which
``infra/monitoring.sh`` deploys) to them: each metric's filter, value
extractor and label extractors, as Cloud Logging would. So the figures are
the dashboard's, without a cloud account: answers and latency p50/p90/p99 by
kind, model run, passage fetch and retrieval time, the answer cache hit rate,
cold starts with their time to ready, and errors by HTTP status.

Locally there is no monitored resource: ``resource.*`` terms of a filter are
taken as matched. Percentiles here are exact; Cloud Monitoring's come from the
metric's buckets (to within a bucket's width: 20-25 %).

Writes ``summary.md``, ``summary.json`` and ``summary.png`` (matplotlib,
imported only here; without it the chart is left out and the summary says so)
into ``--out`` (default: the log file's folder) and prints the Markdown.

``python -m infra.monitoring.logs --demo [--artifact DIR] [--out DIR]`` makes such a log
first: it serves an artifact locally (functions-framework, the SQLite store
with samples/squad_sample.json) and sends ``DEMO_REQUESTS`` (every request kind,
repeated questions for cache hits, three kinds of bad request), then
summarises ``DIR/function.log``.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from harness.paths import ARTIFACT, REPO, SAMPLE

METRICS_DIR = Path(__file__).resolve().parent / "metrics"  # the log-based metrics infra/monitoring.sh deploys
KINDS = ("context", "passage_ids", "retrieval")
STAGES = ("inference", "fetch", "retrieve")
SEVERITIES = ("DEFAULT", "DEBUG", "INFO", "NOTICE", "WARNING", "ERROR", "CRITICAL", "ALERT", "EMERGENCY")
_MISSING = object()

# ---- the log-based metrics, read from their files ------------------------------------------

_TERM = re.compile(r'\s*(?P<path>[A-Za-z_][\w.]*)\s*(?P<op>>=|<=|!=|=|>|<|:)\s*'
                   r'(?P<value>"(?:[^"\\]|\\.)*"|\*|[^\s"]+)\s*')
_AND = re.compile(r"\s*AND\s+")
_EXTRACT = re.compile(r'^(?P<fn>EXTRACT|REGEXP_EXTRACT)\((?P<path>[\w.]+)(?:,\s*"(?P<regex>(?:[^"\\]|\\.)*)")?\)$')


@dataclass(frozen=True)
class Term:
    path: str
    op: str
    value: str | float | None  # None: ``:*`` (the field is present)


def parse_filter(text: str) -> list[Term]:
    """A filter of ``FIELD OP VALUE`` terms joined by AND (the subset the metric files use).

    Anything else (OR, NOT, parentheses) is refused, so every metric's filter
    can be checked here and in the tests.
    """
    terms, pos = [], 0
    while pos < len(text):
        m = _TERM.match(text, pos)
        if not m:
            raise ValueError(f"cannot read the filter at {text[pos:]!r}")
        raw = m["value"]
        value: str | float | None
        if raw == "*":
            if m["op"] != ":":
                raise ValueError(f"'*' only with ':' in {m.group(0)!r}")
            value = None
        elif raw.startswith('"'):
            value = json.loads(raw)
        else:
            try:
                value = float(raw)
            except ValueError:
                value = raw  # a bare word: a severity, true, false
        terms.append(Term(m["path"], m["op"], value))
        pos = m.end()
        if pos < len(text):
            joined = _AND.match(text, pos)
            if not joined:
                raise ValueError(f"only AND joins terms here: {text[pos:]!r}")
            pos = joined.end()
    return terms


@dataclass(frozen=True)
class Extractor:
    path: str
    regex: re.Pattern | None = None

    @classmethod
    def parse(cls, text: str) -> Extractor:
        m = _EXTRACT.match(text.strip())
        if not m:
            raise ValueError(f"not EXTRACT(field) or REGEXP_EXTRACT(field, \"regex\"): {text!r}")
        if m["fn"] == "REGEXP_EXTRACT":
            if m["regex"] is None:
                raise ValueError(f"REGEXP_EXTRACT needs a regular expression: {text!r}")
            regex = re.compile(json.loads(f'"{m["regex"]}"'))
            if regex.groups != 1:
                raise ValueError(f"REGEXP_EXTRACT needs exactly one group: {text!r}")
            return cls(m["path"], regex)
        return cls(m["path"])

    def __call__(self, entry: dict):
        value = field_value(entry, self.path)
        if value is _MISSING:
            return None
        if self.regex is None:
            return value
        m = self.regex.search(_text(value))
        return m.group(1) if m else None


@dataclass
class Metric:
    name: str
    kind: str  # DISTRIBUTION or INT64 (a counter)
    terms: list[Term]
    value: Extractor | None
    labels: dict[str, Extractor]
    points: list[tuple[float, dict[str, str]]] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> Metric:
        config = json.loads(path.read_text())
        kind = config["metricDescriptor"]["valueType"]
        value = Extractor.parse(config["valueExtractor"]) if kind == "DISTRIBUTION" else None
        labels = {k: Extractor.parse(v) for k, v in (config.get("labelExtractors") or {}).items()}
        return cls(path.stem, kind, parse_filter(config["filter"]), value, labels)

    def matches(self, entry: dict) -> bool:
        return all(_holds(term, entry) for term in self.terms)

    def observe(self, entry: dict) -> None:
        if not self.matches(entry):
            return
        value = 1.0
        if self.value is not None:
            value = self.value(entry)
            if not isinstance(value, int | float) or isinstance(value, bool):
                return  # Cloud Logging drops an entry whose value does not parse as a number
        labels = {k: _label(x(entry)) for k, x in self.labels.items()}
        self.points.append((float(value), labels))


def load_metrics(folder: Path = METRICS_DIR) -> dict[str, Metric]:
    return {p.stem: Metric.load(p) for p in sorted(folder.glob("*.json"))}


def field_value(entry: dict, path: str):
    """A LogEntry field of a local line: ``jsonPayload.a.b`` is the line's ``a.b``."""
    head, _, rest = path.partition(".")
    if head == "jsonPayload":
        node = entry
    elif head in ("severity", "httpRequest"):
        node, rest = entry, path
    else:
        return _MISSING
    for part in rest.split(".") if rest else ():
        if not isinstance(node, dict) or part not in node:
            return _MISSING
        node = node[part]
    return node


def _text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)


def _label(value) -> str:
    return "" if value is None else _text(value)


def _holds(term: Term, entry: dict) -> bool:
    if term.path.startswith("resource."):
        return True  # no monitored resource locally: the lines are the service's
    value = field_value(entry, term.path)
    if value is _MISSING:
        return term.op == "!="
    if term.op == ":":
        return True if term.value is None else str(term.value).lower() in _text(value).lower()
    if term.path == "severity":
        value = SEVERITIES.index(value) if value in SEVERITIES else 0
        wanted = SEVERITIES.index(term.value) if term.value in SEVERITIES else math.nan
    elif isinstance(term.value, float):
        if not isinstance(value, int | float) or isinstance(value, bool):
            return False
        wanted = term.value
    else:
        value, wanted = _text(value), str(term.value)
        if term.op not in ("=", "!="):
            return False
    return {"=": value == wanted, "!=": value != wanted, ">": value > wanted, ">=": value >= wanted,
            "<": value < wanted, "<=": value <= wanted}[term.op]


# ---- reading a log file ---------------------------------------------------------------------

def read_entries(path: Path) -> tuple[list[dict], int]:
    """The log lines as dicts, and how many lines were not JSON objects (gunicorn's, tracebacks)."""
    text = path.read_text(errors="replace")
    if text.lstrip().startswith("["):  # gcloud logging read --format=json
        return [_from_log_entry(e) for e in json.loads(text) if isinstance(e, dict)], 0
    entries, skipped = [], 0
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            record = json.loads(line) if line.startswith("{") else None
        except ValueError:
            record = None
        if isinstance(record, dict):
            entries.append(record)
        else:
            skipped += 1
    return entries, skipped


def _from_log_entry(entry: dict) -> dict:
    """A Cloud Logging entry as the line the function wrote (its special fields put back)."""
    line = dict(entry.get("jsonPayload") or {})
    line.setdefault("severity", entry.get("severity", "DEFAULT"))
    if "httpRequest" in entry:
        line.setdefault("httpRequest", entry["httpRequest"])
    return line


# ---- the figures --------------------------------------------------------------------------

def _spread(values: list[float], ps=(50, 90, 99)) -> dict:
    """The count, the percentiles ``ps`` (``bench.stats.percentile``: linear between the closest ranks, as numpy
    by default) and the largest, to 0.01 (None where there are no values)."""
    from bench.stats import percentile

    out: dict = {"count": len(values)}
    out.update({f"p{p}": round(percentile(values, p), 2) if values else None for p in ps})
    out["max"] = round(max(values), 2) if values else None
    return out


def _reads(values: list[float]) -> dict:
    return {**_spread(values, (50, 99)), "mean": round(sum(values) / len(values), 2) if values else None,
            "total": int(sum(values))}


def summarise(entries: list[dict], skipped: int = 0, metrics: dict[str, Metric] | None = None) -> dict:
    """The dashboard's figures from the log lines, through the log-based metrics' definitions."""
    metrics = metrics if metrics is not None else load_metrics()
    for metric in metrics.values():
        metric.points.clear()
        for entry in entries:
            metric.observe(entry)

    def values(name: str, **labels: str) -> list[float]:
        return [v for v, lab in metrics[name].points if all(lab.get(k) == x for k, x in labels.items())]

    def counts(name: str, label: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for _, lab in metrics[name].points:
            out[lab.get(label, "")] = out.get(lab.get(label, ""), 0) + 1
        return dict(sorted(out.items()))

    cache = counts("qa_answers", "cache")
    answered = sum(cache.values())
    return {
        "lines": len(entries),
        "skipped_lines": skipped,
        "requests": sum(1 for e in entries if isinstance(e.get("latency_ms"), int | float)),
        "answers": answered,
        "by_kind": {kind: {**_spread(values("qa_latency", kind=kind)), "cache_hits": len(
            values("qa_latency", kind=kind, cache="hit"))} for kind in KINDS},
        "stages_ms": {stage: _spread(values(f"qa_{stage}_time"), (50, 99)) for stage in STAGES},
        "store_reads": {kind: _reads(values("qa_store_reads", kind=kind)) for kind in KINDS},
        "cache": {"hit": cache.get("hit", 0), "miss": cache.get("miss", 0),
                  "hit_rate": round(cache.get("hit", 0) / answered, 4) if answered else None},
        "cold_starts": {"count": len(metrics["qa_cold_starts"].points),
                        "eager": counts("qa_cold_starts", "eager"),
                        "time_to_ready_ms": _spread(values("qa_time_to_ready"), (50, 99)),
                        "model_load_ms": _spread(values("qa_model_load_time"), (50, 99)),
                        "first_answers": len(values("qa_answers", cold_start="true"))},
        "load_failures": len(metrics["qa_load_failures"].points),
        "errors": counts("qa_errors", "code"),
        "errors_by_method": counts("qa_errors", "method"),
        "metrics": {name: len(m.points) for name, m in metrics.items()},
    }


def _ms(value) -> str:
    return "–" if value is None else f"{value:,.1f}"


def markdown(s: dict, source: str, chart: str | None) -> str:
    lines = [f"# Function log summary: `{source}`", "",
             f"{s['lines']} JSON log lines ({s['skipped_lines']} other lines skipped); {s['requests']} requests, "
             f"{s['answers']} answered. Figures from the log-based metrics in `infra/monitoring/metrics/` "
             "(`python -m infra.monitoring.logs`).", "",
             "## Answers by kind (latency_ms, ms)", "",
             "| kind | answers | cache hits | p50 | p90 | p99 | max |", "|---|---:|---:|---:|---:|---:|---:|"]
    for kind, k in s["by_kind"].items():
        lines.append(f"| {kind} | {k['count']} | {k['cache_hits']} | {_ms(k['p50'])} | {_ms(k['p90'])} | "
                     f"{_ms(k['p99'])} | {_ms(k['max'])} |")
    lines += ["", "## Stages (timings_ms, ms; answers that ran them)", "",
              "| stage | count | p50 | p99 | max |", "|---|---:|---:|---:|---:|"]
    for stage, t in s["stages_ms"].items():
        lines.append(f"| {stage} | {t['count']} | {_ms(t['p50'])} | {_ms(t['p99'])} | {_ms(t['max'])} |")
    lines += ["", "## Firestore reads per answer (store_ops.reads)", ""]
    if any(r["count"] for r in s["store_reads"].values()):
        lines += ["| kind | answers | reads | mean | p50 | p99 | max |", "|---|---:|---:|---:|---:|---:|---:|"]
        for kind, r in s["store_reads"].items():
            lines.append(f"| {kind} | {r['count']} | {r['total']} | {_ms(r['mean'])} | {_ms(r['p50'])} | "
                         f"{_ms(r['p99'])} | {_ms(r['max'])} |")
    else:
        lines.append("None in this log: the function served from SQLite, or an older version wrote it.")
    c = s["cache"]
    rate = "–" if c["hit_rate"] is None else f"{100 * c['hit_rate']:.1f} %"
    cs = s["cold_starts"]
    ready, load = cs["time_to_ready_ms"], cs["model_load_ms"]
    eager = ", ".join(f"eager={k}: {v}" for k, v in cs["eager"].items()) or "none"
    lines += ["", "## Answer cache", "", f"{c['hit']} hits, {c['miss']} misses: hit rate {rate}.", "",
              "## Cold starts", "",
              f"{cs['count']} cold start(s) ({eager}); {cs['first_answers']} answer(s) met a cold instance; "
              f"{s['load_failures']} load failure(s).", "",
              "| | p50 | p99 | max |", "|---|---:|---:|---:|",
              f"| time to ready (process start to loaded model), ms | {_ms(ready['p50'])} | {_ms(ready['p99'])} | "
              f"{_ms(ready['max'])} |",
              f"| model load, ms | {_ms(load['p50'])} | {_ms(load['p99'])} | {_ms(load['max'])} |",
              "", "## Errors by HTTP status", ""]
    if s["errors"]:
        lines += ["| status | requests |", "|---|---:|"]
        lines += [f"| {code} | {n} |" for code, n in s["errors"].items()]
    else:
        lines.append("None.")
    lines += ["", chart or "No chart: matplotlib is not installed (pip install -r bench/requirements.txt)."]
    return "\n".join(lines) + "\n"


def chart(s: dict, path: Path) -> Path | None:
    """A PNG of the figures; None when matplotlib is missing."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    (lat, stages), (cache, errors) = axes
    width = 0.25
    for i, p in enumerate(("p50", "p90", "p99")):
        lat.bar([k + (i - 1) * width for k in range(len(KINDS))],
                [s["by_kind"][kind][p] or 0 for kind in KINDS], width, label=p)
    lat.set_xticks(range(len(KINDS)), [f"{k}\n({s['by_kind'][k]['count']})" for k in KINDS])
    lat.set_title("answer latency by kind (ms)")
    lat.legend()
    for i, p in enumerate(("p50", "p99")):
        stages.bar([k + (i - 0.5) * width for k in range(len(STAGES))],
                   [s["stages_ms"][st][p] or 0 for st in STAGES], width, label=p)
    stages.set_xticks(range(len(STAGES)), [f"{st}\n({s['stages_ms'][st]['count']})" for st in STAGES])
    stages.set_title("stages (ms)")
    stages.legend()
    cs = s["cold_starts"]
    names = ["cache hit", "cache miss", "cold starts"]
    cache.bar(names, [s["cache"]["hit"], s["cache"]["miss"], cs["count"]], color=("#55a868", "#8c8c8c", "#4c72b0"))
    ready = cs["time_to_ready_ms"]["p50"]
    cache.set_title("answers and cold starts" + (f" (time to ready p50 {ready:,.0f} ms)" if ready else ""))
    codes = list(s["errors"]) or ["none"]
    errors.bar(codes, [s["errors"].get(c, 0) for c in codes], color="#c44e52")
    errors.set_title("errors by HTTP status")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


# ---- a log to try it on -------------------------------------------------------------------

_CONTEXT = ("The Normans were the people who in the 10th and 11th centuries gave their name to Normandy, "
            "a region in France.")
# (method, path, JSON body or raw bytes, expected status): each request kind, each asked twice
# (the second is an answer cache hit) but retrieval once, then three bad requests.
DEMO_REQUESTS: list[tuple[str, str, dict | bytes | None, int]] = [
    ("POST", "/", {"question": "What did the Normans give their name to?", "context": _CONTEXT}, 200),
    ("POST", "/", {"question": "What did the Normans give their name to?", "context": _CONTEXT}, 200),
    ("POST", "/", {"question": "Who ruled the duchy of Normandy?", "passage_ids": ["Normans-0000", "Normans-0001"]},
     200),
    ("POST", "/", {"question": "Who ruled the duchy of Normandy?", "passage_ids": ["Normans-0000", "Normans-0001"]},
     200),
    ("POST", "/", {"question": "What is the name of the region in France the Normans gave their name to?"}, 200),
    ("POST", "/", b"{not json", 400),
    ("POST", "/", {"question": "Who?", "passage_ids": ["no-such-passage"]}, 404),
    ("PUT", "/", b"", 405),
]


def demo(out: Path, artifact: Path, store: dict | None = None) -> Path:
    """Serve ``artifact`` locally, send DEMO_REQUESTS, and return the function's log (``out/function.log``).

    ``store``: the environment of the passage store to serve from (``harness.firestore.emulator_env``
    for the Firestore emulator: its request lines then count Firestore reads); default a new SQLite file.
    """
    from harness.client import request
    from harness.launch import FunctionServer, ingest

    out.mkdir(parents=True, exist_ok=True)
    log_path = out / "function.log"
    log_path.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="qa-logs-demo-") as scratch:
        # the corpus generation is read once, by the first request that needs it: the requests' store reads
        # are then the same on every run, however long each takes (QA_CORPUS_CHECK_S, docs/reliability.md)
        env = {"QA_ARTIFACT_DIR": str(artifact.resolve()), "QA_EAGER_LOAD": None, "PYTHONPATH": None,
               "QA_CORPUS_CHECK_S": "3600",
               **(store or {"QA_STORE": "sqlite", "QA_SQLITE_PATH": str(Path(scratch) / "passages.sqlite")})}
        ingest(env, str(SAMPLE), "--quiet", check=True)
        with FunctionServer(env, log_path) as server:
            server.health()
            for method, path, body, status in DEMO_REQUESTS:
                data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
                reply = request(method, server.url.rstrip("/") + path, data, 120.0)
                if reply.status != status:
                    raise RuntimeError(f"{method} {path} {str(body)[:80]}: HTTP {reply.status}, expected "
                                       f"{status}: {json.dumps(reply.body)[:300]}")
    return log_path


def _demo_on(store: str, out: Path, artifact: Path) -> Path:
    if store == "sqlite":
        return demo(out, artifact)
    from harness.firestore import running_emulator

    with tempfile.TemporaryDirectory(prefix="qa-logs-emulator-") as scratch, \
            running_emulator(Path(scratch) / "emulator.log") as env:
        return demo(out, artifact, env)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.monitoring.logs", description=__doc__.split("\n\n")[0])
    parser.add_argument("logfile", type=Path, nargs="?",
                        help="the function's output (JSON lines), or a gcloud logging export")
    parser.add_argument("--out", type=Path, help="folder for summary.md/.json/.png (default: the log's folder)")
    parser.add_argument("--metrics", type=Path, default=METRICS_DIR, help="the log-based metric files")
    parser.add_argument("--demo", action="store_true",
                        help="first serve --artifact locally and send a fixed set of requests (into --out)")
    parser.add_argument("--artifact", type=Path, default=ARTIFACT, help="the artifact --demo serves")
    parser.add_argument("--store", choices=("sqlite", "firestore"), default="sqlite",
                        help="what --demo serves passages from: a SQLite file, or the official Firestore emulator "
                             "(gcloud and Java; the request lines then count Firestore reads)")
    args = parser.parse_args(argv)
    if args.demo:
        if args.logfile is not None:
            parser.error("--demo makes its own log file: give --out, not LOGFILE")
        args.logfile = _demo_on(args.store, args.out or REPO / "records" / "bench" / "logs", args.artifact)
    elif args.logfile is None:
        parser.error("give a LOGFILE, or --demo")
    if not args.logfile.is_file():
        parser.error(f"{args.logfile} is not a file")
    out = args.out or args.logfile.resolve().parent
    out.mkdir(parents=True, exist_ok=True)
    entries, skipped = read_entries(args.logfile)
    figures = summarise(entries, skipped, load_metrics(args.metrics))
    (out / "summary.json").write_text(json.dumps(figures, indent=2) + "\n")
    png = chart(figures, out / "summary.png")
    text = markdown(figures, args.logfile.name, f"![summary]({png.name})" if png else None)
    (out / "summary.md").write_text(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
