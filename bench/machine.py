"""The machine and software a benchmark ran on, and whether anything else was competing for it."""

from __future__ import annotations

import os
import platform
from importlib import metadata

PACKAGES = ("onnxruntime", "tokenizers", "numpy", "functions-framework", "gunicorn", "torch", "transformers",
            "google-cloud-firestore")
ISA = ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8")
BUSY_COMMANDS = ("build_model",)  # known heavy jobs of this project (training)


def parse_cpuinfo(text: str) -> dict:
    """CPU model name and the int8-relevant instruction-set extensions, from /proc/cpuinfo text."""
    model, flags = "unknown", set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and model == "unknown":
            model = value.strip()
        elif key == "flags" and not flags:
            flags = set(value.split())
    return {"cpu": model, "isa": [f for f in ISA if f in flags]}


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def versions() -> dict:
    out = {"python": platform.python_version()}
    for package in PACKAGES:
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            out[package] = None
    return out


def busy_processes(commands: tuple[str, ...] = BUSY_COMMANDS) -> list[str]:
    """Command lines of running processes that would disturb a measurement (other than this one)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            cmd = _read(f"/proc/{entry}/cmdline").replace("\0", " ").strip()
            if any(c in cmd for c in commands) and "-m bench" not in cmd and "pytest" not in cmd:
                found.append(cmd[:200])
    return found


def describe() -> dict:
    info = parse_cpuinfo(_read("/proc/cpuinfo"))
    meminfo = _read("/proc/meminfo")
    total_kb = next((int(line.split()[1]) for line in meminfo.splitlines() if line.startswith("MemTotal:")), 0)
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:
        available = os.cpu_count()
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    busy = busy_processes()
    return {**info, "logical_cpus": os.cpu_count(), "available_cpus": available,
            "memory_gb": round(total_kb / 1024 / 1024, 1), "system": platform.platform(),
            "versions": versions(), "load_average_at_start": load, "competing_processes": busy,
            "quiet": not busy}
