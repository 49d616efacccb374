"""PNG charts of a benchmark run (matplotlib, Agg backend): cold-start breakdown, latency, throughput."""

from __future__ import annotations

from pathlib import Path

from bench.cold_start import SEGMENTS

COLORS = ("#4c72b0", "#8c8c8c", "#c4ad66", "#dd8452", "#937860", "#55a868", "#c44e52", "#8172b3", "#da8bc3")


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def cold_start(results: dict, path: Path) -> Path:
    plt = _plt()
    labels = {c["name"]: c["label"] for c in results["contenders"]}
    names = [n for n in labels if (results["cold_start"].get(n) or {}).get("summary")]
    fig, (ax, mem) = plt.subplots(1, 2, figsize=(12, 1.2 + 0.9 * len(names)), width_ratios=(3, 1), sharey=True)
    for i, name in enumerate(names):
        parts = results["cold_start"][name]["summary"]["breakdown_median_ms"]
        left = 0.0
        for j, seg in enumerate(SEGMENTS):
            width = (parts.get(seg) or 0) / 1000
            ax.barh(i, width, left=left, color=COLORS[j % len(COLORS)], label=seg if i == 0 else None)
            left += width
        total = results["cold_start"][name]["summary"]["first_answer_ms"]["median"] / 1000
        ax.text(left, i, f"  {total:.2f} s", va="center")
        peak = results["cold_start"][name]["summary"]["peak_rss_mb"]["median"]
        mem.barh(i, peak, color="#4c72b0")
        mem.text(peak, i, f" {peak:.0f}", va="center")
    ax.set_yticks(range(len(names)), [labels[n] for n in names])
    ax.invert_yaxis()
    ax.set_xlabel("seconds from process start to the first answer (median segments)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=3, fontsize=8, frameon=False)
    ax.set_xlim(0, ax.get_xlim()[1] * 1.12)
    mem.set_xlabel("peak RSS of the process tree (MB)")
    mem.set_xlim(0, mem.get_xlim()[1] * 1.25)
    fig.suptitle("Cold start")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def latency(results: dict, path: Path) -> Path:
    plt = _plt()
    from matplotlib.ticker import ScalarFormatter

    short = {c["name"]: c.get("short", c["label"]) for c in results["contenders"]}
    passages = results["passages"]
    warm = results["warm"]
    fig, axes = plt.subplots(1, len(passages), figsize=(4.2 * len(passages), 4.2), sharey=True, squeeze=False)
    for ax, p in zip(axes[0], passages):
        data = [w["latency"][p["id"]]["samples_ms"] for w in warm]
        ax.boxplot(data, whis=(1, 99), showfliers=False)
        ax.set_xticks(range(1, len(warm) + 1),
                      [f"{short.get(w['contender'], w['contender'])}\n{w['store']}" for w in warm], fontsize=8)
        ax.set_title(f"{p['window_tokens']}-token window")
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(ScalarFormatter())
        ax.yaxis.set_minor_formatter(ScalarFormatter())
        ax.tick_params(axis="y", which="minor", labelsize=7)
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[0][0].set_ylabel("client latency (ms, log); box p25–p75, whiskers p1–p99")
    fig.suptitle("Warm latency, one question against one stored passage")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def throughput(results: dict, path: Path) -> Path | None:
    warm = [w for w in results["warm"] if w.get("throughput")]
    if not warm:
        return None
    plt = _plt()
    labels = {c["name"]: c["label"] for c in results["contenders"]}
    fig, (rps, tail) = plt.subplots(1, 2, figsize=(10, 4))
    for w in warm:
        clients = [t["clients"] for t in w["throughput"]]
        label = labels.get(w["contender"], w["contender"])
        rps.plot(clients, [t["requests_per_s"] for t in w["throughput"]], marker="o", label=label)
        tail.plot(clients, [(t["latency_ms"] or {}).get("p95") for t in w["throughput"]], marker="o", label=label)
    for ax, ylabel in ((rps, "requests / s"), (tail, "p95 latency (ms, log)")):
        ax.set_xscale("log", base=2)
        ax.set_xticks(clients, [str(c) for c in clients])
        ax.set_xlabel("concurrent clients")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    tail.set_yscale("log")
    from matplotlib.ticker import ScalarFormatter

    tail.yaxis.set_major_formatter(ScalarFormatter())
    tail.yaxis.set_minor_formatter(ScalarFormatter())
    tail.tick_params(axis="y", which="minor", labelsize=7)
    rps.legend(fontsize=8)
    fig.suptitle("Throughput against the longest passage")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def write_all(results: dict, out: Path, prefix: str = "serving") -> list[Path]:
    written = [cold_start(results, out / f"{prefix}-cold-start.png"), latency(results, out / f"{prefix}-latency.png"),
               throughput(results, out / f"{prefix}-throughput.png")]
    return [p for p in written if p is not None]
