"""Input files -> documents: the unit ingestion skips, replaces, deletes and syncs.

A text, Markdown, MDX, reStructuredText, HTML, PDF or notebook file is one document: its id is its path relative
to the folder or prefix it was found under (``guide/install.md``), its text is
``extract.extract``'s, and its passages are ``split.split``'s chunks with ids
``ids.chunk_passage_id`` (``guide%2Finstall.md#0003``) and their character spans
in that text. A JSON or JSON Lines file holds records that name their document
(``doc_id``, else ``title``; SQuAD: the article title), so it gives one document
per distinct id, and each record keeps its own passage id; a record without
either is a document by itself (``from_records``, which also takes records a
caller read itself, such as a benchmark's corpus). A document's ``sha256`` covers its content and
what its passages are made with (tokenizer, split budget, this module's
``VERSION``), so a document is skipped only when re-ingesting it would write
the same passages.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from function.ingest.json_input import Record, Rejected, Unread, parse_text
from function.ingest.sources import InputFile, is_json
from function.model.code import PROMPT
from function.store.ids import chunk_passage_id

# Bump when extraction or splitting changes what the same bytes become, so unchanged files are redone. 2: documentation
# structure (entries, code blocks, headings of generated HTML); 3: inline code marks;
# 4: a PDF's monospaced text as code; 5: a PDF's boxes of code one under the other as one code block; 6: a word a PDF
# hyphenates at a line's end whole where the document writes it whole; 7: javadoc's, Doxygen's, pdoc's, pdoc3's and
# Haddock's pages read from their markup, reStructuredText through docutils, the headings trafilatura dropped kept,
# redirect and other navigation pages left out; 8: Sphinx's Furo theme known by its comment (a page of it without a
# permalink read as Sphinx's), a paragraph's source line breaks as spaces in HTML read through trafilatura, TypeDoc's
# pages read from their markup, a list item's paragraphs a space apart; 9: MkDocs' (Material and readthedocs themes),
# VitePress', Docusaurus', Starlight's, gi-docgen's and erl_docgen's pages read from their markup, a code block's lines
# written as elements of their own kept everywhere, a bundler's license notice left out; 10: a definition term's
# classifier after " : " (numpydoc's "name : type"), pydata-sphinx-theme's previous / next links left out; 11: that
# term's name (numpydoc's parameter, return value, attribute) marked as inline code; 12: blocks read on one line (a
# list item's, a table cell's, a term's) a space apart; 13: sphinx-gallery's thumbnails left out; 14: Apache httpd's
# manual and SQLite's documentation read from their markup, docutils' "Contents" box left out, a refresh without "url="
# a redirect, gtk-doc's listings without their line numbers; 15: an entry's last subsection not run on into the next
# entry's passage; 16: GitHub's alerts ("> [!NOTE]") read as admonitions ("Note: ..."); 17: each line of a code block
# marked as a piece of code too, where it reads as one (``code_lines``); 18: other tools' prompts ("mydb=> ") left out;
# 19: those lines stored apart from inline code (``Passage.lines``); 20: plain text's hard-wrapped paragraphs joined,
# its running headers and footers between form feeds and nroff's overstrikes left out, text and HTML with a UTF-16 or
# UTF-32 byte-order mark read in that encoding; 21: a manual page saved as text (nroff's justified paragraphs, an
# option's text hung after its tag, a word groff hyphenated at the margin) joined too, titled by its page and its
# sections, without its running header and footer; tabbed content (sphinx-tabs) with each tab's label over its panel;
# a Texinfo index node left out as navigation; 22: a passage is at most QA_MAX_CONTEXT_CHARS characters (one token can
# cover any length: a 3 MB unbroken hex dump was one passage of one [UNK]); a manual page's option text set on its
# tag's line ("-S     sort by file size") under its tag, as a wider tag's is; a DocBook segmentedlist's item one entry,
# its long-description pages left out; a Markdown heading inside a block quote a line of the quote, not a section; a
# PDF's underscores that LaTeX draws as rules read "_"; 23: a PDF table whose cells wrap read a row a line ("a | b |
# c"), not column by column; a table's rows without text left out and a table of labelled rows ("Level:" / "Value:")
# read a record per column; a Markdown page's own table of contents left out; a Texinfo footnote's mark left out; 24:
# a Sphinx entry whose id docutils made up ("id4": an object documented twice) named by its signature, not the id;
# 25: a passage that starts among an entry's return or raise lines, their "Returns:" / "Raises:" label in the passage
# before, titled with the label too ("... > f1_score > Returns"); 26: any label line of a word or three and a colon
# ("Throws:", "Since:") ends that part; 27: white space between two inline elements a space in HTML read through
# trafilatura ("fearless concurrency", not "fearlessconcurrency"); 28: Haddock's "Expand" labels left out; 29: a
# Haddock entry's type, written in its "Arguments" table, joined onto its name's line; 30: rustdoc's "Read more" links
# left out; 31: every <pre> read through trafilatura a code block, its lines kept; 32: QDoc's and Doxygen's lists of
# a class's members and Doxygen's class index left out (navigation).
VERSION = "32"


@dataclass(frozen=True)
class Piece:
    """A passage to be: its text and where it sits in its document."""

    id: str
    title: str
    text: str
    chunk: int
    start: int | None = None  # span in the document's extracted text; None for JSON records
    end: int | None = None
    marks: tuple[tuple[int, int], ...] = ()  # inline code in ``text`` ("literal" spans)
    lines: tuple[tuple[int, int], ...] = ()  # code blocks' lines in ``text`` that read as one piece of code each


@dataclass
class DocumentUnit:
    doc_id: str
    title: str
    source: str
    sha256: str
    pieces: list[Piece] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)  # records of it that were not taken


@dataclass(frozen=True)
class Recipe:
    """What passages are made with: part of every document's hash."""

    tokenizer: str  # the tokenizer's fingerprint
    max_tokens: int
    overlap_tokens: int
    max_chars: int

    def digest(self, *parts: bytes) -> str:
        h = hashlib.sha256(f"v{VERSION}|{self.tokenizer}|{self.max_tokens}|{self.overlap_tokens}|"
                           f"{self.max_chars}|".encode())
        for part in parts:
            h.update(hashlib.sha256(part).digest())
        return h.hexdigest()


def from_file(file: InputFile, data: bytes, tokenizer, recipe: Recipe) -> Iterator[DocumentUnit | Rejected | Unread]:
    """The documents of one file (and of a JSON file, its rejected records and fields not read); raises
    ``extract.ExtractError`` if unreadable."""
    if is_json(file.rel) or is_json(file.source):
        from function.ingest.extract import decode_text  # UTF-8, or UTF-16 / UTF-32 with its byte-order mark

        yield from _json_documents(file, decode_text(file.rel, data), recipe)
    else:
        yield _text_document(file, data, tokenizer, recipe)


_COLUMN = re.compile(r"[ \t]{3,}|[ \t]{2,}(?:#|//)")  # a column after the code: a comment, a result, a description


def code_lines(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Where each line of the code block ``text[start:end]`` is as one whole piece of code (``Passage.lines``), so the
    reader reads a command that a block gives on a line of its own as it reads one written inline (``Passage.marks``):
    "pip install -U apispec", not its first word (``reader.whole_code``). A prompt (``code.PROMPT``: "$ ", ">>> ",
    "mydb=> ") and a statement's closing ";" are not part of it, nor what follows a run of three spaces or a
    comment after two (another column: "x.clear()   # Forget everything", a usage line's description); a line whose
    brackets do not balance is part of a longer statement ("g_file_get_contents (const gchar *filename,") and is not
    marked."""
    at = start
    for line in text[start:end].split("\n"):
        a = at + len(line) - len(line.lstrip())
        at += len(line) + 1
        prompt = PROMPT.match(text, a)
        if prompt:
            a = prompt.end()
        column = _COLUMN.search(text, a, at - 1)
        z = column.start() if column else at - 1
        piece = text[a:z].rstrip()
        if piece.endswith(";"):
            piece = piece[:-1].rstrip()
        if piece and _balanced(piece):
            yield a, a + len(piece)


def _balanced(code: str) -> bool:
    """Whether ``code``'s round, square and curly brackets open and close in order (quotes not read)."""
    opened = []
    for c in code:
        if c in "([{":
            opened.append(c)
        elif c in ")]}" and (not opened or opened.pop() != "([{"[")]}".index(c)]):
            return False
    return not opened


def _text_document(file: InputFile, data: bytes, tokenizer, recipe: Recipe) -> DocumentUnit:
    from function.ingest.extract import extract
    from function.ingest.split import split

    doc = extract(file.rel, data)
    chunks = split(doc, tokenizer, recipe.max_tokens, recipe.overlap_tokens, max_chars=recipe.max_chars)
    literals = sorted({(s.start, s.end) for s in doc.spans if s.kind == "literal"})
    lines = sorted({line for s in doc.spans if s.kind == "code" for line in code_lines(doc.text, s.start, s.end)}
                   - set(literals))

    def inside(spans: list[tuple[int, int]], c) -> tuple[tuple[int, int], ...]:
        """The spans wholly inside passage ``c``, in its own offsets (``spans`` sorted)."""
        first, last = bisect.bisect_left(spans, (c.start,)), bisect.bisect_left(spans, (c.end,))
        return tuple((a - c.start, z - c.start) for a, z in spans[first:last] if z <= c.end)

    pieces = [Piece(chunk_passage_id(file.rel, c.index), c.title or doc.title, c.text, c.index, c.start, c.end,
                    inside(literals, c), inside(lines, c)) for c in chunks]
    return DocumentUnit(file.rel, doc.title, file.source, recipe.digest(file.rel.encode(), data), pieces)


def _json_documents(file: InputFile, text: str, recipe: Recipe) -> Iterator[DocumentUnit | Rejected | Unread]:
    """The file's malformed records, each on its own, and the fields its records hold that are not read, then its
    documents."""
    records = []
    for rec in parse_text(file.source, text):
        if isinstance(rec, (Rejected, Unread)):
            yield rec
        else:
            records.append(rec)
    yield from from_records(file.source, records, recipe)


def from_records(source: str, records: Iterable[Record], recipe: Recipe) -> Iterator[DocumentUnit]:
    """Records (of a JSON file: ``source``) as documents, one per distinct doc id, in order of first appearance.

    A record longer than ``recipe.max_chars`` is not split: it is rejected, on the document's ``rejected``."""
    groups: dict[str, list[Record]] = {}
    first: dict[str, str] = {}  # passage id -> where the file first has it
    repeated: list[Rejected] = []
    for rec in records:
        if rec.id in first:  # said here, where the file and line are known (ingestion would know the id only)
            repeated.append(Rejected(rec.where or rec.id, f"passage id {rec.id!r} appears twice in this file "
                                                          f"(first at {first[rec.id]}): this record is left out"))
            continue
        first[rec.id] = rec.where or rec.id
        groups.setdefault(rec.doc_id or rec.id, []).append(rec)
    for n, (doc_id, group) in enumerate(groups.items()):
        unit = DocumentUnit(doc_id, group[0].title, source, "")
        if n == 0:
            unit.rejected.extend(repeated)
        for n, rec in enumerate(group):
            if len(rec.text) > recipe.max_chars:
                unit.rejected.append(Rejected(rec.id, (
                    f"passage {rec.id!r} has {len(rec.text)} characters, more than {recipe.max_chars} "
                    "(QA_MAX_CONTEXT_CHARS): split it into paragraphs, or ingest the document as a .txt or "
                    ".md file, which is split into passages that fit the model")))
            else:
                unit.pieces.append(Piece(rec.id, rec.title, rec.text, n))
        content = json.dumps([[r.id, r.title, r.text] for r in group], ensure_ascii=False)
        unit.sha256 = recipe.digest(doc_id.encode("utf-8", "surrogatepass"), content.encode("utf-8", "surrogatepass"))
        yield unit
