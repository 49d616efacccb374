"""Documents in, plain text out: text, Markdown (MDX: the Markdown it holds), reStructuredText, HTML, PDF and Jupyter
notebooks (their Markdown and code cells) become one normalised text with its heading sections.

Every format is first turned into a list of blocks (a paragraph, a list, a table, a code block, a heading),
each with the heading path in force; ``_assemble`` normalises each block and joins them with one blank line,
so that the character spans of the sections index the returned text exactly (normalisation happens before
any span is computed, never after).

Documentation keeps its structure (``Blocks``): a code block keeps its line breaks and indentation (its span
is recorded, so the splitter cuts it only between lines); an API entry (a definition list's term and its
description: Sphinx's ``dl.py`` signatures, option lists, DocBook variablelists, Markdown definition lists)
is recorded as a span whose first line is the signature, so the splitter can keep it in one passage and name
it in a continuing passage's title; permalink marks ("¶", "§", "#", "🔗" anchors) are dropped; an
admonition's label ("Note") leads its paragraph instead of becoming a heading. HTML pages made by Sphinx,
docutils, DocBook XSL, AsciiDoc, Texinfo or rustdoc are read from their own markup (``docpages``: trafilatura drops a
DocBook manual's headings and turns code inside definitions into quotes); other pages go through trafilatura.

The libraries, chosen for quality first and install size second (ingestion only: none of them is in the
serving image's requirements.txt):

- Markdown: ``markdown-it-py`` (MIT, pure Python, ~1 MB): a CommonMark-compliant token stream, so headings,
  fenced code, lists and GFM tables are read from the parse, not guessed from the syntax with expressions;
  its ``mdit-py-plugins`` (MIT, pure Python, same maintainers) add definition lists.
- reStructuredText: ``docutils`` (public domain / BSD, pure Python, ~2 MB), the reference implementation Sphinx
  parses with, to HTML read as a docutils page (``function.ingest.rst``: Sphinx's common roles and directives).
- HTML: ``trafilatura`` (Apache-2.0 since 1.8): the best-scoring open-source main-content extractor in
  published comparisons (it falls back on readability and jusText internally); it drops navigation, scripts,
  styles, headers, footers and sidebars, and its XML output keeps headings (with their level), lists, tables
  and code, and it finds the content of plain <div> pages that have no <main>, <nav> or <footer> to go by.
  Its cost is size: ~68 MB installed with lxml (12 MB), jusText, courlan (which brings babel, 33 MB) and
  htmldate (dateparser, regex, pytz). ``readability-lxml`` (mostly lxml's 12 MB) scores lower in the same
  comparisons and returns cleaned HTML that would still need rules of our own for headings and tables.
- PDF: ``pdfminer.six`` (MIT, ~10 MB, pure Python; its cryptography dependency is already in the runtime
  through google-auth): its layout analysis groups characters into text boxes by position, so a two-column
  page reads column by column whatever order the producer drew it in, and boxes give paragraph breaks.
  ``pypdf`` (BSD, 4 MB) follows the content stream's drawing order, and its layout mode puts the two
  columns side by side on each line. Here, table cells that pdfminer leaves as separate one-line boxes on
  one baseline are joined back into "cell | cell" rows, running headers and footers (page numbers) that
  recur on most pages are dropped, ligatures ("ﬁ") are unfolded, and an underscore LaTeX draws as a rule, not a
  glyph, is "_" again. Text set in a monospaced font is code, as HTML's <code> is: a run of it in prose is inline
  code, and a text box all in it is a code block with its lines (chosen on the benchmark's two PDF dev sets:
  docs/documents.md).

Plain text must be UTF-8 (a BOM is allowed), or UTF-16 / UTF-32 starting with its byte-order mark; a file that is
not, or that holds no text, or a PDF that cannot be parsed (encrypted, damaged, scanned without a text layer) raises
``ExtractError`` naming the file.
"""

from __future__ import annotations

import collections
import functools
import importlib
import io
import itertools
import json
import re
import shlex
import textwrap
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

SUFFIXES = {".txt": "text", ".md": "markdown", ".markdown": "markdown", ".mdx": "mdx", ".rst": "rst", ".html": "html",
            ".htm": "html", ".pdf": "pdf", ".ipynb": "notebook", ".adoc": "asciidoc", ".asciidoc": "asciidoc"}

# A first line at most this long is a plain-text document's title.
_TITLE_CHARS = 120


class ExtractError(ValueError):
    """The file cannot be turned into text (its message names the file)."""


class NotDocumentation(ExtractError):
    """The file is a page a documentation generator made for navigation, not documentation: an index of names, a
    search page, a source listing (``docpages.generated``), or a file a site's build leaves beside its pages (a
    bundled script's license notice). Ingestion leaves it out, as it does a file of another type, instead of failing
    on it."""


class NoText(ExtractError):
    """The file holds no text once read (an empty file, a scanned PDF, a page of markup alone)."""


def require(module: str):
    """Import an ingestion dependency, or say how to install it (the serving image does not have them)."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ModuleNotFoundError(f"{module} is needed to ingest documents and is not installed: "
                                  "pip install -r requirements-ingest.txt", name=module) from e


@dataclass
class Section:
    """The heading path in force for the span ``text[start:end]`` of a document."""

    heading: tuple[str, ...]
    start: int
    end: int


@dataclass
class Span:
    """A code block (``kind == "code"``), a table (``"table"``, one line per row), an API entry (``"entry"``:
    a signature or term and its description, from an HTML or Markdown definition list) or a piece of inline code
    (``"literal"``: ``CODE_OPEN``) at ``text[start:end]``;
    an entry's ``name`` goes into the title of a passage that continues it ("" for one that names nothing,
    such as a "Parameters" field list)."""

    kind: str
    start: int
    end: int
    name: str = ""


@dataclass
class Document:
    title: str
    text: str
    sections: list[Section]
    format: str
    spans: list[Span] = field(default_factory=list)  # code, tables, entries, inline code, by start (outer first)


# ---------------------------------------------------------------- normalisation and assembly

# Control characters other than the newline (NUL included), and the Unicode line and paragraph separators.
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f\u2028\u2029]")
_SPACES = re.compile(r"[^\S\n]+")  # runs of white space within a line (NBSP and tabs included)


def normalise_block(text: str) -> str:
    """NFC, no control characters, single spaces inside lines, no blank lines: one paragraph's text.

    A block keeps its line breaks (list items, table rows, code lines) but never two in a row, so a blank
    line always means a paragraph break in the assembled text.
    """
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = _CONTROL.sub(" ", text)
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def normalise_code(text: str) -> str:
    """A code block's lines: NFC, tabs expanded, common indentation removed, relative indentation kept.

    Blank lines are dropped (a blank line is a paragraph break in the assembled text), and so is the first
    line's own indentation (a block starts on text).
    """
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n")).expandtabs(4)
    text = _CONTROL.sub(" ", text).replace("\u00a0", " ")
    lines = [line.rstrip() for line in text.split("\n") if line.strip()]
    return textwrap.dedent("\n".join(lines)).lstrip()


# Inline code (an HTML page's <code>, <tt>, <kbd> and the like, Markdown's `backticks`) is marked while a page is
# read by two of Unicode's noncharacters (set aside for a program's internal use, never text) around its text;
# ``_assemble`` takes them out again and keeps where they were as "literal" spans, which passages carry to the
# reader (``Passage.marks``). The text is exactly what it would be without them.
CODE_OPEN, CODE_CLOSE = "\ufdd0", "\ufdd1"
_CODE_MARKS = re.compile("[\ufdd0\ufdd1]")
_OPEN_SPACE = re.compile("\ufdd0(\\s+)")
_SPACE_CLOSE = re.compile("(\\s+)\ufdd1")


def code_marked(text: str) -> str:
    """``text`` marked as inline code (nothing to mark in white space alone)."""
    return CODE_OPEN + text + CODE_CLOSE if text.strip() else text


def unmarked(text: str) -> str:
    """``text`` without inline-code marks: what a title, a heading path or an entry's name holds."""
    return _CODE_MARKS.sub("", text)


def _literals(marked: str) -> tuple[str, list[tuple[int, int]]]:
    """A text block's normalised text and where its outermost marked runs are in it (touching runs as one where the
    first ends with "." or "::": Sphinx marks "requests." and "get" of "requests.get" apart, and a parameter's
    "params", "=" and "None" apart too, which stay three). No runs where normalising the marked text would not
    give exactly the block's text (a mark between a letter and its accent, say)."""
    block = normalise_block(unmarked(marked))
    if CODE_OPEN not in marked:
        return block, []
    for _ in range(4):  # white space inside a mark moves outside it (nested marks: again)
        moved = _SPACE_CLOSE.sub(CODE_CLOSE + r"\1", _OPEN_SPACE.sub(r"\1" + CODE_OPEN, marked))
        if moved == marked:
            break
        marked = moved
    out: list[str] = []
    runs: list[tuple[int, int]] = []
    pos, depth, start = 0, 0, 0
    last, before = "", ""  # the text's last two characters so far; and before the open run
    for piece in re.split("([\ufdd0\ufdd1])", normalise_block(marked)):
        if piece == CODE_OPEN:
            depth += 1
            if depth == 1:
                start, before = pos, last
        elif piece == CODE_CLOSE:
            if depth == 1 and pos > start:
                if runs and runs[-1][1] == start and before[-(start - runs[-1][0]):].endswith((".", "::")):
                    runs[-1] = (runs[-1][0], pos)
                else:
                    runs.append((start, pos))
            depth = max(0, depth - 1)
        else:
            out.append(piece)
            pos += len(piece)
            last = (last + piece)[-2:]
    if "".join(out) != block:
        return block, []
    return block, [(a, z) for a, z in runs if "\n" not in block[a:z]]


@dataclass(frozen=True)
class Block:
    """A paragraph, list, heading (``kind`` "text"), table (one "a | b" line per row) or code block, under its
    heading path."""

    heading: tuple[str, ...]
    text: str
    kind: str = "text"  # "text", "table" or "code"


@dataclass(frozen=True)
class _Open:
    name: str  # an entry opens: the blocks up to its ``_CLOSE`` are its signature and description


_CLOSE = object()


class Blocks:
    """What a format's walker produces for ``_assemble``: blocks under headings, and entries around blocks.

    An entry's signature is the first line of the entry's first text block (not a block of its own), so the
    signature and the start of its description stay together; an admonition's label ("Note") likewise leads
    its first paragraph ("Note: ..."), and never becomes a heading.
    """

    def __init__(self):
        self.items: list = []
        self.headings = _Headings()
        self._lead: list[str] = []  # lead-ins for the next text block: "signature\n", "Note: "

    def heading(self, level: float, text: str) -> None:
        self._flush()
        text = strip_marks(" ".join(text.split()))
        plain = unmarked(text)
        if plain.strip():
            self.headings.push(level, plain)
            self.items.append(Block(self.headings.path, text))

    def text(self, text: str, kind: str = "text") -> None:
        if not text.strip():
            return
        if self._lead and kind == "text":
            text = "".join(self._lead) + text
            self._lead = []
        self._flush()
        self.items.append(Block(self.headings.path, text, kind))

    def lead(self, text: str, sep: str = ": ") -> None:
        """``text`` begins the next text block (an admonition's label: "Note: ...")."""
        text = " ".join(text.split()).rstrip(":")
        if text:
            self._lead.append(text + sep)

    def open_entry(self, signature: str, name: str | None = None) -> None:
        """An entry starts with ``signature`` as its first line; ``name`` (default: the signature) titles it."""
        self._flush()
        signature = strip_marks(" ".join(signature.split()))
        self.items.append(_Open(" ".join(unmarked(signature if name is None else name).split())[:_TITLE_CHARS]))
        if signature:
            self._lead.append(signature + "\n")

    def close_entry(self) -> None:
        self._flush()
        self.items.append(_CLOSE)

    def finish(self) -> list:
        """The items, for ``_assemble``."""
        self._flush()
        return self.items

    def _flush(self) -> None:
        if self._lead:
            lead, self._lead = "".join(self._lead), []
            self.items.append(Block(self.headings.path, lead.rstrip().rstrip(":") if lead.endswith(": ") else lead))


# Permalink and header-link marks that generators put beside headings and definitions (Sphinx's pilcrow,
# the section sign, GitHub's "#", an emoji link), when they reach a heading's or a term's text.
_MARKS = re.compile(r"^(?:[\u00b6\u00a7\U0001f517]\s*)+|(?:\s*[\u00b6\u00a7\U0001f517])+$|^#+\s+|\s+#+$|\s*\{#[^}]*\}$")


def strip_marks(text: str) -> str:
    """A heading's or a term's text without permalink marks at either end ("Install ¶", "# Install", "{#id}")."""
    return _MARKS.sub("", text).strip()


def _assemble(name: str, fmt: str, title: str, blocks) -> Document:
    """Join normalised blocks with blank lines; consecutive blocks under one heading path share a section.

    ``blocks`` is a ``Blocks``' items (or ``(heading, text)`` pairs): code blocks and entries become spans.
    """
    parts: list[str] = []
    sections: list[Section] = []
    spans: list[Span] = []
    open_entries: list[list] = []  # [name, start or None]
    pos = 0
    for item in blocks:
        if isinstance(item, _Open):
            open_entries.append([item.name, None])
            continue
        if item is _CLOSE:
            entry_name, start = open_entries.pop()
            if start is not None and start < pos:
                spans.append(Span("entry", start, pos, entry_name))
            continue
        heading, raw, kind = (item.heading, item.text, item.kind) if isinstance(item, Block) else (*item, "text")
        block, literals = (normalise_code(unmarked(raw)), []) if kind == "code" else _literals(raw)
        if not block:
            continue
        if parts:
            pos += 2  # the "\n\n" before this block
        for entry in open_entries:
            if entry[1] is None:
                entry[1] = pos
        heading = tuple(h for h in (normalise_block(unmarked(x)).replace("\n", " ") for x in heading) if h)
        if sections and sections[-1].heading == heading:
            sections[-1].end = pos + len(block)
        else:
            sections.append(Section(heading, pos, pos + len(block)))
        if kind != "text":
            spans.append(Span(kind, pos, pos + len(block)))
        spans.extend(Span("literal", pos + a, pos + z) for a, z in literals)
        parts.append(block)
        pos += len(block)
    text = "\n\n".join(parts)
    if not text:
        raise NoText(f"{name}: no text found in this {fmt} file")
    title = strip_marks(normalise_block(unmarked(title)).replace("\n", " ")) or _stem(name)
    spans.sort(key=lambda s: (s.start, -s.end))
    return Document(title=title, text=text, sections=sections, format=fmt, spans=spans)


def _stem(name: str) -> str:
    return PurePosixPath(name.rstrip("/")).stem or name


class _Headings:
    """The heading path: a level-n heading replaces every heading of level n or deeper."""

    def __init__(self):
        self._stack: list[tuple[float, str]] = []

    def push(self, level: float, text: str) -> None:
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, strip_marks(" ".join(text.split()))))

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(t for _, t in self._stack)

    def above(self, level: float) -> tuple[str, ...]:
        """The headings a level-``level`` heading would keep."""
        return tuple(t for n, t in self._stack if n < level)


# ---------------------------------------------------------------- entry point


# The license notices a JavaScript bundler writes beside each script it minifies (webpack's
# "main.10b246a5.js.LICENSE.txt", in every built Docusaurus site): the bundled libraries' licenses, not documentation.
_BUNDLER_NOTICE = re.compile(r"\.[cm]?js\.license\.txt$", re.I)


def extract(name: str, data: bytes) -> Document:
    """The text of ``name`` (its suffix picks the format; see ``SUFFIXES``) with its heading sections."""
    if _BUNDLER_NOTICE.search(name):
        raise NotDocumentation(f"{name}: the license notice a bundler wrote beside a script, not documentation")
    fmt = SUFFIXES.get(PurePosixPath(name).suffix.lower())
    if name.lower().endswith(".rst.txt"):  # Sphinx's copy of a page's source (``_sources/``) is reStructuredText
        fmt = "rst"
    if fmt is None:
        raise ExtractError(f"{name}: unsupported file type (expected one of {', '.join(sorted(SUFFIXES))})")
    if fmt == "pdf":
        return _pdf(name, data)
    # a page's own noncharacters would read as inline-code marks (``CODE_OPEN``): they are not text, so they go
    data = data.replace(CODE_OPEN.encode(), b"").replace(CODE_CLOSE.encode(), b"")
    if fmt == "html":
        return _html(name, data)
    text = decode_text(name, data)
    if fmt == "rst":
        return _rst(name, text)
    if fmt == "mdx":
        return _markdown(name, _mdx(text))
    if fmt == "notebook":
        return _markdown(name, _notebook(name, text))
    if fmt == "asciidoc":
        from function.ingest import asciidoc

        title, blocks = asciidoc.read(text)
        return _assemble(name, "asciidoc", title, blocks.finish())
    return _markdown(name, text) if fmt == "markdown" else _text(name, text)


# Byte-order marks of the Unicode encodings other than UTF-8 that editors write (Windows PowerShell 5's ">" and
# Notepad's "Unicode" write UTF-16 LE with its mark); UTF-32's first, since its LE mark starts like UTF-16's.
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe", "utf-16"),
         (b"\xfe\xff", "utf-16"))


def _marked_text(name: str, data: bytes) -> str | None:
    """The characters of a file that starts with a UTF-16 or UTF-32 byte-order mark (without the mark, and without
    the noncharacters ``extract`` drops from UTF-8 bytes); None for any other file."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                text = data.decode(codec)
            except UnicodeDecodeError as e:
                raise ExtractError(f"{name}: starts with a {codec.upper()} byte-order mark but is not "
                                   f"{codec.upper()} text (byte {e.start} cannot be decoded)") from None
            return text.replace(CODE_OPEN, "").replace(CODE_CLOSE, "")
    return None


def decode_text(name: str, data: bytes) -> str:
    """A text file's characters: UTF-8 (a BOM allowed), or UTF-16 / UTF-32 where the file starts with that
    encoding's byte-order mark; anything else is an ``ExtractError`` naming the file."""
    if (text := _marked_text(name, data)) is not None:
        return text
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ExtractError(f"{name}: not UTF-8 text (byte {e.start} cannot be decoded)") from None


# ---------------------------------------------------------------- plain text

_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")


# nroff's overstrikes (a manual page formatted for a terminal and saved as text: "N\bNA\bAM\bME\bE" for bold NAME,
# "_\bf_\bi_\bl_\be" for underlined file): a character then a backspace is struck over, as ``col -b`` reads it
_OVERSTRUCK = re.compile(r"[^\n\x08]\x08")


def unstruck(text: str) -> str:
    """``text`` as a terminal shows it: each backspace takes back the character before it (nroff's bold and
    underline); a backspace with nothing before it on its line goes."""
    if "\b" not in text:
        return text
    while True:
        done = _OVERSTRUCK.sub("", text)
        if done == text:
            return done.replace("\b", "")
        text = done


def paged_text(text: str) -> str:
    """Text paged with form feeds (an RFC, a line printer's manual) without its running headers and footers: a page's
    first or last non-blank line, when its text, digits aside ("[Page 12]"), is the first or last line of at least
    half the pages (and of two or more), as ``_running_lines`` finds them in a PDF. The pages are joined by a blank
    line; text without form feeds is returned as it is."""
    if "\f" not in text:
        return text
    pages = [page.split("\n") for page in text.split("\f")]

    def edges(lines: list[str]) -> list[int]:
        filled = [i for i, line in enumerate(lines) if line.strip()]
        return sorted({filled[0], filled[-1]}) if len(filled) >= 2 else []

    def key(line: str) -> str:
        return re.sub(r"\d+", "#", " ".join(line.split()).casefold())

    ends = [edges(lines) for lines in pages]
    seen = collections.Counter(k for lines, at in zip(pages, ends, strict=True)
                               for k in {key(lines[i]) for i in at if len(lines[i].strip()) <= _TITLE_CHARS})
    running = {k for k, n in seen.items() if n >= max(2, len(pages) / 2)}
    kept = [[line for i, line in enumerate(lines) if not (i in at and key(line) in running)]
            for lines, at in zip(pages, ends, strict=True)]
    return "\n\n".join("\n".join(lines) for lines in kept)


_LIST_ITEM = re.compile(r"[-*+\u2022o]\s+|\(?(?:\d{1,3}|[a-zA-Z])[.)]\s+")  # "- ", "* ", "o ", "1. ", "(a) "
_ALIGNED = re.compile(r"\S(?: {2,}|\t)\S|\|")  # columns aligned with runs of spaces, a table's bars


# nroff (a manual page saved as text) justifies: every line of a paragraph but its last ends at the right margin,
# words spaced out with a second or third space; an option's tag hangs before its text ("-c     with -lt: ...")
_JUSTIFIED_GAP = re.compile(r"[^\s.?!:;] {2,3}\S")  # not two spaces after a sentence, as typists write
_HANGING_TAG = re.compile(r"[ \t]*\S+ {2,}(?=\S)")


def _spaced_words(line: str) -> bool:
    """Whether a line is words spaced out by justification (no wider gap after its hanging tag, no bars or tabs,
    mostly letters), not a table's row or code."""
    tag = _HANGING_TAG.match(line)
    text = line[tag.end() if tag else 0:].strip()
    letters = sum(c.isalpha() for c in text)
    return ("    " not in text and "|" not in line and "\t" not in line
            and letters >= 0.6 * sum(not c.isspace() for c in text))


def _unjustified(line: str, hang: int | None = None) -> str:
    """A justified line's words spaced by one space again, its indentation kept, and, with ``hang`` (the column a
    hanging tag's text starts at), the gap after its tag ("-c     with -lt: sort by"), which ``_tag_apart`` reads."""
    head = line[:hang] if hang and line[:hang].strip() and line[hang - 2:hang] == "  " else line[: _indent(line)]
    return head + re.sub(r" {2,}", " ", line[len(head):].strip())


def _run_on(prev: str, line: str) -> str:
    """``line`` run on after ``prev``: with a space, or, after groff's hyphen (U+2010) that broke a word at the
    margin ("speci\u2010" / "fied"), as the one word."""
    head = prev.rstrip()
    if head.endswith("\u2010") and line.strip()[:1].islower():
        return head[:-1] + line.strip()
    return head + " " + line.strip()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def unwrapped(text: str) -> str:
    """Plain text hard-wrapped at a fixed width (an RFC, a README.txt, a manual page saved as text) with each
    paragraph's wrapped lines joined by spaces, as Markdown's and reStructuredText's soft breaks are: a reader given
    the wrapped lines answers SQuAD's paragraphs worse (F1 73.98 -> 72.45 over 600 dev questions, 55 answers moved:
    docs/your_documents.md). A line runs on into the next where the text is wrapped at all (the 95th
    percentile of its line lengths, the width, from 40 to 100 columns), the line fills at least 60% of the width and
    does not end with a colon, both are prose at the text's own indentation (the most common one of its full lines;
    a list item's wrapped lines at its text's), the next one starts no list item, and neither has columns aligned
    with runs of spaces or a table's bars. Short lines (an address, "key: value" lines, an option's name), deeper
    indentation (code, a diagram) and text not wrapped (one paragraph a line) keep their line breaks."""
    lines = text.split("\n")
    lengths = sorted(len(line.rstrip()) for line in lines if line.strip())
    if not lengths:
        return text
    width = lengths[int(0.95 * (len(lengths) - 1))]
    if not 40 <= width <= 100:  # hard wraps are 60-100 columns (RFCs 72, manual pages 80, PEP 8's 79)
        return text
    counts = collections.Counter(_indent(line) for line in lines if len(line.rstrip()) >= 0.6 * width)
    base = max(counts, key=lambda k: (counts[k], -k)) if counts else 0
    margin = [line.strip() for line in lines if len(line.rstrip()) == width]
    justified = (len(margin) >= max(3, 0.2 * sum(counts.values()))
                 and sum(bool(_JUSTIFIED_GAP.search(m)) for m in margin) >= 0.5 * len(margin))
    out: list[str] = []
    hang = None  # the column a list item's text starts at, while its wrapped lines may follow
    at_margin = False  # (justified text) the last line taken ends at the right margin: its paragraph goes on
    columns: tuple[int, ...] = ()  # (justified text) where the paragraph's lines start: its first, after its tag
    for line in lines:
        prev = out[-1] if out else ""
        item = _LIST_ITEM.match(line.strip())
        body = base if hang is None else hang
        if (prev.strip() and line.strip() and not item and _indent(line) == body
                and len(prev.rstrip()) >= 0.6 * width and not prev.rstrip().endswith(":")
                and not _ALIGNED.search(prev.strip()) and not _ALIGNED.search(line.strip())):
            out[-1] = _run_on(prev, line)  # the joined line keeps counting as full
            at_margin = len(line.rstrip()) == width
            continue
        if (justified and at_margin and line.strip() and not item and _indent(line) in columns
                and _spaced_words(prev) and _spaced_words(line)):
            text_at = columns[-1] if len(columns) > 1 and _indent(line) == columns[-1] else None  # after a tag
            out[-1] = _run_on(_unjustified(prev, text_at), _unjustified(line))
            at_margin = len(line.rstrip()) == width
            continue
        out.append(line)
        at_margin = len(line.rstrip()) == width
        tag = _HANGING_TAG.match(line)
        columns = (_indent(line),) + ((tag.end(),) if tag else ())
        if not line.strip():
            hang = None
        elif item and _indent(line) == base:
            hang = _indent(line) + item.end()
        elif _indent(line) != body:
            hang = None
    return "\n".join(out)


def _text(name: str, text: str) -> Document:
    """Paragraphs are separated by blank lines; a short first line is the title. nroff's overstrikes are read as a
    terminal shows them (``unstruck``), text paged with form feeds without its running headers and footers
    (``paged_text``), and hard-wrapped paragraphs with their lines joined (``unwrapped``)."""
    text = unwrapped(paged_text(unstruck(text.replace("\r\n", "\n").replace("\r", "\n"))))
    if page := _manual_page(text):
        return _assemble(name, "text", *page)
    blocks = [((), p) for p in _BLANK_LINE.split(text)]
    first = normalise_block(text.lstrip().split("\n", 1)[0])
    title = first if 0 < len(first) <= _TITLE_CHARS else _stem(name)
    return _assemble(name, "text", title, blocks)


# A manual page as ``man`` prints it: a running header "LS(1)   User Commands   LS(1)" and footer "GNU coreutils
# 9.1   September 2022   LS(1)", its sections headed by a line at the left margin (NAME, SYNOPSIS, OPTIONS), its
# subsections by one indented three columns ("   Operation mode"), their text indented further
_MAN_HEADER = re.compile(r"(?P<page>\S+\(\w+\))\s{2,}.*\s{2,}(?P=page)\s*")
_MAN_HEADING = re.compile(r"(?P<indent> {0,3})(?P<name>\S.{0,60}?)\s*")
# a tagged paragraph whose tag is narrower than its indentation: groff sets its text on the tag's line ("-S     sort
# by file size"), where a wider tag has its text on the next line ("-s, --size" over "print the allocated size")
_TAGGED = re.compile(r"(?P<indent> +)(?P<tag>\S+(?: \S+)*) {2,}(?P<text>\S.*)")


def _manual_page(text: str) -> tuple[str, list] | None:
    """(title, blocks) of a manual page saved as text: the page ("LS(1)") as the title, its running header and
    footer left out, each section's (and subsection's) heading over its text; None for other text."""
    lines = text.strip("\n").split("\n")
    head = _MAN_HEADER.fullmatch(lines[0].strip()) if lines and len(lines[0]) <= 200 else None  # a header's width
    if head is None:
        return None
    page = head.group("page")
    if len(lines) > 1 and lines[-1].strip().endswith(page) and re.search(r"\S\s{2,}\S", lines[-1].strip()):
        lines = lines[:-1]  # the running footer
    indents = collections.Counter(_indent(line) for line in lines[1:] if line.strip())
    hangs = {k for k, n in indents.items() if n >= 2}  # where paragraphs' text lines start
    blocks, section, sub = [], "", ""
    for para in _BLANK_LINE.split("\n".join(_tag_apart(line, hangs) for line in lines[1:])):
        rows = para.strip("\n").split("\n")
        while rows and (top := _MAN_HEADING.fullmatch(rows[0])) and all(
                _indent(r) > len(top.group("indent")) for r in rows[1:] if r.strip()):
            if not top.group("indent"):  # a section's heading; indented 1-3 columns, a subsection's
                section, sub = top.group("name"), ""
            else:
                sub = top.group("name")
            rows = rows[1:]
        if any(r.strip() for r in rows):
            blocks.append((tuple(h for h in (section, sub) if h), "\n".join(rows)))
    return page, blocks


def _tag_apart(line: str, hangs: set[int]) -> str:
    """A tagged paragraph's first line with its text under its tag, as a wider tag's text is: "-S" over "sort by file
    size", not "-S sort by file size" (the reader took the tag for the description's first word, and answered
    "which option sorts by size?" with the option beside it). Only where the text starts at a column other lines
    start at (``hangs``: a paragraph's indentation) or at groff's default one, seven columns in from the tag, after a
    tag that ends no sentence and is no list item's bullet or number ("•", "2."), and before text that aligns nothing
    further (a table's row)."""
    tagged = _TAGGED.fullmatch(line)
    if (tagged is None or tagged.start("text") not in hangs | {tagged.end("indent") + 7}
            or tagged.group("tag")[-1] in ".?!:;" or _LIST_ITEM.fullmatch(tagged.group("tag") + " ")
            or re.search(r"\S {2,}\S", tagged.group("text"))):
        return line
    return f"{tagged.group('indent')}{tagged.group('tag')}\n{' ' * tagged.start('text')}{tagged.group('text')}"


# ---------------------------------------------------------------- Markdown


def _inline_text(token) -> str:
    """Plain text of an inline token: no emphasis, link or image syntax (an image gives its alt text)."""
    out = []
    for child in token.children or ():
        if child.type == "text":
            out.append(child.content)
        elif child.type == "code_inline":
            out.append(code_marked(child.content))
        elif child.type == "softbreak":
            out.append(" ")
        elif child.type == "hardbreak":
            out.append("\n")
        elif child.type == "image":
            out.append(_inline_text(child))
        elif child.type == "html_inline":
            continue
    return "".join(out)


# MDX (Docusaurus', Nextra's, Mintlify's pages): a module statement at the top level, a line that is only a component's
# opening or closing tag ("<Tabs>", "<TabItem value='npm' label='npm'>", "</Tabs>", "<Image src={x} />"), an MDX
# comment, a directive fence (Docusaurus' admonitions: ":::tip", ":::warning Careful", ":::note[Title]", ":::")
_MDX_MODULE = re.compile(r"(?:import|export)\s")
_MDX_TAG_LINE = re.compile(r"\s*<\/?[A-Z][\w.]*(?:\s[^<>]*)?\/?>\s*")
_MDX_COMMENT = re.compile(r"\s*\{\s*/\*.*?\*/\s*\}\s*")
_MDX_DIRECTIVE = re.compile(r"\s*:{3,}\s*(?P<label>[A-Za-z][\w-]*)?\s*(?:\[(?P<bracket>[^\]]*)\]|(?P<title>.*?))\s*")
_FENCE = re.compile(r"\s{0,3}(?P<fence>`{3,}|~{3,})")


def _mdx(source: str) -> str:
    """An MDX page as the Markdown it holds: module statements (``import``/``export`` at the top level, with the
    lines they run on over, up to a blank line), lines that are only a component's tag and MDX comments dropped,
    what a component wraps kept (a tab's code block); a directive fence (``:::warning Careful`` ... ``:::``) keeps its
    content, its title as a line of its own ("Careful"). Code blocks are kept as they are."""
    out: list[str] = []
    fence = ""  # the open code fence, if any
    module = False  # inside a module statement running over lines
    for line in source.split("\n"):
        if fence:
            out.append(line)
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = ""
            continue
        if module:
            module = bool(line.strip())
            continue
        if opened := _FENCE.match(line):
            fence = opened.group("fence")
            out.append(line)
        elif _MDX_MODULE.match(line):
            module = not line.rstrip().endswith(";")  # a statement that goes on over the next lines
        elif _MDX_TAG_LINE.fullmatch(line) or _MDX_COMMENT.fullmatch(line):
            out.append("")
        elif directive := _MDX_DIRECTIVE.fullmatch(line):
            title = directive.group("bracket") or directive.group("title") or ""
            out.append(title)
        else:
            out.append(line)
    return "\n".join(out)


def _notebook(name: str, text: str) -> str:
    """A Jupyter notebook (nbformat 4) as Markdown: its Markdown cells as they are, its code cells as code blocks;
    outputs and raw cells left out (what a notebook explains is in its text and code; its outputs
    are results of one run, often long tables or logs)."""
    try:
        notebook = json.loads(text)
        cells = notebook["cells"]
        if not isinstance(cells, list):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise ExtractError(f"{name}: not a Jupyter notebook (no \"cells\" list in its JSON)") from None
    parts = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        source = cell.get("source", "")
        source = "".join(map(str, source)) if isinstance(source, list) else str(source)
        if not source.strip():
            continue
        if cell.get("cell_type") == "markdown":
            parts.append(source)
        elif cell.get("cell_type") == "code":
            fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", source)), default=0))
            parts.append(f"{fence}\n{source.rstrip()}\n{fence}")
    return "\n\n".join(parts)


# YAML front matter (Jekyll, Hugo, MkDocs): metadata, not text; CommonMark would read it as a heading.
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_FRONT_TITLE = re.compile(r"^title:[ \t]*(.+?)[ \t]*$", re.M)
# GitHub's alerts: a block quote whose first line is "[!NOTE]" (or TIP, IMPORTANT, WARNING, CAUTION), shown as a
# labelled box; read as the other generators' admonitions are, its label leading its text ("Note: ...")
_GITHUB_ALERT = re.compile(r"\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*\n?[ \t]*")


def _page_contents(tokens: list) -> set[int]:
    """The tokens of the page's own tables of contents: an outermost list of at least three items, each nothing but a
    link to a place in the page ("- [Factory](#factory)", nested or not). Its names match a search for them exactly
    and it holds no answer (fastify's reference pages open with lists of a hundred such links, which took places
    among a question's five passages); the HTML generators' are left out as navigation already."""
    found: set[int] = set()
    depth = start = 0
    for i, tok in enumerate(tokens):
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
            if depth == 1:
                start = i
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
            if depth == 0:
                items = [t for t in tokens[start:i] if t.type == "inline"]
                if len(items) >= 3 and all(_anchor_link(t) for t in items):
                    found.update(range(start, i + 1))
    return found


def _anchor_link(inline) -> bool:
    """Whether an inline token is one link to a place in the page ("[`http`](#http)") and nothing else."""
    children = [c for c in inline.children or () if not (c.type == "text" and not c.content.strip())]
    return (len(children) >= 3 and children[0].type == "link_open" and children[-1].type == "link_close"
            and str(children[0].attrGet("href") or "").startswith("#")
            and not any(c.type in ("link_open", "link_close") for c in children[1:-1]))


def _markdown(name: str, source: str) -> Document:
    """Headings become sections; code, lists ("- item") and tables ("a | b") stay text; definition lists
    (``Term`` then ``: definition``, as in Pandoc, PHP Markdown Extra and MkDocs) become entries. A heading inside a
    block quote ("> ## Note", pino's API page) is a line of the quote, not a section: the quote holds it, and what
    follows the quote is not under it (as a section it titled every later one up to the next heading of its level:
    "API > Note > logger.trace(...)").

    The title is the front matter's ``title:``, else the first H1, else the file stem.
    """
    title = ""
    front = _FRONT_MATTER.match(source)
    if front:
        found = _FRONT_TITLE.search(front.group(1) or "")
        title = found.group(1).strip("'\"") if found else ""
        source = source[front.end():]
    md = require("markdown_it").MarkdownIt("commonmark").enable(["table", "strikethrough"])
    md.use(require("mdit_py_plugins.deflist").deflist_plugin)
    tokens = md.parse(source)
    contents = _page_contents(tokens)
    out = Blocks()
    lists: list[list] = []  # open lists: [ordered, next number]
    item_lines: list[str] = []  # the lines of the outermost open list
    item_prefix = ""  # the prefix the next paragraph in a list item gets ("- ", "2. ")
    rows: list[list[str]] = []
    terms: list[str] = []  # the terms of the definition being read
    heading_level = 0
    quotes = 0  # open block quotes
    for i, tok in enumerate(tokens):
        t = tok.type
        if i in contents:
            continue
        if t in ("blockquote_open", "blockquote_close"):
            quotes += 1 if t == "blockquote_open" else -1
        elif t == "heading_open" and not quotes:  # a heading quoted ("> ## Note") is a line of its quote (below)
            heading_level = int(tok.tag[1:])
        elif t == "heading_close":
            heading_level = 0
        elif t == "inline" and heading_level:
            text = strip_marks(_inline_text(tok))
            if heading_level == 1 and not title:
                title = text
            out.heading(heading_level, text)
        elif t == "dt_open":
            terms.append("")
        elif t == "inline" and tokens[i - 1].type == "dt_open":
            terms[-1] = strip_marks(_inline_text(tok))
        elif t == "dd_open":
            if terms:
                out.open_entry(", ".join(x for x in terms if x))
                terms = []
            else:  # a second definition of the same terms: its own entry would have no name
                out.open_entry("", name="")
        elif t == "dd_close":
            out.close_entry()
        elif t in ("bullet_list_open", "ordered_list_open"):
            lists.append([t == "ordered_list_open", int(tok.attrs.get("start", 1) or 1)])
        elif t in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
            if not lists:
                out.text("\n".join(item_lines))
                item_lines = []
        elif t == "list_item_open":
            ordered, number = lists[-1]
            item_prefix = f"{number}. " if ordered else "- "
            lists[-1][1] += 1
        elif t in ("tr_open",):
            rows.append([])
        elif t == "inline" and tokens[i - 1].type in ("th_open", "td_open"):
            rows[-1].append(_inline_text(tok).strip())
        elif t == "table_close":
            out.text("\n".join(table_lines(rows)), kind="table")
            rows = []
        elif t == "inline":  # a paragraph, in a list item or not
            text = _inline_text(tok)
            if quotes and not lists and (alert := _GITHUB_ALERT.match(text)):
                out.lead(alert.group(1).capitalize())
                text = text[alert.end():]
                if not text:  # the label alone: it leads the quote's next paragraph
                    continue
            if lists:
                if item_prefix:
                    item_lines.append(item_prefix + text.replace("\n", " "))
                    item_prefix = ""
                elif item_lines:
                    item_lines[-1] += " " + text.replace("\n", " ")
            else:
                out.text(text)
        elif t in ("fence", "code_block"):
            if lists:  # the list so far, the code with its indentation, then the rest of the list
                out.text("\n".join(item_lines))
                item_lines = []
            out.text(tok.content, kind="code")
        elif t == "html_block":  # raw HTML: its text, or a heading written in HTML (<h1 align="center">)
            level, text = _html_heading(tok.content)
            if level and not quotes:
                title = title or (text if level == 1 else "")
                out.heading(level, text)
            else:
                out.text(_strip_tags(tok.content))
    return _assemble(name, "markdown", title, out.finish())


def _html_heading(html: str) -> tuple[int, str]:
    """(level, text) of raw HTML that is one heading and nothing else with text, else (0, "")."""
    found = re.fullmatch(r"\s*<h([1-6])\b[^>]*>(.*?)</h\1>\s*", html, re.S | re.I)
    return (int(found.group(1)), strip_marks(" ".join(_strip_tags(found.group(2)).split()))) if found else (0, "")


def _strip_tags(html: str) -> str:
    """The text of raw HTML inside Markdown (comments and scripts give nothing)."""
    lxml_html = require("lxml.html")  # a trafilatura dependency
    try:
        root = lxml_html.fragment_fromstring(html, create_parent="div")
    except Exception:  # noqa: BLE001 - lxml raises several types for odd fragments; the text is then dropped
        return ""
    for bad in root.xpath(".//script|.//style|.//comment()"):
        bad.drop_tree()
    return root.text_content()


# ---------------------------------------------------------------- HTML


# Permalink anchors beside headings and definitions: Sphinx and MkDocs (a.headerlink, "¶"), sqlalchemy's
# a.paramlink, GitHub (a.anchor, an SVG), markdown-it-anchor and VuePress (a.header-anchor, "#"), anchor.js.
_PERMALINK_CLASSES = {"headerlink", "paramlink", "anchor", "header-anchor", "heading-anchor", "anchorjs-link",
                      "permalink", "viewcode-link", "viewcode-back"}
_PERMALINK_TEXTS = {"", "\u00b6", "\u00a7", "#", "\U0001f517", "[source]", "[docs]",
                    "\u200b"}  # VitePress' and Docusaurus' anchors hold a zero-width space


def _icon(text: str) -> bool:
    """Whether ``text`` is an icon font's glyph alone: private-use characters (MkDocs' own theme writes Font
    Awesome's link icon, U+F0C1, in its a.headerlink)."""
    return bool(text) and all(unicodedata.category(ch) == "Co" for ch in text)


def drop_permalinks(root) -> bool:
    """Remove permalink anchors (and Sphinx's "[source]" links) from a parsed page; whether any was removed.

    An anchor goes when its class says so, when its label says "Permalink" or "Permanent link", or when it links
    into the page (``href="#..."``) with no text but a mark ("¶", "§", "#", "🔗", an icon font's glyph) or none.
    """
    found = []
    for a in root.iter("a"):
        classes = set((a.get("class") or "").split())
        text = a.text_content().strip()
        mark = text in _PERMALINK_TEXTS or _icon(text)
        label = f"{a.get('aria-label') or ''} {a.get('title') or ''}".casefold()
        if (classes & _PERMALINK_CLASSES and mark) or "permalink" in label or "permanent link" in label or (
                (a.get("href") or "").startswith("#") and mark):
            found.append(a)
    for el in root.xpath("//*[contains(concat(' ', @class, ' '), ' viewcode-link ')]"):
        found.append(el)
    for a in found:
        if a.getparent() is not None:
            a.drop_tree()
    return bool(found)


def space_classifiers(root) -> bool:
    """docutils' definition-list classifiers read as a browser shows them, after " : " ("how : {'left', 'right'},
    default 'inner'"): numpydoc's parameters and return values and any reStructuredText "term : classifier" are a
    ``<dt>`` term followed by a ``span.classifier`` whose colon is CSS (``.classifier:before``), so their text read
    "howbool" without it. The HTML4 writer's explicit ``span.classifier-delimiter`` is kept as written. A term that is
    one ``<strong>`` before its classifier (numpydoc's parameter, return value and attribute names) is read as inline
    code: it is a name. Whether the page had any."""
    found = root.xpath("//dt//span[contains(concat(' ', @class, ' '), ' classifier ')]")
    for el in found:
        before = el.getprevious()
        if before is None or "classifier-delimiter" not in (before.get("class") or "").split():
            el.text = " : " + (el.text or "")
        term = el.getparent()
        if (before is not None and before.tag == "strong" and term.tag == "dt" and before.getprevious() is None
                and not (term.text or "").strip() and not (before.tail or "").strip()):
            before.tag = "code"  # numpydoc's parameter (or return value, attribute) name: a name, so code
    return bool(found)


def label_tab_panels(root) -> bool:
    """Tabbed content (sphinx-tabs, ARIA tabs: a ``role="tablist"`` of buttons, then one ``role="tabpanel"`` each) read
    as a browser shows each tab: its label over its panel ("Bash" over the lines to add to ~/.bashrc). The tab list's
    labels had run together into one word ("BashZshFish") and no panel said which tab it was. A tab list over one
    panel (javadoc's "All Methods | Static Methods" filters one table) is a filter, left as it was. Whether the page
    had any tabs read so."""
    panels = root.xpath("//*[@role='tabpanel']")
    found = False
    for tablist in root.xpath("//*[@role='tablist']"):
        labels = {}
        for tab in tablist.xpath(".//*[@role='tab']"):
            label = " ".join(tab.text_content().split())
            if label:
                labels.update({("by", tab.get("id")): label, ("id", tab.get("aria-controls")): label})
        mine = [(p, labels.get(("by", p.get("aria-labelledby"))) or labels.get(("id", p.get("id")))) for p in panels]
        mine = [(p, label) for p, label in mine if label]
        if len(mine) < 2 or tablist.getparent() is None:
            continue
        found = True
        tablist.drop_tree()
        for panel, label in mine:
            head = panel.makeelement("p", {})
            head.text, head.tail, panel.text = label, panel.text, None
            panel.insert(0, head)
    return found


def pre_text(pre) -> str:
    """A code block's text as a browser shows it: a ``<br>`` is a line break, and so is the end of a line written as
    an element of its own (Docusaurus' Prism writes each line as a ``<div class="token-line">``, TypeDoc's
    highlighting its lines with ``<br>``)."""
    for br in pre.iter("br"):
        br.tail = "\n" + (br.tail or "")
    for line in pre.iter("div", "p"):
        if line is not pre and not line.text_content().endswith("\n"):
            line.tail = "\n" + (line.tail or "")
    return pre.text_content()


# every <pre> read through trafilatura is a code block, its lines kept (``_lines_as_text``), by a rule written first
# (docs/documents.md)
PRE_CODE = True
_INLINE = frozenset("a abbr b bdi bdo cite code data dfn em font i kbd mark q s samp small span strong sub sup time tt "
                    "u var".split())
_CODE_LIKE = frozenset("code kbd samp tt var".split())  # inline code: a mark of its own (``Passage.marks``)


def _space_inline_breaks(root) -> bool:
    """The white space between two inline elements moved inside one of them, outside code blocks; whether any was.
    trafilatura drops white space alone between two elements it keeps (adbar/trafilatura#661): the Rust book's
    "<em>fearless</em>\n<em>concurrency</em>" read "fearlessconcurrency", "a <em>x</em>\n<code>y</code> b" read "a
    xy b". The space goes to the end of the first's text, or where that is code (a mark of its own), to the start of
    the second's; between two pieces of code it stays."""
    changed = False
    for el in root.iter(*_INLINE):
        nxt = el.getnext()
        if (not el.tail or el.tail.strip() or nxt is None or not isinstance(nxt.tag, str) or nxt.tag not in _INLINE
                or any(a.tag in ("pre", "textarea") for a in el.iterancestors())):
            continue
        if el.tag not in _CODE_LIKE and not len(el) and (el.text or "").strip():
            el.text += " "
        elif nxt.tag not in _CODE_LIKE and (nxt.text or "").strip():
            nxt.text = " " + nxt.text
        else:
            continue
        el.tail, changed = None, True
    return changed


def _known_code(pre) -> bool:
    """Whether trafilatura reads ``pre`` as a code block whatever its text: one ``<code>`` and nothing beside it."""
    kids = [c for c in pre if isinstance(c.tag, str)]
    return (len(kids) == 1 and kids[0].tag == "code" and not (pre.text or "").strip()
            and not (kids[0].tail or "").strip())


def _lines_as_text(root) -> bool:
    """Each ``<pre>`` made one text of its lines (``pre_text``) inside one ``<code>``, for trafilatura, where its lines
    are elements (trafilatura kept only the first such line: a Docusaurus site's JSON example read "{") or it is no
    code block trafilatura knows (``_known_code``: trafilatura reads a ``<pre>`` without "{", '("', "('" or four
    spaces of indentation as a quote and joins its lines: Go's specification's tab-indented examples read "const (
    Sunday = iota Monday ... )"); whether any was."""
    found = [pre for pre in root.iter("pre") if pre.find(".//div") is not None or pre.find(".//p") is not None
             or (PRE_CODE and not _known_code(pre))]
    for pre in found:
        text = pre_text(pre).rstrip("\n")
        for child in list(pre):
            pre.remove(child)
        pre.text = None
        code = pre.makeelement("code", {})
        code.text = text  # inside <code>, as trafilatura knows a code block
        pre.append(code)
    return bool(found)


def _rst(name: str, source: str) -> Document:
    """reStructuredText through docutils' HTML (``function.ingest.rst``: Sphinx's common roles and directives
    known, no file or URL read), then read as a docutils page is."""
    require("docutils")
    from function.ingest import rst

    if not source.strip():
        raise ExtractError(f"{name}: no text found in this rst file")
    try:
        page = rst.to_html(source.replace("\r\n", "\n").replace("\r", "\n"))
    except Exception as e:  # noqa: BLE001 - docutils raises many types on malformed markup
        raise ExtractError(f"{name}: not readable reStructuredText ({type(e).__name__}: {e})") from None
    return _html(name, page.encode("utf-8"), fmt="rst")


_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")


def _html(name: str, data: bytes, fmt: str = "html") -> Document:
    """A documentation generator's page read from its markup (``docpages``); any other page through
    trafilatura's main content as XML, walked for headings, paragraphs, lists, definitions, tables and code.

    Permalink anchors are dropped first, on both paths.
    """
    lxml_html = require("lxml.html")  # a trafilatura dependency
    if not data.strip():
        raise ExtractError(f"{name}: no text found in this html file")
    marked = _marked_text(name, data)  # a UTF-16 / UTF-32 page with its byte-order mark (lxml kept the mark as text)
    try:
        if marked is not None:  # an XML declaration would name the encoding the characters no longer have
            root = lxml_html.document_fromstring(_XML_DECLARATION.sub("", marked, count=1))
        else:
            try:  # UTF-8 whatever the page declares (lxml would read undeclared bytes as Latin-1)
                root = lxml_html.document_fromstring(data.decode("utf-8-sig"))
            except (UnicodeDecodeError, ValueError):  # not UTF-8, or an XML declaration naming its encoding
                root = lxml_html.document_fromstring(data)
    except Exception as e:  # noqa: BLE001 - lxml raises several types on broken input
        raise ExtractError(f"{name}: not readable HTML ({type(e).__name__}: {e})") from None
    from function.ingest import docpages

    docpages.lower_classes(root)
    changed = drop_permalinks(root)
    changed = space_classifiers(root) or changed
    changed = label_tab_panels(root) or changed
    if fmt == "html" and (kind := docpages.generated(root)) is not None:  # (a page of one's own .rst is never)
        raise NotDocumentation(f"{name}: {kind}, not documentation")
    if docpages.is_doc_page(root):
        title, out = docpages.read(root)
        try:
            return _assemble(name, fmt, title, out.finish())
        except NoText:
            if fmt != "html":
                raise
            # a generator's page with nothing of its own (an autosummary page that only lists others in a hidden
            # toctree, an include-only page): the generator's, not the user's, so left out rather than failed
            raise NotDocumentation(f"{name}: a generated page with no text of its own, not documentation") from None
    changed = _lines_as_text(root) or changed
    changed = _space_inline_breaks(root) or changed
    headings = {}  # the page's own headings, text -> level: trafilatura can hand some back as paragraphs
    for h in root.xpath("//h1|//h2|//h3|//h4|//h5|//h6"):
        text = " ".join(h.text_content().split())
        if 0 < len(text) <= _TITLE_CHARS:
            headings.setdefault(text, int(h.tag[1]))
    page = lxml_html.tostring(root, encoding="unicode") if changed else (data if marked is None else marked)
    head = data[:8192].decode("utf-8", "replace") if marked is None else marked[:8192]
    if not re.search(r"<(?:html|body)[\s>]", head, re.I):
        # a fragment (a site generator's page body, without <html> or <body>: Go's documentation) has no page around
        # it to leave out: as a <main>, trafilatura keeps its headings, which it dropped from the fragment itself
        page = "<html><body><main>" + (page if isinstance(page, str) else page.decode("utf-8", "replace")) + \
               "</main></body></html>"
    try:
        return _trafilatura(name, page, headings)
    except NoText:
        # trafilatura takes a page made mostly of linked lists for boilerplate (a release notes page: every item
        # links its issue) and finds no main text: a known content root of the page is read as a generator's is
        title, out = docpages.read_root(root)
        if out is None:
            raise
        return _assemble(name, fmt, title, out.finish())


def _trafilatura(name: str, data: bytes | str, headings: dict[str, int] | None = None) -> Document:
    trafilatura = require("trafilatura")
    from lxml import etree  # a trafilatura dependency

    try:
        xml = trafilatura.extract(data, output_format="xml", include_formatting=True, include_tables=True,
                                  include_comments=False, include_images=False, include_links=False,
                                  favor_recall=True, with_metadata=True)
    except Exception as e:  # noqa: BLE001 - trafilatura and lxml raise many types on broken input
        raise ExtractError(f"{name}: not readable HTML ({type(e).__name__}: {e})") from None
    if not xml:
        raise NoText(f"{name}: no main text found in this HTML page")
    root = etree.fromstring(xml.encode("utf-8"))
    out = Blocks()
    body = root.find("main")
    first_h1 = _xml_blocks(body if body is not None else root, out, headings or {})
    title = root.get("title") or first_h1
    return _assemble(name, "html", title, out.finish())


def _xml_blocks(parent, out: Blocks, headings: dict[str, int] | None = None) -> str:
    """Walk trafilatura's XML elements into ``out`` (its <div>s nest sections); returns the first h1's text.

    A paragraph whose text is one of the page's own headings (``headings``: text -> level) is that heading:
    trafilatura hands headings back as paragraphs on some pages (a pandoc manual with its table of contents, a Go
    documentation fragment), and every passage of such a page would be titled by the page alone."""
    first_h1 = ""
    for el in parent:
        tag = el.tag
        if tag == "p" and headings and len(el) == 0 and (level := headings.get(" ".join((el.text or "").split()))):
            out.heading(level, " ".join(el.text.split()))
        elif tag == "head":
            text = _xml_text(el)
            rend = el.get("rend", "h2")
            level = int(rend[1:]) if re.fullmatch(r"h[1-6]", rend) else 2
            if level == 1 and not first_h1:
                first_h1 = text
            out.heading(level, text)
        elif tag == "div":
            first_h1 = _xml_blocks(el, out, headings) or first_h1
        elif tag == "list" and el.get("rend") == "dl":
            _xml_definitions(el, out)
        elif tag == "list":
            _xml_list(el, out)
        elif tag == "table":
            out.text(_table_text(el), kind="table")
        elif tag == "code":
            out.text(_xml_text(el), kind="code")
        else:  # p, quote, and anything newer trafilatura versions add
            out.text(_xml_text(el, flow=True))
    return first_h1


_XML_BLOCKS = {"p", "list", "table", "code", "quote", "head", "div"}


def _is_block(el, lists: bool = True) -> bool:
    """Whether trafilatura's element ``el`` is a block: a heading, a paragraph, a table, a quote, a division, a
    list (``lists``; else a definition list only), a code block (a <code> with a line break: trafilatura writes
    inline code as <code> too)."""
    tag = el.tag
    if tag == "code":
        return "\n" in "".join(el.itertext()).strip("\n")
    if tag == "list":
        return lists or el.get("rend") == "dl"
    return tag in _XML_BLOCKS


def _holds_blocks(item) -> bool:
    """Whether a list item holds more than a line (a nested list of lines is still lines: ``_item_lines``)."""
    return any(_is_block(child, lists=False) for child in item)


def _xml_list(el, out: Blocks) -> None:
    """A list: items of a line each as "- item" lines; an item that holds blocks (an API reference's member, as
    Javadoc lays out its details: a heading, the signature, paragraphs, a code example, the notes) as those
    blocks, so its heading titles its section and its code keeps its lines, not flattened into one "- " line."""
    lines: list[str] = []
    ordered = el.get("rend") == "ol"
    for n, item in enumerate(el.findall("item"), 1):
        if not _holds_blocks(item):
            lines.extend(_item_lines(item, n, ordered))
            continue
        if lines:
            out.text("\n".join(lines))
            lines = []
        _xml_item_blocks(item, out)
    if lines:
        out.text("\n".join(lines))


def _xml_item_blocks(item, out: Blocks) -> None:
    """A list item that holds blocks: its block children walked as blocks, the text between them (the item's
    own text, inline elements, tails: Javadoc's signature after the member's heading) as paragraphs."""
    run = [item.text or ""]

    def flush() -> None:
        text = "".join(run)
        run.clear()
        if text.strip():
            out.text(text.strip())

    for child in item:
        if _is_block(child):
            flush()
            _xml_blocks([child], out)
        elif child.tag == "lb":
            run.append("\n")
        elif child.tag in _XML_INLINE:
            run.append(_xml_text(child))
        else:  # a stray cell or row trafilatura leaves in an item ("<td>The argument can be</td><code>NULL</code>")
            run.append(" " + _xml_text(child) + " ")
        run.append(child.tail or "")
    flush()


_XML_INLINE = {"hi", "ref", "code", "del", "span", "sub", "sup"}  # trafilatura's inline formatting


def _xml_definitions(el, out: Blocks) -> None:
    """trafilatura's <list rend="dl">: items "dt-N" (one or more) then "dd-N", each group one entry."""
    terms: list[str] = []
    for item in el.findall("item"):
        if (item.get("rend") or "").startswith("dt"):
            terms.append(" ".join(_xml_text(item).split()))
            continue
        out.open_entry(", ".join(t for t in terms if t))
        terms = []
        if _holds_blocks(item):
            _xml_item_blocks(item, out)
        else:  # inline content only (inline code too: "<code>str</code> - the string")
            out.text(_xml_text(item, flow=True))
        out.close_entry()
    for term in terms:
        out.text(term)


# a line break in a paragraph's source text, with the spaces around it
_SOFT_BREAK = re.compile(r"[ \t]*\n[ \t]*")


def _xml_text(el, flow: bool = False) -> str:
    """An element's text, with trafilatura's <lb/> line breaks as newlines.

    ``flow``: the element is a paragraph (or a definition, a list item's text): a line break in its source text is a
    space, as a browser shows it. HTML made from Markdown (mdBook, MkDocs, Jekyll) keeps the source's line breaks in
    ``<p>``; trafilatura joins them in plain text, not around an inline element ("a numeric\ntype using <code>parse
    </code>"), and each would end an answer, a sentence or a definition's line there. A code block's are its own."""
    def own(text: str | None) -> str:
        return _SOFT_BREAK.sub(" ", text) if flow and text else text or ""

    out = [own(el.text)]
    for child in el:
        if child.tag == "lb":
            out.append("\n")
        elif child.tag in ("list",):
            out.append("\n" + "\n".join(_list_lines(child)) + "\n")
        elif child.tag == "table":
            out.append("\n" + _table_text(child) + "\n")
        elif child.tag == "code" and "\n" not in "".join(child.itertext()):  # inline code
            out.append(code_marked(_xml_text(child)))
        else:
            out.append(_xml_text(child, flow and child.tag != "code"))
        out.append(own(child.tail))
    return "".join(out)


def _list_lines(el, depth: int = 0) -> list[str]:
    """ "- item" lines (numbered for an ordered list), nested lists after their item."""
    ordered = el.get("rend") == "ol"
    return [line for n, item in enumerate(el.findall("item"), 1) for line in _item_lines(item, n, ordered, depth)]


def _item_lines(item, n: int, ordered: bool, depth: int = 0) -> list[str]:
    """List item ``n``'s line, "- text" or "n. text", then its nested lists' lines."""
    own = [item.text or ""]
    nested: list[str] = []
    for child in item:
        if child.tag == "list":
            nested.extend(_list_lines(child, depth + 1))
        else:
            own.append(_xml_text(child).replace("\n", " "))
        own.append(child.tail or "")
    text = " ".join("".join(own).split())
    return ([f"{n}. {text}" if ordered else f"- {text}"] if text else []) + nested


def _table_text(el) -> str:
    """One "cell | cell" line per row (``table_lines``)."""
    return "\n".join(table_lines([[" ".join(_xml_text(c).split()) for c in row.findall("cell")]
                                  for row in el.iter("row")]))


def table_lines(rows: list[list[str]]) -> list[str]:
    """A table's "cell | cell" lines, one per row, rows without text left out (Markdown's empty header row, written
    only because a Markdown table must have one). A table whose rows are each led by a label ("Level:" / "Value:",
    the others' cells beside it) is a record per column, and read so: "Level: warn | Value: 40", not a row of levels
    over a row of values whose columns the reader cannot match."""
    rows = [r for r in rows if any(c.strip() for c in r)]
    if len(rows) >= 2 and all(len(r) >= 3 and r[0].endswith(":") and len(r[0]) > 1 for r in rows):
        width = max(len(r) for r in rows)
        columns = ([f"{r[0]} {r[j]}" for r in rows if j < len(r) and r[j].strip()] for j in range(1, width))
        return [" | ".join(c) for c in columns if c]
    return [" | ".join(r) for r in rows]


# ---------------------------------------------------------------- PDF


def _pdf(name: str, data: bytes) -> Document:
    """pdfminer's text boxes in its reading order, one section per page; same-baseline cells joined into rows."""
    require("pdfminer")
    from pdfminer.converter import PDFPageAggregator
    from pdfminer.layout import LAParams, LTTextContainer
    from pdfminer.pdfdocument import PDFDocument, PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
    from pdfminer.pdfpage import PDFPage
    from pdfminer.pdfparser import PDFParser

    _steady_layout()
    blocks: list[Block] = []
    title = ""
    try:
        document = PDFDocument(PDFParser(io.BytesIO(data)))
        title = _pdf_title(document)
        manager = PDFResourceManager()
        device = PDFPageAggregator(manager, laparams=LAParams())
        interpreter = PDFPageInterpreter(manager, device)
        pages = []
        for page in PDFPage.create_pages(document):
            interpreter.process_page(page)
            layout = device.get_result()
            _underscores(layout)
            pages.append([b for b in layout if isinstance(b, LTTextContainer) and _box_text(b)])
    except PDFPasswordIncorrect:  # pdfminer says no more than its class name
        raise ExtractError(f"{name}: the PDF is encrypted and needs its password to be opened: decrypt it first "
                           f"(qpdf --password=PASSWORD --decrypt {shlex.quote(name)} unlocked.pdf) and ingest "
                           "that") from None
    except PDFEncryptionError as e:  # an algorithm or filter pdfminer does not know
        raise ExtractError(f"{name}: the PDF is encrypted in a way this reader cannot decrypt "
                           f"({str(e).split(':')[0][:80]}): decrypt it first (qpdf --decrypt {shlex.quote(name)} "
                           "unlocked.pdf, with --password=PASSWORD if it has one) and ingest that") from None
    except Exception as e:  # noqa: BLE001 - pdfminer raises many types for damaged files
        raise ExtractError(f"{name}: not a readable PDF ({type(e).__name__}: {e})") from None
    running = _running_lines(pages)
    for number, boxes in enumerate(pages, 1):
        for kind, text in _pdf_rows([b for b in boxes if id(b) not in running]):
            blocks.append(Block((f"page {number}",), text, kind))
    if not any(b.text.strip() for b in blocks):
        raise ExtractError(f"{name}: no text layer in this PDF (a scan needs OCR first)")
    return _assemble(name, "pdf", title, _dehyphenated(blocks))


_SERIALS = itertools.count()


def _serial(obj) -> int:
    """A number for ``obj`` in the order it is first asked for: ``id`` with no memory address in it."""
    try:
        return obj._qa_serial
    except AttributeError:
        obj._qa_serial = serial = next(_SERIALS)
        return serial


def _steady_layout() -> None:
    """Makes pdfminer's layout analysis give the same boxes in the same order on every run. Its grouping of text
    boxes (``LTLayoutContainer.group_textboxes``) keeps pairs of boxes in a heap keyed (distance, id(a), id(b)), so
    two pairs at the same distance (a column of line numbers beside a listing) merge in the order of their memory
    addresses, which differ run to run, and with them the reading order (pdfminer.six and euske/pdfminer issue 306:
    "PDF Miner returns different results every time"). The module's ``id`` is used for nothing but those tie-breaks
    and the set of merged ids, so a serial number in the order the boxes and groups are first met stands in."""
    import pdfminer.layout

    pdfminer.layout.id = _serial


def _underscores(page) -> int:
    """Writes "_" into the text of each underscore the page draws as a rule, and returns how many. LaTeX sets
    ``\\_`` in its default (OT1) fonts, typewriter ones too, as a rule 0.3 em wide on the baseline, not a glyph, and
    pdfminer reads the gap it fills as a space: "map_db" came out "map db" (186 times in FASTA's guide). A rule (or
    an abutting run of them: "__init__") is an underscore where it is thinner than 0.6 pt and 0.2-0.7 em wide, lies
    on a text line's baseline under no character, and touches the character before or after it (a word space on
    its other side stays: "the suffix _e"). An underline lies under the characters it marks, a fraction bar above
    the baseline, a table's border away from any character; a rule ending in a vertical stroke is a drawn shape
    (TeX's visible space "␣"), not an underscore."""
    from pdfminer.layout import LTLine, LTRect, LTTextBoxHorizontal, LTTextLineHorizontal

    drawn = [o for o in page if isinstance(o, (LTLine, LTRect))]
    short = sorted((r for r in drawn if r.height < 0.6 and 1.0 <= r.width <= 20.0), key=lambda r: (r.y0, r.x0))
    if not short:
        return 0
    strokes = [o for o in drawn if o.width < 0.6 and o.height >= 0.6]
    runs: list[list] = []
    for rule in short:  # rules end to end on one height: a run of underscores
        last = runs[-1][-1] if runs else None
        if last is not None and abs(rule.y0 - last.y0) < 0.3 and -0.3 <= rule.x0 - last.x1 <= 0.5 * rule.width:
            runs[-1].append(rule)
        else:
            runs.append([rule])
    lines = [ln for box in page if isinstance(box, LTTextBoxHorizontal) for ln in box
             if isinstance(ln, LTTextLineHorizontal)]
    done = 0
    for run in runs:
        mid = sum(r.y0 + r.y1 for r in run) / (2 * len(run))
        x0, x1 = run[0].x0, run[-1].x1
        on = [ln for ln in lines if ln.y0 <= mid <= ln.y1 and ln.x0 - 20 <= x0 and x1 <= ln.x1 + 20]
        if not on or any(_touching(rule, stroke) for rule in (run[0], run[-1]) for stroke in strokes):
            continue
        done += len(run) if any(_underscore_in(line, run) for line in on) else 0
    return done


def _touching(rule, stroke) -> bool:
    """Whether a vertical stroke meets one end of a horizontal rule."""
    ends = min(abs(stroke.x0 - rule.x0), abs(stroke.x1 - rule.x1), abs(stroke.x0 - rule.x1), abs(stroke.x1 - rule.x0))
    return ends < 0.6 and stroke.y0 - 0.6 <= rule.y1 and rule.y0 <= stroke.y1 + 0.6


def _underscore_in(line, run: list) -> bool:
    """Makes the run of rules "_" in the line's text (``_underscores``) where it is underscores, and says whether."""
    from pdfminer.layout import LTAnno, LTChar

    objs = line._objs
    x0, x1 = run[0].x0, run[-1].x1
    slack = 0.15 * min(r.width for r in run)
    chars = [(i, c) for i, c in enumerate(objs) if isinstance(c, LTChar) and c.get_text().strip()]
    if any(c.x0 < r.x1 - slack and c.x1 > r.x0 + slack for _, c in chars for r in run):
        return False  # under a character: an underline
    before = max(((i, c) for i, c in chars if c.x1 <= x0 + slack), key=lambda ic: ic[1].x1, default=None)
    after = min(((i, c) for i, c in chars if c.x0 >= x1 - slack), key=lambda ic: ic[1].x0, default=None)
    gaps = [x0 - before[1].x1 if before else None, after[1].x0 - x1 if after else None]
    sides = [(gap, ic[1]) for gap, ic in zip(gaps, (before, after)) if ic is not None]
    if not sides:
        return False
    gap, char = min(sides, key=lambda side: side[0])  # the character it touches
    em, matrix = char.size, char.matrix
    if not (char.upright and matrix[1] == matrix[2] == 0 and em > 0) or gap > 0.15 * em:
        return False  # turned text, or touching neither neighbour
    mid, baseline = sum(r.y0 + r.y1 for r in run) / (2 * len(run)), matrix[5]
    if not -0.05 * em <= mid - baseline <= 0.1 * em or not all(0.2 * em <= r.width <= 0.7 * em for r in run):
        return False  # off the baseline (a fraction bar), or not a character's width
    if before and after and after[0] < before[0]:
        return False
    lo = before[0] + 1 if before else after[0]
    hi = after[0] if after else lo
    if any(isinstance(o, LTChar) and o.get_text().strip() for o in objs[lo:hi]):
        return False
    text = ("_" * len(run)).join(" " if g is not None and g > 0.15 * em else "" for g in gaps)  # a word space
    objs[lo:hi] = [LTAnno(text)]
    return True


# Titles that PDF producers write when the author set none.
_PLACEHOLDER_TITLES = {"", "untitled", "(anonymous)", "anonymous", "title", "document"}


def _pdf_title(document) -> str:
    """The PDF's own /Title, unless it is empty or a producer's placeholder (then the file stem is used)."""
    from pdfminer.pdftypes import resolve1
    from pdfminer.utils import decode_text

    for info in document.info or ():
        value = resolve1(info.get("Title"))
        if isinstance(value, bytes):
            value = decode_text(value)
        if isinstance(value, str) and value.strip().lower() not in _PLACEHOLDER_TITLES:
            return value
    return ""


# Typographic ligatures (U+FB00-FB06) that PDF fonts map text to: "ﬁ" would otherwise never match "fi".
_LIGATURES = str.maketrans({chr(c): unicodedata.normalize("NFKC", chr(c)) for c in range(0xFB00, 0xFB07)})


def _box_text(box) -> str:
    """A text box's wrapped lines as one paragraph (a line ending in a word's hyphen joins the next without a space)."""
    return _joined(box.get_text().split("\n"))


def _joined(lines) -> str:
    """Wrapped lines as one paragraph: a line ending in a word's hyphen joins the next without a space, the hyphen
    marked as a break (``_BREAK``, for ``_dehyphenated``) where a letter comes before it and a lower-case letter
    after it outside inline code ("con-" / "figuration"); a minus sign ("width -") keeps its space."""
    out = ""
    for line in lines:
        line = line.translate(_LIGATURES).replace(_BREAK, "").strip()
        if not line:
            continue
        if not out or not _HYPHENATED.search(out[-8:].rstrip(CODE_OPEN + CODE_CLOSE)):
            out = f"{out} {line}" if out else line
        elif out[-2:-1].isalpha() and line[0].islower() and out.count(CODE_OPEN) <= out.count(CODE_CLOSE):
            out = out[:-1] + _BREAK + line
        else:
            out += line
    return out


_HYPHENATED = re.compile(r"\w-$")  # a word broken at the line's end ("width -" ends in a minus sign, not a break)
# a hyphen that broke a word at a line's end, until the whole document's words say whether it stays (a noncharacter:
# never text)
_BREAK = "\ufdd2"
_BROKEN = re.compile(rf"([^\W\d_]+){_BREAK}([^\W\d_]+)")
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def _dehyphenated(blocks: list[Block]) -> list[Block]:
    """Each word broken at a line's end (``_joined``) whole where the document writes the whole word elsewhere and
    never the hyphenated form within a line ("con-" / "figuration" -> "configuration": TeX hyphenates by syllable),
    else with its hyphen, as a compound broken at its own hyphen is ("built-" / "in" -> "built-in")."""
    words: set[str] = set()
    for b in blocks:
        for w in _WORD.findall(_BROKEN.sub(" ", b.text).replace(_BREAK, " ")):
            words.add(w.casefold())
            if "-" in w:  # a compound's parts are words written whole too
                words.update(part.casefold() for part in w.split("-"))

    def mend(m: re.Match) -> str:
        a, z = m.group(1), m.group(2)
        whole = (a + z).casefold() in words and f"{a}-{z}".casefold() not in words
        return a + z if whole else f"{a}-{z}"

    return [replace(b, text=_BROKEN.sub(mend, b.text).replace(_BREAK, "-")) if _BREAK in b.text else b
            for b in blocks]


def _running_lines(pages: list[list]) -> set[int]:
    """ids of running headers and footers: a page's short top or bottom box whose text, digits aside (page
    numbers), recurs at the top or bottom of at least half the pages of a document of two pages or more."""
    if len(pages) < 2:
        return set()
    seen: dict[str, list] = {}
    for boxes in pages:
        if len(boxes) < 2:  # a page's only box is its content
            continue
        ends = {id(b): b for b in (max(boxes, key=lambda b: b.y1), min(boxes, key=lambda b: b.y0))}
        for box in ends.values():
            if len(_box_text(box)) > _TITLE_CHARS:
                continue
            seen.setdefault(re.sub(r"\d+", "#", _box_text(box).casefold()), []).append(box)
    return {id(b) for found in seen.values() if len(found) >= max(2, len(pages) / 2) for b in found}


def _pdf_rows(boxes) -> list[tuple[str, str]]:
    """(kind, text) of each paragraph in pdfminer's order (``_box_marked``: code blocks, inline code marked; boxes of
    code one under the other one block, ``_listings``); a run of one-line boxes laid out in rows (table cells), and
    of the cells of a table whose cells wrap (``_wrapped_cells``), becomes one "a | b" line per row, top to bottom,
    whatever order pdfminer read the cells in (often column-wise)."""
    out: list[tuple[str, str]] = []
    run: list = []
    boxes = _listings(boxes)
    cells = _wrapped_cells(boxes)
    for box in [*boxes, None]:
        if box is not None and not isinstance(box, _Listing) and (_line_count(box) == 1 or id(box) in cells):
            run.append(box)
            continue
        out.extend(_table_rows(run))
        run = []
        if box is not None:
            out.append(_box_marked(box))
    return out


def _line_count(box) -> int:
    return len([ln for ln in box.get_text().split("\n") if ln.strip()])


def _text_lines(box) -> list:
    """A text box's lines (pdfminer's ``LTTextLine``s; a line is its own), or a ``_Listing``'s."""
    from pdfminer.layout import LTTextLine

    return [box] if isinstance(box, LTTextLine) else [ln for ln in box if isinstance(ln, LTTextLine)]


class _Listing:
    """Boxes of code one under the other, as one box of their lines for ``_box_marked``."""

    def __init__(self, boxes: list):
        self.lines = [ln for b in boxes for ln in _text_lines(b)]

    def __iter__(self):
        return iter(self.lines)


def _listings(boxes: list) -> list:
    """The page's boxes with each stack of two or more boxes of code made one ``_Listing``: boxes set all in a
    monospaced font, each the next line down from the one before (at most half a line between them) and
    overlapping it across, a one-line box only where no other box shares its line (not a table's cell). pdfminer
    puts a line into its neighbour's box only where their left, right or centre edges align, so a listing indented
    by position, not by spaces (as TeX draws one, and a signature's continued arguments), comes as a box per line
    or per indentation."""
    from pdfminer.layout import LTChar

    def code(box) -> bool:
        lines = _text_lines(box)
        chars = [c for ln in lines for c in ln if isinstance(c, LTChar) and c.get_text().strip()]
        if not chars or not all(_monospaced(c.fontname) for c in chars):
            return False
        return len(lines) > 1 or not any(_same_line(box, other) for other in boxes if other is not box)

    def under(above, box) -> bool:
        line = min(ln.height for ln in _text_lines(box))
        return -0.1 * line <= above.y0 - box.y1 <= 0.5 * line and not _apart(above, box)

    out: list = []
    stack: list = []
    for box, is_code in [*((b, code(b)) for b in boxes), (None, False)]:
        if is_code and stack and under(stack[-1], box):
            stack.append(box)
            continue
        out.extend([_Listing(stack)] if len(stack) > 1 else stack)
        stack = [box] if is_code else []
        if box is not None and not is_code:
            out.append(box)
    return out


def _table_rows(run: list) -> list[tuple[str, str]]:
    """One-line boxes, and a wrapped table's cells, grouped into rows (``_rows``), a cell's lines joined into one;
    boxes in their own order, as they would be read alone, when no two share a row."""
    rows = _rows(run)
    if all(len(r) == 1 for r in rows):  # no table: each box as it would be alone
        return [("text", _box_marked(b, lines=False)[1]) if _line_count(b) == 1 else _box_marked(b) for b in run]
    return [("text", " | ".join(_box_marked(b, lines=False)[1] for b in sorted(r, key=lambda b: b.x0)))
            for r in rows]


def _rows(boxes: list) -> list[list]:
    """Boxes grouped into rows, top to bottom: a box joins the first row whose top box it shares a line with
    (``_row_mates``) and whose every box lies apart from it across."""
    rows: list[list] = []
    for box in sorted(boxes, key=lambda b: -_text_lines(b)[0].y1):
        row = next((r for r in rows if _row_mates(r[0], box) and all(_apart(c, box) for c in r)), None)
        if row is None:
            rows.append([box])
        else:
            row.append(box)
    return rows


def _row_mates(a, b) -> bool:
    """Whether two boxes sit in one row of a table: one-line boxes on one line (``_same_line``); a cell that wraps
    beside another with their first lines on one line (cells set from the top), their last lines (from the bottom)
    or their middles level (centred)."""
    if _line_count(a) == 1 and _line_count(b) == 1:
        return _same_line(a, b)
    la, lb = _text_lines(a), _text_lines(b)
    line = min(ln.height for ln in (*la, *lb))
    return (_same_line(la[0], lb[0]) or _same_line(la[-1], lb[-1])
            or abs((a.y0 + a.y1) - (b.y0 + b.y1)) / 2 < 0.5 * line)


def _wrapped_cells(boxes: list) -> set[int]:
    """ids of the boxes of more than one line that are cells of a table (``_pdf_rows`` reads them row by row). A row
    is boxes apart across and level (``_rows``) that no other box reaches into between its top and bottom over its
    width; a table is two rows or more, one under the other with no box across their width between them, each
    sharing two columns (cells' left edges) with the rows above it, and one row of three cells or more. Two columns are
    not enough: a page of two columns, side-by-side paragraphs, a hanging option list (its tag in a box beside its
    indented text), a bulleted list (a box of bullets beside the items) and a note beside its label are all laid out
    in two columns, and are read as they were. A box of several lines is a cell only where its lines wrap
    (``_wraps``), and its whole row is read so or not at all: pdfminer also boxes a column's short cells of several
    rows together (".f .for" beside "Fortran Fortran"), which are rows, not one cell."""
    plain = [b for b in boxes if not isinstance(b, _Listing)]
    if not any(_line_count(b) > 1 for b in plain):
        return set()
    tables: list[list] = []  # runs of rows one under the other, each sharing two columns with the rows above
    for row in _rows(plain):
        low, high = min(b.y0 for b in row), max(b.y1 for b in row)
        left, right = min(b.x0 for b in row), max(b.x1 for b in row)
        line = min(ln.height for b in row for ln in _text_lines(b))
        clean = len(row) >= 2 and not any(
            b not in row and min(high, b.y1) - max(low, b.y0) > 0.25 * line and b.x0 < right and b.x1 > left
            for b in plain)
        above = tables[-1][-1] if tables and tables[-1] else None
        if not clean:
            if above is not None and any(b.x0 < max(c.x1 for c in above) and b.x1 > min(c.x0 for c in above)
                                         for b in row):
                tables.append([])  # a box across the table's width below it ends the table
            continue
        if above is not None and sum(any(abs(b.x0 - c.x0) < 2.0 for r in tables[-1] for c in r) for b in row) >= 2:
            tables[-1].append(row)
        else:
            tables.append([row])
    cells: set[int] = set()
    for table in tables:
        if len(table) < 2 or not any(len(r) >= 3 for r in table):
            continue
        starts = sorted({b.x0 for r in table for b in r})
        edge = max(b.x1 for r in table for b in r)
        for row in table:
            wrapped = [b for b in row if _line_count(b) > 1]
            if all(_wraps(b, min((x for x in starts if x >= b.x1 - 1.0), default=edge)) for b in wrapped):
                cells.update(id(b) for b in wrapped)
    return cells


def _wraps(box, limit: float) -> bool:
    """Whether a box's lines wrap within a column ending at ``limit`` (the next column's left edge, or the table's
    right one): each line but the last too full to have taken the next line's first word."""
    from pdfminer.layout import LTChar

    lines = _text_lines(box)
    for line, after in zip(lines, lines[1:]):
        word = []
        for obj in after:
            if not isinstance(obj, LTChar) or not obj.get_text().strip():
                if word:
                    break
                continue
            word.append(obj)
        if word and line.x1 + 0.25 * word[0].size + (word[-1].x1 - word[0].x0) <= limit:
            return False
    return True


# Fonts that set code: monospaced ones (a subset's "ABCDEF+" prefix aside; NimbusMonL: URW's Courier, in TeX's PDFs).
_MONOSPACED = re.compile(r"courier|mono|nimbusmon|cmtt|lmtt|consol|menlo|typewriter|inconsolata|\bcode", re.IGNORECASE)


@functools.lru_cache(maxsize=256)
def _monospaced(fontname: str) -> bool:
    """Whether a PDF font sets code (``_MONOSPACED``), its subset's "ABCDEF+" prefix aside."""
    return _MONOSPACED.search(fontname.split("+")[-1]) is not None


def _box_marked(box, lines: bool = True) -> tuple[str, str]:
    """A text box as ("code", its lines) where every line is set in a monospaced font (``lines``: a code block,
    each line's indentation kept from its characters and its place), else as ("text", its paragraph) with runs of
    monospaced characters marked as inline code (``CODE_OPEN``), as HTML's <code> is."""
    from pdfminer.layout import LTChar

    rows = _text_lines(box)
    chars = [[c for c in ln if isinstance(c, LTChar) and c.get_text().strip()] for ln in rows]
    mono = [[_monospaced(c.fontname) for c in cs] for cs in chars]
    if not any(any(m) for m in mono):
        return "text", _box_text(box)
    if lines and all(m and all(m) for m in mono):
        width = min((c.width for cs in chars for c in cs), default=0.0) or 1.0
        left = min(ln.x0 for ln in rows)
        text = "\n".join(" " * round((ln.x0 - left) / width) + ln.get_text().rstrip("\n").translate(_LIGATURES)
                         for ln in rows)
        return "code", text
    marked = []
    for ln in rows:
        out, inside = [], False
        for c in ln:
            t = c.get_text()
            if isinstance(c, LTChar) and t.strip():
                code = _monospaced(c.fontname)
                if code != inside:
                    out.append(CODE_OPEN if code else CODE_CLOSE)
                    inside = code
            out.append(t)
        if inside:
            out.append(CODE_CLOSE)
        # a table cell's one line without its end (which a closing mark would hold inside: "--depth\n| 3"); in a
        # paragraph a line that ends in code keeps it, and the paragraph breaks there, as a displayed command does
        marked.append("".join(out) if lines else "".join(out).replace("\n", ""))
    return "text", _joined(marked)


def _apart(a, b) -> bool:
    return b.x0 >= a.x1 or a.x0 >= b.x1


def _same_line(a, b) -> bool:
    """Whether two boxes overlap vertically by more than half the shorter one's height."""
    overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
    return overlap > 0.5 * min(a.height, b.height)
