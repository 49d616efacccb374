"""A three-document folder about a made-up program (Markdown, text, HTML): the corpus of the tests that ingest a
user's folder (``make run DOCS``, ``python -m function.evaluate``)."""

from __future__ import annotations

from pathlib import Path

INSTALL = """# Installing Quillpad

Quillpad needs Python 3.12 or later. Install it with pipx by running `pipx install quillpad`.

## Configuration

The configuration file lives in ~/.config/quillpad/settings.toml. The default theme is Solarized.
"""
FAQ = """Frequently asked questions

Quillpad was written by Marta Kowalski in 2019. It is released under the MIT license.

Quillpad saves your notes every 30 seconds.
"""
ABOUT = """<html><head><title>About Quillpad</title></head><body><article><h1>About Quillpad</h1>
<p>Quillpad is a note-taking program for the terminal. Its notes are stored as Markdown files in a folder
called vault.</p></article></body></html>
"""


def write_docs(root: Path) -> Path:
    """The three documents under ``root`` (created), ``guide/install.md`` in a subfolder."""
    (root / "guide").mkdir(parents=True)
    (root / "guide" / "install.md").write_text(INSTALL)
    (root / "faq.txt").write_text(FAQ)
    (root / "about.html").write_text(ABOUT)
    return root
