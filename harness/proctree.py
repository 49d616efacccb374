"""Resident memory of a process tree, from Linux /proc: the one memory reader of the tests and benchmarks.

functions-framework runs gunicorn: a master process that imported the
function module and one forked worker that serves (and loads the model), so a
server's memory is the sum over its tree. The per-process figures are kept as
well: the pages the worker shares copy-on-write with the master count in both
VmRSS values, so the sum is an upper bound and the worker's own peak is the
serving process's. ``Pss`` (shared pages split between their users) is the
fairest current figure; the kernel keeps no peak of it.
"""

from __future__ import annotations

import os


def parse_ppid(stat_text: str) -> int:
    """Parent pid from /proc/PID/stat (the command name may hold spaces and parentheses)."""
    return int(stat_text.rsplit(")", 1)[1].split()[1])


def parse_kb(text: str, field: str) -> int:
    """A ``Field:  N kB`` value from /proc/PID/status or smaps_rollup (0 when absent)."""
    for line in text.splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def descendants(root: int, parents: dict[int, int]) -> list[int]:
    """``root`` and every process below it, given each pid's parent; root first."""
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(sorted(children.get(pid, []), reverse=True))
    return out


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:  # the process exited, or the file is not readable
        return ""


def read_parents(proc: str = "/proc") -> dict[int, int]:
    parents = {}
    for entry in os.listdir(proc):
        if entry.isdigit():
            try:
                parents[int(entry)] = parse_ppid(_read(f"{proc}/{entry}/stat"))
            except (ValueError, IndexError):
                pass
    return parents


def process_memory(pid: int, proc: str = "/proc") -> dict:
    status = _read(f"{proc}/{pid}/status")
    name = next((line.split(":", 1)[1].strip() for line in status.splitlines() if line.startswith("Name:")), "")
    return {"pid": pid, "name": name, "peak_rss_kb": parse_kb(status, "VmHWM"),
            "rss_kb": parse_kb(status, "VmRSS"), "pss_kb": parse_kb(_read(f"{proc}/{pid}/smaps_rollup"), "Pss")}


def summarise_tree(processes: list[dict]) -> dict:
    """Totals in MB over a tree's processes (see the module docstring for what each means)."""
    def mb(kb: float) -> float:
        return round(kb / 1024, 1)

    return {"peak_rss_mb": mb(sum(p["peak_rss_kb"] for p in processes)),
            "rss_mb": mb(sum(p["rss_kb"] for p in processes)),
            "pss_mb": mb(sum(p["pss_kb"] for p in processes)),
            "largest_peak_rss_mb": mb(max((p["peak_rss_kb"] for p in processes), default=0)),
            "processes": len(processes)}


def tree_memory(root: int, proc: str = "/proc") -> dict:
    processes = [process_memory(pid, proc) for pid in descendants(root, read_parents(proc))]
    return summarise_tree([p for p in processes if p["rss_kb"] or p["peak_rss_kb"]])
