"""Structured logs: one JSON object per line on stdout, as Cloud Logging reads them."""

from __future__ import annotations

import json
import sys
import threading

_lock = threading.Lock()


def trace_field(header: str | None, project: str) -> dict:
    """``logging.googleapis.com/trace`` from an ``X-Cloud-Trace-Context: TRACE/SPAN;o=1`` header."""
    if not header:
        return {}
    trace_id = header.split("/", 1)[0].strip()
    if not trace_id or not trace_id.isalnum() or len(trace_id) > 64:
        return {}
    return {"logging.googleapis.com/trace": f"projects/{project or '-'}/traces/{trace_id}"}


def log(severity: str, message: str, **fields) -> None:
    entry = {"severity": severity, "message": message, **fields}
    line = json.dumps(entry, ensure_ascii=False, default=str)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a caller's text: \u-escaped, never an exception
        line = json.dumps(entry, default=str)
    with _lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def clip(text: str, limit: int) -> str:
    """At most ``limit`` characters of a caller's text, marked when cut."""
    if limit <= 0:
        return ""
    return text if len(text) <= limit else text[:limit] + "…"
