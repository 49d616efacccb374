"""The question page, ``GET /ui`` (on with ``QA_UI=1``): one self-contained HTML file under a strict policy.

``ui.html`` holds its only style sheet and its only script inline, so the
page needs nothing from anywhere else and works offline. Its
Content-Security-Policy allows exactly those two blocks (by their sha256,
computed here from the file as served), requests to this origin, and nothing
more: no other script, style, image, font, frame, base URL or form target.
The page puts every text of a reply into the document as text, never as
HTML; the policy is the second line of defence should that ever slip.
"""

from __future__ import annotations

import base64
import hashlib
import re
from functools import cache
from pathlib import Path

PAGE = Path(__file__).with_name("ui.html")


def _inline_block(html: str, tag: str) -> str:
    """The text of the page's one ``<tag>`` block, exactly as the browser hashes it."""
    blocks = re.findall(rf"<{tag}>(.*?)</{tag}>", html, flags=re.DOTALL)
    if len(blocks) != 1 or re.search(rf"<{tag}\s", html):
        raise ValueError(f"{PAGE.name} must hold exactly one plain <{tag}> block")
    return blocks[0]


def _sha256_source(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(html: str) -> str:
    """The page's policy: its own inline script and style, ``fetch`` to this origin, nothing else."""
    return "; ".join((
        "default-src 'none'",
        f"script-src {_sha256_source(_inline_block(html, 'script'))}",
        f"style-src {_sha256_source(_inline_block(html, 'style'))}",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ))


@cache
def page() -> tuple[bytes, dict[str, str]]:
    """The page's bytes and headers, read and hashed once per process (on the first ``GET /ui``)."""
    html = PAGE.read_text(encoding="utf-8")
    body = html.encode("utf-8")
    return body, {
        "Content-Type": "text/html; charset=utf-8",
        "Content-Length": str(len(body)),
        "Content-Security-Policy": content_security_policy(html),
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }
