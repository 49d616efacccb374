"""One package -> SQuAD 2.0-layout articles: its pages' entries, their questions, located in ingestion's passages.

Each page with entries is extracted and split exactly as ``python -m function.ingest`` does
(``function.ingest.extract.extract`` then ``function.ingest.split.split`` with the artifact's tokenizer and
``budget_from_manifest``), and each question's anchor is looked for in its passages with white space ignored,
so the answer is cut from the passage text itself (and checked: ``context[start:start + len(text)] == text``).
A question whose anchor no passage holds (the extractor dropped it, or it spans two passages) is dropped.
About one question in ``1 / unanswerable_rate`` is asked again of another passage of the same page, a
neighbour first, that holds neither its answer nor the description it paraphrases: ``is_impossible``.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field

from build_model.docdata import entries as E
from build_model.docdata.fetch import Source
from build_model.docdata.how import how_questions
from build_model.docdata.prose import prose_questions
from build_model.docdata.questions import QSpec, questions_for

_NONSPACE = re.compile(r"\S")


@dataclass
class Squeezed:
    """A text without its white space, and where each of its characters came from."""

    text: str
    where: list[int]

    @classmethod
    def of(cls, text: str) -> Squeezed:
        where = [m.start() for m in _NONSPACE.finditer(text)]
        return cls("".join(text[i] for i in where), where)


def squeeze(text: str) -> str:
    return "".join(text.split())


@dataclass
class Page:
    title: str
    passages: list[str]
    squeezed: list[Squeezed] = field(default_factory=list)

    def __post_init__(self):
        self.squeezed = [Squeezed.of(p) for p in self.passages]


def page_entries(generator: str, name: str, data: bytes) -> list[E.Entry]:
    if generator == "sphinx":
        return E.sphinx_entries(data)
    if generator == "gtkdoc":  # gtk-doc's DocBook pages, or gi-docgen's for newer GNOME libraries
        return E.gtkdoc_entries(data) or E.gidocgen_entries(data)
    if generator == "javadoc":
        return E.javadoc_entries(data)
    if generator == "doxygen":
        return E.doxygen_entries(data)
    if generator == "docbook":
        return E.docbook_entries(data)
    text = data.decode("utf-8", "replace")
    if generator == "markdown":
        return E.markdown_entries(text)
    if generator == "man":
        return E.man_entries(text)
    raise ValueError(f"unknown generator {generator!r}")


def locate(spec: QSpec, page: Page) -> tuple[int, int, int] | None:
    """(passage index, answer start, answer end) of the first passage that holds the question's anchor (and its
    musts; one holding ``prefer`` too is taken first), or None."""
    answer_sq = squeeze(spec.answer)
    if not answer_sq:
        return None
    anchors = [(spec.anchor, spec.offset)]
    window = _window(spec.anchor, spec.offset, len(spec.answer))
    if window[0] != spec.anchor:
        anchors.append(window)
    if spec.musts and spec.answer != spec.anchor:
        anchors.append((spec.answer, 0))  # the answer alone, nearest before the description it goes with
    musts = [squeeze(m) for m in spec.musts if squeeze(m)]
    prefer = [squeeze(p) for p in spec.prefer if squeeze(p)]
    for anchor, offset in anchors:
        anchor_sq = squeeze(anchor)
        lead = len(squeeze(anchor[:offset]))
        if anchor_sq[lead:lead + len(answer_sq)] != answer_sq:
            return None
        found = []
        for i, sq in enumerate(page.squeezed):
            if anchor_sq not in sq.text or not all(m in sq.text for m in musts):
                continue
            found.append(i)
            if all(p in sq.text for p in prefer):
                found = [i]
                break
        if not found:
            continue
        i = found[0]
        sq = page.squeezed[i]
        pos = _best_occurrence(sq.text, anchor_sq, musts[0] if musts else "")
        s = sq.where[pos + lead]
        e = sq.where[pos + lead + len(answer_sq) - 1] + 1
        return i, s, e
    return None


def _best_occurrence(text: str, needle: str, must: str) -> int:
    """The occurrence of ``needle`` nearest before ``must`` (the description after a signature), else the first."""
    first = text.find(needle)
    if not must:
        return first
    at = text.find(must)
    best, pos = first, first
    while 0 <= pos <= at:
        best = pos
        pos = text.find(needle, pos + 1)
    return best


def _window(text: str, offset: int, length: int, around: int = 60) -> tuple[str, int]:
    """A shorter anchor: the answer with up to ``around`` characters each side, cut at white space."""
    s = max(0, offset - around)
    while s > 0 and not text[s - 1].isspace():
        s += 1
        if s >= offset:
            s = offset
            break
    e = min(len(text), offset + length + around)
    while e < len(text) and not text[e].isspace():
        e -= 1
        if e <= offset + length:
            e = offset + length
            break
    return text[s:e], offset - s


def qid(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]


def build_page(source: Source, rel: str, data: bytes, tokenizer, budget: tuple[int, int], rng: random.Random,
               unanswerable_rate: float = 0.25, templates: str = "entries") -> tuple[dict | None, list[str]]:
    """The page's article (``{"title", "paragraphs"}``) or None, and the notes to log. ``templates``: questions
    from API entries (``entries``), from code spans in prose (``prose``, ``build_model.docdata.prose``), from a
    guide's "To ...:" over a code block (``how``, ``build_model.docdata.how``) or all three (``all``)."""
    from function.ingest.extract import ExtractError, extract
    from function.ingest.split import split

    notes: list[str] = []
    found = page_entries(source.generator, rel, data) if templates in ("entries", "all") else []
    from_text = prose_questions(source.generator, data) if templates in ("prose", "all") else []
    from_text += how_questions(source.generator, data) if templates in ("how", "all") else []
    if not found and not from_text:
        return None, notes
    try:
        doc = extract(rel, data)
    except ExtractError as e:
        return None, [f"skipped: {e}"]
    chunks = split(doc, tokenizer, budget[0], budget[1])
    title = f"{source.name}/{rel}"
    page = Page(title, [c.text for c in chunks])
    label = _package_label(source)
    specs: list[QSpec] = []
    for entry in found:
        specs.extend(questions_for(entry, rng, label))
    specs.extend(from_text)
    by_passage: dict[int, list[dict]] = {}
    seen: set[tuple[str, str]] = set()
    answered: list[tuple[int, QSpec, str, dict]] = []
    for spec in specs:
        key = (spec.question, spec.answer)
        if key in seen:
            continue
        seen.add(key)
        where = locate(spec, page)
        if where is None:
            continue
        i, s, e = where
        context = page.passages[i]
        text = context[s:e]
        if "\n\n" in text:  # an answer never runs across two paragraphs
            continue
        assert context[s:s + len(text)] == text
        qa = {"id": qid(title, spec.question, text), "question": spec.question,
              "answers": [{"text": text, "answer_start": s}], "is_impossible": False, "kind": spec.kind}
        by_passage.setdefault(i, []).append(qa)
        answered.append((i, spec, text, qa))
    for i, spec, text, qa in answered:
        if rng.random() >= unanswerable_rate or len(page.passages) < 2:
            continue
        j = _other_passage(page, i, spec, text, rng)
        if j is None:
            continue
        by_passage.setdefault(j, []).append({"id": qa["id"] + "-u", "question": spec.question, "answers": [],
                                             "is_impossible": True, "kind": "unanswerable"})
    if not by_passage:
        return None, notes
    paragraphs = [{"context": page.passages[i], "qas": by_passage[i]} for i in sorted(by_passage)]
    return {"title": title, "paragraphs": paragraphs}, notes


def _other_passage(page: Page, i: int, spec: QSpec, text: str, rng: random.Random) -> int | None:
    answer = squeeze(text).casefold()
    banned = [squeeze(m).casefold() for m in spec.musts] + [answer]
    ok = [j for j in range(len(page.passages))
          if j != i and not any(b and b in page.squeezed[j].text.casefold() for b in banned)]
    if not ok:
        return None
    near = [j for j in ok if abs(j - i) <= 3]
    return rng.choice(near or ok)


def _package_label(source: Source) -> str:
    name = source.name
    for prefix in ("python3-", "python-"):
        name = name.removeprefix(prefix)
    for suffix in ("-doc",):
        name = name.removesuffix(suffix)
    return name if source.generator in ("sphinx", "markdown") else ""
