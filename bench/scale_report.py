"""``scale.md``: the tables of ``python -m bench scale`` from its ``scale.json``."""

from __future__ import annotations


def _mb(value) -> str:
    return "-" if value is None else f"{value / 1e6:,.1f}"


def _ms(summary: dict | None, key: str) -> str:
    return "-" if not summary else f"{summary[key]:.1f}"


def retrieval_table(result: dict) -> list[str]:
    lines = ["| passages | real / synthetic | backend | build (rows/s) | rows/s, first and last tenth | index MB | "
             "open + first question (ms) | warm p50 / p99 (ms) | recall@5 | peak RSS (MB) | top 5 = FTS5's |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in result["rows"]:
        b, q, c = row["build"], row["query"], row["corpus"]
        tenths = b["rows_per_s_by_tenth"]
        built = f"{b['rows_per_s']:,.0f}" if b.get("complete", True) else (
            f"{b['rows_per_s']:,.0f}, stopped after {b['rows']:,} rows ({b['write_s']:,.0f} s)")
        head = (f"| {row['size']:,} | {c['planted'] + c['real']:,} / {c['synthetic']:,} | {row['backend']} | {built} | "
                f"{tenths[0]:,.0f} -> {tenths[-1]:,.0f} | {_mb(b.get('bytes'))} | ")
        if q is None:
            lines.append(head + "- | - | - | - | - |")
            continue
        same = q.get("same_top_k_as_sqlite")
        lines.append(head + f"{q['open_ms']} + {q['first_question_ms']} | "
                     f"{q['warm_ms']['p50']:.1f} / {q['warm_ms']['p99']:.1f} | {q['recall_at_k']:.3f} | "
                     f"{q['peak_rss_mb']} | {'-' if same is None else f'{same:.1%}'} |")
    return lines


def writes_table(result: dict) -> list[str]:
    lines = ["| passages | backend | bytes written (MB) | per passage (bytes) | reads per question |",
             "|---|---|---|---|---|"]
    for row in result["rows"]:
        b, q = row["build"], row["query"] or {}
        written = b.get("bytes_written")
        per = "-" if written is None else f"{written / max(1, b['rows']):,.0f}"
        lines.append(f"| {row['size']:,} | {row['backend']} | {_mb(written)} | {per} | "
                     f"{q.get('reads_per_question', '-')} |")
    return lines


def f1_table(result: dict) -> list[str]:
    lines = ["| passages | retrieval | questions | EM | F1 | gold paragraph EM / F1 | retrieve p50 / p99 (ms) | "
             "question alone, server p50 / p99 (ms) |", "|---|---|---|---|---|---|---|---|"]
    for row in result["f1"]:
        w, g, t = row["with_retrieval"], row["gold_paragraph"], row.get("retrieve_stage_ms")
        s = row.get("question_alone_ms")
        lines.append(f"| {row['size']:,} | {row['retrieval']} | {row['questions']:,} | {w['exact_match']:.2f} | "
                     f"{w['f1']:.2f} | {g['exact_match']:.2f} / {g['f1']:.2f} | {_ms(t, 'p50')} / {_ms(t, 'p99')} | "
                     f"{_ms(s, 'p50')} / {_ms(s, 'p99')} |")
    return lines


def hybrid_tables(result: dict) -> list[str]:
    lines = ["| passages | BM25 @5 / @20 | dense @5 / @20 | dense, exact @5 / @20 | mixed @5 / @20 | "
             "embedding p50 / p99 (ms) | BM25 top 20 p50 | dense p50 (exact) | fusion p50 | peak RSS (MB) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for h in result["hybrid"]:
        r, ms = h["ask"]["recall"], h["ask"]["ms"]
        pair = {name: f"{r[name]['@5']:.3f} / {r[name]['@20']:.3f}" for name in r}
        lines.append(f"| {h['size']:,} | {pair['bm25']} | {pair['dense']} | {pair['dense_exact']} | {pair['mixed']} | "
                     f"{_ms(ms['embed'], 'p50')} / {_ms(ms['embed'], 'p99')} | {_ms(ms['bm25'], 'p50')} | "
                     f"{_ms(ms['dense'], 'p50')} ({_ms(ms['dense_exact'], 'p50')}) | {_ms(ms['fuse'], 'p50')} | "
                     f"{h['ask']['peak_rss_mb']} |")
    lines += ["", "| passages | embedded now / cached | passages embedded per s | table rows/s (with vectors) | "
                  "optimize s (vector index) | table MB |", "|---|---|---|---|---|---|"]
    for h in result["hybrid"]:
        e, b = h["embed"], h["build"]
        lines.append(f"| {h['size']:,} | {e['embedded']:,} / {e['cached']:,} | {e['per_s'] or '-'} | "
                     f"{b['rows_per_s']:,.0f} | {b['optimize_s']} | {_mb(b['bytes'])} |")
    return lines


def markdown(result: dict) -> str:
    m = result["machine"]
    lines = [f"# Questions asked alone from {min(result['sizes']):,} to {max(result['sizes']):,} passages", "",
             f"`{result['command']}`, {result['date']}, {m.get('cpu', 'CPU')} ({m.get('available_cpus')} CPUs, "
             f"load average at start {m.get('load_average_at_start')}). Top {result['top_k']}; "
             f"{result['questions']} dev questions over the 285 planted dev paragraphs.", "",
             *([result["note"], ""] if result.get("note") else []),
             "## Retrieval", "", *retrieval_table(result), "", "## What ingestion wrote", "",
             "Bytes passed to write()/pwrite() while building (`/proc/self/io` wchar); reads per question: "
             "Lance's own count of its read requests (on Cloud Storage, a GET each).", "", *writes_table(result)]
    if result.get("f1"):
        art = result.get("artifact", {})
        lines += ["", "## Answers, question alone (end to end)", "",
                  f"Reader `{art.get('name')}` (`{str(art.get('artifact_hash'))[:12]}`), top {result['top_k']} "
                  "passages, never abstaining (`bench.retrieval.read_all` through `QAService`).", "",
                  *f1_table(result)]
    if result.get("hybrid"):
        enc = result.get("encoder", {})
        lines += ["", "## Hybrid: dense vectors fused with BM25", "",
                  f"Encoder `{enc.get('folder')}`: {_mb(enc.get('model_bytes'))} MB int8 ONNX + "
                  f"{_mb(enc.get('tokenizer_bytes'))} MB tokenizer, texts cut at {enc.get('max_tokens')} tokens; "
                  f"parity with PyTorch fp32: {enc.get('parity')}. Each ranking's top "
                  f"{result['hybrid'][0]['ask']['depth']} fused by the function's mixed score "
                  "(`function.retrieval.hybrid`).", "", *hybrid_tables(result)]
    return "\n".join(lines) + "\n"
