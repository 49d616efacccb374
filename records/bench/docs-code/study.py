"""A lift for answers that are an inline-code element of their page, on name questions (RULE.md).

Runs ``python -m bench docs`` once per variant in one process, the reader's ``_by_sentence`` patched:
    python records/bench/docs-code/study.py --part dev --out build/docs-code
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np
from lxml import html as lxml_html

import bench.docs as bdocs
from function.model import reader

NAME_QUESTION = re.compile(
    r"^\s*which\b|^\s*what\b(?:\s+[\w.'-]+){0,4}?\s+(?:options?|flags?|switch(?:es)?|arguments?|parameters?|"
    r"keywords?|methods?|functions?|class(?:es)?|modules?|packages?|exceptions?|errors?|variables?|settings?|"
    r"files?|director(?:y|ies)|commands?|subcommands?|events?|hooks?|headers?|fields?|propert(?:y|ies)|"
    r"attributes?|items?|keys?|formatters?|values?|constants?|macros?|codes?|types?|names?)\b"
    r"|^\s*what\s+does\s+.+\s+return\b", re.IGNORECASE)
HTML_CODE = ("//code | //tt | //kbd | //samp | //var | //*[contains(concat(' ', normalize-space(@class), ' '), ' pre ')"
             " or contains(@class, 'literal') or contains(@class, 'option') or contains(@class, 'parameter')"
             " or contains(@class, 'command') or contains(@class, 'filename') or contains(@class, 'varname')"
             " or contains(@class, 'function') or contains(@class, 'constant') or contains(@class, 'envar')"
             " or contains(@class, 'returnvalue') or contains(@class, 'type')]")

W = 0.0
SNAP = False
CODES: dict[str, set[str]] = {}  # page -> its code elements, normalised
DOC_OF_TEXT: dict[str, str] = {}


def norm(s: str) -> str:
    s = " ".join(s.split()).strip("`'\"").lower()
    s = s[1:] if s.startswith(".") else s
    return s[:-2] if s.endswith("()") else s


def page_codes(path: Path) -> set[str]:
    if path.suffix.lower() in (".md", ".markdown", ".txt"):
        found = re.findall(r"`([^`\n]+)`", path.read_text(errors="replace"))
    else:
        doc = lxml_html.fromstring(path.read_bytes())
        found = [el.text_content() for el in doc.xpath(HTML_CODE)]
    return {n for n in (norm(x) for x in found) if n}


_stored = bdocs.stored_passages


def stored_passages(service, texts):
    out = _stored(service, texts)
    for doc, rows in out.items():
        for _, text in rows:
            DOC_OF_TEXT[text] = doc
    return out


_by_sentence = reader._by_sentence
QUESTION = {"q": ""}


def by_sentence(found, question, texts, weight, titles=None):
    ranked = _by_sentence(found, question, texts, weight, titles)
    if not ranked or not NAME_QUESTION.search(question) or (W == 0 and not SNAP):
        return ranked
    out = []
    for a in ranked:
        codes = CODES.get(DOC_OF_TEXT.get(texts[a.passage], ""), set())
        start, end = a.start, a.end
        if SNAP and norm(texts[a.passage][start:end]) not in codes:
            span = texts[a.passage][start:end]
            inside = [(m.start(), m.end()) for c in codes if len(c) > 1
                      for m in re.finditer(r"(?<![\w.])" + re.escape(c) + r"(?:\(\))?(?!\w)", span, re.IGNORECASE)]
            if len({span[i:j].lower() for i, j in inside}) == 1:
                start, end = a.start + inside[0][0], a.start + inside[0][1]
        out.append(reader.Answer(a.passage, start, end, a.score))
    scores = np.asarray([a.score for a in out], dtype=np.float64)
    hit = np.asarray([norm(texts[a.passage][a.start:a.end]) in CODES.get(DOC_OF_TEXT.get(texts[a.passage], ""), set())
                      for a in out], dtype=np.float64)
    lifted = scores * np.exp(W * hit)
    lifted = lifted / (1.0 + (lifted - scores).sum())
    order = np.argsort(-lifted, kind="stable")
    return [reader.Answer(out[i].passage, out[i].start, out[i].end, float(lifted[i])) for i in order]


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--part", default="dev")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--variants", default="0,2,4,4s")
    args = p.parse_args()
    global W, SNAP
    for docset in bdocs.load_sets():
        folder = bdocs.REPO / "build" / "docs-bench" / docset["set"] / "corpus"
        for f in folder.rglob("*"):
            if f.is_file():
                CODES[str(f.relative_to(folder))] = page_codes(f)
    bdocs.stored_passages = stored_passages
    reader._by_sentence = by_sentence
    summary = {}
    for v in args.variants.split(","):
        W, SNAP = float(v.rstrip("s")), v.endswith("s")
        out = args.out / f"w{v}"
        bdocs.main(["--part", args.part, "--out", str(out)])
        d = json.loads((out / "docs.json").read_text())
        summary[v] = d["tables"]
        print(v, json.dumps(d["tables"])[:600], flush=True)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
