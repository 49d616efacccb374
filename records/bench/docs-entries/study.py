"""Line-break marks before tokenizing, measured on the documentation benchmark (records/bench/docs-entries).

A same-length substitution of the text every ``QATokenizer.encode_many`` call tokenizes (stored passages at
ingestion, contexts, questions), so every offset still points into the stored text and answers are read from it;
splitting measures the text as it was (``Plain``), so every passage is cut where it was. ``NL_VARIANT``:

- ``entries``: a one-token line after a blank line, followed by a line of text: the blank line -> ". ", the
  name's line break -> ":" ("\\n\\nnofile\\nmaximum" -> ". nofile:maximum");
- ``entries-period``: the blank line alone -> ". " (". nofile\\nmaximum").

Run from the repository root, e.g. ``NL_VARIANT=entries python records/bench/docs-entries/study.py --part all
--out build/nl-entries`` (the arguments are ``python -m bench docs``'s).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import function.ingest.split as splitting  # noqa: E402
from function.model import tokenizer as tokenizing  # noqa: E402

VARIANT = os.environ.get("NL_VARIANT", "entries")
ENTRY = re.compile(r"(\n\n)([^\s$>]\S*[ \t]*)\n(?=\S)")  # a one-token line after a blank line, then text


def sub(text: str) -> str:
    if VARIANT == "entries":
        return ENTRY.sub(lambda m: ". " + m.group(2) + ":", text)
    if VARIANT == "entries-period":
        return ENTRY.sub(lambda m: ". " + m.group(2) + "\n", text)
    raise SystemExit(f"NL_VARIANT={VARIANT!r}: entries or entries-period")


_encode_many = tokenizing.QATokenizer.encode_many


def encode_many(self, texts):
    shown = [sub(t) for t in texts]
    assert all(len(a) == len(b) for a, b in zip(shown, texts, strict=True))  # offsets hold
    return _encode_many(self, shown)


class Plain:
    """The tokenizer as it was, for splitting: passages are cut where they were."""

    def __init__(self, tok):
        self._tok = tok

    def encode_many(self, texts):
        return _encode_many(self._tok, texts)

    def __getattr__(self, name):
        return getattr(self._tok, name)


_split = splitting.split
tokenizing.QATokenizer.encode_many = encode_many
splitting.split = lambda doc, tokenizer, *a, **k: _split(doc, Plain(tokenizer), *a, **k)

if __name__ == "__main__":
    from bench.docs import main

    sys.exit(main(sys.argv[1:]))
