"""An extracted document -> passages that each fit one model window beside a typical question.

Passages are measured in the artifact's own tokens, so a stored passage is read in a single window at
question time (no stride windows, no answer cut between two windows). Packing prefers the largest natural
unit that fits: whole paragraphs, else whole sentences, else (one sentence longer than a passage) pieces of
it cut where a word starts. Consecutive passages of a section overlap by about ``overlap_tokens``: whole
sentences from the end of the previous passage, or, when its last sentence is too long for that, its last
words. Passages never cross a heading section boundary unless the section before is too small to stand
alone (a heading with a line under it) and the next one is still under its parent (an entry's last "Returns"
subsection is not run on into the next entry), and each one's title is "Document title > Heading > Subheading".

Documentation's structure (``Document.spans``) is kept too: a code block's lines are units of their own,
never cut into sentences, so a passage only ends between lines (unless one line is longer than a passage);
an API entry (a signature and its description) that fits in a passage is not cut: the passage before it ends
early instead (once it is a quarter full, or if it ends with an entry) and the next one starts at the
signature, with no overlap carried in from the entry before; a table that fits is kept whole the same way,
its header row with its rows. A list item's line (a parameter of a field
list, an option) and a table's row are places to cut like a paragraph, and a passage starting at one
carries no overlap either. A passage that starts inside an entry (one too long for a passage) has the
entry's name at the end of its title: "Document > Heading > name".

Sentences come from ``sentencex`` (Wikimedia, MIT, ~4 MB compiled Rust, ~300 languages, character offsets):
about a hundred times faster than ``pysbd`` on the same text and maintained, where pysbd and syntok have
had no release since 2021-2022; NLTK's punkt needs a data download. Every unit is tokenised in one
batch (the Rust tokenizer runs it in parallel), and the finished passages once more to check the limit.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field

from function.ingest.extract import Document, Span, require

# Question tokens a passage leaves room for. SQuAD questions average 11-12 words, about 14 WordPiece
# tokens; 24 covers roughly nine questions in ten. A longer question still works: the function then reads
# the passage in two overlapping windows.
TYPICAL_QUESTION_TOKENS = 24
DEFAULT_OVERLAP_TOKENS = 32
# Passages are at most this long even where a window holds more. Measured (docs/retrieval.md,
# "Whole documents"): the dev articles split into passages filling the window (357
# tokens, twice a SQuAD paragraph) lost 6.8-8.0 F1 against the paragraph corpus with questions asked
# alone, although recall@5 was as good; split at 160 tokens every format came within 1.5-2.6 F1.
TARGET_PASSAGE_TOKENS = 160


@dataclass
class Chunk:
    """One passage: ``text == document.text[start:end]``; ``index`` counts from 0 within the document.

    ``encoded`` is the tokenizer's ``Encoded`` of ``text`` (ids and offsets), computed to check the length:
    a store can keep it instead of tokenising the passage a second time.
    """

    index: int
    title: str
    start: int
    end: int
    text: str
    encoded: object = field(default=None, repr=False, compare=False)


def budget_from_manifest(manifest) -> tuple[int, int]:
    """(max passage tokens, overlap tokens) for a model: one window holds a passage beside a typical question.

    ``max_seq_len - special tokens ([CLS], the pair separators, the last [SEP]) - TYPICAL_QUESTION_TOKENS``,
    and at most ``TARGET_PASSAGE_TOKENS``; accepts a ``Manifest`` or its raw dict.
    """
    raw = getattr(manifest, "raw", manifest)
    max_seq_len = int(raw["sequence"]["max_seq_len"])
    pair_seps = int(raw.get("special_tokens", {}).get("pair_seps", 1))
    max_tokens = max_seq_len - (2 + pair_seps) - TYPICAL_QUESTION_TOKENS
    if max_tokens < 16:
        raise ValueError(f"max_seq_len {max_seq_len} leaves {max_tokens} passage tokens: too few to split into")
    max_tokens = min(max_tokens, TARGET_PASSAGE_TOKENS)
    return max_tokens, min(DEFAULT_OVERLAP_TOKENS, max_tokens // 4)


@dataclass
class _Unit:
    """A sentence (or a piece of an over-long one): ``text[start:end]``, no white space at either end."""

    start: int
    end: int
    section: int
    para_start: bool  # the first unit of a paragraph (or of a list item, table row or code line)
    tokens: int = 0
    offsets: object = None  # token (start, end) offsets relative to ``start``, kept for cutting
    code: bool = False  # a line of a code block (whole, never cut into sentences)
    item: bool = False  # the first unit of a list item's or a table row's line: a place to cut, with no overlap


def split(doc: Document, tokenizer, max_tokens: int, overlap_tokens: int, doc_title: str | None = None,
          language: str = "en", max_chars: int | None = None) -> list[Chunk]:
    """Passages of ``doc`` of at most ``max_tokens`` tokens (by ``tokenizer.encode_many``), in text order, and of at
    most ``max_chars`` characters if given (``QA_MAX_CONTEXT_CHARS``): one token can cover any length of text (BERT's
    WordPiece makes a single [UNK] of a word over 100 characters, and of a 3 MB unbroken hex dump)."""
    if max_tokens < 2:
        raise ValueError(f"max_tokens must be at least 2, not {max_tokens}")
    overlap_tokens = max(0, min(overlap_tokens, max_tokens // 2))
    title = doc_title or doc.title
    titles = [_title(title, s.heading, doc.title) for s in doc.sections]
    headings = [s.heading for s in doc.sections]
    budget = max_tokens
    for _ in range(8):
        units = _units(doc, tokenizer, budget - overlap_tokens, budget, language, max_chars)
        if not units:
            return []
        spans = _pack(doc.text, units, budget, overlap_tokens, _entries(doc.spans, units), headings, max_chars)
        encoded = tokenizer.encode_many([doc.text[s:e] for s, e, _ in spans])
        excess = max(len(e.ids) for e in encoded) - max_tokens
        if excess <= 0:
            break
        # Only a tokenizer whose tokens depend on their neighbours (BPE, Unigram) gets here: for BERT's
        # WordPiece a passage has exactly the tokens of its sentences. Pack tighter and measure again.
        budget = max(overlap_tokens + 2, budget - excess)
    else:
        raise ValueError(f"cannot split {title!r} into passages of at most {max_tokens} tokens")
    entries = [sp for sp in doc.spans if sp.kind == "entry" and sp.name]
    parts = _Parts(doc.text)
    return [Chunk(i, _labelled(_continued(titles[sec], entries, s), doc.text, _part_floor(doc, entries, sec, s), s,
                               parts), s, e, doc.text[s:e], enc)
            for i, ((s, e, sec), enc) in enumerate(zip(spans, encoded))]


def _part_floor(doc: Document, entries: list[Span], section: int, start: int) -> int:
    """Where a field label a passage starting at ``start`` may start under is looked for from: its section's start,
    or the last entry's start or end before it (another entry's "Returns:" is not this one's)."""
    return max([doc.sections[section].start] + [e.start for e in entries if e.start < start]
               + [e.end for e in entries if e.end <= start])


def _continued(title: str, entries: list[Span], start: int) -> str:
    """The title of a passage starting at ``start``, with the name of the innermost entry it starts inside."""
    inside = [e for e in entries if e.start < start < e.end]
    if not inside:
        return title
    return f"{title} > {min(inside, key=lambda e: e.end - e.start).name}"


# the label of an entry's return or raise part on a line of its own, as numpydoc and Sphinx write it ("Returns:",
# "Yields", "Raises:"); and a line that ends such a part: a numpydoc section's or another part's label ("See also",
# "Notes", "Examples", "Parameters"), or any label of a word or three and a colon on a line of its own (javadoc's
# "Throws:", "Since:"). Not the Parameters part itself: its lines are entries of their own, so a passage
# starting among them could not tell the part from the entries before it (``_part_floor``). The question-time
# reading of such a title is ``function.model.sentence._titled_returns``
_FIELD_LABEL = re.compile(r"^[ \t]*(Returns?|Yields?|Raises)[ \t]*:?[ \t]*$", re.MULTILINE)
_PART_END = re.compile(r"^[ \t]*(?:(?:See [Aa]lso|Notes|Examples?|References|Warnings?|Attributes|Methods|Parameters|"
                       r"Other Parameters)[ \t]*:?|[A-Z][\w-]*(?:[ \t]+[\w-]+){0,2}:)[ \t]*$", re.MULTILINE)


class _Parts:
    """A document's label lines (``_FIELD_LABEL``) and part-ending lines (``_PART_END``), found in one pass over its
    text, so that each passage's look-back (``_labelled``) is a bisection, not a scan of its whole section again (a
    long section without headings would make that quadratic in its length)."""

    def __init__(self, text: str):
        self.labels = [(m.start(), m.end(), m.group(1)) for m in _FIELD_LABEL.finditer(text)]
        self.label_starts = [a for a, _, _ in self.labels]
        self.ends = [(m.start(), m.end()) for m in _PART_END.finditer(text)]
        self.end_starts = [a for a, _ in self.ends]

    def label(self, floor: int, start: int) -> str | None:
        """The last label line starting at ``floor`` or after and ending by ``start``, where no part-ending line lies
        between its end and ``start``; None where there is none."""
        i = bisect.bisect_left(self.label_starts, start)
        while i > 0 and self.labels[i - 1][1] > start:
            i -= 1
        if i == 0 or self.labels[i - 1][0] < floor:
            return None
        _, end, word = self.labels[i - 1]
        j = bisect.bisect_left(self.end_starts, end)
        if j < len(self.ends) and self.ends[j][1] <= start:
            return None
        return word


def _labelled(title: str, text: str, floor: int, start: int, parts: _Parts | None = None) -> str:
    """``title``, and the field label a passage starting at ``start`` starts under ("... > Returns"): the last label
    line after ``floor`` (``_part_floor``) before it (``_FIELD_LABEL``), where no other part's line (``_PART_END``)
    stands between. The lines of an entry's Returns part read as what they are where the label is in the passage
    before. ``parts``: the document's lines found once (``_Parts``; made here where not given)."""
    word = (parts or _Parts(text)).label(floor, start)
    return title if word is None else f"{title} > {word}"


def _title(doc_title: str, heading: tuple[str, ...], extracted_title: str = "") -> str:
    """ "Document > Heading > Subheading"; a first heading that repeats the document's title is not repeated."""
    parts = list(heading)
    if parts and parts[0].casefold() in (doc_title.casefold(), extracted_title.casefold()):
        parts = parts[1:]
    return " > ".join([doc_title, *parts])


# ---------------------------------------------------------------- units


# A list item's line, as extraction writes it.
_LIST_ITEM = re.compile(r"(?:- |\d+\. )")


def _units(doc: Document, tokenizer, longest: int, max_tokens: int, language: str,
           max_chars: int | None = None) -> list[_Unit]:
    """Sentences of every line of every paragraph, tokenised in one batch; over-long ones cut into pieces.

    A sentence over ``longest`` tokens (a passage less its overlap) is cut, so that the overlap and the
    next unit always fit in one passage together; one over a quarter of ``max_chars`` characters is first cut into
    pieces of at most that many (``_by_chars``), so that a passage of such pieces and its overlap can keep to
    ``max_chars`` (``_pack``).
    """
    sentencex = require("sentencex")
    text = doc.text
    code = {sp.start for sp in doc.spans if sp.kind == "code"}
    tables = {sp.start for sp in doc.spans if sp.kind == "table"}
    units: list[_Unit] = []
    for si, section in enumerate(doc.sections):
        pos = section.start
        for paragraph in text[section.start:section.end].split("\n\n"):
            first = True
            items = 0  # list item lines so far in this paragraph: the first one is not a place to cut
            line_pos = pos
            for line in paragraph.split("\n"):
                if pos in code:
                    for s, e in _by_chars(text, *_trim(text, line_pos, line_pos + len(line)), max_chars):
                        units.append(_Unit(s, e, si, first, code=True))
                        first = False
                    line_pos += len(line) + 1
                    continue
                if pos in tables:  # every row after the first (often the header) is a place to cut
                    item = line_pos > pos
                else:
                    item = bool(_LIST_ITEM.match(line)) and items > 0
                    items += bool(_LIST_ITEM.match(line))
                for b in sentencex.get_sentence_boundaries(language, line) if line.strip() else ():
                    sentence = _trim(text, line_pos + b["start_index"], line_pos + b["end_index"])
                    for s, e in _by_chars(text, *sentence, max_chars):
                        units.append(_Unit(s, e, si, first or item, item=item))
                        first = item = False
                line_pos += len(line) + 1
            pos += len(paragraph) + 2
    _fill_gaps(text, units)
    encoded = tokenizer.encode_many([text[u.start:u.end] for u in units])
    out: list[_Unit] = []
    piece = max(1, max_tokens // 4)
    for unit, enc in zip(units, encoded):
        unit.tokens, unit.offsets = len(enc.ids), enc.offsets
        if unit.tokens <= longest:
            out.append(unit)
        else:
            out.extend(_pieces(text, unit, piece))
    return out  # (a unit of no tokens, such as a lone zero-width space, is kept: passages cover all text)


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _by_chars(text: str, start: int, end: int, max_chars: int | None) -> Iterator[tuple[int, int]]:
    """``text[start:end]`` (trimmed) in pieces of at most a quarter of ``max_chars`` characters, each cut after white
    space in its second half where there is any, else inside a word: only a sentence far longer than any passage's
    tokens allow is cut (a quarter of the default 20,000 characters is over 1,000 tokens of any text but one long
    unbroken "word"), and _pieces would cut it anyway."""
    cap = max(1, max_chars // 4) if max_chars else None
    while cap and end - start > cap:
        cut = next((p for p in range(start + cap, start + cap // 2, -1) if text[p - 1].isspace()), start + cap)
        s, e = _trim(text, start, cut)
        if s < e:
            yield s, e
        start = _trim(text, cut, end)[0]
    if start < end:
        yield start, end


def _fill_gaps(text: str, units: list[_Unit]) -> None:
    """Widen units over any non-space text the segmenter's spans skipped, so passages cover every character."""
    for a, b in zip(units, units[1:]):
        if text[a.end:b.start].strip():
            a.end = _trim(text, a.start, b.start)[1]


def _is_cjk(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


def _word_start(text: str, pos: int) -> bool:
    """A cut before ``text[pos]`` is between words: after white space."""
    return pos > 0 and text[pos - 1].isspace()


def _soft_start(text: str, pos: int) -> bool:
    """A weaker place to cut: between two CJK characters (each a word), or beside punctuation."""
    a, b = text[pos - 1], text[pos]
    return _is_cjk(a) or _is_cjk(b) or not (a.isalnum() or b.isalnum())


def _pieces(text: str, unit: _Unit, size: int) -> list[_Unit]:
    """An over-long sentence cut into pieces of at most ``size`` tokens, each cut where a word starts.

    A cut goes after white space where there is any in the piece, else between CJK characters or beside
    punctuation, else (one "word" longer than a piece: a hash, a base64 blob) at a token boundary.
    """
    offsets = unit.offsets
    n = len(offsets)
    out = []
    first = 0
    while first < n:
        last = min(n, first + size)  # tokens [first, last) if the cut is at ``last``
        if last < n:
            starts = [unit.start + int(offsets[t][0]) for t in range(first + 1, last + 1)]
            cut = next((t for t, p in zip(range(last, first, -1), reversed(starts)) if _word_start(text, p)), None)
            if cut is None:
                cut = next((t for t, p in zip(range(last, first, -1), reversed(starts)) if _soft_start(text, p)),
                           last)
            last = cut
        s = unit.start + int(offsets[first][0])
        e = unit.start + int(offsets[last - 1][1])
        s, e = _trim(text, s if first else unit.start, e if last < n else unit.end)
        piece = _Unit(s, e, unit.section, unit.para_start and first == 0, last - first,
                      offsets[first:last] - (s - unit.start), unit.code)
        out.append(piece)
        first = last
    # Close the gaps between pieces (punctuation the tokenizer leaves out of its offsets is kept with the piece).
    for a, b in zip(out, out[1:]):
        a.end = _trim(text, a.start, b.start)[1]
    return out


# ---------------------------------------------------------------- packing


def _entries(spans: list[Span], units: list[_Unit]) -> tuple[dict[int, list[int]], set[int]]:
    """The tokens of every entry (and table: one that fits is kept whole too, its header row with its rows)
    by the index of its first unit (nested entries can share one), and the indices just after each one's end."""
    first = {u.start: k for k, u in enumerate(units)}
    starts: dict[int, list[int]] = {}
    ends: set[int] = set()
    for sp in spans:
        k = first.get(sp.start) if sp.kind in ("entry", "table") else None
        if k is None:
            continue
        tokens, j = 0, k
        while j < len(units) and units[j].start < sp.end:
            tokens += units[j].tokens
            j += 1
        starts.setdefault(k, []).append(tokens)
        ends.add(j)
    return starts, ends


def _leaves(headings: list[tuple[str, ...]] | None, current: int, new: int) -> bool:
    """Whether section ``new`` lies outside the parent of section ``current``: after a function's "Returns"
    subsection (gtk-doc's "Functions > g_list_free () > Returns"), the next function ("Functions > g_list_free_full
    ()"), not another subsection of the same function or a section beside ``current`` under the same parent."""
    if headings is None:
        return False
    here, there = headings[current], headings[new]
    return len(here) >= 2 and there[:len(here) - 1] != here[:-1]


def _pack(text: str, units: list[_Unit], budget: int, overlap: int,
          entries: tuple[dict[int, list[int]], set[int]] = ({}, set()),
          headings: list[tuple[str, ...]] | None = None, max_chars: int | None = None) -> list[tuple[int, int, int]]:
    """(start, end, section) spans: greedy packing of units, cut at a paragraph boundary where one is late enough.

    A new section starts a new passage unless the current one is under a quarter full and the new section is still
    under the current one's parent (``_leaves``, with the sections' ``headings``): a small subsection that ends an
    entry (its "Parameters", its "Returns") is not run on into the next entry's passage, under that entry's title.
    The passage's section (for its title) is the one holding most of its tokens. ``entries`` (``_entries``) gives
    the length of each entry by its first unit: a passage ends before an entry that fits in a passage but not in what
    is left of this one, if it is a quarter full or ends with an entry, and the next one starts there without overlap.
    A passage also ends before a unit that would take it over ``max_chars`` characters (units are at most a quarter of
    that, ``_by_chars``).
    """
    starts, ends = entries
    spans: list[tuple[int, int, int]] = []
    small = budget // 4
    i = 0  # first whole unit of the current passage
    lead: tuple[int, int] | None = None  # (char start, tokens) of an overlap tail before unit i
    fresh = 0  # first unit the previous passage did not hold: every passage holds one at least
    n = len(units)
    while i < n:
        used = lead[1] if lead else 0
        start_char = lead[0] if lead else units[i].start
        j = i
        at_entry = False
        while j < n:
            u = units[j]
            if j > i and max_chars and u.end - start_char > max_chars:
                break
            if j > i and u.section != units[j - 1].section and (
                    used >= small or _leaves(headings, units[j - 1].section, u.section)):
                break
            fits = [t for t in starts.get(j, ()) if t <= budget]
            if j > i and fits and used + max(fits) > budget and (used >= small or j in ends):
                at_entry = True  # the entry starting here fits in a passage of its own: do not cut it
                break
            if used + u.tokens > budget:
                break
            used += u.tokens
            j += 1
        if j == i:  # the overlap tail leaves no room for the next unit: start it afresh
            if lead is None:
                raise ValueError("a unit is longer than the budget")
            lead = None
            continue
        end = j
        if j < n and units[j].section == units[j - 1].section and not at_entry:
            # Prefer to end at a paragraph boundary in the second half of the passage.
            half = budget // 2
            acc = lead[1] if lead else 0
            best = None
            for k in range(i, j):
                if k > max(i, fresh) and units[k].para_start and acc >= half:
                    best = k
                acc += units[k].tokens
            if best is not None:
                end = best
        by_section: dict[int, int] = {}
        for k in range(i, end):
            by_section[units[k].section] = by_section.get(units[k].section, 0) + units[k].tokens
        section = max(by_section, key=lambda s: (by_section[s], -s))
        spans.append((start_char, units[end - 1].end, section))
        if end >= n:
            break
        lead = None
        fresh = end
        if overlap and units[end].section == units[end - 1].section and end not in starts and not units[end].item:
            i, lead = _overlap(text, units, i, end, overlap, budget)
        else:
            i = end
    return spans


def _overlap(text: str, units: list[_Unit], first: int, end: int, overlap: int,
             budget: int) -> tuple[int, tuple | None]:
    """Where the next passage starts: whole trailing units of about ``overlap`` tokens, else the last unit's tail.

    The overlap always leaves room for ``units[end]``, so every passage holds text the previous one did not.
    Returns (first whole unit of the next passage, (tail start char, tail tokens) or None).
    """
    room = budget - units[end].tokens
    limit = min(overlap, room)
    if limit <= 0:
        return end, None
    k, acc = end, 0
    while (k - 1 > first and units[k - 1].section == units[end].section and not units[k - 1].code
           and acc + units[k - 1].tokens <= limit):
        k -= 1
        acc += units[k].tokens
    if k < end:
        return k, None
    last = units[end - 1]
    if end - 1 > first and last.tokens <= min(2 * overlap, room):
        return end - 1, None  # one sentence a little over the overlap: still a whole sentence
    if last.code:
        return end, None  # a line of code is not cut for an overlap
    offsets = last.offsets
    n = len(offsets)
    for rule in (_word_start, _soft_start):
        for t in range(max(1, n - limit), n):
            pos = last.start + int(offsets[t][0])
            if pos > last.start and rule(text, pos):
                return end, (pos, n - t)
    return end, None
