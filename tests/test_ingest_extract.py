"""Text extraction from text, Markdown, MDX, reStructuredText, HTML, PDF and notebook files made here (no fixture
files on disk)."""

from __future__ import annotations

import io
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from function.ingest.extract import (
    SUFFIXES,
    Document,
    ExtractError,
    NotDocumentation,
    extract,
    normalise_block,
    require,
)
from tests.support.fuzz import examples

MARKDOWN = b"""# Widget Guide

The *widget* turns rotation into motion; see [the manual](http://example.com/manual).

## Installation

1. Drill four holes
2. Insert the **anchors**
   - plastic ones

```python
def mount(widget):
    return widget.screws  # four of them
```

## Specifications

| Property | Value |
|----------|------:|
| Weight   | 2 kg  |
| Colour   | Blue  |

### Servicing
Every twelve months.
"""

HTML = b"""<!doctype html><html><head><title>Widget Guide | ACME</title>
<style>body { color: STYLENOISE; }</style>
<script>var tracking = "SCRIPTNOISE";</script></head><body>
<header><div class="logo">ACME HEADERNOISE</div></header>
<nav><ul><li><a href="/">Home</a></li><li><a href="/about">About NAVNOISE</a></li></ul></nav>
<main><article>
<h1>Widget Guide</h1>
<p>The widget is a small device that turns rotation into motion. It was invented in 1921 in Leeds.</p>
<h2>Installation</h2>
<p>Mount the widget on a flat surface using the four screws supplied in the box.</p>
<ol><li>Drill four holes</li><li>Insert the anchors</li><li>Tighten the screws</li></ol>
<h2>Specifications</h2>
<table><tr><th>Property</th><th>Value</th></tr><tr><td>Weight</td><td>2 kg</td></tr>
<tr><td>Colour</td><td>Blue</td></tr></table>
<p>Widgets should be serviced every twelve months by a qualified technician.</p>
</article></main>
<aside>Related articles: SIDENOISE</aside>
<footer>Copyright 2024 FOOTNOISE</footer>
<script>console.log("SCRIPTNOISE2")</script>
</body></html>"""

LEFT = "The left column is about apples. Apples grow on trees in orchards across the temperate world. "
RIGHT = "The right column is about boats. Boats float on water because of buoyancy and careful design. "


def _spans_index_text(doc: Document) -> None:
    """Sections are ordered, disjoint, inside the text, and start and end on text (not white space)."""
    prev = 0
    for s in doc.sections:
        assert prev <= s.start < s.end <= len(doc.text)
        assert not doc.text[s.start].isspace() and not doc.text[s.end - 1].isspace()
        prev = s.end
    # every character outside the sections is paragraph-break white space
    covered = set()
    for s in doc.sections:
        covered.update(range(s.start, s.end))
    assert all(doc.text[i].isspace() for i in range(len(doc.text)) if i not in covered)


def _section_of(doc: Document, needle: str) -> tuple[str, ...]:
    at = doc.text.index(needle)
    return next(s.heading for s in doc.sections if s.start <= at < s.end)


def test_suffixes_cover_the_eight_formats():
    assert set(SUFFIXES.values()) == {"text", "markdown", "mdx", "rst", "html", "pdf", "notebook", "asciidoc"}


def test_plain_text_keeps_accents_and_cjk_and_normalises():
    raw = "\ufeffCafé notes\r\n\r\nÉte\u0301  à\tParis.\x00 Oui.\r\n\r\n\r\n東京は大きい。大阪も。\n"
    doc = extract("notes/cafe.txt", raw.encode("utf-8"))
    assert doc.format == "text" and doc.title == "Café notes"
    assert doc.text == "Café notes\n\nÉté à Paris. Oui.\n\n東京は大きい。大阪も。"  # NFC, no NUL, one space
    assert [s.heading for s in doc.sections] == [()]
    _spans_index_text(doc)


def test_plain_text_title_falls_back_to_the_file_stem():
    doc = extract("gs://bucket/docs/long-one.txt", ("word " * 60).encode())
    assert doc.title == "long-one"


def test_markdown_structure_becomes_sections_and_readable_text():
    doc = extract("guide.md", MARKDOWN)
    assert doc.format == "markdown" and doc.title == "Widget Guide"
    text = doc.text
    assert "The widget turns rotation into motion; see the manual." in text
    for noise in ("*", "](", "```", "|---", "# Widget", "## ", "### "):
        assert noise not in text, noise
    assert "1. Drill four holes\n2. Insert the anchors\n- plastic ones" in text
    assert "def mount(widget):" in text and "return widget.screws" in text  # code kept as text
    assert "Property | Value\nWeight | 2 kg\nColour | Blue" in text
    assert _section_of(doc, "Drill") == ("Widget Guide", "Installation")
    assert _section_of(doc, "Weight") == ("Widget Guide", "Specifications")
    assert _section_of(doc, "Every twelve") == ("Widget Guide", "Specifications", "Servicing")
    _spans_index_text(doc)


def test_a_github_alert_reads_as_an_admonition_its_label_leading_its_text():
    """README's "> [!NOTE]" boxes (GitHub alerts) read as other generators' admonitions do: "Note: ...", not the
    marker as words; the label alone on its paragraph leads the quote's next one."""
    source = (b"# Conf\n\n> [!NOTE]\n> This is not a database.\n\n> [!WARNING]\n>\n> Keys are case-sensitive.\n\n"
              b"> A plain quote [!TIP] stays.\n\nA [!NOTE] outside a quote stays.\n")
    doc = extract("readme.md", source)
    assert doc.text == ("Conf\n\nNote: This is not a database.\n\nWarning: Keys are case-sensitive.\n\n"
                        "A plain quote [!TIP] stays.\n\nA [!NOTE] outside a quote stays.")
    _spans_index_text(doc)


def test_a_heading_inside_a_markdown_quote_is_a_line_of_it_not_a_section():
    """pino's API page has "> ## Note" inside its "Errors" subsection: as a section it titled every later one up to
    the next "##" ("API > Note > logger.trace(...)", 38 of 137 passages). It stays a line of the quote, and the
    sections after the quote are under the headings they follow; an HTML heading in a quote likewise."""
    source = (b"# API\n\n## Logger Instance\n\n#### Errors\n\nErrors can be supplied as the first parameter.\n\n"
              b"> ## Note\n> This section describes the default configuration.\n\n"
              b"### `logger.trace([message])`\n\nWrite a 'trace' level log.\n\n"
              b"> <h2>Warning</h2>\n>\n> Traces are verbose.\n\n## Statics\n\nA static method.\n")
    doc = extract("api.md", source)
    assert "Errors can be supplied as the first parameter.\n\nNote\n\nThis section describes" in doc.text
    assert _section_of(doc, "This section describes") == ("API", "Logger Instance", "Errors")
    assert _section_of(doc, "Write a 'trace'") == ("API", "Logger Instance", "logger.trace([message])")
    assert "level log.\n\nWarning\n\nTraces are verbose." in doc.text
    assert _section_of(doc, "Traces are verbose") == ("API", "Logger Instance", "logger.trace([message])")
    assert _section_of(doc, "A static method") == ("API", "Statics")
    assert not {h for s in doc.sections for h in s.heading} & {"Note", "Warning"}
    _spans_index_text(doc)


def test_markdown_front_matter_is_metadata_not_text():
    doc = extract("post.md", b"---\nlayout: post\ntitle: \"Bridges of York\"\n---\n\nThe Ouse has nine bridges.\n")
    assert doc.title == "Bridges of York" and doc.text == "The Ouse has nine bridges."


def test_a_paragraphs_source_line_breaks_read_as_spaces_but_code_keeps_its_lines():
    """HTML made from Markdown (mdBook, MkDocs) keeps the source's line breaks inside a paragraph, which a browser
    shows as spaces; around inline code trafilatura kept them, and an answer ended at each."""
    page = (b"<html><head><title>Widgets</title></head><body><main><h1>Widgets</h1><p>Widgets spin by default; call "
            b"<code>spin()</code> to\nstart one, and see the <a href='stop.html'>Stopping a\n  Widget</a> section "
            b"for\nhow to stop it again.</p><pre><code>fn main() {\n    spin();\n}</code></pre><p>Each widget"
            b"<br>turns once.</p><dl><dt>speed</dt><dd>Turns a <code>Widget</code> makes a\nminute.</dd></dl>"
            b"</main></body></html>")
    text = extract("w.html", page).text
    assert "call spin() to start one, and see the Stopping a Widget section for how to stop it again." in text
    assert "fn main() {\n    spin();\n}" in text  # a code block's lines are its own
    assert "Each widget\nturns once." in text  # a <br> is a line break
    assert "Turns a Widget makes a minute." in text


def test_html_main_content_without_navigation_scripts_or_footers():
    doc = extract("site/guide.html", HTML)
    assert doc.format == "html" and doc.title == "Widget Guide"
    text = doc.text
    for noise in ("NAVNOISE", "SCRIPTNOISE", "STYLENOISE", "FOOTNOISE", "SIDENOISE", "HEADERNOISE", "<"):
        assert noise not in text, noise
    assert "invented in 1921 in Leeds" in text
    assert "1. Drill four holes\n2. Insert the anchors\n3. Tighten the screws" in text
    assert "Property | Value\nWeight | 2 kg\nColour | Blue" in text
    assert _section_of(doc, "Drill") == ("Widget Guide", "Installation")
    assert _section_of(doc, "Colour") == ("Widget Guide", "Specifications")
    _spans_index_text(doc)


def test_html_without_semantic_tags_still_loses_menus_and_sidebars():
    """Plain <div>s everywhere (no <nav>, <main> or <footer>): the extractor finds the content by its text."""
    html = b"""<html><head><title>River Ouse</title></head><body>
<div id="top"><div class="menu"><a href="/">Home</a> | <a href="/c">Contact MENUNOISE</a></div></div>
<div id="wrap"><div class="sidebar"><h3>Popular</h3><ul><li><a href="/x">Other river SIDENOISE</a></li>
<li><a href="/y">Cats</a></li></ul></div>
<div class="content"><h1>River Ouse</h1>
<p>The River Ouse is a river in North Yorkshire, England. It flows through York and is 84 kilometres long.</p>
<h2>Bridges</h2><p>Several bridges cross the Ouse in York, including Ouse Bridge, Lendal Bridge and Skeldergate
Bridge, each with its own history.</p>
<h2>Flooding</h2><p>The Ouse floods often; the floods of 2000 were among the worst recorded, and the Foss
Barrier was built to protect the city.</p></div></div>
<div class="footer">(c) 2024 Rivers Inc FOOTNOISE - <a href="/privacy">Privacy</a></div>
<script>trackPage("SCRIPTNOISE")</script></body></html>"""
    doc = extract("ouse.htm", html)
    for noise in ("MENUNOISE", "SIDENOISE", "FOOTNOISE", "SCRIPTNOISE", "Popular"):
        assert noise not in doc.text, noise
    assert "84 kilometres long" in doc.text and "Foss Barrier" in doc.text
    assert _section_of(doc, "Foss") == ("River Ouse", "Flooding")


def _two_column_pdf() -> bytes:
    pytest.importorskip("reportlab", reason="reportlab (a test dependency) makes the PDF fixture")
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import BaseDocTemplate, Frame, FrameBreak, PageTemplate, Paragraph, Spacer, Table

    buf = io.BytesIO()
    width, height = A4
    margin, gap = 50, 24
    col = (width - 2 * margin - gap) / 2
    doc = BaseDocTemplate(buf, pagesize=A4, title="Fruit and Boats")
    doc.addPageTemplates([PageTemplate(id="two", frames=[
        Frame(margin, margin, col, height - 2 * margin, id="left"),
        Frame(margin + col + gap, margin, col, height - 2 * margin, id="right")])])
    styles = getSampleStyleSheet()
    story = [Paragraph(LEFT * 5, styles["Normal"]), FrameBreak(), Paragraph(RIGHT * 5, styles["Normal"]),
             Spacer(1, 24), Table([["Fruit", "Price"], ["Apple", "1.20"], ["Pear", "0.90"]], colWidths=[90, 90])]
    doc.build(story)
    return buf.getvalue()


def test_pdf_two_columns_read_in_order_with_table_rows():
    data = _two_column_pdf()
    doc = extract("papers/fruit.pdf", data)
    assert doc.format == "pdf" and doc.title == "Fruit and Boats"
    text = doc.text
    left_end = text.rindex("temperate world.")
    right_start = text.index("The right column")
    assert left_end < right_start  # the whole left column before the right one, not interleaved by line
    assert "apples" not in text[right_start:]
    assert "Apple | 1.20" in text and "Pear | 0.90" in text
    assert {s.heading for s in doc.sections} == {("page 1",)}
    _spans_index_text(doc)


def test_pdf_columns_drawn_line_by_line_across_the_page_still_read_column_by_column():
    """The content stream interleaves the columns (left line, right line, ...): layout analysis undoes it."""
    pytest.importorskip("reportlab", reason="reportlab (a test dependency) makes the PDF fixture")
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    for i in range(12):
        c.drawString(60, 700 - 14 * i, f"Apples line {i} grow in orchards")
        c.drawString(320, 700 - 14 * i, f"Boats line {i} float on water")
    c.showPage()
    c.save()
    text = extract("interleaved.pdf", buf.getvalue()).text
    assert text.rindex("Apples line 11") < text.index("Boats line 0")
    assert text.index("Apples line 0") < text.index("Apples line 1") < text.index("Apples line 11")


def test_pdf_sections_are_pages():
    pytest.importorskip("reportlab", reason="reportlab (a test dependency) makes the PDF fixture")
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    for page in (1, 2, 3):
        c.drawString(72, 800, "ACME Quarterly Report - Confidential")
        c.drawString(72, 600, f"This is the text of page number {page}.")
        c.drawString(72, 400, f"A second paragraph on page {page}.")
        c.drawString(280, 40, f"Page {page} of 3")
        c.showPage()
    c.save()
    doc = extract("three-pages.pdf", buf.getvalue())
    assert doc.title == "three-pages"  # reportlab's "(anonymous)" placeholder is not a title
    assert [s.heading for s in doc.sections] == [("page 1",), ("page 2",), ("page 3",)]
    assert _section_of(doc, "page number 2") == ("page 2",)
    assert "Confidential" not in doc.text and "of 3" not in doc.text  # running header and footer dropped
    _spans_index_text(doc)


def _draw_runs(c, x: float, y: float, lines: list[list[tuple[str, str]]]) -> None:
    """Lines of text on a reportlab canvas, each a list of (font, text) runs at 11 points."""
    text = c.beginText(x, y)
    for runs in lines:
        for font, run in runs:
            text.setFont(font, 11)
            text.textOut(run)
        text.textLine("")
    c.drawText(text)


def test_pdf_monospaced_text_is_code_inline_and_in_blocks():
    """A word set in Courier inside prose is inline code (a "literal" span, as HTML's <code>), and a box whose every
    line is monospaced is a code block with its lines and indentation (issue 39: code keeps its line breaks)."""
    pytest.importorskip("reportlab", reason="reportlab (a test dependency) makes the PDF fixture")
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    _draw_runs(c, 72, 720, [[("Times-Roman", "Call the "), ("Courier", "showPage"),
                             ("Times-Roman", " method of the canvas to end the current page and start another one.")]])
    c.setFont("Courier", 10)
    c.drawString(90, 600, "def hello(c):")
    c.drawString(90, 588, '    c.drawString(100, 100, "Hi")')  # indented as code listings set it: with spaces
    c.drawString(90, 576, "hello(canvas)")
    c.showPage()
    c.save()
    doc = extract("guide.pdf", buf.getvalue())
    literals = [doc.text[s.start:s.end] for s in doc.spans if s.kind == "literal"]
    assert "showPage" in literals and "Call the showPage method" in doc.text
    code = [doc.text[s.start:s.end] for s in doc.spans if s.kind == "code"]
    assert code == ['def hello(c):\n    c.drawString(100, 100, "Hi")\nhello(canvas)']
    _spans_index_text(doc)


@pytest.mark.parametrize("font, monospaced", [
    ("Courier-Bold", True), ("KFBIJV+NimbusMonL-Regu", True), ("VQLGWX+CMTT10", True), ("DejaVuSansMono", True),
    ("Times-Roman", False), ("UKVDRO+NimbusSanL-Regu", False), ("LUFLJB+CMR10", False), ("Helvetica", False),
])
def test_which_pdf_fonts_set_code(font, monospaced):
    from function.ingest.extract import _monospaced

    assert _monospaced(font) is monospaced


def test_pdf_listing_indented_by_position_is_one_code_block_and_a_table_of_code_stays_rows():
    """TeX draws a listing's indentation by position, not with spaces, and pdfminer then makes a box of each line
    (it joins lines whose edges align): the lines one under the other are one code block, their indentation taken
    from their places. Cells of code side by side in rows stay a table (each cell's text whole), and a line of prose
    that ends in code ends there (TeX's manuals end a displayed command so: records/bench/docs-pdf-listings)."""
    pytest.importorskip("reportlab", reason="reportlab (a test dependency) makes the PDF fixture")
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    c.setFont("Times-Roman", 11)
    c.drawString(72, 700, "The function below greets the canvas and then returns it to the caller for reuse.")
    c.setFont("Courier", 10)
    listing = [(0, "def hello(c):"), (4, "for i in range(3):"), (8, 'c.drawString(100, 100, "Hi")'), (4, "return c"),
               (0, "hello(canvas)")]
    for n, (indent, line) in enumerate(listing):
        c.drawString(90 + 6 * indent, 660 - 12 * n, line)  # Courier 10: 6 points a character
    _draw_runs(c, 72, 580, [[("Times-Roman", "Each option below is set in the typewriter font, its default beside it, "
                                            "as in "), ("Courier", "--depth")],
                            [("Times-Roman", "which names the depth.")]])
    c.setFont("Courier", 10)
    for n, (option, default) in enumerate([("--depth", "3"), ("--max-width", "80")]):  # edges unaligned: a box each
        c.drawString(90 + 30 * n, 550 - 12 * n, option)
        c.drawString(250 + 30 * n, 550 - 12 * n, default)
    c.save()
    doc = extract("guide.pdf", buf.getvalue())
    code = [doc.text[s.start:s.end] for s in doc.spans if s.kind == "code"]
    assert code == ['def hello(c):\n    for i in range(3):\n        c.drawString(100, 100, "Hi")\n    return c\n'
                    "hello(canvas)"]
    assert "--depth | 3\n\n--max-width | 80" in doc.text  # each row a paragraph, as any table's
    assert "beside it, as in --depth\nwhich names the depth." in doc.text  # the line ends with its code
    _spans_index_text(doc)


def test_pdf_table_whose_cells_wrap_is_read_row_by_row_and_an_option_list_is_not_a_table():
    """A table whose description cells wrap (FASTA's guide, Table 1; issue 39's audit, defect D2) comes from pdfminer
    as a box per cell, the wrapped ones of several lines, in its order column by column: it was read as a list of
    program names and then the descriptions with no names ("Which program calculates non-intersecting alignments?"
    was answered from the wrong description). Each row is one line, a wrapped cell's lines joined, an empty cell
    left out. An option list (a tag beside its wrapped text) is two columns, as a page of two columns is, and stays
    as it was read, each box its own paragraph, though its columns are the table's above it."""
    pytest.importorskip("reportlab", reason="reportlab (a test dependency) makes the PDF fixture")
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table

    body = getSampleStyleSheet()["Normal"]
    rows = [["Program", "Equivalent", "Description"],
            ["fasta36", "blastp", Paragraph("Compares a protein sequence to a protein sequence database using the "
                                            "FASTA algorithm, which is fast and selective.", body)],
            ["ssearch36", "", Paragraph("Compares a protein sequence to a database with the Smith-Waterman "
                                        "algorithm, slower but more sensitive.", body)],
            ["lalign36", "", Paragraph("Calculates multiple, non-intersecting alignments with the Waterman-Eggert "
                                       "algorithm, scoring shuffled sequences.", body)],
            ["fastx36", "blastx", Paragraph("Compares a DNA sequence to a protein sequence database, translating "
                                            "the DNA in three frames.", body)]]
    options = [["-T #", Paragraph("Sets the number of threads the search runs on; by default as many as the "
                                  "machine has processors, which suits most searches well.", body)],
               ["-z 1", Paragraph("Estimates the statistical significance from a weighted regression of the average "
                                  "score against the library sequence length.", body)]]
    buf = io.BytesIO()
    SimpleDocTemplate(buf).build([Paragraph("The programs of the package are these.", body), Spacer(1, 12),
                                  Table(rows, colWidths=[80, 70, 250]),
                                  Paragraph("Each program takes these options, among others.", body),
                                  Table(options, colWidths=[80, 320])])
    text = extract("guide.pdf", buf.getvalue()).text
    assert ("The programs of the package are these.\n\nProgram | Equivalent | Description\n\n"
            "fasta36 | blastp | Compares a protein sequence to a protein sequence database using the FASTA "
            "algorithm, which is fast and selective.\n\n") in text
    assert ("lalign36 | Calculates multiple, non-intersecting alignments with the Waterman-Eggert algorithm, "
            "scoring shuffled sequences.\n\nfastx36 | blastx | Compares a DNA sequence") in text
    listed = text[text.index("among others."):]
    assert "-T #" in listed and "Sets the number of threads" in listed and " | " not in listed  # no table's rows


def test_pdf_layout_does_not_depend_on_where_its_boxes_lie_in_memory(monkeypatch):
    """pdfminer breaks ties between equally distant pairs of text boxes by ``id``: three boxes in a row at equal
    gaps group (A B) C or A (B C) by their memory addresses, so a PDF read twice could read differently. Reversing
    the order of every address must not change how extraction's layout groups them."""
    import builtins

    pytest.importorskip("reportlab", reason="reportlab (a test dependency) makes the PDF fixture")
    from pdfminer.layout import LAParams, LTPage, LTTextBoxHorizontal, LTTextGroup
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    c.drawString(72, 700, "word")
    c.save()
    extract("one-word.pdf", buf.getvalue())  # extraction sets pdfminer's layout up

    def grouping():
        page = LTPage(1, (0, 0, 300, 100))
        boxes = []
        for name, x in zip("ABC", (10, 110, 210)):
            box = LTTextBoxHorizontal()
            box.set_bbox((x, 40, x + 80, 50))
            box.name = name
            boxes.append(box)

        def tree(obj):
            return tuple(tree(o) for o in obj) if isinstance(obj, LTTextGroup) else obj.name

        return [tree(group) for group in page.group_textboxes(LAParams(), boxes)]

    real_id = builtins.id
    first = grouping()
    monkeypatch.setattr(builtins, "id", lambda obj: -real_id(obj))
    assert grouping() == first and first in ([(("A", "B"), "C")], [("A", ("B", "C"))])


@pytest.mark.parametrize("name, data, message", [
    ("latin1.txt", "caf\xe9".encode("latin-1"), "latin1.txt: not UTF-8"),
    ("empty.md", b"  \n\n ", "empty.md: no text"),
    ("broken.pdf", b"%PDF-1.4 this is not really a pdf", "broken.pdf: not a readable PDF"),
    ("nav-only.html", b"<html><body><nav><a href='/'>Home</a></nav></body></html>", "nav-only.html: no (main )?text"),
    ("slides.pptx", b"PK\x03\x04", "slides.pptx: unsupported file type"),
])
def test_unreadable_input_is_an_extract_error_naming_the_file(name, data, message):
    with pytest.raises(ExtractError, match=message):
        extract(name, data)
    assert issubclass(ExtractError, ValueError)


def _encrypted_pdf(user_password: str) -> bytes:
    pytest.importorskip("reportlab", reason="reportlab (a test dependency) makes the PDF fixture")
    from reportlab.lib.pdfencrypt import StandardEncryption
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, encrypt=StandardEncryption(user_password, "owner", canPrint=0, canCopy=0, strength=128))
    c.drawString(72, 720, "Widgets spin at 40 rpm.")
    c.showPage()
    c.save()
    return buf.getvalue()


def test_an_encrypted_pdf_says_it_needs_its_password_and_one_with_an_owner_password_alone_is_read():
    """A PDF with a user password said "not a readable PDF (PDFPasswordIncorrect: )": now it says why and what to do.
    One locked by an owner password alone (no printing, no copying) opens without one, and is read."""
    with pytest.raises(ExtractError) as e:
        extract("guide/locked file.pdf", _encrypted_pdf("secret"))
    assert str(e.value) == ("guide/locked file.pdf: the PDF is encrypted and needs its password to be opened: decrypt "
                            "it first (qpdf --password=PASSWORD --decrypt 'guide/locked file.pdf' unlocked.pdf) and "
                            "ingest that")
    assert "Widgets spin at 40 rpm." in extract("printless.pdf", _encrypted_pdf("")).text
    unknown = _encrypted_pdf("").replace(b"/V 2", b"/V 9", 1)  # an encryption algorithm pdfminer does not know
    with pytest.raises(ExtractError, match=r"^odd\.pdf: the PDF is encrypted in a way this reader cannot decrypt "
                                           r"\(Unknown algorithm\): decrypt it first \(qpdf --decrypt odd\.pdf"):
        extract("odd.pdf", unknown)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
@pytest.mark.parametrize("name", ["notes.txt", "README.md", "guide.rst"])
def test_text_with_a_utf16_or_utf32_byte_order_mark_reads_as_its_utf8_twin(codec, name):
    # Windows PowerShell 5's ">" and Notepad's "Unicode" write UTF-16 LE with its mark: the same document as UTF-8
    source = "Caf\u00e9 setup\n=========\n\nRun ``make install`` to install the caf\u00e9 tools.\n"
    bom = "\ufeff".encode(codec)
    got, want = extract(name, bom + source.encode(codec)), extract(name, source.encode("utf-8"))
    assert got.text == want.text and got.title == want.title and got.sections == want.sections
    assert "caf\u00e9 tools" in got.text


PROSE = ("The widget server listens on port 8765 by default and reads its configuration file, widget.conf, when it "
         "starts; a SIGHUP makes it read the file again without dropping the connections it holds.")


def test_hard_wrapped_plain_text_reads_as_paragraphs_and_keeps_its_code_lists_and_tables():
    import textwrap

    item = "the first item is long enough to wrap onto a second line of the list, as list items in READMEs do"
    readme = ("Widgets\n=======\n\n" + textwrap.fill(PROSE, 72) + "\n\nInstall it with:\n\n"
              "    pip install --upgrade widgets-server-with-a-rather-long-name-for-wrapping\n"
              "    widgets-server --port 8765 --config /etc/widgets/widget.conf --verbose\n\n"
              "Options:\n\n  -p, --port     the port to listen on (default 8765)\n  -c, --config   the file\n\n"
              + textwrap.fill(item, 72, initial_indent="- ", subsequent_indent="  ") + "\n- a short item\n\n"
              "Widgets Inc.\n12 Main Street\nSpringfield\n")
    text = extract("README.txt", readme.encode()).text
    assert PROSE in text and "- " + item + "\n- a short item" in text
    assert ("pip install --upgrade widgets-server-with-a-rather-long-name-for-wrapping\nwidgets-server --port 8765"
            in text)  # code, indented deeper than the prose: its lines stay lines
    assert "-p, --port the port to listen on (default 8765)\n-c, --config the file" in text  # aligned columns
    assert "Widgets Inc.\n12 Main Street\nSpringfield" in text  # short lines
    rfc = "1.  Introduction\n\n" + textwrap.fill(PROSE, 72, initial_indent="   ", subsequent_indent="   ") + (
        "\n\n      +--------+      +--------+\n      | client | ---> | server |\n      +--------+      +--------+\n")
    text = extract("rfc.txt", rfc.encode()).text
    assert PROSE in text and "+--------+ +--------+\n| client | ---> | server |" in text
    one_a_line = "Notes\n\n" + PROSE + "\n" + PROSE.upper() + "\n"  # not wrapped: each line its own
    assert extract("notes.txt", one_a_line.encode()).text == "Notes\n\n" + PROSE + "\n" + PROSE.upper()


def test_a_texinfo_index_node_is_left_out_as_navigation():
    """GNU m4's Concept-index.html: its index table is furniture, so the page became one passage of its heading alone
    ("Concept index"); an index node with text of its own (m4's "Index for all m4 macros") is read as before."""
    from function.ingest.extract import NotDocumentation

    rows = "".join(f'<tr><td></td><td><a href="Dnl.html#index-{w}">{w}</a></td><td><a href="Dnl.html">8.1 Dnl</a>'
                   f'</td></tr>' for w in ("comments", "discarding input", "newline"))
    page = ('<html><head><title>Concept index (GNU M4)</title><meta name="Generator" content="makeinfo"></head><body>'
            '<div class="header"><p>Previous: <a href="Macro-index.html">Macro index</a></p></div>'
            f'<h3 class="appendixsec">C.2 Index for many concepts</h3><table class="index-cp">{rows}</table>'
            '</body></html>')
    with pytest.raises(NotDocumentation, match="a Texinfo index page"):
        extract("Concept-index.html", page.encode())
    prose = "<p>" + "This index covers all m4 builtins, as well as several useful composite macros. " * 6 + "</p>"
    own = page.replace('<table class="index-cp">', prose + '<table class="index-cp">')
    assert "This index covers all m4 builtins" in extract("Macro-index.html", own.encode()).text


def test_tabbed_content_reads_each_tab_s_label_over_its_panel():
    """sphinx-tabs (click's shell completion page): the buttons' labels ran together ("BashZshFish") and no panel
    said which shell it was for. javadoc's tab list filters one table: left as it was."""
    tabs = "".join(f'<button role="tab" id="tab-{n}" aria-controls="panel-{n}">{n}</button>' for n in ("Bash", "Zsh"))
    panels = "".join(f'<div role="tabpanel" id="panel-{n}" aria-labelledby="tab-{n}"><p>Add this to ~/.{n.lower()}rc:'
                     f'</p><pre>eval "$(_FOO_COMPLETE={n.lower()}_source foo)"</pre></div>' for n in ("Bash", "Zsh"))
    page = (f"<html><body><main><h1>Shell Completion</h1><p>Register the completion script with your shell.</p>"
            f"<div role='tablist'>{tabs}</div>{panels}</main></body></html>")
    text = extract("shell-completion.html", page.encode()).text
    assert "BashZsh" not in text
    assert "Bash\n\nAdd this to ~/.bashrc:" in text and "Zsh\n\nAdd this to ~/.zshrc:" in text
    one = ("<html><body><main><h1>ClassUtils</h1><p>Operates on classes without using reflection.</p>"
           "<div role='tablist'><button role='tab' id='t0' aria-controls='p'>All Methods</button>"
           "<button role='tab' id='t1' aria-controls='p'>Static Methods</button></div>"
           "<div role='tabpanel' id='p' aria-labelledby='t0'><p>getName(Class cls) gets the class name.</p></div>"
           "</main></body></html>")
    from function.ingest import extract as module

    assert not module.label_tab_panels(module.require("lxml.html").document_fromstring(one))


def _justify(words: str, width: int, indent: int, tag: str = "") -> list[str]:
    """nroff's output: lines filled to ``width`` columns, spaces added between words (the last line left ragged)."""
    import textwrap

    lines = textwrap.wrap(words, width - indent)
    out = []
    for n, line in enumerate(lines):
        gaps = line.split(" ")
        if n < len(lines) - 1:
            extra = width - indent - len(line)
            for i in range(extra):
                gaps[i % (len(gaps) - 1)] += " "
        out.append(" " * indent + " ".join(gaps))
    if tag:  # the first line hangs after the option's tag, at the tag's own indentation
        out[0] = (" " * (indent - 7) + tag).ljust(indent) + out[0].strip()
    return out


def test_a_manual_page_saved_as_text_has_its_justified_paragraphs_joined():
    """``man ls > ls.txt`` titled every passage with its running header ("LS(1)   User Commands   LS(1)"), never
    its sections (DESCRIPTION, OPTIONS), and justifies every paragraph (words spaced out to the margin) at two
    indentations, and hangs an option's text after its tag: none of it was joined (the spaced-out words read as
    aligned columns), and a word groff broke at the margin with its hyphen (U+2010) stayed in two pieces."""
    prose = ("List information about the FILEs (the current directory by default). Sort entries alphabetically if "
             "none of the sort options nor the sort option is given, which is the way most people use it")
    option = ("with -lt: sort by, and show, ctime (time of last modification of file status information); with -l: "
              "show ctime and sort by name; otherwise: sort by ctime, newest first")
    deeper = ("print C-style escapes for nongraphic characters, which makes file names that hold newlines or other "
              "control characters safe to paste back into a shell")
    hyphenated = "The widget that the options below act on is the one the user has"
    page = ["LS(1)                            User Commands                           LS(1)", "", "DESCRIPTION",
            *_justify(prose, 78, 7), "", *_justify(option, 78, 14, tag="-c"), "", "       -b, --escape",
            *_justify(deeper, 78, 14), "", *_justify(f"{hyphenated} speci\u2010 {'x' * 60}", 78, 7)[:-1],
            "       fied.", "",
            "       Table   Size   Meaning of the column in the table",
            "       a       1      one of the rows of a table whose columns are aligned", ""]
    doc = extract("ls.1.txt", "\n".join(page + ["GNU coreutils 9.1               September 2022"
                                                 "                           LS(1)"]).encode())
    text = doc.text
    assert doc.title == "LS(1)" and {s.heading for s in doc.sections} == {("DESCRIPTION",)}  # not the header line
    assert "User Commands" not in text and "September 2022" not in text  # the running header and footer
    assert prose in text and "-c\n" + option in text and "-b, --escape\n" + deeper in text
    assert hyphenated + " specified." in text
    assert "Table Size Meaning of the column in the table\na 1" in text  # a table's rows stay rows


def test_a_manual_page_s_short_tag_is_over_its_text_as_a_wide_one_is():
    """groff sets a tagged paragraph's text on the tag's line when the tag is narrower than the indentation ("-S
    sort by file size") and under it when it is wider ("-s, --size" over "print the allocated size"): the short ones
    were read as one sentence, "-S sort by file size, largest first", and "Which ls option sorts by file size?" was
    answered with the option beside it. A bullet's item, a sentence's two spaces and a table's row stay as they are."""
    page = ["LS(1)                            User Commands                           LS(1)", "", "OPTIONS",
            "       -s, --size", "              print the allocated size of each file, in blocks", "",
            "       -S     sort by file size, largest first", "",
            "       %%     a literal %", "",
            "       \u2022      Run file on every file in or below the current directory.", "",
            "       Sort it.      Then print it with the rest of the lines that it has.", "",
            "       Table  Size   Meaning", "       a      1      one of the rows of a table", "",
            "GNU coreutils 9.1               September 2022                           LS(1)"]
    text = extract("ls.1.txt", "\n".join(page).encode()).text
    assert "-s, --size\nprint the allocated size" in text
    assert "-S\nsort by file size, largest first" in text and "%%\na literal %" in text
    assert "\u2022 Run file on every file" in text and "Sort it. Then print it" in text
    assert "Table Size Meaning\na 1 one of the rows" in text


def test_text_paged_with_form_feeds_loses_its_running_headers_and_footers_only():
    # an RFC as published in text: each page headed "RFC 9999 ... May 2026", footed "Doe ... [Page N]"
    head = "RFC 9999                    Widgets                    May 2026"
    pages = ["Internet Engineering Task Force (IETF)                  J. Doe\nRequest for Comments: 9999\n\n"
             "                       The Widget Protocol\n\n1.  Introduction\n\n   Widgets listen on port 8765 by\n"
             "   default.\n\n\nDoe                      Standards Track                    [Page 1]\n"]
    for n in range(2, 5):
        pages.append(f"{head}\n\n{n}.  Part {n}\n\n   Part {n} of the widget protocol sends\n   frames.\n\n\n"
                     f"Doe                      Standards Track                    [Page {n}]\n")
    doc = extract("rfc9999.txt", "\f\n".join(pages).encode())
    assert "Standards Track" not in doc.text and "May 2026" not in doc.text and "\f" not in doc.text
    assert "Internet Engineering Task Force (IETF) J. Doe" in doc.text  # the first page's own head stays
    assert "Widgets listen on port 8765 by default.\n\n2. Part 2" in doc.text and doc.text.endswith("frames.")
    lone = "Intro\n\nText one.\f\nMore text.\n"  # a form feed without running lines: only the page break goes
    assert extract("a.txt", lone.encode()).text == "Intro\n\nText one.\n\nMore text."


def test_a_manual_page_saved_with_nroffs_overstrikes_reads_as_a_terminal_shows_it():
    # "man ls > ls.txt" with MAN_KEEP_FORMATTING, or nroff's own output: bold is "X\bX", underline "_\bX"
    page = ("N\bNA\bAM\bME\bE\n       ls - list directory contents\n\nS\bSY\bYN\bNO\bOP\bPS\bSI\bIS\bS\n"
            "       l\bls\bs [_\bO_\bP_\bT_\bI_\bO_\bN]... [_\bF_\bI_\bL_\bE]...\n\n"
            "       -\b-a\ba, -\b--\b-a\bal\bll\bl\n"
            "              do not ignore entries starting with .\n")
    doc = extract("ls.1.txt", page.encode())
    assert doc.title == "NAME" and "\b" not in doc.text
    assert "ls [OPTION]... [FILE]..." in doc.text and "-a, --all\ndo not ignore entries starting with ." in doc.text
    assert extract("plain.txt", b"Nothing struck\n\nhere.").text == "Nothing struck\n\nhere."


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le"])
@pytest.mark.parametrize("page", [
    "<html><head><title>Widgets</title></head><body><main><h1>Widget server</h1><p>The widget server listens on "
    "port 8765 by default and reads widget.conf at start.</p></main></body></html>",
    '<?xml version="1.0" encoding="UTF-16"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>Widget server</h1>'
    "<p>The widget server listens on port 8765 by default and reads widget.conf at start.</p></body></html>",
    "<h1>Widget server</h1><p>The widget server listens on port 8765 by default and reads widget.conf at start.</p>",
], ids=["page", "xhtml", "fragment"])
def test_an_html_page_with_a_utf16_or_utf32_byte_order_mark_reads_as_its_utf8_twin(codec, page):
    # the mark had reached the text as two replacement characters, and a fragment was read as UTF-8
    got, want = extract("a.html", "\ufeff".encode(codec) + page.encode(codec)), extract("a.html", page.encode())
    assert got.text == want.text and got.title == want.title == "Widget server"
    assert "\ufffd" not in got.text and "port 8765 by default" in got.text


@pytest.mark.parametrize("name, data, message", [
    ("odd.md", b"\xff\xfeabc", r"odd.md: starts with a UTF-16 byte-order mark but is not UTF-16 text"),
    ("lone.txt", "\ufeff".encode("utf-16-le") + "\ud800".encode("utf-16-le", "surrogatepass"),
     r"lone.txt: starts with a UTF-16 byte-order mark but is not UTF-16 text \(byte 2 cannot be decoded\)"),
])
def test_a_byte_order_mark_over_bytes_of_another_encoding_is_an_extract_error_naming_the_file(name, data, message):
    with pytest.raises(ExtractError, match=message):
        extract(name, data)


def test_normalise_block_keeps_lines_but_no_blank_ones():
    assert normalise_block(" a  b \n\n\n c\u00a0\u00a0d\u2028e ") == "a b\nc d e"


def _draw_with_rules(c, x: float, y: float, parts: list[tuple[str, str]], filled: bool = False) -> None:
    """One line of (font, text) runs at 11 points as LaTeX draws ``\\_`` in its default fonts, typewriter ones too:
    each "_" a rule 0.3 em wide on the baseline after a kern of 0.06 em, not a glyph; a filled rectangle (pdfTeX's
    rules) where ``filled``, else a stroked line (dvips')."""
    em = 11
    for font, text in parts:
        for piece in re.split("(_)", text):
            if piece == "_":
                x += 0.06 * em
                if filled:
                    c.rect(x, y, 0.3 * em, 0.4, stroke=0, fill=1)
                else:
                    c.setLineWidth(0.4)
                    c.line(x, y + 0.2, x + 0.3 * em, y + 0.2)
                x += 0.3 * em
            elif piece:
                c.setFont(font, em)
                c.drawString(x, y, piece)
                x += c.stringWidth(piece, font, em)


def test_pdf_underscores_drawn_as_rules_are_underscores_and_underlines_are_not():
    """LaTeX draws ``\\_`` as a rule on the baseline, not a glyph, and pdfminer read the gap as a space: "map_db"
    came out "map db" (FASTA's guide: 188 times). A rule as wide as a character, on the baseline, under no
    character and touching one is "_"; a word space beside it stays ("the suffix _e"). A rule under a word or a
    letter (an underline, even one as short as an underscore), and a rule with a stroke at each end (TeX's visible
    space) are no underscores."""
    pytest.importorskip("reportlab", reason="reportlab (a test dependency) makes the PDF fixture")
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    _draw_with_rules(c, 72, 700, [("Times-Roman", "Index the library with map_db before searching it.")], filled=True)
    _draw_with_rules(c, 72, 686, [("Times-Roman", "Call "), ("Courier", "__init__"),
                                  ("Times-Roman", " once; scripts whose names end in the suffix "), ("Courier", "_e")])
    c.setFont("Times-Roman", 11)
    c.drawString(72, 672, "Read the underlined warning and press x to quit.")
    start = 72 + c.stringWidth("Read the ", "Times-Roman", 11)
    c.setLineWidth(0.4)
    c.line(start, 672.2, start + c.stringWidth("underlined", "Times-Roman", 11), 672.2)  # a word's underline
    x = 72 + c.stringWidth("Read the underlined warning and press x to ", "Times-Roman", 11)
    c.line(x, 672.2, x + c.stringWidth("q", "Times-Roman", 11), 672.2)  # a menu key's, as short as an underscore
    c.drawString(72, 658, "A space (   ) separates the format from the name.")
    x = 72 + c.stringWidth("A space (", "Times-Roman", 11) + 1
    c.line(x, 658.2, x + 3.3, 658.2)  # TeX's visible space: a rule with a stroke up at each end
    c.line(x, 658.2, x, 660)
    c.line(x + 3.3, 658.2, x + 3.3, 660)
    c.save()
    doc = extract("guide.pdf", buf.getvalue())
    text = " ".join(doc.text.split())
    assert "Index the library with map_db before searching it." in text
    assert "Call __init__ once; scripts whose names end in the suffix _e" in text
    assert "Read the underlined warning and press x to quit." in text
    assert "A space ( ) separates the format" in text and text.count("_") == 6
    _spans_index_text(doc)


def test_pdf_ligatures_are_unfolded():
    from function.ingest.extract import _LIGATURES

    assert "o\ufb03ce \ufb01gures".translate(_LIGATURES) == "office figures"


def test_a_missing_ingestion_dependency_says_how_to_install_it():
    with pytest.raises(ModuleNotFoundError, match="pip install -r requirements-ingest.txt"):
        require("no_such_ingestion_library")


# ---------------------------------------------------------------- documentation's structure (issue 39)

# Marks a reader must never see: Sphinx's pilcrow, the section sign, the link emoji.
_MARKS = ("\u00b6", "\u00a7", "\U0001f517")

# A Sphinx API page as Sphinx 5-7 writes it (no generator meta: its a.headerlink tells it apart).
SPHINX = """<!DOCTYPE html><html><head><title>Widgets API &#8212; Widgets 2.0 documentation</title></head><body>
<div class="related" role="navigation"><ul><li><a href="index.html">RELATEDNOISE</a></li></ul></div>
<div class="document"><div class="bodywrapper"><div class="body" role="main">
<section id="widgets-api"><h1>Widgets API<a class="headerlink" href="#widgets-api"
title="Permalink to this heading">¶</a></h1>
<p>Functions and classes for mounting widgets.</p>
<section id="mounting"><h2>Mounting<a class="headerlink" href="#mounting"
title="Permalink to this heading">¶</a></h2>
<dl class="py function">
<dt class="sig sig-object py" id="widgets.mount">
<span class="sig-prename descclassname"><span class="pre">widgets.</span></span><span
class="sig-name descname"><span class="pre">mount</span></span><span class="sig-paren">(</span><em
class="sig-param"><span class="n"><span class="pre">widget</span></span></em>, <em
class="sig-param"><span class="n"><span class="pre">screws</span></span><span class="o"><span
class="pre">=</span></span><span class="default_value"><span class="pre">4</span></span></em><span
class="sig-paren">)</span><a class="reference internal" href="_modules/widgets.html#mount"><span
class="viewcode-link"><span class="pre">[source]</span></span></a><a class="headerlink"
href="#widgets.mount" title="Permalink to this definition">¶</a></dt>
<dd><p>Mount a widget on a flat surface
with the given number of screws.</p>
<div class="highlight-python notranslate"><div class="highlight"><pre><span></span><span
class="k">def</span> <span class="nf">mount</span><span class="p">(</span><span
class="n">widget</span><span class="p">):</span>
    <span class="k">if</span> <span class="n">widget</span><span class="p">:</span>
        <span class="k">return</span> <span class="n">widget</span><span class="o">.</span><span
class="n">screws</span>
</pre></div></div>
<div class="admonition note"><p class="admonition-title">Note</p>
<p>Plastic anchors need two more screws.</p></div>
<dl class="field-list simple">
<dt class="field-odd">Parameters<span class="colon">:</span></dt>
<dd class="field-odd"><ul class="simple">
<li><p><strong>widget</strong> – the widget to mount.</p></li>
<li><p><strong>screws</strong> – how many screws to use. Defaults to 4.</p></li>
</ul></dd>
<dt class="field-even">Returns<span class="colon">:</span></dt>
<dd class="field-even"><p>The number of screws left over.</p></dd>
</dl>
</dd></dl>
<dl class="py class">
<dt class="sig sig-object py" id="widgets.Widget"><em class="property"><span
class="pre">class</span> </em><span class="sig-prename descclassname"><span
class="pre">widgets.</span></span><span class="sig-name descname"><span
class="pre">Widget</span></span><a class="headerlink" href="#widgets.Widget"
title="Permalink to this definition">¶</a></dt>
<dd><p>A small device that turns rotation into motion.</p>
<dl class="py method">
<dt class="sig sig-object py" id="widgets.Widget.spin"><span class="sig-name descname"><span
class="pre">spin</span></span><span class="sig-paren">(</span><span class="sig-paren">)</span><a
class="headerlink" href="#widgets.Widget.spin" title="Permalink to this definition">¶</a></dt>
<dd><p>Turn the widget once.</p></dd></dl>
</dd></dl>
</section></section>
</div></div></div>
<div class="sphinxsidebar" role="navigation"><h3>Navigation</h3><ul><li>SIDEBARNOISE</li></ul></div>
<div class="footer">&#169;2024 FOOTERNOISE</div></body></html>""".encode()


def _span(doc: Document, kind: str, needle: str):
    """The innermost span of ``kind`` holding ``needle``."""
    at = doc.text.index(needle)
    found = [s for s in doc.spans if s.kind == kind and s.start <= at < s.end]
    return min(found, key=lambda s: s.end - s.start)


def test_sphinx_entries_are_one_unit_with_the_signature_first_and_code_keeps_its_indentation():
    doc = extract("api/widgets.html", SPHINX)
    text = doc.text
    assert doc.title == "Widgets API"
    for noise in (*_MARKS, "[source]", "RELATEDNOISE", "SIDEBARNOISE", "FOOTERNOISE", "Navigation"):
        assert noise not in text, noise
    assert all(m not in h for s in doc.sections for h in s.heading for m in _MARKS)
    # the signature is the entry's first line, its description the next (not two "- " list lines)
    assert "widgets.mount(widget, screws=4)\nMount a widget on a flat surface with the given number of screws." in text
    entry = _span(doc, "entry", "Mount a widget")
    assert entry.name == "widgets.mount" and text[entry.start:].startswith("widgets.mount(")
    assert "Turn the widget once" not in text[entry.start:entry.end]  # the next entry is not in this one
    for inside in ("return widget.screws", "Plastic anchors", "Defaults to 4", "screws left over"):
        assert entry.start < text.index(inside) < entry.end, inside
    # code: line breaks and indentation kept, and recorded as a code span
    assert "def mount(widget):\n    if widget:\n        return widget.screws" in text
    code = _span(doc, "code", "def mount")
    assert text[code.start:code.end].endswith("return widget.screws")
    # an admonition's title leads its paragraph; it is not a heading
    assert "Note: Plastic anchors need two more screws." in text
    assert _section_of(doc, "Plastic anchors") == ("Widgets API", "Mounting")
    # field lists are part of their entry and name nothing of their own
    assert "Parameters:\n- widget – the widget to mount.\n- screws – how many screws to use. Defaults to 4." in text
    assert _span(doc, "entry", "how many screws").name == ""
    # nested entries: a method inside its class
    method = _span(doc, "entry", "Turn the widget once")
    klass = next(s for s in doc.spans if s.name == "widgets.Widget")
    assert method.name == "widgets.Widget.spin" and klass.start < method.start < method.end <= klass.end
    assert "class widgets.Widget\nA small device" in text
    _spans_index_text(doc)


# DocBook XSL's reference page (a PostgreSQL-like command page, written here): refsect1 sections with h2
# headings, a variablelist of options, and admonitions whose h3.title must not become the section.
DOCBOOK = b"""<html><head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">
<title>widgetd</title><meta name="generator" content="DocBook XSL Stylesheets V1.79.2"></head><body>
<div
class="navheader"><table width="100%" summary="Navigation header"><tr><th colspan="3" align="center">NAVNOISE</th></tr>
<tr><td><a accesskey="p" href="prev.html">Prev</a></td></tr></table><hr></div>
<div class="refentry" id="app-widgetd"><div class="titlepage"></div>
<div class="refnamediv"><h2><span
class="refentrytitle">widgetd</span></h2><p>widgetd &#8212; run the widget server</p></div>
<div class="refsect1" id="id-1"><h2>Description</h2><p>widgetd serves widgets over the network.</p>
<div class="tip"><h3 class="title">Tip</h3><p>Run it under a service manager.</p></div></div>
<div class="refsect1" id="id-2"><h2>Options</h2>
<div class="variablelist"><dl class="variablelist">
<dt><span class="term"><code class="option">-p <em
class="replaceable"><code>port</code></em></code><br></span>
<span class="term"><code class="option">--port=<em
class="replaceable"><code>port</code></em></code></span></dt>
<dd><p>The TCP port to listen on. It defaults to 5433.</p>
<div class="note"><h3 class="title">Note</h3><p>Ports below 1024 need privileges.</p></div></dd>
<dt><span class="term"><code class="option">-c <em
class="replaceable"><code>size</code></em></code></span></dt>
<dd><p>The cache size. It defaults to 64 megabytes.</p></dd>
</dl></div></div>
<div class="refsect1" id="id-3"><h2>Examples</h2><pre class="screen">$ widgetd -p 6000
    listening on 6000</pre></div>
</div>
<div class="navfooter"><hr><table><tr><td>FOOTNOISE</td></tr></table></div></body></html>"""


def test_docbook_sections_come_from_their_headings_not_from_admonitions():
    doc = extract("ref/widgetd.html", DOCBOOK)
    text = doc.text
    assert doc.title == "widgetd"
    assert "NAVNOISE" not in text and "FOOTNOISE" not in text and "Prev" not in text
    headings = {h for s in doc.sections for h in s.heading}
    assert {"Description", "Options", "Examples"} <= headings and not headings & {"Note", "Tip"}
    assert _section_of(doc, "Run it under") == ("Description",)  # refnamediv h2 is a level-2 heading too
    assert "Tip: Run it under a service manager." in text
    assert _section_of(doc, "Ports below 1024") == ("Options",)
    # a variablelist entry: its terms on the first line, its description (and its note) after it
    assert "-p port, --port=port\nThe TCP port to listen on. It defaults to 5433." in text
    port = _span(doc, "entry", "It defaults to 5433")
    assert port.start < text.index("Note: Ports below 1024") < port.end
    assert "64 megabytes" not in text[port.start:port.end]
    assert _span(doc, "entry", "64 megabytes").name == "-c size"
    assert "$ widgetd -p 6000\n    listening on 6000" in text
    _spans_index_text(doc)


def test_a_docbook_segmentedlist_item_is_one_entry_named_by_its_first_segment():
    """aptitude's configuration reference is a segmentedlist, "Option: / Default: / Description:" per option: each
    segment was a paragraph of its own, so a passage held two options and their defaults, titled by neither, and the
    reader answered one option's default question with its neighbour's."""
    item = ('<div class="seglistitem"><a id="x{n}"></a><div class="seg"><strong><span class="segtitle">Option: '
            '</span></strong><code class="literal">Aptitude::{name}</code></div><div class="seg"><strong><span '
            'class="segtitle">Default: </span></strong><code class="literal">{default}</code></div><div class="seg">'
            '<strong><span class="segtitle">Description: </span></strong><p>If this option is set, {what}.</p></div>'
            '</div>')
    items = "".join(item.format(n=n, name=name, default=default, what=what) for n, (name, default, what) in enumerate(
        [("Auto-Fix-Broken", "true", "broken packages are fixed"), ("CmdLine::Fix-Broken", "false", "it fixes")]))
    page = (b'<html><head><title>Configuration options</title><meta name="generator" content="DocBook XSL '
            b'Stylesheets V1.79.1"></head><body><div class="section"><h3 class="title">Available options</h3>'
            b'<p>These options are read.</p><div class="segmentedlist">' + items.encode()
            + b'</div></div></body></html>')
    doc = extract("options.html", page)
    fix = _span(doc, "entry", "broken packages are fixed")
    assert fix.name == "Aptitude::Auto-Fix-Broken"
    assert doc.text[fix.start:fix.end].startswith("Option: Aptitude::Auto-Fix-Broken\nDefault: true")
    assert "Fix-Broken\nDefault: false" not in doc.text[fix.start:fix.end]
    assert _span(doc, "entry", "it fixes").name == "Aptitude::CmdLine::Fix-Broken"
    _spans_index_text(doc)


def test_docbook_dsssl_pages_upper_case_classes_are_read_as_docbook_xsl_ones():
    """The "Modular DocBook HTML Stylesheet" (DSSSL) of older manuals writes upper-case tags and class names
    (CLASS="NAVHEADER", CLASS="NOTE"); browsers match them case-insensitively (HTML 4, quirks mode)."""
    html = b"""<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN"><HTML><HEAD><TITLE>Event Tuning</TITLE>
<META NAME="GENERATOR" CONTENT="Modular DocBook HTML Stylesheet Version 1.79"></HEAD><BODY CLASS="SECT1">
<DIV CLASS="NAVHEADER"><TABLE SUMMARY="Header navigation table"><TR><TH>NAVNOISE</TH></TR>
<TR><TD><A HREF="prev.html">Prev</A></TD><TD>Fast Backward</TD></TR></TABLE><HR></DIV>
<DIV CLASS="SECT1"><H1 CLASS="SECT1"><A NAME="EVENTS">4. Event Tuning</A></H1>
<DIV CLASS="TOC"><DL><DT><B>Table of Contents</B></DT><DT>4.1. <A HREF="#X">TOCNOISE</A></DT></DL></DIV>
<DIV CLASS="VARIABLELIST"><DL><DT><CODE CLASS="VARNAME">sync_interval</CODE> (<CODE CLASS="TYPE">integer</CODE>)</DT>
<DD><P>Check for updates at least this often in milliseconds. Range: [10-60000], default 2000</P>
<DIV CLASS="NOTE"><BLOCKQUOTE CLASS="NOTE"><P><B>Note: </B>Only origin nodes need it.</P></BLOCKQUOTE></DIV></DD>
</DL></DIV></DIV>
<DIV CLASS="NAVFOOTER"><HR><TABLE SUMMARY="Footer navigation table"><TR><TD>FOOTNOISE</TD></TR></TABLE></DIV>
</BODY></HTML>"""
    doc = extract("slon-config-interval.html", html)
    text = doc.text
    assert not any(noise in text for noise in ("NAVNOISE", "Fast Backward", "TOCNOISE", "FOOTNOISE"))
    assert "sync_interval (integer)\nCheck for updates at least this often in milliseconds." in text
    assert _span(doc, "entry", "default 2000").name == "sync_interval (integer)"
    assert "Note: Only origin nodes need it." in text
    assert _section_of(doc, "default 2000") == ("4. Event Tuning",)
    _spans_index_text(doc)


# DocBook XSL's chunked pages with html.longdesc (aptitude's manual): a screenshot with its "[D]" link to a page of
# its own holding the figure's long description (ld-idmNNN.html), and that page
DOCBOOK_FIGURE = b"""<?xml version="1.0" encoding="utf-8" standalone="no"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Widget basics</title><meta name="generator"
content="DocBook XSL Stylesheets Vsnapshot" /></head><body><div class="navheader"><table><tr><th>NAVNOISE</th></tr>
</table></div><div class="section"><div class="titlepage"><div><div><h3 class="title"><a id="idm261"></a>Widget
basics</h3></div></div></div><p>Once the cache is loaded, the main screen should appear:</p><div class="screenshot">
<div class="mediaobject"><table border="0" summary="manufactured viewport for HTML img"><tr><td><img
src="images/start.png" alt="[main screen]" /></td></tr></table><div class="longdesc-link" align="right"><br
clear="all" /><span class="longdesc-link">[<a href="ld-idm272.html" target="longdesc">D</a>]</span></div></div></div>
<p>The screen is divided into several regions.</p></div></body></html>"""
DOCBOOK_LONGDESC = b"""<?xml version="1.0" encoding="utf-8" standalone="no"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"
/><title>Long Description</title><meta name="generator" content="DocBook XSL Stylesheets Vsnapshot" /></head><body><pre
class="screen"> Actions  Undo  Package  Search  Options  Views  Help
--- Installed Packages
--- Not Installed Packages
</pre></body></html>"""


def test_docbook_long_description_pages_are_left_out_and_their_d_links_dropped():
    """DocBook XSL writes a page per figure's long description, titled "Long Description" with no heading and no
    navigation (aptitude's manual: 33 screen dumps, 10% of its store, all titled so), and a "[D]" link to it under the
    figure: the page is a generated one, left out, and the link's text is dropped from the figure's page."""
    from function.ingest.extract import NotDocumentation

    with pytest.raises(NotDocumentation, match="ld-idm272.html: a DocBook long description page"):
        extract("ld-idm272.html", DOCBOOK_LONGDESC)
    doc = extract("ch01s01s01.html", DOCBOOK_FIGURE)
    assert doc.title == "Widget basics" and "NAVNOISE" not in doc.text
    assert "should appear:\n\nThe screen is divided" in doc.text and "[D]" not in doc.text
    # a chapter of its own titled so is documentation: it has its heading (and navigation)
    chapter = DOCBOOK_FIGURE.replace(b"<title>Widget basics", b"<title>Long Description")
    assert "The screen is divided" in extract("ch02.html", chapter).text


def test_docbook_reference_entries_in_one_page_are_headed_by_their_names():
    """PostGIS's manual: a section of refentries whose headings ("Name", "Synopsis", "Description") are at the
    section's own level; each entry is headed by its name, under its section, with its headings below it."""
    entry = """<div class="refentry"><div class="refentry.separator"><hr></div><a name="{0}"></a>
<div class="titlepage"></div><div class="refnamediv"><h2>Name</h2><p>{0} &#8212; {1}</p></div>
<div class="refsynopsisdiv"><h2>Synopsis</h2><div class="funcsynopsis"><p><code class="funcdef">float
<b class="fsfunc">{0}</b>(</code>geometry g1<code>)</code>;</p></div></div>
<div class="refsection"><h2>Description</h2><p>{2}</p></div>
<div class="refsection"><h2>See Also</h2><p>ST_Perimeter</p></div></div>"""
    html = ("""<html><head><meta name="generator" content="DocBook XSL Stylesheets V1.79.1"><title>Manual</title></head>
<body><div class="book"><div class="chapter"><div class="titlepage"><h1 class="title">Chapter 8. Reference</h1></div>
<div class="sect1"><div class="titlepage"><h2 class="title">8.12. Measurement Functions</h2></div>"""
            + entry.format("ST_Distance", "Returns the distance between two geometries.", "In projected units.")
            + entry.format("ST_Area", "Returns the area of a polygon.", "In square units.")
            + """</div><div class="sect1"><div class="titlepage"><h2 class="title">8.13. Editors</h2></div>
<p>Functions that edit.</p></div></div></div></body></html>""").encode()
    doc = extract("postgis.html", html)
    assert _section_of(doc, "In projected units.") == (
        "Chapter 8. Reference", "8.12. Measurement Functions", "ST_Distance", "Description")
    assert _section_of(doc, "float ST_Area(geometry g1);") == (
        "Chapter 8. Reference", "8.12. Measurement Functions", "ST_Area", "Synopsis")
    assert _section_of(doc, "In square units.")[-2:] == ("ST_Area", "Description")
    assert _section_of(doc, "Functions that edit.") == ("Chapter 8. Reference", "8.13. Editors")
    _spans_index_text(doc)


def test_a_sphinx_theme_without_a_known_content_root_keeps_its_title_and_drops_its_header_and_footer():
    """Django's theme: the site's name in an h1 of every page's header, navigation and a footer around the
    content, no role="main" or div.body."""
    html = b"""<html><head><title>QuerySet API reference &#8212; Django 3.2.25 documentation</title></head><body>
<div class="document"><div id="custom-doc" class="yui-t6"><div id="hd">
<h1><a href="../index.html">Django 3.2.25 documentation</a></h1>
<div id="global-nav"><a href="../index.html">Home</a> | <a href="../contents.html">Table of contents</a></div>
<div class="nav">&laquo; <a href="prev.html">previous</a> | <a href="next.html">next</a> &raquo;</div></div>
<div id="bd"><div id="yui-main"><div class="yui-b"><div class="yui-g" id="ref-models-querysets">
<div class="section" id="s-queryset-api-reference"><h1>QuerySet API reference<a class="headerlink"
href="#queryset-api-reference">\xc2\xb6</a></h1><p>This document describes the details of the QuerySet API.</p>
<div class="section" id="s-filter"><h2>filter()<a class="headerlink" href="#filter">\xc2\xb6</a></h2>
<p>Returns a new QuerySet containing objects that match the given lookup parameters.</p></div></div>
</div></div></div><div class="yui-b" id="sidebar"><div class="sphinxsidebar">Browse SIDEBARNOISE</div></div></div>
<div id="ft"><div class="nav">&laquo; <a href="prev.html">previous</a></div></div></div>
<div id="hd2">Last update: FOOTNOISE</div></div></body></html>"""
    doc = extract("ref/models/querysets.html", html)
    assert doc.title == "QuerySet API reference"
    text = doc.text
    assert not any(noise in text for noise in ("Django 3.2.25 documentation", "Table of contents", "previous",
                                               "SIDEBARNOISE", "FOOTNOISE"))
    assert text.startswith("QuerySet API reference\n\nThis document describes")
    assert _section_of(doc, "Returns a new QuerySet") == ("QuerySet API reference", "filter()")
    _spans_index_text(doc)


def test_asciidoc_manual_page_keeps_its_name_line_options_and_admonitions():
    html = b"""<html><head><meta name="generator" content="AsciiDoc 10.2.0" /><title>git-widget(1)</title></head>
<body class="manpage"><div id="header"><h1>git-widget(1) Manual Page</h1><h2>NAME</h2>
<div class="sectionbody"><p>git-widget - Mount widgets on the index</p></div></div>
<div id="content"><div class="sect1"><h2 id="_options">OPTIONS</h2><div class="sectionbody">
<div class="dlist"><dl><dt class="hdlist1">-a</dt><dt class="hdlist1">--all</dt>
<dd><p>Mount every widget.</p></dd></dl></div>
<div class="admonitionblock"><table><tr><td class="icon"><div class="title">Note</div></td>
<td class="content">Widgets are mounted in order.</td></tr></table></div></div></div></div>
<div id="footer"><div id="footer-text">Last updated FOOTNOISE</div></div></body></html>"""
    doc = extract("git-widget.html", html)
    assert doc.title == "git-widget(1) Manual Page"
    assert "git-widget - Mount widgets on the index" in doc.text and "FOOTNOISE" not in doc.text
    assert "-a, --all\nMount every widget." in doc.text
    assert "Note: Widgets are mounted in order." in doc.text
    assert _section_of(doc, "Mount every") == ("git-widget(1) Manual Page", "OPTIONS")


@pytest.mark.parametrize("nav", ["header", "nav-panel"])  # Texinfo 6 and 7
def test_texinfo_manual_keeps_its_headings_and_entries_and_drops_navigation_contents_and_index(nav):
    html = f"""<html><head><title>Widget Manual</title><meta name="Generator" content="makeinfo"></head><body>
<h1 class="settitle">Widget Manual</h1>
<div class="{nav}"><p>Next: <a href="#Intro">Introduction</a>, Previous: <a href="dir.html#Top">(dir)</a>,
Up: <a href="dir.html#Top">(dir)</a> &nbsp; [<a href="#SEC_Contents">Contents</a>][<a href="#Index">Index</a>]</p></div>
<h2 class="contents-heading">Table of Contents</h2>
<div class="contents"><ul class="no-bullet"><li><a href="#Intro">1 TOCNOISE</a></li></ul></div>
<h1 class="top">Widget Features</h1><ul class="section-toc"><li><a href="#Intro">MININOISE</a></li></ul>
<div class="{nav}"><p>Next: <a href="#Index">Index</a>, Up: <a href="#Top">Top</a></p></div>
<h2 class="chapter">1 Widget Builtins</h2>
<dl compact="compact">
<dt id='index-spin'><span><code>spin</code><a href='#index-spin' class='copiable-anchor'> &para;</a></span></dt>
<dd><div class="example"><pre class="example">spin [-n <var>count</var>]
</pre></div>
<p>Spin the widget <var>count</var> times.
The default count is 3.</p></dd></dl>
<h3 class="section">1.1 Stopping</h3><p>Widgets stop on their own.</p>
<h2 class="appendix">Index</h2>
<table><tr><th valign="top">Jump to: &nbsp; </th><td><a class="summary-letter" href="#I_S">S</a></td></tr></table>
<table class="index-cp" border="0"><tr><td></td><th align="left">Index Entry</th></tr>
<tr><td></td><td><a href="#index-spin">INDEXNOISE</a>:</td><td><a href="#Intro">Builtins</a></td></tr></table>
<div class="printindex cp-printindex"><table class="cp-entries-printindex"><tr><td>INDEXNOISE7</td></tr></table></div>
</body></html>""".encode()
    doc = extract("widget.html", html)
    text = doc.text
    assert doc.title == "Widget Manual"
    assert not any(n in text for n in ("Previous:", "Up:", "TOCNOISE", "MININOISE", "INDEXNOISE", "Jump to",
                                       "Table of Contents", "\u00b6"))
    # an @table entry: its term first, named by it (not by its "index-spin" anchor), its usage kept as code
    assert "spin\n\nspin [-n count]\n\nSpin the widget count times. The default count is 3." in text
    assert _span(doc, "entry", "The default count").name == "spin"
    assert _section_of(doc, "Spin the widget") == ("Widget Features", "1 Widget Builtins")
    assert _section_of(doc, "stop on their own") == ("Widget Features", "1 Widget Builtins", "1.1 Stopping")
    _spans_index_text(doc)


def test_rustdoc_page_keeps_every_description_and_drops_its_furniture():
    """rustdoc's method signatures are headings (h4.code-header) with a "source" link, a version and tooltips beside
    them; two methods may share a description, which trafilatura kept once."""
    method = """<details class="rustdoc-toggle method-toggle" open><summary><section id="method.{n}" class="method">
<span class="rightside"><span class="since" title="Stable since Rust version 1.0.0">1.0.0</span> \u00b7
<a class="srclink" href="../src/x.rs.html#1">source</a></span><a href="#method.{n}" class="anchor"></a>
<h4 class="code-header">pub fn <a href="#method.{n}" class="fnname">{n}</a>(&amp;mut self) -&gt; Widget<span
class="notable-traits"><span class="notable-traits-tooltip">\u24d8<span class="notable-traits-tooltiptext">Notable
traits for Widget</span></span></span></h4></section></summary><div class="docblock">
<p>Spins the widget once and returns it. <a href="../trait.Spin.html#tymethod.{n}">Read more</a></p>
<div class='information'><div class='tooltip should_panic'>\u24d8</div>
</div><div class="example-wrap"><pre class="rust rust-example-rendered"><code>let w = Widget::new();
w.{n}();</code></pre><a class="test-arrow" href="https://play.rust-lang.org/">Run</a></div></div></details>"""
    html = f"""<html><head><meta name="generator" content="rustdoc"><title>Widget in widgets - Rust</title></head>
<body class="rustdoc struct"><nav class="sidebar">SIDENOISE</nav><main><div class="width-limiter">
<section id="main-content" class="content"><div class="main-heading"><h1 class="fqn"><span class="in-band">Struct
widgets::Widget<button id="copy-path" title="Copy item path to clipboard">Copy</button></span></h1>
<span class="out-of-band"><a class="srclink" href="../src/x.rs.html">source</a></span></div>
<details class="rustdoc-toggle top-doc" open><summary class="hideme"><span>Expand description</span></summary>
<div class="docblock"><p>A widget.</p></div></details>
<h2 id="implementations" class="small-section-header">Implementations</h2>
<div id="implementations-list">{method.format(n="spin")}{method.format(n="twirl")}</div>
</section></div></main></body></html>""".encode()
    doc = extract("struct.Widget.html", html)
    text = doc.text
    assert doc.title == "Struct widgets::Widget"
    for noise in ("SIDENOISE", "source", "1.0.0", "Notable", "\u24d8", "Expand description", "Run", "Copy",
                  "Read more"):
        assert noise not in text, noise
    assert text.count("Spins the widget once and returns it.") == 2
    assert "pub fn twirl(&mut self) -> Widget\n\nSpins the widget once" in text
    assert "let w = Widget::new();\nw.twirl();" in text
    assert _section_of(doc, "w.twirl()") == ("Struct widgets::Widget", "Implementations",
                                             "pub fn twirl(&mut self) -> Widget")


def test_javadoc_page_keeps_signatures_and_reads_summary_grids_as_rows():
    """javadoc (JDK 9+) writes a member summary as a grid of <div> cells and each member's details as its name
    heading, a signature <div> and a description; trafilatura dropped every signature and ran the grid's cells
    together ("static booleanChecks if ...")."""
    member = """<section class="detail" id="{n}(java.lang.String)"><h3>{n}</h3>
<div class="member-signature"><span class="modifiers">public static</span>&nbsp;<span class="return-type">boolean</span>
&nbsp;<span class="element-name"><a href="../src-html/Widgets.html#line-1">{n}</a></span><wbr><span
class="parameters">(<a href="https://example.org/String.html" class="external-link">String</a>&nbsp;name)</span></div>
<div class="block">Checks whether the widget is {w}.</div>
<dl class="notes"><dt>Parameters:</dt><dd><code>name</code> - the widget's name, may be null</dd>
<dt>Returns:</dt><dd><code>true</code> if it is {w}</dd></dl></section>"""
    row = """<div class="col-first even-row-color method-summary-table"><code>static boolean</code></div>
<div class="col-second even-row-color method-summary-table"><code><a href="#{n}(java.lang.String)"
class="member-name-link">{n}</a><wbr>(String&nbsp;name)</code></div>
<div class="col-last even-row-color method-summary-table">
<div class="block">Checks whether the widget is {w}.</div></div>"""
    html = f"""<!DOCTYPE HTML><html lang="en"><head><title>Widgets (Widget Library 1.0 API)</title>
<meta name="generator" content="javadoc/ClassWriterImpl"></head><body class="class-declaration-page">
<div class="flex-box"><header role="banner" class="flex-header"><nav role="navigation">NAVNOISE</nav></header>
<div class="flex-content"><main role="main"><div class="header"><div class="sub-title">Package org.widgets</div>
<h1 title="Class Widgets" class="title">Class Widgets</h1></div>
<section class="class-description" id="class-description"><div class="type-signature">public class Widgets</div>
<div class="block">Operations on widgets.</div></section>
<section class="summary"><ul class="summary-list"><li><section class="method-summary" id="method-summary">
<h2>Method Summary</h2><div id="method-summary-table"><div class="table-tabs" role="tablist"><button role="tab"
class="active-table-tab">All Methods</button><button role="tab" class="table-tab">Static Methods</button></div>
<div id="method-summary-table.tabpanel" role="tabpanel"><div class="summary-table three-column-summary">
<div class="table-header col-first">Modifier and Type</div><div class="table-header col-second">Method</div>
<div class="table-header col-last">Description</div>
{row.format(n="isSpinning", w="spinning")}{row.format(n="isStopped", w="stopped")}</div></div></div>
</section></li></ul></section>
<section class="details"><ul class="details-list"><li><section class="method-details" id="method-detail">
<h2>Method Details</h2><ul class="member-list"><li>{member.format(n="isSpinning", w="spinning")}</li>
<li>{member.format(n="isStopped", w="stopped")}</li></ul></section></li></ul></section></main>
<footer role="contentinfo">FOOTNOISE</footer></div></div></body></html>""".encode()
    doc = extract("Widgets.html", html)
    text = doc.text
    assert doc.title == "Class Widgets"
    for noise in ("NAVNOISE", "FOOTNOISE", "All Methods", "Static Methods"):
        assert noise not in text, noise
    assert ("Modifier and Type | Method | Description\n"
            "static boolean | isSpinning(String name) | Checks whether the widget is spinning.\n"
            "static boolean | isStopped(String name) | Checks whether the widget is stopped.") in text
    assert _span(doc, "table", "isStopped(String name)") is not None
    assert ("isStopped\n\npublic static boolean isStopped(String name)\nChecks whether the widget is stopped.\n\n"
            "Parameters:\nname - the widget's name, may be null\n\nReturns:\ntrue if it is stopped") in text
    entry = _span(doc, "entry", "public static boolean isStopped")
    assert entry.name == "" and text[entry.start:entry.end].endswith("true if it is stopped")
    assert _section_of(doc, "Checks whether the widget is stopped.\n\nParameters") == (
        "Class Widgets", "Method Details", "isStopped")
    assert _section_of(doc, "Modifier and Type") == ("Class Widgets", "Method Summary")
    _spans_index_text(doc)


def test_doxygen_page_keeps_its_headings_and_one_line_prototypes():
    """Doxygen's pages went to trafilatura, which titled them by a member's permalinked heading, passed no heading
    to the passages, laid prototypes out as table cells and dropped some members."""
    member = """<h2 class="memtitle"><span class="permalink"><a href="#a{n}">&#9670;&nbsp;</a></span>{n}()</h2>
<div class="memitem"><div class="memproto"><table class="memname"><tr>
<td class="memname">int {n} </td><td>(</td><td class="paramtype">Widget *&#160;</td>
<td class="paramname"><em>widget</em>, </td></tr><tr><td class="paramkey"></td><td></td>
<td class="paramtype">int&#160;</td><td class="paramname"><em>turns</em>&#160;</td></tr>
<tr><td></td><td>)</td><td></td><td></td></tr></table></div>
<div class="memdoc"><p>{w} the widget a number of turns.</p>
<dl class="params"><dt>Parameters</dt><dd><table class="params">
<tr><td class="paramname">turns</td><td>how many turns</td></tr></table></dd></dl>
<dl class="section return"><dt>Returns</dt><dd>0 on success or a negative error code.</dd></dl>
<p class="definition">Definition at line 12 of file widget.h.</p>
<p class="referencedby">Referenced by REFNOISE().</p></div></div>"""
    html = f"""<html><head><meta name="generator" content="Doxygen 1.9.4"/>
<title>Widgets: widget.h File Reference</title></head><body>
<div id="top"><div id="titlearea">TOPNOISE</div><div id="main-nav">MENUNOISE</div></div>
<div id="doc-content"><div class="header"><div class="summary"><a href="#func-members">Functions</a> &#124;
<a href="#define-members">Macros</a></div><div class="headertitle"><div class="title">widget.h File Reference</div>
</div></div><div class="contents">
<div class="dynheader">Include dependency graph for widget.h:</div><div class="dyncontent"><map>GRAPHNOISE</map></div>
<table class="memberdecls"><tr class="heading"><td colspan="2"><h2 class="groupheader"><a name="func-members"></a>
Functions</h2></td></tr>
<tr class="memitem:a1"><td class="memItemLeft">int&#160;</td>
<td class="memItemRight"><a class="el" href="#aspin">spin</a>
(Widget *widget, int turns)</td></tr>
<tr class="memdesc:a1"><td class="mdescLeft">&#160;</td>
<td class="mdescRight">Spin a widget. <a href="#aspin">More...</a>
</td></tr><tr class="separator:a1"><td class="memSeparator" colspan="2">&#160;</td></tr>
<tr class="memitem:a2"><td class="memItemLeft">int&#160;</td>
<td class="memItemRight"><a class="el" href="#atwirl">twirl</a>
(Widget *widget, int turns)</td></tr></table>
<h2 class="groupheader">Function Documentation</h2>
{member.format(n="spin", w="Spin")}{member.format(n="twirl", w="Twirl")}
<div class="fragment"><div class="line"><span class="lineno">   10</span>spin(w, 3);</div>
<div class="line"><span class="lineno">   11</span>    twirl(w, 1);</div></div>
</div><div id="nav-path" class="navpath"><ul><li class="footer">Generated by doxygen</li></ul></div></div>
</body></html>""".encode()
    doc = extract("widget_8h.html", html)
    text = doc.text
    assert doc.title == "widget.h File Reference"
    for noise in ("TOPNOISE", "MENUNOISE", "GRAPHNOISE", "REFNOISE", "Include dependency graph", "More...",
                  "Generated by", "\u25c6", "Functions |", "   10"):
        assert noise not in text, noise
    assert "int | spin (Widget *widget, int turns) | Spin a widget.\nint | twirl (Widget *widget, int turns)" in text
    assert _section_of(doc, "int | spin") == ("widget.h File Reference", "Functions")
    assert ("twirl()\n\nint twirl (Widget * widget, int turns)\nTwirl the widget a number of turns.\n\n"
            "Parameters:\n\nturns | how many turns\n\nReturns:\n0 on success or a negative error code.") in text
    entry = _span(doc, "entry", "int twirl (Widget")
    assert entry.name == "" and "Definition at line 12" in text[entry.start:entry.end]
    assert _section_of(doc, "Twirl the widget") == ("widget.h File Reference", "Function Documentation", "twirl()")
    assert "spin(w, 3);\n    twirl(w, 1);" in text and _span(doc, "code", "twirl(w, 1)") is not None
    _spans_index_text(doc)


RST = """\
Widgets
=======

.. module:: widgets

Install it with :command:`pip` first (see :ref:`the install guide <install>`).

Spinning
--------

.. function:: spin(widget, turns=3)
   :noindex:

   Spin *widget* a number of turns; see :func:`~widgets.twirl` and :class:`widgets.Widget`.

   .. versionadded:: 2.1
      The *turns* argument.

.. code-block:: python
   :linenos:

   import widgets
   if widgets.ready():
       widgets.spin(w)

.. seealso:: :mod:`gadgets`

.. autofunction:: widgets.hidden

.. include:: /etc/hostname

.. raw:: html

   <script>RAWNOISE</script>

.. toctree::

   usage
"""


def test_restructuredtext_is_read_with_its_headings_entries_and_sphinx_roles():
    """A Sphinx project's .rst sources (and a built site's ``_sources/*.rst.txt``) were left out or read as plain text:
    through docutils, with Sphinx's common roles and directives, they read as its HTML pages do."""
    for name in ("guide/widgets.rst", "_sources/widgets.rst.txt"):
        doc = extract(name, RST.encode())
        text = doc.text
        assert doc.format == "rst" and doc.title == "Widgets"
        for noise in (":ref:", ":func:", "..", "=====", "-----", "RAWNOISE", "autofunction", "toctree", "hidden",
                      "include", "usage", "linenos"):
            assert noise not in text, noise
        assert "Install it with pip first (see the install guide)." in text
        assert ("spin(widget, turns=3)\nSpin widget a number of turns; see twirl and widgets.Widget.\n\n"
                "New in version 2.1: The turns argument.") in text
        assert _span(doc, "entry", "Spin widget").name == "spin(widget, turns=3)"
        assert _span(doc, "literal", "twirl") is not None  # a cross-reference to code is inline code
        assert "import widgets\nif widgets.ready():\n    widgets.spin(w)" in text
        assert _span(doc, "code", "widgets.spin(w)") is not None
        assert "See also: gadgets" in text
        assert _section_of(doc, "Spin widget") == ("Widgets", "Spinning")
        _spans_index_text(doc)


MDX = """---
title: Getting started
---

import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem'

# Installation

Install it; the default port is <Highlight color="#25c2a0">8080</Highlight>.

<Tabs groupId="manager">
  <TabItem value="npm" label="npm">

```bash
npm install widgets
```

  </TabItem>
</Tabs>

{/* NOISE a comment */}

:::warning Spin with care

Widgets spin fast.

:::

export const Highlight = ({children, color}) => (
  <span style={{color}}>{children} NOISE</span>
);

```js
import {spin} from 'widgets';
export default spin;
```
"""


def test_mdx_pages_read_as_their_markdown():
    """Docusaurus', Nextra's and Mintlify's pages: Markdown with module statements and components around it."""
    doc = extract("guide/intro.mdx", MDX.encode())
    assert doc.title == "Getting started"
    assert "NOISE" not in doc.text and "@theme" not in doc.text and "Tabs" not in doc.text and ":::" not in doc.text
    assert "Install it; the default port is 8080." in doc.text
    assert _span(doc, "code", "npm install widgets") is not None  # a tab's code block, kept
    assert "Spin with care\n\nWidgets spin fast." in doc.text  # an admonition's title and text
    assert "import {spin} from 'widgets';\nexport default spin;" in doc.text  # a code block is never a statement
    assert _section_of(doc, "Widgets spin fast.") == ("Installation",)


def test_jupyter_notebooks_read_as_their_markdown_and_code_cells():
    notebook = {"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Spinning widgets\n", "\n", "Call `spin()` to start."]},
        {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": ["w = Widget(speed=3)\n", "w.spin()"],
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["OUTPUT\n"]}]},
        {"cell_type": "raw", "metadata": {}, "source": "RAW"},
        {"cell_type": "markdown", "metadata": {}, "source": "## Stopping\n\nCall `stop()`."}],
        "metadata": {"kernelspec": {"name": "python3", "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    doc = extract("spin.ipynb", json.dumps(notebook).encode())
    assert doc.title == "Spinning widgets"
    assert "OUTPUT" not in doc.text and "RAW" not in doc.text
    assert _span(doc, "code", "w = Widget(speed=3)\nw.spin()") is not None
    assert _section_of(doc, "Call stop()") == ("Spinning widgets", "Stopping")
    for bad in (b'{"data": []}', b"[1, 2]", b"not json"):
        with pytest.raises(ExtractError, match='bad.ipynb: not a Jupyter notebook'):
            extract("bad.ipynb", bad)


def test_restructuredtext_never_reads_another_file_and_fails_clearly():
    doc = extract("a.rst", b"Title\n=====\n\n.. include:: /etc/passwd\n\n.. literalinclude:: /etc/passwd\n\n"
                           b".. csv-table:: t\n   :file: /etc/passwd\n\nSome text.\n")
    assert "root" not in doc.text and "Some text." in doc.text
    with pytest.raises(ExtractError, match="a.rst: no text"):
        extract("a.rst", b"  \n")
    with pytest.raises(ExtractError, match="b.rst: not UTF-8"):
        extract("b.rst", b"\xff bad")
    broken = extract("c.rst", b"Title\n=====\n\n+-----+\n| bad table\n\nStill read.\n")
    assert "Still read." in broken.text
    # one's own page is never a generator's navigation page, whatever its title says
    own = extract("d.rst", b"Source code for widgets\n=======================\n\nSpin widgets.\n")
    assert "Spin widgets." in own.text


@pytest.mark.parametrize(("html", "kind"), [
    ('<meta name="generator" content="javadoc/ClassUseWriter"><title>Uses of Class Widget</title></head><body><main '
     'role="main"><h1>Uses of Class Widget</h1><p>Widget is used by Gadget.</p></main>', "javadoc"),
    ('<meta name="generator" content="javadoc/SourceToHTMLConverter"><title>Source code</title></head><body><main '
     'role="main"><pre>public class Widget {}</pre></main>', "javadoc"),
    ('<meta name="generator" content="Doxygen 1.9.4"/><title>Globals</title></head><body><div id="doc-content"><div '
     'class="contents"><div class="textblock">Here is a list of all functions with links to the files they belong '
     'to:</div><ul><li>spin() : widget.h</li></ul></div></div>', "Doxygen"),
    # Doxygen's alphabetical class index (classes.html), its letters and names in its own classindex markup
    ('<meta name="generator" content="Doxygen 1.9.4"/><title>Widgets: Data Structure Index</title></head><body><div '
     'class="header"><div class="headertitle"><div class="title">Data Structure Index</div></div></div><div '
     'class="contents"><div class="qindex"><a class="qindex" href="#letter_S">S</a></div><div class="classindex">'
     '<dl class="classindex even"><dt class="alphachar"><a name="letter_S">S</a></dt><dd><a class="el" href="struct_'
     'spinner.html">Spinner</a></dd></dl></div></div>', "Doxygen"),
    ('<meta name="generator" content="Doxygen 1.9.4"/><title>widget.h Source</title></head><body><div '
     'id="doc-content"><div class="contents"><a href="x.html">Go to the documentation of this file.</a><div '
     'class="fragment"><div class="line">int spin(void);</div></div></div></div>', "Doxygen"),
    ('<meta name="generator" content="Docutils 0.19: https://docutils.sourceforge.io/"><title>Python Module '
     'Index</title></head><body><div class="body" role="main"><h1>Python Module Index</h1><table class="indextable '
     'modindextable"><tr><td>widgets</td></tr></table></div>', "Sphinx"),
    # the Read the Docs theme's: no generator meta, no permalink, the site's navigation beside the index
    ('<title>Index</title></head><body class="wy-body-for-nav"><nav class="wy-nav-side"><ul><li>API</li><li>Stream'
     '</li></ul></nav><section class="wy-nav-content-wrap"><div class="rst-content"><div role="main"><h1 id="index">'
     'Index</h1><table class="indextable genindextable"><tr><td><ul><li><a href="api.html#widgets.spin">spin() '
     '(in module widgets)</a></li></ul></td></tr></table></div></div></section>', "Sphinx"),
    ('<title>Search</title></head><body><div role="main"><h1 id="search-documentation">Search</h1><div '
     'id="search-results"></div></div>', "Sphinx"),
    # the Furo theme's: no generator meta but a comment, no permalink; a module index, source listings and their list
    ('<!-- Generated with Sphinx 5.3.0 and Furo 2022.12.07 --><title>Python Module Index</title></head><body><article '
     'role="main"><h1>Python Module Index</h1><table class="domainindex-table"><tr><td>widgets</td></tr></table>'
     '</article>', "Sphinx"),
    ('<title>widgets - Widgets documentation</title></head><body><article role="main"><h1>Source code for widgets</h1>'
     '<div class="highlight"><pre><div class="viewcode-block" id="spin"><a class="viewcode-back" href="../api.html#'
     'widgets.spin">[docs]</a><span class="k">def</span> <span class="nf">spin</span>():\n    <span class="sd">"""Spin '
     'a widget."""</span></div></pre></div></article>', "Sphinx"),
    ('<!-- Generated with Sphinx 5.3.0 and Furo 2022.12.07 --><title>Overview: module code</title></head><body>'
     '<article role="main"><h1>All modules for which code is available</h1><ul><li><a href="widgets.html">widgets</a>'
     '</li></ul></article>', "Sphinx"),
    # Texinfo's page for an anchor of a manual split into pages; a redirect plugin's page, its script not counted
    ('<meta name="Generator" content="makeinfo"><title>XREFspin</title><meta http-equiv="Refresh" content="0; '
     'url=Widgets.html#XREFspin"></head><body lang="en"><p>The node you are looking for is at <a '
     'href="Widgets.html#XREFspin">XREFspin</a>.</p>', "redirect"),
    ("<meta http-equiv='refresh' content='0;URL=\"../new/widgets/\"'><title>Redirecting</title></head><body><script>"
     + "var widgets_spin_at_100_turns_a_minute = 1;" * 20 + "</script><a href='../new/widgets/'>Redirecting...</a>",
     "redirect"),
    # a refresh naming its page without "url=", as HTML allows (SQLite's sqlite.html, sent on to cli.html)
    ('<meta http-equiv="refresh" content="0; ./cli.html"></head><body>Redirect to <a href="./cli.html">./cli.html</a>',
     "redirect"),
    # a theme's template left among a built site's pages (pydata-sphinx-theme's _static/webpack-macros.html)
    ('<!-- these macros are generated --></head><body>{% macro head_pre_icons() %}<link rel="stylesheet" href="{{ '
     'pathto(\'_static/all.min.css\', 1) }}">{% endmacro %}\n{# fonts #}{% macro head_pre_fonts() %}{% endmacro %}',
     "page template"),
    # a page of a script alone sending its reader on (the Rust reference's old anchors)
    ('<title>Types</title></head><body><script>var map = {"#bool": "types/boolean.html"}; var target = map[window.'
     'location.hash]; if (target) { window.location.replace(target); }</script>', "redirect"),
    # a generator's page with nothing of its own (an autosummary page holding a hidden toctree)
    ('<meta name="generator" content="Docutils 0.19: https://docutils.sourceforge.io/"><title>&lt;no title&gt;</title>'
     '</head><body><div class="body" role="main"><div class="toctree-wrapper compound"></div></div>', "generated"),
    # a built site's 404.html (MkDocs Material's), its navigation around a "not found" heading
    ('<meta name="generator" content="mkdocs-1.6.1, mkdocs-material-9.8.2"><title>Widgets</title></head><body><nav '
     'class="md-nav">Widgets Guide Reference</nav><main><article><h1>404 - Not found</h1></article></main>', "error"),
    # JSDoc's listing of a source file
    ('<title>JSDoc: Source: widgets.js</title></head><body><div id="main"><h1 class="page-title">Source: widgets.js'
     '</h1><section><article><pre class="prettyprint source linenums"><code>/** Spin a widget. */\nexport function '
     'spin(w) {}</code></pre></article></section></div>', "JSDoc"),
    # mdBook's print.html (every chapter again, marked noindex) and its 404 page
    ('<!-- Book generated using mdBook --><meta name="robots" content="noindex" /><title>Widgets</title></head><body>'
     '<main><h1>Spinning</h1><p>Widgets spin.</p><h1>Stopping</h1><p>Widgets stop.</p></main>', "mdBook"),
    ('<!-- Book generated using mdBook --><title>Page not found - Widgets</title></head><body><main><h1 id="document-'
     'not-found-404"><a class="header" href="#document-not-found-404">Document not found (404)</a></h1><p>This URL is '
     'invalid, sorry. Please use the navigation bar or search to continue.</p></main>', "error"),
    # pdoc's index.html: an empty content area, the module list in its navigation
    ('<meta name="generator" content="pdoc 16.0.0"/><title>Module List</title></head><body><nav class="pdoc"><ul><li>'
     '<a href="widgets.html">widgets</a></li></ul></nav><main class="pdoc"></main><script>var x = 1;</script>', "pdoc"),
    # Ruby's generators, which write no generator meta: YARD's A-Z index and method list, RDoc's table of contents
    ('<title>Documentation by YARD 0.9.24</title></head><body><div id="content"><div id="listing"><h1 '
     'class="alphaindex">Alphabetic Index</h1><ul><li><a href="Widget.html">Widget</a></li></ul></div></div>', "YARD"),
    ('<title>Method List</title></head><body><div id="content"><h1 id="full_list_header">Method List</h1><ul '
     'id="full_list" class="method"><li><a href="Widget.html#spin">#spin</a> Widget</li></ul></div>', "YARD"),
    ('<title>Table of Contents - RDoc Documentation</title></head><body id="top" class="table-of-contents"><main><h1>'
     'Table of Contents</h1><ul><li><a href="Widget.html#method-i-spin">#spin</a> Widget</li></ul></main>', "RDoc"),
    # Haskell's Haddock: a package's index, a module's hyperlinked source
    ('<title>widgets-1.0: Widgets (Index)</title></head><body><div id="package-header"><span class="caption">widgets'
     '</span></div><div id="content"><div id="index"><p class="caption">Index</p><table><tr><td class="src">spin</td>'
     '<td class="module"><a href="Widgets.html#v:spin">Widgets</a></td></tr></table></div></div>', "Haddock"),
    ('<title>Widgets</title></head><body><pre><span class="hs-keyword">module</span><span> Widgets </span><span '
     'class="hs-keyword">where</span>\n<span class="hs-identifier">spin</span> <span>= id</span></pre>', "Haddock"),
    # rustdoc's source listing of every file (src/**/*.rs.html) and a crate's list of all items
    ('<meta name="generator" content="rustdoc"><title>lib.rs - source</title></head><body class="rustdoc source"><main>'
     '<div class="example-wrap"><pre class="src-line-numbers"><span>1</span></pre><pre class="rust"><code><span class='
     '"doccomment">/// Spins a widget.</span>\n<span class="kw">pub fn</span> spin() {}</code></pre></div></main>',
     "rustdoc"),
    ('<meta name="generator" content="rustdoc"><title>List of all items in this crate</title></head><body '
     'class="rustdoc mod"><main><h1 class="fqn"><span class="in-band">List of all items</span></h1><h3>Functions</h3>'
     '<ul><li><a href="fn.spin.html">spin</a></li></ul></main>', "rustdoc"),
    # a class's list of members: QDoc's (Qt's reference: no generator meta) and Doxygen's
    ('<title>List of All Members for QWidgetSpinner | Qt Widgets</title></head><body><div class="content mainContent">'
     '<h1 class="title">List of All Members for QWidgetSpinner</h1><p>This is the complete list of members for <a '
     'href="qwidgetspinner.html">QWidgetSpinner</a>, including inherited members.</p><ul><li>spin(int turns)</li><li>'
     'connect(const QObject *, ...)</li></ul></div>', "QDoc or Doxygen list"),
    ('<meta name="generator" content="Doxygen 1.9.4"/><title>Widgets: Spinner Member List</title></head><body><div '
     'class="header"><div class="headertitle"><div class="title">Spinner Member List</div></div></div><div '
     'class="contents"><p>This is the complete list of members for <a class="el" href="class_spinner.html">Spinner</a>'
     ', including all inherited members.</p><table class="directory"><tr><td>spin(int turns)</td><td>Spinner</td></tr>'
     '</table></div>', "QDoc or Doxygen list"),
])
def test_navigation_pages_of_generators_are_not_documentation(html, kind):
    from function.ingest.extract import NotDocumentation

    with pytest.raises(NotDocumentation, match=f"p.html: an? {kind} "):
        extract("p.html", f"<html><head>{html}</body></html>".encode())
    # the same generators' documentation pages are read
    page = ('<html><head><meta name="generator" content="javadoc/ClassWriterImpl"><title>Widget</title></head><body>'
            '<main role="main"><h1>Class Widget</h1><p>A widget spins.</p></main></body></html>')
    assert "A widget spins." in extract("Widget.html", page.encode()).text
    chapter = ('<html><head><!-- Book generated using mdBook --><title>Spinning - Widgets</title></head><body><main>'
               '<h1>Spinning</h1><p>A widget spins.</p></main></body></html>')
    assert "A widget spins." in extract("ch01.html", chapter.encode()).text


def test_a_qdoc_class_page_is_read_and_only_a_member_list_is_left_out():
    """QDoc's and Doxygen's "List of All Members" pages are navigation (every inherited "connect" of Qt's 262 such
    pages matched a question about QObject::connect); the class's own page, which links to its list, is read, and so
    is a page that only says the words under another heading."""
    head = '<html><head><title>{0}</title></head><body><div class="content mainContent"><h1 class="title">{0}</h1>'
    cls = (head.format("QWidgetSpinner Class") + '<p><a href="qwidgetspinner-members.html">List of all members, '
           'including inherited members</a></p><h2>Member Function Documentation</h2><h3>void QWidgetSpinner::spin(int '
           'turns)</h3><p>Spins the widget <i>turns</i> times.</p></div></body></html>')
    assert "Spins the widget turns times." in extract("qwidgetspinner.html", cls.encode()).text
    prose = (head.format("Spinner Guide") + "<p>This is the complete list of members for a spinning team: Ann and "
             "Bob.</p></div></body></html>")
    assert "Ann and Bob" in extract("guide.html", prose.encode()).text


def test_a_page_trafilatura_finds_no_main_text_in_is_read_from_its_content_root(monkeypatch):
    """trafilatura takes some pages for boilerplate whole (Django REST framework's release notes, every list item a
    link): where the page has a known content root, that is read; where it has none, the page fails as before."""
    import trafilatura

    monkeypatch.setattr(trafilatura, "extract", lambda *a, **kw: None)
    page = ('<html><head><title>Release Notes - Widgets</title></head><body><div class="nav"><a href="/">Home</a> <a '
            'href="/api/">API</a></div><div id="main-content"><h1>Release Notes</h1><h2>1.2.0</h2><ul><li><a href="'
            'https://example.org/issues/7">#7</a> <code>spin()</code> takes a speed.</li></ul></div></body></html>')
    doc = extract("notes.html", page.encode())
    assert doc.title == "Release Notes"
    assert "- #7 spin() takes a speed." in doc.text and "Home" not in doc.text
    assert _section_of(doc, "takes a speed") == ("Release Notes", "1.2.0")
    with pytest.raises(ExtractError, match="bare.html: no main text found"):
        extract("bare.html", b"<html><head><title>T</title></head><body><div><p>Widgets spin.</p></div></body></html>")


def test_a_list_items_paragraphs_are_apart_on_its_line():
    """Two paragraphs of one list item (pgpool-II's manual: "... (terabytes).</p><p>Valid time units ...") were
    joined with no space between them."""
    page = (b'<html><head><meta name="generator" content="DocBook XSL Stylesheets"><title>Units</title></head><body>'
            b'<div class="sect1"><h2>Units</h2><ul><li><p>Valid memory units are kB and MB.</p><p>Valid time units are '
            b'ms and s.</p></li></ul></div></body></html>')
    assert "- Valid memory units are kB and MB. Valid time units are ms and s." in extract("units.html", page).text


def test_a_page_about_templates_is_documentation():
    doc = extract("templates.html", b"<html><head><title>Templates</title></head><body><main><h1>Templates</h1><p>{% "
                                    b"for w in widgets %} repeats its body for every widget.</p><pre>{{ w.name }}</pre>"
                                    b"</main></body></html>")
    assert "repeats its body for every widget" in doc.text


def test_a_page_about_not_found_errors_is_documentation():
    doc = extract("errors.html", b"<html><head><title>Errors</title></head><body><main><h1>Not found errors</h1><p>A "
                                 b"404 means the widget was not found; spin() raises WidgetNotFound.</p></main></body>"
                                 b"</html>")
    assert "raises WidgetNotFound" in doc.text


def test_a_page_that_refreshes_but_holds_documentation_is_read():
    """Only a page that does nothing but send its reader on is a redirect: one that refreshes itself (no URL), or
    moves on after a while but still holds its text, is read."""
    text = "Widgets spin at 100 turns a minute; the option --spin sets how many, and widget.conf keeps it. " * 3
    for meta in ('<meta http-equiv="refresh" content="300">', '<meta http-equiv="refresh" content="5; url=new.html">'):
        doc = extract("w.html", f"<html><head>{meta}<title>W</title></head><body><p>{text}</p></body></html>".encode())
        assert "the option --spin sets how many" in doc.text
    short = extract("s.html", b'<html><head><meta http-equiv="refresh" content="60"><title>Status</title></head>'
                              b'<body><p>All widgets spin.</p></body></html>')
    assert "All widgets spin." in short.text


_SECTIONS = "".join(f"<h2 id='s{i}'>Section {i} about widgets</h2>\n<p>Widgets of kind {i} spin at {i * 100} turns a "
                    f"minute and are configured with the option --spin-{i}; this paragraph says so at some length, so "
                    f"that it reads as content.</p>\n<h3>Subsection {i}.1</h3><p>More about widget {i}: the default of "
                    f"--spin-{i} is {i}, and it can be changed in the file widget.conf.</p>\n" for i in range(1, 6))


def test_a_fragment_page_goes_to_trafilatura_inside_a_main(monkeypatch):
    """A site generator's page body without <html> or <body> (Go's documentation): trafilatura dropped every heading
    of the real pages (records/bench/docs-trafilatura-headings: the Go specification read as one section); inside a
    <main> it keeps them. A whole page goes as it is."""
    import function.ingest.extract as ex

    given = []
    real = ex._trafilatura
    monkeypatch.setattr(ex, "_trafilatura", lambda name, page, headings=None: given.append(page) or real(
        name, page, headings))
    fragment = '<!--{"Title": "Widget spec"}-->\n<style>p.rule {font-style: italic}</style>\n' + _SECTIONS
    doc = extract("spec.html", fragment.encode())
    assert given[-1].startswith("<html><body><main>") and given[-1].endswith("</main></body></html>")
    assert _section_of(doc, "the default of --spin-4") == ("Section 4 about widgets", "Subsection 4.1")
    whole = "<html><head><title>W</title></head><body><main>" + _SECTIONS + "</main></body></html>"
    extract("whole.html", whole.encode())
    assert given[-1] == whole.encode()
    _spans_index_text(doc)


def test_headings_trafilatura_hands_back_as_paragraphs_are_headings():
    """A pandoc-shaped page with its table of contents: trafilatura returned its headings as paragraphs."""
    page = ('<!DOCTYPE html><html><head><title>Widget manual</title></head><body><header><h1 class="title">Widget '
            'manual</h1></header><nav id="TOC"><ul><li><a href="#s1">Section 1</a></li></ul></nav>' + _SECTIONS
            + '</body></html>')
    doc = extract("manual.html", page.encode())
    assert _section_of(doc, "the default of --spin-4") == ("Section 4 about widgets", "Subsection 4.1")
    assert "Subsection 2.1\n\nMore about widget 2" in doc.text
    _spans_index_text(doc)


def test_header_links_of_any_generator_are_dropped():
    """A page trafilatura reads (no generator it knows): GitHub's, markdown-it-anchor's and emoji anchors."""
    html = """<html><head><title>Widget README</title></head><body><main><article class="markdown-body">
<h1><a class="anchor" aria-hidden="true" href="#widget"><svg class="octicon" viewBox="0 0 16 16"></svg></a>Widget</h1>
<p>The widget turns rotation into motion, and it has done so reliably since it was invented in 1921.</p>
<h2 id="install">Install <a class="header-anchor" href="#install">#</a></h2>
<p>Install the widget with the package manager of your system, then restart the widget service once.</p>
<h2 id="usage"><a href="#usage" aria-label="Permalink: Usage">🔗</a> Usage</h2>
<p>Call the widget with a port number; it listens on that port until it is stopped by a signal.</p>
<h2 id="c-sharp">Using it from C#</h2><p>The C# binding wraps the same calls in a class of its own, one per port.</p>
</article></main></body></html>""".encode()
    doc = extract("README.html", html)
    for mark in (*_MARKS, "Install #", "# Usage"):
        assert mark not in doc.text, mark
    headings = {h for s in doc.sections for h in s.heading}
    assert {"Widget", "Install", "Usage", "Using it from C#"} <= headings, headings
    assert "Using it from C#\n" in doc.text  # a "#" that is part of the heading stays
    assert _section_of(doc, "package manager") == ("Widget", "Install")


def test_mkdocs_theme_icon_permalinks_are_dropped():
    """MkDocs' own theme: a.headerlink whose text is Font Awesome's link glyph (U+F0C1), titled "Permanent link"."""
    html = """<html><head><title>Configuration - Widgets</title></head><body>
<div class="col-md-9" role="main">
<h1 id="configuration">Configuration<a class="headerlink" href="#configuration" title="Permanent link">\uf0c1</a></h1>
<p>Guide to all available configuration settings.</p>
<h4 id="site_url">site_url<a class="headerlink" href="#site_url" title="Permanent link">\uf0c1</a></h4>
<p>Set the canonical URL of the site.</p></div></body></html>""".encode()
    doc = extract("configuration.html", html)
    assert "\uf0c1" not in doc.text
    assert _section_of(doc, "canonical URL") == ("Configuration", "site_url")


MARKDOWN_API = b"""# Widget API

## Functions

`mount(widget, screws=4)` {#mount}
:   Mount a widget on a flat surface. Returns the screws left over.

    ```python
    def mount(widget):
        return widget.screws
    ```

    Plastic anchors need two more screws.

`spin()`
: Turn the widget once.

## Options \xc2\xb6

- `--port` the port
"""


def test_markdown_definition_lists_are_entries_and_code_keeps_its_indentation():
    doc = extract("api.md", MARKDOWN_API)
    text = doc.text
    assert "mount(widget, screws=4)\nMount a widget on a flat surface. Returns the screws left over." in text
    assert "{#mount}" not in text and ":   " not in text and "\u00b6" not in text
    entry = _span(doc, "entry", "Mount a widget")
    assert entry.name == "mount(widget, screws=4)"
    assert entry.start < text.index("Plastic anchors") < entry.end
    assert "Turn the widget" not in text[entry.start:entry.end]
    assert _span(doc, "entry", "Turn the widget").name == "spin()"
    assert "def mount(widget):\n    return widget.screws" in text
    assert _span(doc, "code", "def mount").start == text.index("def mount")
    assert ("Widget API", "Options") in {s.heading for s in doc.sections}
    _spans_index_text(doc)


def test_code_blocks_keep_indentation_in_every_format_but_prose_is_still_normalised():
    md = b"# Code\n\nSome   spaced    prose.\n\n```\nif x:\n\tfor y in x:\n\t\tprint(y)\n```\n"
    doc = extract("code.md", md)
    assert doc.text == "Code\n\nSome spaced prose.\n\nif x:\n    for y in x:\n        print(y)"
    html = (b"<html><body><main><h1>Code</h1><p>A loop that prints every item of a list, one per line.</p>"
            b"<pre><code>for y in x:\n    print(y)\n</code></pre>"
            b"<p>That is all there is to it, really.</p></main></body></html>")
    assert "for y in x:\n    print(y)" in extract("code.html", html).text


def test_docbook_variablelist_laid_out_as_a_table_is_entries_and_layout_tables_are_not_rows():
    """DocBook XSL with variablelist.as.table (Cockpit's guide): term | description rows, a navigation table
    and a refnamediv wrapped in a layout table."""
    html = b"""<html><head><meta name="generator" content="DocBook XSL Stylesheets Vsnapshot"><title>widget.conf</title>
</head><body><table class="navigation" id="top" summary="Navigation header"><tr><td><a href="p.html">
<img alt="Prev"></a></td><th>NAVNOISE Guide</th></tr></table>
<div class="refentry"><div class="refnamediv"><table width="100%"><tr><td><h2>
<span class="refentrytitle">widget.conf</span></h2><p>widget.conf - Widget configuration file</p>
</td></tr></table></div>
<div class="refsect1"><h2>Server</h2><div class="variablelist"><table border="0" class="variablelist">
<tbody><tr><td><p><span class="term"><code class="option">Port</code></span></p></td>
<td><p>The port to listen on. Defaults to 9090.</p><pre class="programlisting">[Server]
Port = 9091</pre></td></tr>
<tr><td><p><span class="term"><code class="option">Origins</code></span></p></td><td><p>Allowed origins.</p></td></tr>
</tbody></table></div>
<table><tr><th>Key</th><th>Type</th></tr><tr><td>Port</td><td>integer</td></tr></table></div></div></body></html>"""
    doc = extract("widget.conf.5.html", html)
    text = doc.text
    assert "NAVNOISE" not in text and "Prev" not in text
    assert "widget.conf - Widget configuration file" in text and "| widget.conf" not in text
    assert "Port\nThe port to listen on. Defaults to 9090.\n\n[Server]\nPort = 9091" in text
    port = _span(doc, "entry", "Defaults to 9090")
    assert port.name == "Port" and "Allowed origins" not in text[port.start:port.end]
    assert "Key | Type\nPort | integer" in text and _span(doc, "table", "Port | integer")
    assert _section_of(doc, "Defaults to 9090") == ("Server",)


def test_a_docbook_function_synopsis_is_its_prototype_on_one_line():
    """DocBook XSL lays a K&R-style funcprototype out as a table, a cell per parameter (Linux-PAM's guides)."""
    html = b"""<html><head><meta name="generator" content="DocBook XSL Stylesheets V1.79.2"><title>Functions</title>
</head><body><div class="section"><h3 class="title">5.1.1. Text based conversation function</h3>
<div class="funcsynopsis"><pre class="funcsynopsisinfo">#include &lt;security/pam_misc.h&gt;</pre>
<table border="0" class="funcprototype-table" summary="Function synopsis"><tr><td><code class="funcdef">int
<b class="fsfunc">misc_conv</b>(</code></td><td><var class="pdparam">num_msg</var>, </td><td> </td></tr>
<tr><td> </td><td><var class="pdparam">appdata_ptr</var><code>)</code>;</td><td> </td></tr></table>
<div class="paramdef-list"><code>int <var class="pdparam">num_msg</var></code>;<br>
<code>void *<var class="pdparam">appdata_ptr</var></code>;</div></div>
<p>The misc_conv function is part of libpam_misc and prompts the user as the modules direct.</p></div></body></html>"""
    text = extract("functions.html", html).text
    assert "int misc_conv(num_msg, appdata_ptr);\n" in text and "|" not in text
    assert "int num_msg;\nvoid *appdata_ptr;" in text


def test_a_definition_list_on_any_page_is_entries_too():
    """A page trafilatura reads: its <dl> gives entries with the term first, and code in a <dd> keeps its lines."""
    html = b"""<html><head><title>Widget options</title></head><body><main><article><h1>Widget options</h1>
<p>The widget server reads its options from the command line when it starts, and never again after that.</p>
<h2>Options</h2><dl><dt><code>--port</code></dt><dd><p>The port to listen on. Defaults to 8080.</p>
<pre>widget --port 9000
    --verbose</pre></dd><dt>--size</dt><dd>The cache size in megabytes; it defaults to 64 when not given.</dd></dl>
<p>Every other option is documented in the manual page that comes with the server package.</p>
</article></main></body></html>"""
    doc = extract("opts.html", html)
    text = doc.text
    assert "--port\nThe port to listen on. Defaults to 8080." in text and "- --port" not in text
    assert "widget --port 9000\n    --verbose" in text
    port = _span(doc, "entry", "Defaults to 8080")
    assert port.name == "--port" and port.start < text.index("--verbose") < port.end
    assert _span(doc, "entry", "defaults to 64").name == "--size"


def test_a_list_whose_items_hold_blocks_keeps_their_headings_code_and_notes():
    """Javadoc lays out a class's members as list items, each a heading, the signature, paragraphs, a code example
    and notes: read as blocks, not flattened into "- " lines (which glued the heading to the signature, ran the
    code's lines together, and dropped a note's text after inline code)."""
    html = b"""<html><head><title>StringUtils</title></head><body><main><h1>Class StringUtils</h1>
<p>Operations on strings that are safe to call with null, gathered in one class of static methods.</p>
<ul class="member-list"><li><section class="detail"><h3>wrap</h3>
<div class="member-signature">public static String wrap(String str, char wrapWith)</div>
<div class="block"><p>Wraps a string with a char.</p><pre>
 StringUtils.wrap(null, *)   = null
 StringUtils.wrap("ab", 'x') = "xabx"
</pre></div><dl class="notes"><dt>Parameters:</dt><dd><code>str</code> - the string to be wrapped</dd>
<dt>Returns:</dt><dd>the wrapped string</dd></dl></section></li>
<li><section class="detail"><h3>unwrap</h3><div class="block">Unwraps a string that was wrapped.</div></section></li>
</ul><ol><li>Call wrap first.</li><li>Then call unwrap.</li><li><h4>Or both</h4><p>Call wrap, then unwrap.</p></li>
<li>And check the result.</li></ol></main></body></html>"""
    doc = extract("StringUtils.html", html)
    text = doc.text
    assert [s.heading for s in doc.sections] == [("Class StringUtils",), ("Class StringUtils", "wrap"),
                                                   ("Class StringUtils", "unwrap"),
                                                   ("Class StringUtils", "unwrap", "Or both")]
    assert "\n\npublic static String wrap(String str, char wrapWith)\n\nWraps a string with a char." in text
    assert 'StringUtils.wrap(null, *)   = null\nStringUtils.wrap("ab", \'x\') = "xabx"' in text
    assert "Parameters:\nstr - the string to be wrapped" in text
    assert "1. Call wrap first.\n2. Then call unwrap." in text  # a list of one-line items as it was
    assert "Call wrap, then unwrap.\n\n4. And check the result." in text  # numbered as the list counts
    assert "\n- " not in text


def test_docutils_option_lists_and_numbered_code_tables():
    html = b"""<html><head><meta name="generator" content="Docutils 0.19: https://docutils.sourceforge.io/">
<title>tool</title></head><body><div class="document"><h1>tool</h1>
<table class="docutils option-list" frame="void" rules="none"><tbody valign="top">
<tr><td class="option-group"><kbd><span class="option">-a</span></kbd></td><td><p>All of them.</p></td></tr>
<tr><td class="option-group" colspan="2"><kbd><span class="option">--a-very-long-option=<var>N</var></span></kbd></td>
</tr>
<tr><td>&nbsp;</td><td><p>Long one, defaults to 3.</p></td></tr></tbody></table>
<table class="highlighttable"><tr><td class="linenos"><div class="linenodiv"><pre>1
2</pre></div></td><td class="code"><div class="highlight"><pre>def f():
    return 1</pre></div></td></tr></table></div></body></html>"""
    doc = extract("tool.html", html)
    assert "-a\nAll of them.\n\n--a-very-long-option=N\nLong one, defaults to 3." in doc.text
    assert _span(doc, "entry", "defaults to 3").name == "--a-very-long-option=N"
    assert "def f():\n    return 1" in doc.text and "1\n2" not in doc.text  # no line numbers


def test_markdown_headings_written_in_html_and_their_anchors():
    """READMEs centre their title with <h1 align="center"> and write anchors into headings."""
    md = (b'<h1 align="center">\n  <img src="logo.png" alt=""> Widget\n</h1>\n\n<p align="center">A widget.</p>\n\n'
          b'## Install [\xc2\xb6](#install)\n\nRun it.\n\n'
          b'<h2 id="usage"><a href="#usage">#</a> Usage</h2>\n\nUse it.\n\n## Using it from C#\n\nSharp.\n')
    doc = extract("README.md", md)
    assert doc.title == "Widget"
    assert [s.heading for s in doc.sections] == [("Widget",), ("Widget", "Install"), ("Widget", "Usage"),
                                                 ("Widget", "Using it from C#")]
    assert "\u00b6" not in doc.text and "# Usage" not in doc.text


INLINE_CODE_HTML = b"""<html><head><title>Client guide</title></head><body><main><article>
<h1>Client guide</h1>
<p>Call <code>client.connect()</code> before anything else; the <code> timeout </code> option is in seconds.
The client retries three times, then raises an error that names the host it could not reach.</p>
<pre><code>client = Client()
client.connect()</code></pre>
<p>Set <code>retries</code> to change that.</p>
</article></main></body></html>"""


def _literals(doc: Document) -> list[str]:
    return [doc.text[s.start:s.end] for s in doc.spans if s.kind == "literal"]


@pytest.mark.parametrize("name, data, literals", [
    ("api/widgets.html", SPHINX, ["widgets.mount", "widget", "screws", "=", "4", "class", "widgets.Widget", "spin"]),
    ("guide.html", INLINE_CODE_HTML, ["client.connect()", "timeout", "retries"]),  # trafilatura's page
    ("api.md", b"# Use `spin()`\n\nCall `mount(w)` or ` stop `.\n\n| flag | means |\n|---|---|\n| `-q` | quiet |\n"
               b"\n```\nmount(w)\n```\n", ["spin()", "mount(w)", "stop", "-q"]),
    ("sag.html", DOCBOOK, ["-p port", "--port=port", "-c size"]),
])
def test_inline_code_is_marked_and_the_text_is_what_it_was_without_marks(name, data, literals, monkeypatch):
    """Inline code becomes "literal" spans (Sphinx's signature pieces "widgets." and "Widget" as one, a parameter's
    "screws", "=" and "4" apart, so a default is a whole piece; code blocks are not inline code), and the text,
    title, sections and other spans are exactly what extraction gives without marking anything."""
    from function.ingest import docpages
    from function.ingest import extract as extract_module

    doc = extract(name, data)
    assert _literals(doc) == literals
    assert not any(c in doc.text + doc.title + repr(doc.sections) + repr(doc.spans) for c in "\ufdd0\ufdd1")
    monkeypatch.setattr(extract_module, "code_marked", lambda text: text)
    monkeypatch.setattr(docpages, "mark_code", lambda content: None)
    plain = extract(name, data)
    assert _literals(plain) == []
    assert (doc.text, doc.title, doc.sections) == (plain.text, plain.title, plain.sections)
    assert [s for s in doc.spans if s.kind != "literal"] == plain.spans


def test_a_page_s_own_noncharacters_are_not_read_as_code_marks():
    doc = extract("odd.md", "a \ufdd0 b \ufdd1 and `c` d\n".encode())
    assert doc.text == "a b and c d" and _literals(doc) == ["c"]
    # written as character references, they reach the parsed page: a documentation page drops them there too
    page = (b'<html><head><meta name="generator" content="Sphinx"></head><body><div class="body"><h1>T</h1>'
            b"<p>Use &#xFDD0;foo&#xFDD1; and <code>bar</code>.</p></div></body></html>")
    doc = extract("odd.html", page)
    assert "Use foo and bar." in doc.text and _literals(doc) == ["bar"]


def test_a_pdf_line_ending_in_a_word_s_hyphen_joins_the_next_without_a_space_a_minus_sign_does_not():
    from function.ingest.extract import _BREAK, CODE_CLOSE, CODE_OPEN, _joined

    assert _joined(["the configu-", "ration file"]) == f"the configu{_BREAK}ration file"  # a break, for the document
    assert _joined(["page 12-", "13"]) == "page 12-13" and _joined(["X-", "Ray"]) == "X-Ray"  # no break to decide
    assert _joined(["a right margin of width -", "inch"]) == "a right margin of width - inch"
    assert _joined([f"set {CODE_OPEN}--max-", f"depth{CODE_CLOSE} to"]) == f"set {CODE_OPEN}--max-depth{CODE_CLOSE} to"


def test_a_word_a_pdf_breaks_at_a_line_s_end_is_whole_where_the_document_writes_it_whole():
    from function.ingest.extract import Block, _dehyphenated, _joined

    def read(*texts):
        return [b.text for b in _dehyphenated([Block(("page 1",), t, "text") for t in texts])]

    broken = _joined(["Edit the con-", "figuration, then the built-", "in tools and the re-", "entrant ones."])
    assert read(broken, "A configuration file. Some built-in tools.") == [
        "Edit the configuration, then the built-in tools and the re-entrant ones.",  # "reentrant": written nowhere
        "A configuration file. Some built-in tools."]
    # a compound the document writes with its hyphen keeps it, even where the whole word is written too
    assert read(_joined(["a built-", "in"]), "builtin and built-in")[0] == "a built-in"
    assert read(broken)[0] == "Edit the con-figuration, then the built-in tools and the re-entrant ones."


def test_a_pdf_s_hyphenated_line_ends_read_as_the_words_the_document_writes():
    pytest.importorskip("reportlab", reason="reportlab (a test dependency) makes the PDF fixture")
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    lines = ["The configuration file is read first. Its con-", "figuration of each built-",
             "in command comes from the user's own environ-", "ment, unless the environment is empty."]
    for i, line in enumerate(lines):
        c.drawString(72, 700 - 14 * i, line)
    c.showPage()
    c.save()
    text = extract("hyphens.pdf", buf.getvalue()).text
    assert "Its configuration of each built-in command comes from the user's own environment, unless" in text
    assert "\ufdd2" not in text


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.text(alphabet="ab -\n\ufdd2", max_size=30), min_size=1, max_size=4))
def test_deciding_line_end_hyphens_only_drops_or_writes_the_marked_hyphens(texts):
    from function.ingest.extract import _BREAK, Block, _dehyphenated

    out = [b.text for b in _dehyphenated([Block(("page 1",), t, "text") for t in texts])]
    for before, after in zip(texts, out, strict=True):
        assert _BREAK not in after
        assert after.replace("-", "") == before.replace(_BREAK, "").replace("-", "")  # each break "" or "-"
        assert before.count("-") <= after.count("-") <= before.count("-") + before.count(_BREAK)
        if _BREAK not in before:
            assert after == before


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.sampled_from(["Title", "=====", "-----", "", "  indented", ".. function:: f(x)", ".. note::",
                                 ":ref:`x <y>`", "``code``", "* item", "| a | b |", "+---+", ".. include:: x",
                                 "::", ".. code-block:: python", "   body", ":param x: y", "text `link`_",
                                 ".. _link: http://x", ".. |sub| replace:: z", "\u00e9t\u00e9"]),
                max_size=14))
def test_any_restructuredtext_reads_or_fails_clearly(lines):
    """docutils on arbitrary Sphinx-flavoured lines: a document whose sections index its text, or an ExtractError
    naming the file; never another exception."""
    _reads_or_fails_clearly("f.rst", "rst", lines)


def _reads_or_fails_clearly(name: str, fmt: str, lines: list[str]) -> None:
    """The lines as a file ``name``: a document of format ``fmt`` whose sections and spans index its text, or an
    ExtractError naming the file."""
    try:
        doc = extract(name, "\n".join(lines).encode())
    except ExtractError as e:
        assert str(e).startswith(f"{name}: ")
        return
    assert doc.format == fmt
    _spans_index_text(doc)


PDOC = """<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="generator" content="pdoc 16.0.0"/>
<title>widgets API documentation</title><style>.pdoc{color:red}</style></head><body>
<nav class="pdoc"><h2>API Documentation</h2><ul><li><a href="#spin">NAVNOISE</a></li></ul></nav>
<main class="pdoc">
<section class="module-info"><h1 class="modulename">widgets</h1>
<div class="docstring"><p>Widgets that spin.</p></div>
<input id="mod-widgets-view-source" class="view-source-toggle-state" type="checkbox" aria-hidden="true" tabindex="-1">
<label class="view-source-button" for="mod-widgets-view-source"><span>View Source</span></label>
<div class="pdoc-code codehilite"><pre><span id="L-1"><a href="#L-1"><span class="linenos">1</span></a>'''
MODLISTING
</span></pre></div></section>
<section id="spin"><input id="spin-view-source" class="view-source-toggle-state" type="checkbox">
<div class="attr function"><span class="def">def</span> <span class="name">spin</span><span class="signature pdoc-code
condensed">(<span class="param"><span class="n">widget</span>, </span>
<span class="param"><span class="n">turns</span><span class="o">=</span><span class="mi">3</span></span>):</span>
<label class="view-source-button" for="spin-view-source"><span>View Source</span></label></div>
<a class="headerlink" href="#spin"></a>
<div class="pdoc-code codehilite"><pre><span id="spin-9"><a href="#spin-9">
<span class="linenos">9</span></a>def spin(widget, turns=3): SPINLISTING
</span></pre></div>
<div class="docstring"><p>Spin a widget a number of turns.</p>
<div class="pdoc-code codehilite"><pre><span></span><span class="gp">&gt;&gt;&gt; </span>spin(w, turns=2)
</pre></div>
<h6 id="parameters">Parameters</h6><ul><li><strong>turns</strong>: how many turns, 3 by default.</li></ul>
</div></section>
<section id="Widget"><input id="Widget-view-source" class="view-source-toggle-state" type="checkbox">
<div class="attr class"><span class="def">class</span> <span class="name">Widget</span>:
<label class="view-source-button" for="Widget-view-source"><span>View Source</span></label></div>
<div class="pdoc-code codehilite"><pre><span id="Widget-20">class Widget: WIDGETLISTING</span></pre></div>
<div class="docstring"><p>A thing that spins.</p></div>
<div id="Widget.twirl" class="classattr"><div class="attr function"><span class="def">def</span>
<span class="name">twirl</span><span class="signature pdoc-code condensed">(
<span class="param">self</span>):</span></div>
<div class="docstring"><p>Twirl the widget once.</p></div></div>
<div class="inherited"><h5>Inherited Members</h5>
<dl><div><dt>builtins.object</dt><dd>INHERITEDNOISE</dd></div></dl></div>
</section>
</main></body></html>"""


def test_pdoc_pages_read_members_as_headed_entries_without_their_source_listings():
    """pdoc's pages went through trafilatura: every member's hidden "View Source" listing was read as text and no
    member's name or signature reached a heading (records/bench/docs-pdoc: 24 questions, F1 58.3 -> 70.3)."""
    doc = extract("widgets.html", PDOC.encode())
    assert doc.title == "widgets"
    for noise in ("LISTING", "View Source", "NAVNOISE", "INHERITEDNOISE", "Inherited Members", ".pdoc{"):
        assert noise not in doc.text, noise
    assert "def spin(widget, turns=3):\nSpin a widget a number of turns." in doc.text
    assert ">>> spin(w, turns=2)" in doc.text and _span(doc, "code", "spin(w, turns=2)") is not None  # an example
    assert _section_of(doc, "how many turns") == ("widgets", "spin", "Parameters")
    assert _span(doc, "entry", "Spin a widget").start == doc.text.index("def spin(")
    assert _section_of(doc, "A thing that spins.") == ("widgets", "Widget")
    assert _section_of(doc, "Twirl the widget once.") == ("widgets", "Widget", "Widget.twirl")
    widget = _span(doc, "entry", "A thing that spins.")
    assert "Twirl" not in doc.text[widget.start:widget.end]  # a class's entry ends before its members
    _spans_index_text(doc)


def test_pdoc3_pages_drop_their_source_listings_and_read_members_as_entries():
    """pdoc3 (meta "pdoc3 0.11.6") went through trafilatura: its "Expand source code" listings were kept, their summary
    a heading over the rest of the page (records/bench/docs-pdoc: F1 48.6 -> 80.0 on its check)."""
    page = ('<html><head><meta name="generator" content="pdoc3 0.11.6"><title>widgets API documentation</title></head>'
            '<body><main><article id="content"><header><h1 class="title">Module <code>widgets</code></h1></header>'
            '<section id="section-intro"><p>Widgets that spin.</p><details class="source"><summary><span>Expand source '
            'code</span></summary><pre><code class="python">MODLISTING</code></pre></details></section><section><h2 '
            'class="section-title" id="header-functions">Functions</h2><dl><dt id="widgets.spin"><code class="name '
            'flex"><span>def <span class="ident">spin</span></span>(<span>widget, turns=3)</span></code></dt><dd>'
            '<div class="desc"><p>Spin a widget a number of turns.</p></div><details class="source"><summary><span>'
            'Expand source code</span></summary><pre><code class="python">def spin(): SPINLISTING</code></pre>'
            '</details></dd></dl></section></article><nav id="sidebar">NAVNOISE</nav></main></body></html>')
    doc = extract("widgets.html", page.encode())
    for noise in ("LISTING", "Expand source code", "NAVNOISE"):
        assert noise not in doc.text, noise
    assert "def spin(widget, turns=3)\nSpin a widget a number of turns." in doc.text
    assert _span(doc, "entry", "Spin a widget").name == "widgets.spin"
    assert _section_of(doc, "Spin a widget") == ("Functions",)
    _spans_index_text(doc)


HADDOCK = """<html><head><title>Widgets.Map</title></head><body><div id="package-header"><span class="caption">
widgets-1.0:
PACKAGENOISE</span><ul class="links"><li><a href="src/Widgets.Map.html">Source</a></li></ul></div><div id="content">
<div id="module-header"><table class="info"><tr><th>Safe Haskell</th><td>Safe-Inferred</td></tr></table>
<p class="caption">Widgets.Map</p></div><div id="table-of-contents"><p class="caption">Contents</p><ul><li>TOCNOISE</li>
</ul></div><div id="description"><div class="doc"><p>Maps from widget keys to values.</p></div></div><div id="synopsis">
<details id="syn"><summary>Synopsis</summary><ul><li class="src short">SYNOPSISNOISE :: Int</li></ul></details></div>
<div id="interface"><a href="#g:1" id="g:1"><h1>Query</h1></a><div class="top"><p class="src"><a id="v:lookup"
class="def">lookup</a> :: Key -&gt; Map v -&gt; Maybe v <a href="src/Widgets.Map.html#lookup" class="link">Source</a>
<a href="#v:lookup" class="selflink">#</a></p><div class="doc"><p>Return the value the key maps to, or
<code>Nothing</code>.</p><h4 class="subheading details-toggle-control details-toggle" data-details-id="ch:lookup0">
Examples</h4><details id="ch:lookup0"><summary class="hide-when-js-enabled">Expand</summary><p>Basic usage:</p><pre>
&gt;&gt;&gt; lookup 1 widgets</pre></details></div><div class="subs instances">
<h4 class="instances">Instances</h4><details><table><tr>
<td class="src">INSTANCENOISE
</td></tr></table></details></div></div><div class="top"><p class="src"><a id="v:insertWith" class="def">insertWith</a>
<a href="src/Widgets.Map.html#insertWith" class="link">Source</a></p><div class="subs arguments"><p class="caption">
Arguments</p><table><tr><td class="src">:: (v -&gt; v -&gt; v)</td><td class="doc"><p>How to combine</p></td></tr><tr>
<td class="src">-&gt; Key</td><td class="doc empty">&nbsp;</td></tr><tr><td class="src">-&gt; Map v</td><td
class="doc empty">&nbsp;</td></tr></table></div><div class="doc"><p>Insert with a combining function.</p></div></div>
</div></div><div id="footer"><p>Produced by Haddock FOOTERNOISE</p></div></body>
</html>"""


TYPEDOC = """<!DOCTYPE html><html><head><meta charset="utf-8"/><title>Widget | widgets</title></head><body>
<header class="tsd-page-toolbar"><div class="tsd-toolbar-contents"><a href="../index.html" class="title">widgets</a>
<button id="tsd-search-trigger">NOISE search</button></div></header>
<div class="container container-main"><div class="col-content"><div class="tsd-page-title"><ul class="tsd-breadcrumb">
<li><a href="">NOISE Widget</a></li></ul><h1>Class Widget</h1></div>
<section class="tsd-panel tsd-comment"><div class="tsd-comment tsd-typography"><p>A thing that spins.</p></div>
</section>
<section class="tsd-panel-group tsd-index-group"><section class="tsd-panel tsd-index-panel"><h5>NOISE Index</h5>
<a href="#spin">spin</a></section></section>
<details class="tsd-panel-group tsd-member-group tsd-accordion" open><summary class="tsd-accordion-summary"><svg>
<use href="#icon-chevronDown"></use></svg><h2 class="tsd-anchor-link" id="properties">Properties<a href="#properties"
aria-label="Permalink" class="tsd-anchor-icon"><svg><use href="#icon-anchor"></use></svg></a></h2></summary><section>
<section class="tsd-panel tsd-member"><h3 class="tsd-anchor-link" id="speed"><code class="tsd-tag">Optional</code>
<span>speed</span></h3><div class="tsd-signature"><span class="tsd-kind-property">speed</span><span>?:</span>
<span>number
</span></div><div class="tsd-comment tsd-typography"><p>Turns a minute.</p><div class="tsd-tag-default"><h4
class="tsd-anchor-link" id="default">Default<a href="#default" class="tsd-anchor-icon"><svg></svg></a></h4><pre><code
class="ts"><span>100</span>
</code><button type="button">Copy</button></pre></div></div><aside class="tsd-sources"><ul><li>Defined in NOISE.d.ts:3
</li></ul></aside></section></section></details>
<details class="tsd-panel-group tsd-member-group tsd-accordion" open><summary class="tsd-accordion-summary"><h2
class="tsd-anchor-link" id="methods">Methods</h2></summary><section><section class="tsd-panel tsd-member"><h3
class="tsd-anchor-link" id="spin"><span>spin</span></h3><ul class="tsd-signatures"><li class=""><div
class="tsd-signature tsd-anchor-link" id="spin-1"><span class="tsd-kind-call-signature">spin</span><span>(</span><br/>
    <span class="tsd-kind-parameter">turns</span><span>?:</span> <span>number</span>,<br/><span>)</span><span>:</span>
<span>void</span></div><div class="tsd-description"><div class="tsd-comment tsd-typography"><p>Spin the widget.</p>
</div>
<div class="tsd-parameters"><h4 class="tsd-parameters-title">Parameters</h4><ul class="tsd-parameter-list">
<li><span><code
class="tsd-tag">Optional</code><span class="tsd-kind-parameter">turns</span>: <span>number</span></span><div
class="tsd-comment tsd-typography"><p>How many turns.</p></div></li></ul></div><h4 class="tsd-returns-title">Returns
<span class="tsd-signature-type">void</span></h4><div class="tsd-comment tsd-typography"><div class="tsd-tag-example">
<h4 class="tsd-anchor-link" id="example">Example</h4>
<pre><code class="ts"><span>const w = new Widget();</span><br/><span>
w.spin(2);</span></code><button type="button">Copy</button></pre></div></div></div></li></ul></section></section>
</details></div>
<div class="col-sidebar"><div class="page-menu"><div class="tsd-navigation settings"><h3>NOISE Settings</h3><p>Member
Visibility Protected Inherited External Theme OS Light Dark</p></div></div></div></div>
<footer><p class="tsd-generator">Generated using TypeDoc NOISE</p></footer></body></html>"""


def test_typedoc_pages_read_members_as_entries_without_their_furniture():
    """TypeDoc's pages (TypeScript API references) went through trafilatura, which dropped every heading (each carries
    TypeDoc's permalink icon), the README's code and glued flags to names ("Optionalturns")
    (records/bench/docs-typedoc)."""
    doc = extract("Widget.html", TYPEDOC.encode())
    assert doc.title == "Class Widget"
    for noise in ("NOISE", "Copy", "Member Visibility", "Defined in", "Optionalturns"):
        assert noise not in doc.text, noise
    assert _section_of(doc, "Turns a minute.") == ("Class Widget", "Properties", "speed")
    assert "Turns a minute.\n\nDefault: 100" in doc.text
    assert "spin(turns?: number,): void\nSpin the widget." in doc.text  # the signature on one line, leading its entry
    assert _span(doc, "entry", "Spin the widget").start == doc.text.index("spin(turns")
    assert "- Optional turns: number How many turns." in doc.text and "Returns void" in doc.text
    assert "const w = new Widget();\nw.spin(2);" in doc.text  # a code block's <br> is a line break
    assert _section_of(doc, "Spin the widget.") == ("Class Widget", "Methods", "spin")
    _spans_index_text(doc)


def test_haddock_module_pages_read_entries_without_the_synopsis_or_instance_lists():
    """Haddock's pages went through trafilatura, which kept the synopsis and dropped most entries' documentation
    (records/bench/docs-haddock: aeson's KeyMap page, 5,669 of 15,383 characters; F1 10.0 -> 16.8 on its check)."""
    doc = extract("Widgets-Map.html", HADDOCK.encode())
    assert doc.title == "Widgets.Map"
    for noise in ("NOISE", "Safe Haskell", "Source", "Synopsis", "Contents", "Instances", " #", "Expand"):
        assert noise not in doc.text, noise
    assert "lookup :: Key -> Map v -> Maybe v\nReturn the value the key maps to, or Nothing." in doc.text
    assert "Examples\n\nBasic usage:\n\n>>> lookup 1 widgets" in doc.text  # the collapsed examples, not their label
    # an entry whose arguments are documented one by one: its type joined onto its name's line, as the others write it
    assert "insertWith :: (v -> v -> v) -> Key -> Map v\n" in doc.text and "How to combine" in doc.text
    assert _span(doc, "entry", "Return the value").start == doc.text.index("lookup ::")
    assert _section_of(doc, "Return the value") == ("Query",)
    _spans_index_text(doc)


# The markup of three static site generators of Markdown documentation, as each writes it (records/bench/docs-sitegen:
# the semantic-release docs built with mkdocs-material 9.8, VitePress 1.6 and Docusaurus 3.10). NOISE is furniture.
_SITE_NAV = """<nav><ul><li><a href="/usage/">NOISE Usage</a></li><li><a href="/support/">NOISE Support</a></li></ul>
</nav>"""
DOCUSAURUS = f"""<!DOCTYPE html><html><head><meta name="generator" content="Docusaurus v3.10.2">
<title>Configuration | widgets</title></head><body><div id="__docusaurus"><a class="skipToContent_fXgn">NOISE Skip</a>
<nav class="navbar"><a class="navbar__brand">NOISE widgets</a></nav><div class="main-wrapper"><aside
class="theme-doc-sidebar-container">{_SITE_NAV}</aside><main><article><nav class="theme-doc-breadcrumbs"><ul>
<li>NOISE Usage</li></ul></nav><div class="theme-doc-markdown markdown"><header><h1>Configuration</h1></header>
<p>Widgets read a <code>.widgetrc</code> file:</p>
<div class="language-json codeBlockContainer_Ckt0 theme-code-block"><div class="codeBlockContent_QJqH"><pre tabindex="0"
class="prism-code language-json"><code class="codeBlockLines_e6Vv"><div class="token-line"><span class="token
punctuation">{{</span><span class="token plain"></span><br></div><div class="token-line"><span class="token plain">  \
</span><span class="token property">"speed"</span><span class="token operator">:</span><span class="token plain"> 100\
</span><br>\
</div><div class="token-line"><span class="token punctuation">}}</span><br></div></code></pre><div
class="buttonGroup__atx"><button type="button" aria-label="Copy code to clipboard">NOISE Copy</button></div></div></div>
<h2 class="anchor" id="speed">speed<a href="#speed" class="hash-link" aria-label="Direct link to speed">\u200b</a></h2>
<p>Type: <code>Number</code></p>
<div class="theme-admonition theme-admonition-note admonition_xJq3 alert alert--secondary"><div
class="admonitionHeading_Gvgb"><span class="admonitionIcon_Rf37"><svg></svg></span>note</div><div
class="admonitionContent_BuS1"><p>The speed is in turns a minute.</p></div></div></div></article><nav
class="pagination-nav"><a><div>NOISE Previous</div></a></nav></main></div><footer>NOISE footer</footer></div>
</body></html>"""
VITEPRESS = """<!DOCTYPE html><html><head><meta name="generator" content="VitePress v1.6.4"><title>Usage |
widgets</title></head><body><div id="app"><div class="Layout"><a class="VPSkipLink">NOISE Skip to content</a><header
class="VPNav"><div class="VPNavBarAppearance appearance"><button class="VPSwitch">NOISE Appearance</button></div>
</header><div class="VPLocalNav"><button>NOISE Return to top</button></div><div class="VPContent"><div class="VPDoc">
<div class="aside"><nav class="VPDocAsideOutline"><div class="outline-title">NOISE On this page</div></nav></div>
<div class="content"><main class="main"><div class="vp-doc _usage_README"><div><h1 id="usage">Usage <a
class="header-anchor" href="#usage" aria-label="Permalink to &quot;Usage&quot;">\u200b</a></h1><ul><li><a
href="./getting-started.html">Getting started</a></li><li><a href="./plugins.html">Plugins</a></li></ul>
<div class="tip custom-block"><p class="custom-block-title">TIP</p><p>Install it first.</p></div>
<div class="vp-code-group"><div class="tabs"><input type="radio" id="tab-a" checked><label data-title="npm" \
for="tab-a">\
npm</label><input type="radio" id="tab-b"><label data-title="yarn" for="tab-b">yarn</label></div><div class="blocks">
<div class="language-sh active"><button title="Copy Code" class="copy"></button><span class="lang">sh</span><pre
class="shiki"><code><span class="line"><span>npm install widgets</span></span></code></pre></div><div
class="language-sh"><button title="Copy Code" class="copy"></button><span class="lang">sh</span><pre class="shiki">\
<code>\
<span class="line"><span>yarn add widgets</span></span></code></pre></div></div></div>
<div class="language-sh vp-adaptive-theme"><button title="Copy Code" class="copy"></button><span class="lang">sh</span>
<pre class="shiki"><code><span class="line"><span>npm install widgets</span></span>
<span class="line"><span>npx widgets spin</span></span></code></pre></div></div></div></main>
<footer class="VPDocFooter">NOISE Edit this page</footer></div></div></div></div></div></body></html>"""
MATERIAL = f"""<!doctype html><html><head><meta name="generator" content="mkdocs-1.6.1, mkdocs-material-9.8.2">
<title>Usage - widgets</title></head><body><div data-md-component="skip"><a class="md-skip">NOISE Skip to content</a>
</div><header class="md-header"><div class="md-header__topic">NOISE widgets</div></header><div class="md-container">
<main class="md-main"><div class="md-main__inner"><div class="md-sidebar md-sidebar--primary">{_SITE_NAV}</div>
<div class="md-content"><article class="md-content__inner md-typeset"><a href="https://example.com/edit/usage.md"
title="Edit this page" class="md-content__button md-icon"><svg></svg></a><h1 id="usage">Usage<a class="headerlink"
href="#usage" title="Permanent link">\u00b6</a></h1><ul><li><a href="getting-started/">Getting started</a></li>
<li><a href="plugins/">Plugins</a></li></ul><div class="tabbed-set tabbed-alternate"><input checked="checked" id="t1"
name="__tabbed_1" type="radio"><input id="t2" name="__tabbed_1" type="radio"><div class="tabbed-labels"><label \
for="t1">npm\
</label><label for="t2">yarn</label></div><div class="tabbed-content"><div class="tabbed-block"><pre><code>npm install \
widgets</code></pre></div><div class="tabbed-block"><pre><code>yarn add widgets</code></pre></div></div></div>
<div class="admonition note"><p class="admonition-title">Note</p>
<p>Install it first.</p></div><aside class="md-source-file">NOISE Last update: 2026-11-30</aside></article></div>
</div></main><footer class="md-footer">NOISE Made with Material for MkDocs</footer></div></body></html>"""

STARLIGHT = f"""<!DOCTYPE html><html><head><meta name="generator" content="Astro v5.18.2"/><meta name="generator"
content="Starlight v0.37.7"/><title>Usage | widgets</title></head><body><a href="#_top">NOISE Skip to content</a>
<div class="page sl-flex"><header class="header"><span>NOISE widgets</span><starlight-theme-select><label><span
class="sr-only">NOISE Select theme</span><select><option>NOISE Dark</option></select></label></starlight-theme-select>
</header><nav class="sidebar">{_SITE_NAV}</nav><div class="main-frame"><aside class="right-sidebar-container">
<div class="right-sidebar"><h2>NOISE On this page</h2></div></aside><main><div class="content-panel">
<div class="sl-container"><h1 id="_top">Usage</h1></div></div><div class="content-panel"><div class="sl-container">
<div class="sl-markdown-content"><ul><li><a href="/usage/getting-started/">Getting started</a></li><li><a
href="/usage/plugins/">Plugins</a></li></ul><div class="sl-heading-wrapper level-h2"><h2 id="install">Install</h2>
<a class="sl-anchor-link" href="#install"><span class="sl-anchor-icon"><svg></svg></span><span class="sr-only">NOISE
Section titled "Install"</span></a></div><aside aria-label="Tip" class="starlight-aside starlight-aside--tip"><p
class="starlight-aside__title" aria-hidden="true"><svg></svg>Tip</p><div class="starlight-aside__content"><p>Install
it first.</p></div></aside><div class="expressive-code"><figure class="frame is-terminal not-content"><figcaption
class="header"><span class="title"></span><span class="sr-only">NOISE Terminal window</span></figcaption><pre
data-language="sh"><code><div class="ec-line"><div class="code"><span>npm install widgets</span></div></div><div \
class="ec-line"><div class="code"><span>npx widgets spin</span></div></div></code></pre><div class="copy"><button \
title="Copy to clipboard"><div></div></button></div></figure></div></div></div></div></main></div></div></body>\
</html>"""


@pytest.mark.parametrize("page", ["DOCUSAURUS", "VITEPRESS", "MATERIAL", "STARLIGHT"])
def test_static_site_pages_are_read_from_their_content_root(page):
    """A built MkDocs Material, VitePress, Docusaurus or Starlight site went through trafilatura, which read a page
    that is a heading and a list of links as the whole page on one line, the site's navigation included, and kept only
    the first line of Docusaurus' code blocks and none of Starlight's (records/bench/docs-sitegen). Their pages read now
    as their Markdown sources do."""
    doc = extract("index.html", globals()[page].encode())
    for noise in ("NOISE", "\u200b", "\u00b6"):
        assert noise not in doc.text, noise
    if page == "DOCUSAURUS":
        assert doc.title == "Configuration"
        assert '{\n  "speed": 100\n}' in doc.text  # every line of the code block
        assert _section_of(doc, "Type: Number") == ("Configuration", "speed")
        assert "note: The speed is in turns a minute." in doc.text  # the admonition's title leads it
    else:
        assert doc.title == "Usage"
        assert doc.text.startswith("Usage\n\n- Getting started\n- Plugins")
    if page == "STARLIGHT":
        assert "Tip: Install it first." in doc.text
        assert "npm install widgets\nnpx widgets spin" in doc.text  # Expressive Code's lines, each a <div>
        assert _section_of(doc, "Install it first.") == ("Usage", "Install")
    elif page != "DOCUSAURUS":  # each tab's label leads its panel, not all labels glued before them ("npmyarn")
        assert "npm\n\nnpm install widgets\n\nyarn\n\nyarn add widgets" in doc.text
    if page == "VITEPRESS":
        assert "TIP: Install it first." in doc.text
        assert "npm install widgets\nnpx widgets spin" in doc.text and "\nsh\n" not in doc.text
    _spans_index_text(doc)


def test_a_code_block_of_line_elements_keeps_every_line_on_any_page():
    """trafilatura keeps only the first of a <pre>'s lines written as elements of their own (Prism's div.token-line):
    on pages of no known generator they are one text before it reads the page."""
    lines = "".join(f'<div class="token-line"><span>line {i} of the example</span><br></div>' for i in range(1, 4))
    page = ("<html><head><title>Widgets</title></head><body><main><h1>Widgets</h1><p>" + "Widgets spin. " * 30 +
            f"</p><p>Run this:</p><pre><code>{lines}</code></pre><p>" + "Then they stop. " * 30 +
            "</p></main></body></html>")
    doc = extract("widgets.html", page.encode())
    assert "line 1 of the example\nline 2 of the example\nline 3 of the example" in doc.text


@pytest.mark.parametrize("block, lines", [
    ("const (\n\tSunday = iota\n\tMonday\n)", "const (\n    Sunday = iota\n    Monday\n)"),  # Go's tab indentation
    ("$ pip install <b>widgets</b>\n$ widgets --spin", "$ pip install widgets\n$ widgets --spin"),  # commands
])
def test_a_pre_block_keeps_its_lines_on_any_page(block, lines, monkeypatch):
    """trafilatura reads a <pre> without "{", '("', "('" or four spaces of indentation as a quote and joins its lines
    (Go's specification's "const ( Sunday = iota Monday )"): on pages of no known generator every <pre> is one code
    block before it reads the page (``extract.PRE_CODE``); without the rule, one line."""
    from function.ingest import extract as module

    page = ("<html><head><title>Widgets</title></head><body><main><h1>Widgets</h1><p>" + "Widgets spin. " * 30 +
            f"</p><pre>{block}</pre><p>" + "Then they stop. " * 30 + "</p></main></body></html>")
    assert lines in extract("widgets.html", page.encode()).text
    monkeypatch.setattr(module, "PRE_CODE", False)
    assert lines not in extract("widgets.html", page.encode()).text


ASCIIDOC = """= Widgets Guide
Jane Doe <jane@example.com>
v2.1, 2026-11-30
:toc:
:version: 2.1
:pkg: widgets

// a comment
////
A block comment.
////
include::attributes.adoc[]

== Install

Install {pkg} {version} with `pip` (see <<usage,Usage>> and https://example.com/docs[the site]):

[source,shell]
----
pip install widgets
  --upgrade
----

NOTE: Widgets need Python 3.

.Supported systems
* Linux
** Debian
* macOS +
  and BSD

[%hardbreaks]
Keep
these lines.

[[usage]]
== Usage

. Import it.
. Call `spin()`.

speed:: How fast a widget spins. Defaults to `100`.
turns::
How many turns.
--quiet::
-q::
  Print *nothing*.
+
----
widgets --quiet
----

[NOTE]
====
Press kbd:[Ctrl+C] to stop.
====

[cols="1,2"]
|===
|Option |Meaning

|`speed`
|How fast

|`turns`
|How many
|===
"""
ASCIIDOC_LEGACY = """git-add(1)
==========

NAME
----
git-add - Add file contents to the index

SYNOPSIS
--------
[verse]
'git add' [--verbose | -v] [--dry-run | -n]
\t  [--] [<pathspec>...]

OPTIONS
-------
-n::
--dry-run::
\tDon't actually add the file(s), just show if they exist.
\tSee linkgit:git-commit[1] and ``Interactive mode''.

Interactive mode
~~~~~~~~~~~~~~~~
When the command enters the interactive mode, it shows the status.
"""


def test_asciidoc_is_read_with_its_structure():
    """.adoc files were skipped for their extension (records/bench/docs-asciidoc): now their titles, code, lists,
    labelled lists (entries), tables and admonitions are read as the other formats' are."""
    doc = extract("guide.adoc", ASCIIDOC.encode())
    assert doc.title == "Widgets Guide" and doc.format == "asciidoc"
    for gone in ("Jane Doe", "v2.1,", "comment", "include::", "{pkg}", "[source", "----", "====", "|===", "kbd:"):
        assert gone not in doc.text, gone
    assert "Install widgets 2.1 with pip (see Usage and the site):" in doc.text
    assert "pip install widgets\n  --upgrade" in doc.text and _span(doc, "code", "pip install").end > 0
    assert "Note: Widgets need Python 3." in doc.text
    assert "Supported systems\n\n- Linux\n- Debian\n- macOS and BSD" in doc.text
    assert "1. Import it.\n2. Call spin()." in doc.text
    assert "speed\nHow fast a widget spins. Defaults to 100." in doc.text
    assert _span(doc, "entry", "How fast a widget").name == "speed"
    assert "turns\nHow many turns." in doc.text  # a description on the line below its term
    assert "[%hardbreaks]" not in doc.text and "Keep\nthese lines" in doc.text
    assert "--quiet, -q\nPrint nothing.\n\nwidgets --quiet" in doc.text  # the continuation's code in the entry
    assert _span(doc, "entry", "Print nothing").end >= doc.text.index("widgets --quiet")
    assert "Note: Press Ctrl+C to stop." in doc.text
    assert "Option | Meaning\nspeed | How fast\nturns | How many" in doc.text
    assert _section_of(doc, "How fast a widget") == ("Widgets Guide", "Usage")
    assert "spin()" in _literals(doc) and "pip" in _literals(doc)
    _spans_index_text(doc)


def test_asciidoc_of_the_older_kind_reads_two_line_titles_and_git_macros():
    doc = extract("git-add.adoc", ASCIIDOC_LEGACY.encode())
    assert doc.title == "git-add(1)"
    assert _section_of(doc, "Add file contents") == ("git-add(1)", "NAME")
    assert "'git add' [--verbose | -v] [--dry-run | -n]\n          [--] [<pathspec>...]" in doc.text  # [verse]: code
    assert "-n, --dry-run\nDon't actually add the file(s), just show if they exist. See git-commit(1) and " \
           "\u201cInteractive mode\u201d." in doc.text
    assert _span(doc, "entry", "Don't actually").name == "-n, --dry-run"
    assert _section_of(doc, "shows the status") == ("git-add(1)", "OPTIONS", "Interactive mode")
    _spans_index_text(doc)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(["= Title", "== Section", "Title", "=====", "-----", "~~~~", "", "  indented", "\tx",
                                 "----", "....", "====", "****", "____", "++++", "////", "--", "```", "|===", "|a |b",
                                 "* item", "** nested", ". step", "1. one", "term::", "term:: desc", "-q::", "+",
                                 "[source,java]", "[NOTE]", "[verse]", "[[id]]", '[cols="1,2"]', ".Block title",
                                 "NOTE: note", ":attr: value", ":attr!:", "{attr} {nbsp}", "// comment",
                                 "include::x.adoc[]", "ifdef::x[]", "`code` *b* _e_ 'q' #m#", "link:x[y]",
                                 "<<id,Text>>", "linkgit:git-add[1]", "x +", "\u00e9t\u00e9"]),
                max_size=16))
def test_any_asciidoc_reads_or_fails_clearly(lines):
    """The AsciiDoc reader on arbitrary AsciiDoc lines: a document whose sections and spans index its text, or an
    ExtractError naming the file (one with no text); never another exception, never a loop."""
    _reads_or_fails_clearly("f.adoc", "asciidoc", lines)


def test_a_bundlers_license_notice_is_left_out_as_not_documentation():
    """A built Docusaurus site holds webpack's "main.10b246a5.js.LICENSE.txt" beside its scripts: the bundled
    libraries' licenses (React's), which would answer questions about them from the user's own store."""
    notice = b"/*! For license information please see main.js.LICENSE.txt */\n/** @license React v18 MIT */"
    for name in ("assets/js/main.10b246a5.js.LICENSE.txt", "chunk.mjs.license.txt"):
        with pytest.raises(NotDocumentation, match="license notice"):
            extract(name, notice)
    assert extract("LICENSE.txt", b"MIT License\n\nPermission is hereby granted.").format == "text"  # one's own


GIDOCGEN = """<!DOCTYPE html><html lang="en"><head><title>Widgets.Widget.spin</title></head><body>
<div id="body-wrapper">
<nav class="sidebar devhelp-hidden"><div class="search section"><form id="search-form"><input id="search-input"/></form>
</div><div class="section"><h5>NOISE Type</h5><div class="links"><a href="class.Widget.html">NOISE Widget</a></div>
</div></nav><section id="main" class="content"><header><h3>Method</h3><h1><a href="index.html">Widgets</a><span
class="sep"></span><a href="class.Widget.html">Widget</a><span class="sep"></span>spin</h1></header><section><div
class="declaration toggle-wrapper"><h4 id="declaration">Declaration<a class="anchor" href="#declaration"></a><a
class="srclink" title="go to source location" href="https://example.com/widget.h#L3">[src]</a></h4><div class="docblock
c-decl"><pre><code><div class="highlight"><pre><span class="n">gboolean</span>
<span class="n">widgets_widget_spin</span> <span class="p">(</span>
  <span class="n">WidgetsWidget</span><span class="o">*</span> <span class="n">self</span>
<span class="p">)</span>
</pre></div></code></pre></div></div><div class="description toggle-wrapper"><h4 id="description">Description<a
class="anchor" href="#description"></a><a class="srclink" href="https://example.com/widget.c#L9">[src]</a></h4><div
class="docblock"><p>Spins the widget once.</p></div></div><div class="return-value toggle-wrapper"><h4
id="return-value">Return value</h4><div class="docblock"><table class="returns"><tr class="arg-name"><td>Returns:</td>
<td><code>gboolean</code></td></tr><tr class="arg-description"><td>&nbsp;</td><td><p><code>TRUE</code> if it spun.</p>
</td></tr></table></div></div></section></section><section id="search" class="content hidden"></section><footer>
</footer></div></body></html>"""


def test_gidocgen_pages_keep_their_description_and_heading():
    """gi-docgen's pages (GNOME's C API references) went through trafilatura, which dropped some descriptions
    ("Retrieves the parent node ..."), glued the heading's parts ("JsonNodeget_parent") and kept each "[src]" link
    (records/bench/docs-gidocgen)."""
    doc = extract("method.Widget.spin.html", GIDOCGEN.encode())
    assert doc.title == "Widgets.Widget.spin"
    assert doc.text.startswith("Method\n\nWidgets.Widget.spin\n\nDeclaration\n\ngboolean\nwidgets_widget_spin (")
    for noise in ("NOISE", "[src]", "WidgetsWidgetspin"):
        assert noise not in doc.text, noise
    assert _section_of(doc, "Spins the widget once.") == ("Widgets.Widget.spin", "Description")
    assert "Returns: | gboolean" in doc.text and "TRUE if it spun." in doc.text
    _spans_index_text(doc)


ERLDOCGEN = """<!DOCTYPE html><html><head><title>Erlang -- widgets</title></head><body><div id="container"><div
class="topbar"><div class="topbar-title"><h1>NOISE widgets</h1></div></div><aside id="leftnav"><nav
class="leftnav-tube"><p class="section-title">NOISE Standard library</p><ul class="flipMenu"><li><a>NOISE lists</a></li>
</ul></nav></aside><div id="content"><div class="innertube"><center><h1>widgets</h1></center></div><div
class="innertube"><h3 class="title-link" id="module-summary"><div class="title-name">Module Summary</div><div
class="title-anchors"><span class="ghlink-after"><a href="https://github.com/x">NOISE</a></span></div></h3><div
class="REFBODY module-summary-body">Widget functions.</div></div><div class="innertube"><h3 class="title-link"
id="export"><div class="title-name">Exports</div></h3></div><div class="exports-body"><article class="func"><h4
class="bold_code title-link func-head" id="spin-1"><div class="title-anchors"><span class="ghlink-before"><a
href="https://github.com/x">NOISE</a></span></div><span class="title-name">spin(Widget) -&gt; ok</span><div
class="title-since"><span class="since">OTP 25.0</span></div></h4><div class="REFBODY fun-types"><h3
class="func-types-title">Types</h3><div class="REFTYPES rt-1"><span class="bold_code bc-2">Widget = widget()</span>
</div></div><div class="exports-tube"><div class="REFBODY rb-7"><p>Spins the widget once.</p></div></div></article>
</div></div></div></body></html>"""


def test_erlang_reference_pages_are_read_whole_with_their_function_heads():
    """Erlang/OTP's reference pages (erl_docgen) went through trafilatura, which kept a fraction of some (gen_server's
    2,557 of 47,598 characters) and titled every page "Module" (records/bench/docs-erldocgen)."""
    doc = extract("widgets.html", ERLDOCGEN.encode())
    assert doc.title == "widgets" and "NOISE" not in doc.text
    assert _section_of(doc, "Spins the widget once.") == ("widgets", "Exports", "spin(Widget) -> ok")
    assert "spin(Widget) -> ok\n\nSince OTP 25.0\n\nTypes\n\nWidget = widget()\n\nSpins the widget once." in doc.text
    _spans_index_text(doc)


# Apache httpd's manual (its own XSLT, no generator meta): a directive's heading, its table, its prose and example; the
# header, path, quick view, language lines, "top" arrows and footer around it.
HTTPD = """<!DOCTYPE html SYSTEM "about:legacy-compat"><html lang="en"><head><title>mod_widget - Apache HTTP Server
Version 2.4</title></head><body><div id="page-header"><p class="menu">NOISE Modules | Directives</p><p
class="apache">Apache HTTP Server Version 2.4</p></div><div class="up"><a href="./">NOISE</a></div><div
id="path">NOISE Apache &gt; HTTP Server</div><div id="page-content"><div id="preamble"><h1>Apache Module
mod_widget</h1><div class="toplang"><p>NOISE Available Languages: en | fr</p></div><table
class="module"><tr><th>Description:</th><td>Spins widgets</td></tr></table> <h3>Summary</h3><p>This module spins
widgets.</p></div><div id="quickview"><h3>Directives</h3><ul id="toc"><li>NOISE WidgetSpeed</li></ul><h3>See
also</h3><ul class="seealso"><li>NOISE Comments</li></ul></div><div class="top"><a
href="#page-header">NOISE</a></div><div class="directive-section"><h2 id="widgetspeed"><span
id="WidgetSpeed">WidgetSpeed </span> Directive <a title="Permanent link" href="#widgetspeed"
class="permalink">&para;</a></h2><table class="directive"> <tr><th><a
href="directive-dict.html#Syntax">Syntax:</a></th><td><code>WidgetSpeed <var>rpm</var></code></td></tr> <tr><th><a
href="directive-dict.html#Default">Default:</a></th><td><code>WidgetSpeed 60</code></td></tr></table> <p>The <code
class="directive">WidgetSpeed</code> directive sets how fast a widget spins.</p><pre class="prettyprint
lang-config">WidgetSpeed 90
# a comment
WidgetSpin On</pre></div></div><div class="bottomlang"><p>NOISE Available
Languages</p></div><div id="footer"><p class="apache">NOISE Copyright</p></div></body></html>"""


def test_apache_httpd_manual_pages_are_read_with_their_directive_headings():
    """Apache httpd's manual went through trafilatura, which read 212 of apache2-doc's 228 pages without a heading and
    dropped some directive entries whole (records/bench/docs-httpd): its content division is read as a generator's
    page, without the quick view, the language lines and the navigation around it."""
    doc = extract("mod_widget.html", HTTPD.encode())
    assert doc.title == "Apache Module mod_widget" and "NOISE" not in doc.text
    assert _section_of(doc, "sets how fast") == ("Apache Module mod_widget", "WidgetSpeed Directive")
    assert "Syntax: | WidgetSpeed rpm\nDefault: | WidgetSpeed 60" in doc.text
    assert "WidgetSpeed 90\n# a comment\nWidgetSpin On" in doc.text
    _spans_index_text(doc)


# SQLite's documentation (its own Tcl scripts, no generator meta): the menu bar, a fancy title and its table of
# contents, numbered headings, a table, a code block, a syntax diagram, the "last modified" line.
SQLITE = """<!DOCTYPE html><html><head><title>Widget Functions</title></head><body><div class=nosearch><div
class="tagline desktoponly">NOISE Small. Fast. Reliable.</div><div class="menu mainmenu"><ul><li>NOISE Home</li></ul>
</div><div class="menu submenu" id="submenu">NOISE About</div><div class="searchmenu" id="searchmenu">NOISE Search
</div></div><div class=fancy><div class=nosearch><div class="fancy_title">Widget Functions</div><div class="fancy_toc">
<a>NOISE Table Of Contents</a><div id="toc_sub"><div class="fancy-toc1"><a href="#overview">NOISE 1. Overview</a>
</div></div></div></div><h1 id="overview"><span>1. </span>Overview</h1><p>Widgets spin.</p><div class=imgcontainer>
<svg><text>NOISE spin</text><text>NOISE (</text></svg></div><table><tr><th>Name<th>Affinity<tr><td>INT<td>INTEGER
</table><h2 id="spin"><span>1.1. </span>Spin</h2><div class="codeblock"><pre>SELECT spin(1);
SELECT spin(2);</pre></div><p align="center"><small><i>This page last modified on <a href="x" id="mtimelink">NOISE
2022</a></i></small></p></div></body></html>"""


def test_sqlite_documentation_pages_are_read_with_their_headings_tables_and_code():
    """SQLite's pages went through trafilatura, which read 170 of sqlite3-doc's 183 without a heading, ran code and
    table rows onto one line and dropped lists (records/bench/docs-sqlite): read whole as a generator's page, without
    the menu bar, the table of contents, the syntax diagrams and the "last modified" line."""
    doc = extract("widgets.html", SQLITE.encode())
    assert doc.title == "Widget Functions" and "NOISE" not in doc.text
    assert _section_of(doc, "SELECT spin(1)") == ("1. Overview", "1.1. Spin")
    assert "Name | Affinity\nINT | INTEGER" in doc.text and "SELECT spin(1);\nSELECT spin(2);" in doc.text
    _spans_index_text(doc)



# gtk-doc's (DocBook XSL with GTK-Doc's own stylesheets): a code listing as a table of a line-number cell beside the
# code's, and the "Generated by" line
GTKDOC = """<!DOCTYPE html><html><head><title>GWidget: Widget Reference Manual</title><meta name="generator"
content="DocBook XSL Stylesheets Vsnapshot"><meta name="generator" content="GTK-Doc V1.33.1 (XML mode)"></head><body>
<div class="refentry"><div class="refnamediv"><h2>GWidget</h2><p>GWidget — spins</p></div><div class="refsect1">
<h2>Description</h2><p>Spin a widget:</p><div class="informalexample"><table class="listing_frame"><tbody><tr><td
class="listing_lines" align="right"><pre>1
2</pre></td><td class="listing_code"><pre class="programlisting">g_widget_spin (widget,
               10);</pre></td></tr></tbody></table></div><p>Default value: 0</p></div></div><div class="footer"><hr>
Generated by GTK-Doc V1.33.1</div></body></html>"""


def test_gtk_doc_listings_are_read_without_their_line_numbers():
    """gtk-doc's code listings put their line numbers in a cell of their own, read as bare lines ("1", "2") before
    every example of GLib's reference (records/bench/docs-gtkdoc-lines); they go, as the "Generated by" line does."""
    doc = extract("GWidget.html", GTKDOC.encode())
    assert "Spin a widget:\n\ng_widget_spin (widget,\n               10);\n\nDefault value: 0" in doc.text
    assert "GTK-Doc" not in doc.text and "\n1\n" not in doc.text
    _spans_index_text(doc)

MKDOCS_RTD = f"""<!DOCTYPE html><html><head><title>Options - widgets</title><script>var mkdocs_page_name = "Options";
var mkdocs_page_input_path = "options.md";</script></head><body class="wy-body-for-nav"><div class="wy-grid-for-nav">
<nav class="wy-nav-side">{_SITE_NAV}</nav><section class="wy-nav-content-wrap"><div class="wy-nav-content"><div
class="rst-content"><div role="navigation" aria-label="breadcrumbs navigation"><ul class="wy-breadcrumbs"><li>NOISE
Tutorial</li></ul></div><div role="main" class="document"><div class="section"><p>Widgets take options.</p><h2
id="speed">speed</h2><p>How fast a widget spins.</p></div></div><footer>NOISE Next</footer></div></div></section></div>
</body></html>"""


def test_mkdocs_readthedocs_theme_is_read_from_its_content_root():
    """MkDocs' readthedocs theme writes no generator meta: known by its page variables, read from role="main" as the
    other static sites are (no breadcrumb, an index page not the site's menu), titled as its script names the page,
    without the site's name (records/bench/docs-sitegen)."""
    doc = extract("index.html", MKDOCS_RTD.encode())
    assert doc.title == "Options" and "NOISE" not in doc.text
    assert doc.text.startswith("Widgets take options.")
    assert _section_of(doc, "How fast") == ("speed",)


CONTENTS_TOPIC = b"""<html><head><title>widgets(7) &#8212; Widgets 1.0 documentation</title>
<meta name="generator" content="Docutils 0.17.1: http://docutils.sourceforge.net/"></head><body><div class="body"
role="main"><div class="section" id="widgets-7"><h1>widgets(7)</h1><div class="contents local topic" id="contents">
<ul class="simple"><li><p><a class="reference internal" href="#spinning">NOISE Spinning</a></p></li></ul></div><div
class="section" id="spinning"><h2>Spinning</h2><p>A widget spins at 60 rpm.</p></div></div></div></body></html>"""


def test_docutils_contents_box_is_left_out():
    """reStructuredText's ``.. contents::`` box (a ``div.contents.topic`` before docutils 0.18) lists the page's own
    headings: navigation, left out as the other tables of contents are (records/bench/docs-contents-topic)."""
    doc = extract("widgets.7.html", CONTENTS_TOPIC)
    assert "NOISE" not in doc.text and "Contents" not in doc.text
    assert _section_of(doc, "60 rpm") == ("widgets(7)", "Spinning")


# numpydoc's Parameters (pandas', scikit-learn's references): each name a definition-list term whose type is a
# classifier, with the colon between them written by CSS; the HTML4 writer writes it as an element of its own.
NUMPYDOC = b"""<html><head><title>frames.merge &#8212; Frames 1.0 documentation</title>
<meta name="generator" content="Sphinx"></head><body><main id="main-content" role="main"><section id="frames-merge">
<h1>frames.merge</h1><dl class="py function"><dt class="sig sig-object py" id="frames.merge"><span
class="sig-name descname"><span class="pre">merge</span></span><span class="sig-paren">(</span><em
class="sig-param"><span class="n"><span class="pre">how</span></span><span class="o"><span
class="pre">=</span></span><span class="default_value"><span class="pre">'inner'</span></span></em><span
class="sig-paren">)</span></dt>
<dd><p>Merge two frames.</p><dl class="field-list simple"><dt class="field-odd">Parameters<span
class="colon">:</span></dt><dd class="field-odd"><dl><dt><strong>how</strong><span class="classifier">{'left',
'inner'}, default 'inner'</span></dt><dd><p>Type of merge.</p></dd><dt><strong>validate</strong><span
class="classifier">bool</span></dt><dd><p>Check the keys.</p></dd></dl></dd></dl>
<dl><dt>old <span class="classifier-delimiter">:</span> <span class="classifier">str</span></dt><dd><p>As HTML4
writes it.</p></dd></dl></dd></dl></section><div class="prev-next-area"><a class="left-prev" href="join.html"><p
class="prev-next-subtitle">previous</p><p class="prev-next-title">PREVNOISE</p></a></div></main></body></html>"""


def test_a_definition_terms_classifier_reads_after_a_colon_and_theme_page_links_are_dropped():
    doc = extract("api/frames.merge.html", NUMPYDOC)
    text = doc.text
    assert "how : {'left', 'inner'}, default 'inner'\nType of merge." in text
    for name in ("how", "validate"):  # a parameter's name is code (a name question's answer), not its type
        mark = _span(doc, "literal", f"{name} : ")
        assert text[mark.start:mark.end] == name
    assert not any(s.kind == "literal" and text[s.start:s.end] == "bool" for s in doc.spans)
    assert "validate : bool" in text and "validatebool" not in text
    assert "old : str" in text and ": :" not in text
    assert "PREVNOISE" not in text and "previous" not in text  # pydata-sphinx-theme's page links
    rst = extract("guide/params.rst", b"Params\n======\n\nname : str, default 'x'\n    The name.\n").text
    assert "name : str, default 'x'" in rst


def test_blocks_read_on_one_line_are_a_space_apart():
    """A list item's definition list, a table cell's paragraphs, a line break: lxml's ``text_content()`` joined
    them ("'peak_heights'If height"); DocBook's function prototype table still joins its cells as written."""
    page = b"""<html><head><title>T</title><meta name="generator" content="Sphinx"></head><body><main role="main">
<section><h1>T</h1><ul><li><dl><dt>'peak_heights'</dt><dd><p>If height is given.</p></dd></dl></li><li>one<br>two</li>
</ul><table><tr><td><p>first</p><p>second</p></td><td>x</td></tr></table>
<table class="funcprototype-table"><tr><td><code>int <b class="fsfunc">pam_start</b>(</code></td><td><var
class="pdparam">service_name</var>, </td></tr><tr><td> </td><td><var class="pdparam">pamh</var><code>)</code>;</td>
</tr></table></section></main></body></html>"""
    text = extract("peaks.html", page).text
    assert "- 'peak_heights' If height is given." in text
    assert "- one two" in text and "first second | x" in text
    assert "int pam_start(service_name, pamh);" in text.replace("\ufdd0", "").replace("\ufdd1", "")


def test_sphinx_gallery_thumbnails_are_left_out_with_a_section_they_leave_empty():
    page = b"""<html><head><title>fit</title><meta name="generator" content="Sphinx"></head><body><main
role="main"><section id="fit"><h1>fit</h1><p>Fit the model to the data.</p>
<section id="examples-using-fit"><h2>Examples using fit</h2><div class="sphx-glr-thumbcontainer" tooltip="A
tour."><figure><img alt="Release Highlights" src="t.png"/><figcaption><p><a href="ex.html">THUMBNOISE Release
Highlights</a></p></figcaption></figure></div><div class="sphx-glr-clear"></div></section>
<section id="notes"><h2>Notes</h2><p>Slow on large inputs.</p><div class="sphx-glr-thumbcontainer"><figure>
<figcaption><p><a href="b.html">THUMBNOISE Benchmark</a></p></figcaption></figure></div></section></section></main>
</body></html>"""
    doc = extract("api/fit.html", page)
    assert "THUMBNOISE" not in doc.text and "Examples using fit" not in doc.text
    assert "Fit the model to the data." in doc.text
    assert "Notes\n\nSlow on large inputs." in doc.text  # a section with text of its own is kept


def test_a_texinfo_footnote_s_mark_is_not_glued_to_the_word_before_it_and_the_footnote_stays():
    """diffutils' manual: "... would make the backup file name too long.1 The -z option" (a new user's audit)."""
    page = (b'<html><head><title>Backups (Diff)</title><meta name="Generator" content="makeinfo"></head><body>'
            b'<h3>Backups</h3><p>The name would be too long.<a id="DOCF1" href="#FOOT1"><sup>1</sup></a>  The -z '
            b'option sets the suffix.</p><div class="footnote"><h4>Footnotes</h4><h5><a id="FOOT1" href="#DOCF1">(1)'
            b'</a></h5><p>A coding error in patch 2.5.4 ignores it.</p></div></body></html>')
    text = extract("Backups.html", page).text
    assert "too long. The -z option" in text and "long.1" not in text
    assert "A coding error in patch 2.5.4 ignores it." in text


def test_a_table_of_labelled_rows_reads_a_record_per_column_and_an_empty_header_row_goes():
    """Markdown needs a header row, so a table led by labels gets an empty one: it went in as "| | |", and the rows
    as "Level: | trace | debug" over "Value: | 10 | 20", which the reader cannot match column by column (a new
    user's audit: "numeric value of the warn level?" answered from another page)."""
    source = (b"# Levels\n\n|   |   |   |   |\n|:--|---|---|--:|\n| **Level:** | trace | debug | warn |\n"
              b"| **Value:** | 10 | 20 | 40 |\n\n| Name | Port |\n|---|---|\n| http | 80 |\n")
    html = (b'<html><head><title>Levels</title><meta name="generator" content="AsciiDoc 10.2.0" /></head>'
            b"<body><h1>Levels</h1><table><tr><th></th><th></th><th></th></tr>"
            b"<tr><td><b>Level:</b></td><td>trace</td><td>warn</td></tr>"
            b"<tr><td><b>Value:</b></td><td>10</td><td>40</td></tr></table></body></html>")
    md, page = extract("api.md", source).text, extract("api.html", html).text
    assert "Level: trace | Value: 10\nLevel: debug | Value: 20\nLevel: warn | Value: 40" in md
    assert "Name | Port\nhttp | 80" in md and "| |" not in md
    assert "Level: trace | Value: 10\nLevel: warn | Value: 40" in page


def test_a_markdown_page_s_own_table_of_contents_is_left_out_and_other_link_lists_stay():
    """fastify's reference pages open with lists of links to their own sections (a hundred error codes): passages of
    names that match a search exactly and answer nothing. A list of links elsewhere, or of links with words beside
    them, is the page's text."""
    source = (b"# Server\n\nThe factory.\n\n- [Factory](#factory)\n  - [`http`](#http)\n  - [`https`](#https)\n"
              b"  - [`bodyLimit`](#bodylimit)\n\n## http\n\nDefault: `null`.\n\n"
              b"- [Plugins](Plugins.md)\n- [Hooks](Hooks.md)\n- [Errors](Errors.md)\n\n"
              b"- [http](#http): the socket's options\n- [https](#https)\n- [bodyLimit](#bodylimit)\n\n"
              b"- [one](#one)\n- [two](#two)\n")
    text = extract("Server.md", source).text
    assert "Factory" not in text and "- http\n" not in text
    assert "The factory." in text and "Default: null." in text
    assert "- Plugins\n- Hooks\n- Errors" in text  # links to other pages: what the project holds
    assert "- http: the socket's options\n- https\n- bodyLimit" in text  # an item with words of its own
    assert "- one\n- two" in text  # two items: too few to tell


def test_a_sphinx_entry_with_a_made_up_id_is_named_by_its_signature():
    """Sphinx gives an object documented twice a docutils id ("id4"): the entry, and so the passages continuing it,
    take the signature's qualified name, not the id; a Texinfo index anchor still leaves the term to name it."""
    page = SPHINX.replace(b'id="widgets.mount"', b'id="id4"').replace(b'id="widgets.Widget.spin"', b'id="id12"')
    names = [sp.name for sp in extract("api/widgets.html", page).spans if sp.kind == "entry"]
    assert "widgets.mount" in names and "spin" in names
    assert not any(n and n.startswith("id") and n[2:].isdigit() for n in names), names


@pytest.mark.parametrize("paragraph, text", [
    # the Rust book's source: a line break alone between two inline elements is a space (trafilatura drops it)
    ("We've nicknamed this aspect of Rust <em>fearless</em>\n<em>concurrency</em>.", "fearless concurrency."),
    ("the <em>dereference operator</em>\n<code>*</code> (not to be confused with multiplication)",
     "dereference operator * (not"),
    ("Call <code>x.flush()</code>\n<strong>before</strong> closing.", "x.flush() before closing"),  # code first
    ("Two <em>a</em> <em>b</em> apart by a space.", "a b apart"),
])
def test_white_space_between_two_inline_elements_is_a_space(paragraph, text):
    page = ("<html><head><title>Guide</title></head><body><main><h1>Guide</h1><p>" + paragraph +
            " It reads as a browser shows it, one space between the two words, in a paragraph long enough to keep."
            "</p></main></body></html>")
    assert text in extract("guide.html", page.encode()).text

