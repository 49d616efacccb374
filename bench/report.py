"""Ratios to our function and the Markdown report of a benchmark run. Pure functions of the results dict."""

from __future__ import annotations

from bench.cold_start import LOAD_PARTS, SEGMENTS
from bench.stats import ratio

BASE = "ours"
# When the contenders loaded their models (results written before the setting existed were lazy).
LOAD_WORDS = {
    "eager": "Every contender loaded its model as soon as its gunicorn worker started (`QA_EAGER_LOAD=1`, as "
             "`infra/deploy.sh` deploys it), so the load overlaps the worker's boot and the wait for the first "
             "request.",
    "lazy": "Every contender loaded its model inside the first request (`QA_EAGER_LOAD=0`).",
}


def _median(summary: dict | None, key: str) -> float | None:
    value = (summary or {}).get(key)
    return value.get("median") if isinstance(value, dict) else None


def warm_entry(results: dict, contender: str, store: str = "sqlite") -> dict | None:
    return next((w for w in results.get("warm", []) if w["contender"] == contender and w["store"] == store), None)


def ratios(results: dict) -> dict:
    """Each other contender against ours: times and memory as theirs / ours, requests/s as ours / theirs.

    So every ratio above 1 says by how much ours is better.
    """
    out = {}
    cold = results.get("cold_start", {})
    base_cold = (cold.get(BASE) or {}).get("summary")
    base_warm = warm_entry(results, BASE)
    for c in results["contenders"]:
        name = c["name"]
        if name == BASE:
            continue
        r: dict = {}
        alt_cold = (cold.get(name) or {}).get("summary")
        if alt_cold and base_cold:
            r["cold_start"] = {k: ratio(_median(alt_cold, k), _median(base_cold, k))
                               for k in ("first_answer_ms", "listening_ms", "peak_rss_mb", "largest_peak_rss_mb")}
        alt_warm = warm_entry(results, name)
        if alt_warm and base_warm:
            r["warm_p50"] = {pid: ratio(v["client_ms"]["p50"], base_warm["latency"][pid]["client_ms"]["p50"])
                             for pid, v in alt_warm["latency"].items() if pid in base_warm["latency"]}
            base_levels = {t["clients"]: t for t in base_warm.get("throughput", [])}
            r["throughput"] = {str(t["clients"]): ratio(base_levels[t["clients"]]["requests_per_s"],
                                                        t["requests_per_s"])
                               for t in alt_warm.get("throughput", []) if t["clients"] in base_levels}
            r["memory_after_throughput"] = ratio(
                (alt_warm.get("memory_after_throughput") or {}).get("rss_mb"),
                (base_warm.get("memory_after_throughput") or {}).get("rss_mb"))
        out[name] = r
    return out


def _fmt(value, digits: int = 0) -> str:
    if value is None:
        return "–"
    return f"{value:,.{digits}f}"


def _spread(summary: dict | None, digits: int = 0) -> str:
    if not summary:
        return "–"
    return f"{_fmt(summary['median'], digits)} ({_fmt(summary['min'], digits)}–{_fmt(summary['max'], digits)})"


def _x(value) -> str:
    return "–" if value is None else f"{value:.1f}×"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _labels(results: dict) -> dict:
    return {c["name"]: c["label"] for c in results["contenders"]}


def machine_line(machine: dict) -> str:
    v = machine.get("versions", {})
    isa = ", ".join(machine.get("isa") or []) or "none of avx2/avx512/vnni"
    return (f"{machine.get('cpu')}, {machine.get('available_cpus')} of {machine.get('logical_cpus')} logical CPUs "
            f"usable ({isa}), {machine.get('memory_gb')} GB; Python {v.get('python')}, onnxruntime "
            f"{v.get('onnxruntime')}, torch {v.get('torch')}, transformers {v.get('transformers')}")


def cold_section(results: dict) -> list[str]:
    labels, cold, r = _labels(results), results.get("cold_start", {}), results.get("ratios", {})
    rows = []
    for name in labels:
        s = (cold.get(name) or {}).get("summary")
        if not s:
            continue
        rc = (r.get(name) or {}).get("cold_start", {})
        rows.append([labels[name], _spread(s.get("listening_ms")), _spread(s.get("first_answer_ms")),
                     _spread(s.get("peak_rss_mb")), _spread(s.get("largest_peak_rss_mb")),
                     "1.0× / 1.0×" if name == BASE
                     else f"{_x(rc.get('first_answer_ms'))} / {_x(rc.get('peak_rss_mb'))}"])
    runs = max((len((cold.get(n) or {}).get("runs", [])) for n in labels), default=0)
    out = [f"### Cold start ({runs} fresh processes each; median (min–max))", ""]
    out += _table(["contender", "to listening (ms)", "to first answer (ms)", "peak RSS, tree (MB)",
                   "peak RSS, serving process (MB)", "time / memory vs ours"], rows)
    seg_rows = [[labels[n]] + [_fmt((cold[n]["summary"].get("breakdown_median_ms") or {}).get(k)) for k in SEGMENTS]
                + [_fmt(_median(cold[n]["summary"].get("cold_start_ms"), key)) for key in LOAD_PARTS.values()]
                + [_fmt(_median(cold[n]["summary"].get("cold_start_ms"), "store_ms"))]
                for n in labels if (cold.get(n) or {}).get("summary")]
    out += ["", "Where the time to the first answer goes (medians, ms; the segments add up to it; the last four "
            "columns are parts' own durations: the artifact check, tokenizer and model load make up the load "
            "segment, and every contender sets its store up on a second thread while its model loads):", ""]
    out += _table(["contender"] + list(SEGMENTS) + [f"{k} (own time)" for k in LOAD_PARTS]
                  + ["store set-up (in parallel)"], seg_rows)
    return out


def warm_section(results: dict) -> list[str]:
    labels = _labels(results)
    passages = results.get("passages", [])
    header = ["contender", "store"]
    for p in passages:
        header.append(f"{p['window_tokens']} tok p50 / p95 / p99")
    header += ["fetch p50 (ms)", "inference p50, longest (ms)", "p50 vs ours"]
    rows = []
    for w in results.get("warm", []):
        row = [labels.get(w["contender"], w["contender"]), w["store"]]
        for p in passages:
            c = w["latency"].get(p["id"], {}).get("client_ms")
            row.append("–" if not c else f"{_fmt(c['p50'], 1)} / {_fmt(c['p95'], 1)} / {_fmt(c['p99'], 1)}")
        fetch = [w["latency"][p["id"]]["server_ms"].get("fetch") for p in passages if p["id"] in w["latency"]]
        row.append(" / ".join(_fmt(f["p50"], 2) if f else "–" for f in fetch))
        longest = w["latency"].get(passages[-1]["id"], {}).get("server_ms", {}) if passages else {}
        inf = longest.get("inference") or longest.get("pipeline")
        row.append(_fmt(inf["p50"], 1) if inf else "–")
        rw = (results.get("ratios", {}).get(w["contender"]) or {}).get("warm_p50", {})
        if w["contender"] == BASE:
            row.append("1.0×" if w["store"] == "sqlite" else "–")
        else:
            row.append(" / ".join(_x(rw.get(p["id"])) for p in passages))
        rows.append(row)
    n = max((w["latency"][k]["client_ms"]["n"] for w in results.get("warm", []) for k in w["latency"]), default=0)
    out = [f"### Warm latency ({n} sequential requests per passage; client-side ms, p50 / p95 / p99)", ""]
    return out + _table(header, rows)


def throughput_section(results: dict) -> list[str]:
    labels = _labels(results)
    rows = []
    for w in results.get("warm", []):
        rt = (results.get("ratios", {}).get(w["contender"]) or {}).get("throughput", {})
        for t in w.get("throughput", []):
            lat = t["latency_ms"] or {}
            rows.append([labels.get(w["contender"], w["contender"]), str(t["clients"]), _fmt(t["requests_per_s"], 1),
                         _fmt(lat.get("p50"), 1), _fmt(lat.get("p95"), 1), _fmt(lat.get("p99"), 1),
                         str(t["errors"]), "1.0×" if w["contender"] == BASE else _x(rt.get(str(t["clients"])))])
    if not rows:
        return []
    requests = max(t["requests"] for w in results["warm"] for t in w.get("throughput", []))
    out = [f"### Throughput ({requests} requests per level, longest passage)", ""]
    out += _table(["contender", "clients", "requests/s", "p50 (ms)", "p95 (ms)", "p99 (ms)", "errors",
                   "ours ÷ it (req/s)"], rows)
    mem_rows = []
    for w in results.get("warm", []):
        before, after = w.get("memory_before_throughput"), w.get("memory_after_throughput")
        rest = w.get("memory_at_rest_after_throughput") or {}
        if before and after:
            mem_rows.append([labels.get(w["contender"], w["contender"]), _fmt(before["rss_mb"], 1),
                             _fmt(after["rss_mb"], 1), _fmt(after["rss_mb"] - before["rss_mb"], 1),
                             _fmt(rest.get("rss_mb"), 1), _fmt(after["peak_rss_mb"], 1)])
    out += ["", "Memory of the process tree around the throughput series (MB; at rest: 2 s after it):", ""]
    return out + _table(["contender", "RSS before", "RSS after", "change", "RSS at rest", "peak RSS"], mem_rows)


def render(results: dict) -> str:
    meta = results["meta"]
    s = meta["settings"]
    out = ["# Serving benchmark: our function against what users would otherwise run", ""]
    if not meta["machine"].get("quiet", True):
        out += ["> **Not a reference run:** other work was running on the machine "
                f"({'; '.join(meta['machine']['competing_processes'])[:200]}). Its figures are noisy.", ""]
    out += [f"Machine: {machine_line(meta['machine'])}.", "",
            f"Command: `{meta['command']}` ({meta['started']}, {meta['duration_s']:.0f} s).", "",
            f"Every contender ran with {s['threads']} intra-op threads (ONNX Runtime `QA_THREADS`, "
            f"`torch.set_num_threads`, `OMP_NUM_THREADS`), one gunicorn worker with 8 threads, one model run at a "
            f"time, answer cache off and passage cache off (every request reads its passage from the store). "
            f"{LOAD_WORDS[s.get('load', 'lazy')]}", ""]
    out += ["Contenders:", ""]
    for c in results["contenders"]:
        out.append(f"- **{c['label']}**: {c['description']}")
    out.append("")
    stand_ins = [c["label"] for c in results["contenders"] if c.get("weights") == "stand-in"]
    if stand_ins:
        out += [f"> **Stand-in weights:** {' and '.join(stand_ins)} served random weights in the artifact's "
                "architecture (no PyTorch checkpoint of the artifact was at hand): their speed and memory compare "
                "with ours, their answers do not.", ""]
    for section in (cold_section, warm_section, throughput_section):
        lines = section(results)
        if lines:
            out += lines + [""]
    out += ["Ratios: time and memory as the other contender's figure divided by ours, requests/s as ours divided "
            "by the other contender's, so a ratio above 1 says by how much ours is better.", ""]
    return "\n".join(out)
