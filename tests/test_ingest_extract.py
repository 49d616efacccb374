"""Text extraction from text, Markdown, HTML and PDF files made here (no fixture files on disk)."""

from __future__ import annotations

import io

import pytest

from function.ingest.extract import SUFFIXES, Document, ExtractError, extract, normalise_block, require

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


def test_suffixes_cover_the_four_formats():
    assert set(SUFFIXES.values()) == {"text", "markdown", "html", "pdf"}


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


def test_markdown_front_matter_is_metadata_not_text():
    doc = extract("post.md", b"---\nlayout: post\ntitle: \"Bridges of York\"\n---\n\nThe Ouse has nine bridges.\n")
    assert doc.title == "Bridges of York" and doc.text == "The Ouse has nine bridges."


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


def test_normalise_block_keeps_lines_but_no_blank_ones():
    assert normalise_block(" a  b \n\n\n c\u00a0\u00a0d\u2028e ") == "a b\nc d e"


def test_pdf_ligatures_are_unfolded():
    from function.ingest.extract import _LIGATURES

    assert "o\ufb03ce \ufb01gures".translate(_LIGATURES) == "office figures"


def test_a_missing_ingestion_dependency_says_how_to_install_it():
    with pytest.raises(ModuleNotFoundError, match="pip install -r requirements-ingest.txt"):
        require("no_such_ingestion_library")
