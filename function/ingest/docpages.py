"""HTML pages made by documentation generators (Sphinx, docutils, DocBook XSL, AsciiDoc, Texinfo, rustdoc, javadoc,
Doxygen, pdoc, pdoc3, Haddock, TypeDoc, gi-docgen, Erlang/OTP's erl_docgen, Apache httpd's and SQLite's own, and the
static sites of MkDocs (Material and readthedocs themes), VitePress, Docusaurus and Starlight), read from their markup.

trafilatura (``extract._html``) finds the main text of any web page by scoring its blocks, which is what a
blog post or a news article needs; on generated documentation it loses what matters most there. Measured
on Debian's documentation packages (trafilatura 2.3): every section heading of a DocBook manual
(git-doc's user-manual.html: none of its 50 headings reach the output), so passages were titled by the
admonitions' "Note" and "Warning" boxes instead; the NAME line of an AsciiDoc manual page; code blocks
inside a definition, which it turns into quotes. These generators put their content in known places, so
this module reads the page itself with lxml: the content root, then headings, paragraphs, code, lists,
tables and definition lists in document order.

- A definition list's ``<dt>``/``<dd>`` pair (Sphinx's ``dl.py``/``dl.function``/``dl.class``/... API
  entries, docutils option and field lists, DocBook ``variablelist`` entries, AsciiDoc ``dlist`` options)
  becomes one entry: the term (several ``<dt>`` of one ``<dd>`` joined by ", ") as its first line, the
  description after it; a Sphinx entry is named by its ``<dt id>`` (``sqlalchemy.create_engine``), a
  field list ("Parameters", "Returns") names nothing of its own.
- An admonition's title ("Note", "Warning") leads its first paragraph ("Note: ...") and is never a heading.
- ``<pre>`` is a code block, its line breaks and indentation kept.
- A table is one "cell | cell" line per row, its header row first.
- Texinfo's (``makeinfo``'s: GNU manuals) node navigation lines ("Next: ..., Previous: ..., Up: ... [Contents]
  [Index]"), tables of contents, node menus and index tables are dropped; trafilatura kept the navigation line of
  every node and none of the headings (the Bash Reference Manual: 153 headings, one section).
- Inline code (``<code>``, ``<tt>``, ``<kbd>``, ``<samp>``, ``<var>``, Sphinx's ``pre`` spans and signature names,
  DocBook's ``option``, ``filename``, ``function``, ``varname``, ... classes) is marked for ``extract._assemble``,
  which keeps where it is as "literal" spans: the reader lifts an answer that is one where a question asks for a
  name (``function.model.reader.CODE``).
- javadoc's (JDK 9+ HTML5 pages): trafilatura dropped every member's signature (``div.member-signature``) and ran
  the member summaries, a grid of ``<div>`` cells, into one line without cell boundaries, losing cells. Here a
  summary grid is one "cell | cell" line per row (a table), and a member's details (``section.detail``) are its name
  heading, then one entry whose first line is its signature.
- Doxygen's: trafilatura titled a page by a member's permalinked heading ("\u25c6 SDL_WINDOWPOS_CENTERED"), passed no
  heading to the passages, laid each prototype out as table cells and dropped some members. Here the page title
  (``div.title``) and every heading are read, a member summary (``table.memberdecls``) is one "type | name | brief"
  row per member, and a member's details are its heading and one entry whose first line is its prototype.
- pdoc's (Python API references): trafilatura kept every member's hidden "View Source" listing as text and gave no
  member a heading. Here the listings are furniture and each member is a heading named by its qualified name, then one
  entry whose first line is its signature. pdoc3's "Expand source code" listings likewise; its members are ``<dl>``
  entries, read as Sphinx's.
- Haddock's (Haskell API references, known by their headers): trafilatura kept the synopsis and dropped most entries'
  documentation. Here the synopsis, instance lists and links are furniture, the module's name is the title, and each
  entry (``div.top``) is one entry whose first line is its signature ("lookup :: Key -> KeyMap v -> Maybe v").
- MkDocs Material's, VitePress', Docusaurus' and Starlight's (built Markdown documentation sites): trafilatura read
  their content pages well, but a page that is a heading and a list of links (every section's index) as the whole page
  on one line, the site's menu included, and kept only the first line of Docusaurus' code blocks and none of
  Starlight's. Here the content root is read, each tab's label leading its panel, and the pages read as their
  Markdown sources do.
- Class names are read in lower case: DocBook's DSSSL stylesheets (the "Modular DocBook HTML Stylesheet" of
  older manuals, Slony-I's among them) write ``CLASS="NAVHEADER"``, ``CLASS="NOTE"``, in HTML 4 pages that
  browsers render in quirks mode, where class selectors ignore case.

Permalink marks (``extract.drop_permalinks``) are gone before any text is read.
"""

from __future__ import annotations

import re

from function.ingest.extract import CODE_CLOSE, CODE_OPEN, Blocks, pre_text, table_lines, unmarked


def _class(name: str) -> str:
    """An XPath test that an element's class list holds ``name`` (class names are read in lower case)."""
    return f"contains(concat(' ', @class, ' '), ' {name} ')"


# <meta name="generator"> values of the generators read here (docutils: Sphinx's pages and rst2html's).
_TEXINFO_NAMES = "makeinfo|texi2any|texi2html"
# Static site generators of Markdown documentation, by their meta: MkDocs with the Material theme ("mkdocs-1.6.1,
# mkdocs-material-9.8.2"), VitePress, Docusaurus, Astro's Starlight. trafilatura read their content pages well, but a
# page that is a heading and a list of links (every section's index page) it read as the whole page on one line, the
# site's navigation included, and it kept only the first line of Docusaurus' code blocks and none of Starlight's.
_SITES = "mkdocs-material|mkdocs-readthedocs|vitepress|docusaurus|starlight"
# MkDocs' own "readthedocs" theme writes no generator meta: known by the page variables it writes for its scripts
# (Debian's Typer and Uvicorn documentation are built with it); its script names the page without the site's name.
_IS_SITE = re.compile(_SITES, re.I)
_MKDOCS_RTD = "//script[contains(., 'var mkdocs_page_name')]"
_MKDOCS_PAGE = re.compile(r'var mkdocs_page_name = "((?:[^"\\]|\\.)+)";')
_GENERATORS = re.compile(rf"sphinx|docutils|docbook|asciidoc|{_TEXINFO_NAMES}|rustdoc|javadoc|doxygen|\bpdoc3?\b|"
                         rf"haddock|typedoc|gi-docgen|erl_docgen|httpd-manual|sqlite-docs|{_SITES}",
                         re.I)  # (some by markup: ``_generator``)
_WHOLE = re.compile(rf"docbook|asciidoc|{_TEXINFO_NAMES}|sqlite-docs", re.I)  # read whole (``_read_whole``)
# Markup that only these generators write, for pages without a generator meta (Sphinx themes often drop it).
_MARKERS = ("sphinxsidebar", "navheader", "refentry", "refnamediv", "sectionbody")
# Sphinx's permalinks, which MkDocs and some blogs write too: a Sphinx page only with Sphinx's content root.
_SPHINX = ("//a[contains(concat(' ', @class, ' '), ' headerlink ')]",
           "//*[@role='main'] | //div[contains(concat(' ', @class, ' '), ' body ')]")

# Texinfo's furniture: a node's navigation line (div.header; div.nav-panel since Texinfo 7), the tables of contents
# and their headings, node menus and mini tables of contents, the index's tables and the letters that jump into them,
# footnotes' marks in the text (the footnotes themselves stay, at the page's end).
_TEXINFO_NOISE = (
    "//div[contains(concat(' ', @class, ' '), ' header ') or contains(concat(' ', @class, ' '), ' nav-panel ')"
    " or contains(concat(' ', @class, ' '), ' contents ') or contains(concat(' ', @class, ' '), ' shortcontents ')"
    " or contains(concat(' ', @class, ' '), ' printindex ')]",
    "//*[contains(concat(' ', @class, ' '), ' contents-heading ')"
    " or contains(concat(' ', @class, ' '), ' shortcontents-heading ')]",
    "//ul[contains(concat(' ', @class, ' '), ' section-toc ') or contains(concat(' ', @class, ' '), ' mini-toc ')]",
    "//table[contains(concat(' ', @class, ' '), ' menu ') or starts-with(@class, 'index-')"
    " or contains(@class, 'printindex') or .//a[contains(concat(' ', @class, ' '), ' summary-letter ')]]",
    "//a[starts-with(@href, '#FOOT')]")  # a footnote's mark, glued to the word before it ("too long.1")

# rustdoc's (Rust API references): the "source" links and stability versions beside each item's signature, the
# "Notable traits" tooltips inside signatures, the "Expand description" toggle's label, the examples' "Run" links and
# "ⓘ" marks, and the "Read more" link that ends a trait method's summary (its trait's page has the rest). Its pages
# are read here: trafilatura dropped descriptions it had seen before on the page ("Appends an
# element to the back of a collection.", Vec::push's, in std's Vec page).
_RUSTDOC_NOISE = ("//span[contains(concat(' ', @class, ' '), ' rightside ') or contains(concat(' ', @class, ' '),"
                  " ' out-of-band ') or contains(concat(' ', @class, ' '), ' notable-traits ')]",
                  "//summary[contains(concat(' ', @class, ' '), ' hideme ')]",
                  "//*[contains(concat(' ', @class, ' '), ' tooltip ')]",  # "ⓘ" before an example that panics
                  "//a[contains(concat(' ', @class, ' '), ' test-arrow ') or contains(concat(' ', @class, ' '),"
                  " ' srclink ')]", "//button", "//div[contains(concat(' ', @class, ' '), ' docblock ')]//a"
                  "[normalize-space(.)='Read more']")
# javadoc's (Java API references, JDK 9+ HTML5 pages): the tab buttons above a summary table ("All Methods", "Static
# Methods", ...), which only filter its rows in a browser.
_JAVADOC_NOISE = ("//div[contains(concat(' ', @class, ' '), ' table-tabs ')]",)
# Doxygen's (C and C++ API references): the title area, menus and search box above the page, the path bar and
# "Generated by" line below it, the header's links to its own sections ("Macros | Typedefs | Functions"), the
# include and call graphs with their captions, each member heading's permalink ("\u25c6"), the source listings' line
# numbers, the "More..." links from a summary to the member's details, and the cross-reference lists under a member
# ("References ...", "Referenced by ...": every name it calls or is called by).
_DOXYGEN_NOISE = ("//div[@id='top']", "//div[@id='nav-path']", "//div[@id='side-nav']",
                  "//div[contains(concat(' ', @class, ' '), ' header ')]/div[contains(concat(' ', @class, ' '),"
                  " ' summary ')]",
                  "//div[contains(concat(' ', @class, ' '), ' dynheader ') or contains(concat(' ', @class, ' '),"
                  " ' dyncontent ') or contains(concat(' ', @class, ' '), ' dynsummary ')]", "//map",
                  "//span[contains(concat(' ', @class, ' '), ' permalink ') or contains(concat(' ', @class, ' '),"
                  " ' lineno ')]", "//a[normalize-space(.)='More...']",
                  "//p[contains(concat(' ', @class, ' '), ' reference ') or contains(concat(' ', @class, ' '),"
                  " ' referencedby ')]")
# pdoc's (Python API references): each member's and the module's "View Source" listing (the whole source, with line
# numbers, shown when its toggle is clicked; a code example in a docstring is a listing of the same class, kept), the
# toggle and its label, and the lists of members a class inherits (names linking to another class's page).
_PDOC_NOISE = ("//div[contains(concat(' ', @class, ' '), ' pdoc-code ')][not(ancestor::div[contains(concat(' ', "
               "@class, ' '), ' docstring ')])]", "//label[contains(concat(' ', @class, ' '), ' view-source-button ')]",
               "//input", "//div[contains(concat(' ', @class, ' '), ' inherited ')]",
               "//details[contains(concat(' ', @class, ' '), ' source ')]")  # pdoc3's "Expand source code"
_PDOC = re.compile(r"\bpdoc3?\b", re.I)
# Haddock's (Haskell API references; no generator meta, known by its headers): the package header with its links,
# the table of contents, the synopsis (every signature again, without documentation), the module's "Safe Haskell" /
# "Language" table, each entry's "Source" and "#" links, the lists of class instances (with their methods' signatures,
# hundreds a page), the footer, and the "Expand" label of each collapsed examples block (a line of its own in the
# text, 24 of them in Data.List's page).
_HADDOCK = "//div[@id='package-header'] and //div[@id='module-header']"
_HADDOCK_NOISE = ("//div[@id='package-header']", "//div[@id='table-of-contents']", "//div[@id='synopsis']",
                  "//div[@id='module-header']/table", "//div[@id='footer']",
                  "//a[contains(concat(' ', @class, ' '), ' link ') or contains(concat(' ', @class, ' '),"
                  " ' selflink ')]",
                  "//div[contains(concat(' ', @class, ' '), ' subs ') and contains(concat(' ', @class, ' '),"
                  " ' instances ')]", "//summary[contains(concat(' ', @class, ' '), ' hide-when-js-enabled ')]")
# TypeDoc's pages (TypeScript API references) write no generator meta: known by their toolbar. Its furniture: the
# toolbar, the sidebar (settings, the page's and the site's navigation), the breadcrumb, the member index, each
# member's "Defined in index.d.ts:62", the class hierarchy, the permalink icons and the code blocks' "Copy" buttons.
_TYPEDOC = "//header[contains(concat(' ', @class, ' '), ' tsd-page-toolbar ')]"
_TYPEDOC_NOISE = (_TYPEDOC, "//div[contains(concat(' ', @class, ' '), ' col-sidebar ')]",
                  "//ul[contains(concat(' ', @class, ' '), ' tsd-breadcrumb ')]",
                  "//section[contains(concat(' ', @class, ' '), ' tsd-index-group ')]",
                  "//aside[contains(concat(' ', @class, ' '), ' tsd-sources ')]",
                  "//section[contains(concat(' ', @class, ' '), ' tsd-hierarchy ')]", "//svg", "//button")
# The static sites' furniture inside their content: Material's edit and view-source icons and its "Last update"
# line, VitePress' code blocks' language labels, Starlight's heading anchors, the copy buttons, icons, and text only a
# screen reader reads ("Section titled ...", "Terminal window").
_SITES_NOISE = (f"//a[{_class('md-content__button')}]", f"//aside[{_class('md-source-file')}]",
                f"//div[starts-with(@class, 'language-')]/span[{_class('lang')}]", f"//a[{_class('sl-anchor-link')}]",
                f"//*[{_class('sr-only')}]", "//button", "//svg")
# gi-docgen's pages (GNOME's C API references: GTK 4's, libadwaita's, json-glib's) write no generator meta: known by
# their sidebar's class beside their content section. trafilatura dropped the first paragraph of a description on
# some pages and glued the page heading's parts ("JsonNodeget_parent"). Its furniture: each section heading's "[src]"
# link to the source, the search results' section.
_GIDOCGEN = f"//nav[{_class('devhelp-hidden')}] and //section[@id='main']"
_GIDOCGEN_NOISE = (f"//a[{_class('srclink')}]", "//section[@id='search']")
# Erlang/OTP's reference pages (erl_docgen) write no generator meta: known by their left navigation beside their
# content and its REFBODY blocks. trafilatura kept a fraction of some (gen_server's: 2,557 of 47,598 characters) and
# titled every page "Module". Its furniture: the GitHub links beside each heading.
_ERLDOCGEN = f"//aside[@id='leftnav'] and //div[@id='content'] and //div[@id='content']//*[{_class('refbody')}]"
_ERLDOCGEN_NOISE = (f"//div[{_class('title-anchors')}]",)
# Apache httpd's manual (made by its own XSLT from the manual's XML; no generator meta): known by its page header's
# "Apache HTTP Server Version 2.4" line beside its content division. trafilatura dropped every directive's heading
# (212 of 228 pages of Debian's apache2-doc read without a heading, an entry starting at "Description: | ..."), the
# environment variables' names (headings too) and some whole directive entries (mod_echo's ProtocolEcho). Its
# furniture inside the content: the "quick view" box (the page's list of directives or sections, "See also"), the
# "Available Languages" lines and the "top" arrows.
_HTTPD = f"//div[@id='page-header']/p[{_class('apache')}] and //div[@id='page-content']"
_HTTPD_NOISE = ("//div[@id='quickview']", f"//div[{_class('toplang')} or {_class('bottomlang')} or {_class('top')}]")
# SQLite's documentation (sqlite.org's pages, made by its own Tcl scripts; Debian's sqlite3-doc; no generator meta):
# known by its menu bar beside its search menu. trafilatura dropped every section heading (170 of 183 pages read
# without one: "1. Overview" of the core functions' page), ran code blocks and table rows onto one line ("CLOBTEXT2BLOB
# no datatype specifiedBLOB3REAL") and dropped lists (json1's table-valued functions). Read whole, less its furniture:
# the menu bar, a page's "Table Of Contents" box, the syntax diagrams (SVG drawings, their words placed, not written
# in order) and the "This page last modified" line; a page's "fancy" title is its title heading.
_SQLITE = f"//div[{_class('mainmenu')}] and //div[@id='searchmenu']"
_SQLITE_NOISE = (f"//div[{_class('nosearch')}][.//div[{_class('mainmenu')}]]", f"//div[{_class('fancy_toc')}]", "//svg",
                 "//p[.//a[@id='mtimelink']]")
# gtk-doc's (GLib's, GObject's and GIO's C API references: DocBook pages): each code listing's column of line numbers
# (a cell beside the code's: "1 2 3" as bare lines before every example) and the "Generated by GTK-Doc" line
_GTKDOC_NOISE = (f"//td[{_class('listing_lines')}]", f"//div[{_class('footer')}][starts-with(normalize-space(.), "
                 "'Generated by GTK-Doc')]")
# each generator's own furniture, dropped with ``_NOISE`` from its pages
_FURNITURE = ((re.compile(_TEXINFO_NAMES, re.I), _TEXINFO_NOISE), (re.compile("rustdoc", re.I), _RUSTDOC_NOISE),
              (re.compile("javadoc", re.I), _JAVADOC_NOISE), (re.compile("doxygen", re.I), _DOXYGEN_NOISE),
              (_PDOC, _PDOC_NOISE), (re.compile("haddock"), _HADDOCK_NOISE), (re.compile("typedoc"), _TYPEDOC_NOISE),
              (_IS_SITE, _SITES_NOISE), (re.compile("gi-docgen"), _GIDOCGEN_NOISE),
              (re.compile("erl_docgen"), _ERLDOCGEN_NOISE), (re.compile("httpd-manual"), _HTTPD_NOISE),
              (re.compile("sqlite-docs"), _SQLITE_NOISE), (re.compile("gtk-doc", re.I), _GTKDOC_NOISE))

# Where the content is, most specific first; DocBook and AsciiDoc pages use the whole body (AsciiDoc's
# div#header holds the page's NAME line), less the navigation dropped below.
_ROOTS = (f"//article[{_class('md-content__inner')}]",  # MkDocs Material's
          f"//div[{_class('vp-doc')}]",  # VitePress'
          f"//div[{_class('theme-doc-markdown')}]",  # Docusaurus'
          "//*[@role='main']", "//div[contains(concat(' ', @class, ' '), ' body ')]", "//main", "//article",
          "//div[@id='doc-content']",  # Doxygen's, with a navigation tree beside it
          "//div[contains(concat(' ', @class, ' '), ' col-content ')]")  # TypeDoc's, beside its sidebar
# sphinx-gallery's thumbnails (an example's image and title, linked): "Examples using X" under an API page, and a
# gallery's index page
_THUMBNAILS = "//div[contains(concat(' ', @class, ' '), ' sphx-glr-thumbcontainer ')]"
_NOISE = ("//script", "//style", "//noscript", "//nav", "//form", "//header", "//footer",
          "//*[@id='footer' or @id='toc' or @id='toctitle']",
          "//*[contains(concat(' ', @class, ' '), ' linenos ')]",  # Sphinx's code line numbers
          "//table[contains(concat(' ', @class, ' '), ' navigation ') or starts-with(@summary, 'Navigation')]",
          "//div[contains(concat(' ', @class, ' '), ' navheader ') or contains(concat(' ', @class, ' '), ' navfooter ')"
          " or contains(concat(' ', @class, ' '), ' toc ') or contains(concat(' ', @class, ' '), ' sphinxsidebar ')"
          " or contains(concat(' ', @class, ' '), ' related ')]",
          "//div[contains(concat(' ', @class, ' '), ' prev-next-area ')]",  # pydata-sphinx-theme's page links
          # docutils' "Contents" box (``.. contents::``, before docutils 0.18: a <nav> since), the page's own headings
          f"//*[{_class('contents')} and {_class('topic')}]",
          # DocBook XSL's "[D]" link under a figure to its long description's page (``_docbook_longdesc``)
          f"//*[{_class('longdesc-link')}]", "//a[@target='longdesc']",
          _THUMBNAILS)

_BLOCK = {"p", "div", "section", "article", "main", "pre", "ul", "ol", "dl", "dt", "dd", "table", "blockquote",
          "li", "figure", "aside", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "center", "details", "summary",
          "fieldset", "address", "figcaption", "caption", "header", "footer", "nav", "form", "tbody", "thead",
          "tr", "td", "th", "colgroup", "col"}
_HEADING = re.compile(r"h[1-6]")
# Admonition boxes: Sphinx/docutils div.admonition, DocBook div.note/.tip/..., AsciiDoc div.admonitionblock.
_ADMONITIONS = {"admonition", "admonitionblock", "note", "tip", "warning", "important", "caution", "danger",
                "attention", "hint", "error", "seealso", "custom-block", "theme-admonition", "starlight-aside"}
# Their titles: Sphinx's p.admonition-title, DocBook's h3.title, AsciiDoc's div.title in the icon cell.
_ADMONITION_TITLE = {"admonition-title", "title", "custom-block-title", "starlight-aside__title"}  # (and the sites')


# Inline code: these elements, and elements of these classes (Sphinx's, DocBook XSL's, AsciiDoc's), outside <pre>.
_CODE_TAGS = {"code", "tt", "kbd", "samp", "var"}
_CODE_CLASSES = {"pre", "literal", "option", "parameter", "command", "filename", "varname", "function", "constant",
                 "envar", "returnvalue", "type", "sig-name", "descname", "sig-prename", "descclassname",
                 "element-name"}  # javadoc's member name in its signature


def mark_code(content) -> None:
    """Mark each outermost inline-code element under ``content`` (``extract.CODE_OPEN`` and ``CODE_CLOSE`` around its
    text); one in a code block is the block's, one holding blocks is not inline."""
    marked = set()
    for el in content.iter():  # document order: an element before what it holds
        tag = el.tag
        if not isinstance(tag, str) or tag in _BLOCK:
            continue
        if tag not in _CODE_TAGS and _CODE_CLASSES.isdisjoint((el.get("class") or "").split()):
            continue
        if any(a.tag == "pre" or a in marked for a in el.iterancestors()) or any(
                isinstance(d.tag, str) and d.tag in _BLOCK for d in el.iterdescendants()):
            continue
        marked.add(el)
        el.text = CODE_OPEN + (el.text or "")
        if len(el):
            el[-1].tail = (el[-1].tail or "") + CODE_CLOSE
        else:
            el.text += CODE_CLOSE


def _classes(el) -> set[str]:
    return set((el.get("class") or "").split())


def lower_classes(root) -> None:
    """Every class name of a parsed page in lower case (the module docstring says why), before it is read."""
    for el in root.iter():
        if isinstance(el.tag, str) and (c := el.get("class")) and not c.islower():
            el.set("class", c.lower())


def _generator(root) -> str:
    """The page's <meta name="generator"> contents, joined (or Furo's comment saying so); "haddock" for a page Haddock
    made, which writes none but is known by its headers (``_HADDOCK``), "typedoc" for TypeDoc's, known by its toolbar
    (``_TYPEDOC``), "gi-docgen" for gi-docgen's, known by its sidebar (``_GIDOCGEN``), "erl_docgen" for Erlang/OTP's
    (``_ERLDOCGEN``), "mkdocs-readthedocs" for MkDocs' readthedocs theme's (``_MKDOCS_RTD``), "httpd-manual" for Apache
    httpd's manual (``_HTTPD``), "sqlite-docs" for SQLite's documentation (``_SQLITE``); "" for any other page
    without one."""
    meta = " ".join(meta.get("content") or "" for meta in root.iter("meta")
                    if (meta.get("name") or "").lower() == "generator")
    if meta:
        return meta
    # Sphinx's Furo theme writes no meta but says so in a comment ("Generated with Sphinx 5.3.0 and Furo 2022.12.07")
    said = root.xpath("/html/head/comment()[starts-with(normalize-space(.), 'Generated with Sphinx')]")
    if said:
        return said[0].text.strip().removeprefix("Generated with ")
    if root.xpath(_HADDOCK):
        return "haddock"
    if root.xpath(_TYPEDOC):
        return "typedoc"
    if root.xpath(_GIDOCGEN):
        return "gi-docgen"
    if root.xpath(_MKDOCS_RTD):
        return "mkdocs-readthedocs"
    if root.xpath(_HTTPD):
        return "httpd-manual"
    if root.xpath(_SQLITE):
        return "sqlite-docs"
    return "erl_docgen" if root.xpath(_ERLDOCGEN) else ""


def _has_class(root, names) -> bool:
    return any(root.xpath(f"//*[contains(concat(' ', @class, ' '), ' {m} ')]") for m in names)


# javadoc's pages that index or navigate the reference rather than document it (by the writer named in the generator
# meta): where a class is used, package and class trees, the A-Z index, the lists of all classes and packages, the
# deprecated list, the help page, and each class's source listing.
_JAVADOC_GENERATED = re.compile(r"javadoc/(?:(?:ClassUse|PackageUse|PackageTree|Tree|SplitIndex|Index|IndexRedirect|"
                                r"AllClassesIndex|AllPackagesIndex|DeprecatedList|NewAPIList|PreviewList|Help)Writer|"
                                r"SourceToHTMLConverter)\b", re.I)
# rustdoc's pages beside the documentation, by their heading: a crate's all.html, the settings and help pages
_RUSTDOC_PAGES = {"List of all items", "Rustdoc settings", "Rustdoc help"}
_DOXYGEN_INDEX = re.compile(r"^(?:Here is a list of all|Here are the|This inheritance list|Go to the documentation of "
                            r"this file|This page explains how to interpret the graphs)", re.I)


# QDoc's and Doxygen's page of a class's members, every signature linked to the class's page: "List of All Members for
# QSaveFile" (QDoc), "Overload_Test Member List" (Doxygen), both then "This is the complete list of members for ..."
_MEMBER_LIST_HEADING = re.compile(r"List of All Members for \S.*|\S.* Member List", re.I)
_MEMBER_LIST_SAYS = "This is the complete list of members for "


def _member_list(root) -> bool:
    """Whether ``root`` is a list of a class's members (``_MEMBER_LIST_HEADING`` over ``_MEMBER_LIST_SAYS``)."""
    headings = root.xpath("//h1 | //div[contains(concat(' ', @class, ' '), ' title ')]")
    if not any(_MEMBER_LIST_HEADING.fullmatch(" ".join(h.text_content().split())) for h in headings):
        return False
    return bool(root.xpath(f"//p[starts-with(normalize-space(.), '{_MEMBER_LIST_SAYS}')]"))


def _texinfo_index(root) -> bool:
    """Whether ``root`` is a Texinfo index node (``@printindex``: "Concept index", "Macro index"): a page of a GNU
    manual that holds an index's table and, apart from its navigation and heading, next to no text of its own. Its
    furniture (``_TEXINFO_NOISE``) left a passage of its heading alone."""
    if not re.search(_TEXINFO_NAMES, _generator(root), re.I):
        return False
    tables = root.xpath("//table[starts-with(@class, 'index-') or contains(@class, 'printindex')]"
                        " | //div[contains(concat(' ', @class, ' '), ' printindex ')]")
    if not tables:
        return False
    headings = [h for h in root.xpath("//h1|//h2|//h3|//h4|//h5|//h6")
                if not {"settitle", "contents-heading", "shortcontents-heading"} & set((h.get("class") or "").split())]
    if len(headings) > 1:  # a whole manual on one page, its index at the end
        return False
    body = root.find("body")
    rest = 0 if body is None else len(" ".join(body.text_content().split()))
    inside = sum(len(" ".join(t.text_content().split())) for t in tables)
    return rest - inside < 400  # a heading, the navigation line, the index's letters: not a section of prose


def _docbook_longdesc(root) -> bool:
    """Whether the page is one DocBook XSL writes for a figure's long description (``html.longdesc``: an
    ``ld-idmNNN.html`` per screenshot, linked from the figure as "[D]" with ``target="longdesc"``): titled "Long
    Description", no heading and no navigation of its own, its body the figure's text alternative alone (aptitude's
    manual: a screen dump in a ``pre.screen`` each, 33 pages, 61 passages, 10% of its store, all titled "Long
    Description" and saying nothing of the figure they describe). The figure's page is read with its own text."""
    if not re.search("docbook", _generator(root), re.I):
        return False
    if " ".join((root.findtext(".//title") or "").split()) != "Long Description":
        return False
    return not root.xpath(f"//h1|//h2|//h3|//h4|//h5|//h6|//div[{_class('navheader')} or {_class('titlepage')}]")


def generated(root) -> str | None:
    """What navigation page a documentation generator made ``root`` as (its class names in lower case:
    ``lower_classes``), or None for a page of documentation. Left out of ingestion: its text is names and links that
    match every question about them ("Index", "Python Module Index", "All Classes and Interfaces", "Uses of Class
    StringUtils", YARD's "Method List", RDoc's "Table of Contents", Haddock's index, QDoc's and Doxygen's "List of All
    Members for QSaveFile"), or the source code the
    documentation was made from ("Source code for requests.api", javadoc's, Doxygen's and Haddock's source listings),
    and would be read instead of the pages that document them; or it only sends the reader to another page
    (``_redirect``), or is the site's error page ("404 - Not found"), or a DocBook figure's long description
    (``_docbook_longdesc``)."""
    if (target := _redirect(root)) is not None:
        return f"a redirect page (to {target})"
    if _template(root):
        return "a page template (its text only template tags)"
    if _mdbook_print(root):
        return "an mdBook print page (every chapter again, on one page)"
    for h1 in root.xpath("//h1"):  # a built site's 404.html (MkDocs', Docusaurus', sphinx-notfound-page's)
        if _NOT_FOUND.fullmatch(heading := " ".join(h1.text_content().split())):
            return f"an error page ({heading!r})"
    if _docbook_longdesc(root):
        return "a DocBook long description page (a figure's text alternative, on a page of its own)"
    if _texinfo_index(root):
        return "a Texinfo index page"  # a GNU manual's concept or function index node: its entries and links only
    if root.xpath("//ul[@id='full_list'] | //h1[contains(concat(' ', @class, ' '), ' alphaindex ')]"):
        return "a YARD index or list page"  # Ruby's: the A-Z index, the class, method and file lists (no meta)
    if root.xpath("//body[contains(concat(' ', @class, ' '), ' table-of-contents ')]"):
        return "an RDoc table of contents"  # Ruby's: every class and method name, linked
    if root.xpath("//div[@id='index'][//div[@id='package-header']]"):
        return "a Haddock index page"  # Haskell's: the A-Z index of a package's names
    if root.xpath("/html/body[count(*)=1]/pre[.//span[starts-with(@class, 'hs-')]]"):
        return "a Haddock source listing"  # the module's source, hyperlinked
    if _member_list(root):
        return "a QDoc or Doxygen list of a class's members"
    generator = _generator(root)
    if _PDOC.search(generator) and any(not m.text_content().strip() for m in root.xpath("//main")):
        return "a pdoc module list"  # its index.html: an empty content area, the modules' names in its navigation
    if _JAVADOC_GENERATED.search(generator):
        return "a javadoc index, tree, usage or source page"
    if root.xpath("//h1[starts-with(normalize-space(.), 'Source: ')]") and root.xpath(
            "//pre[contains(concat(' ', @class, ' '), ' prettyprint ') and contains(concat(' ', @class, ' '), "
            "' source ')]"):
        return "a JSDoc source listing"  # "Source: widgets.js", the whole file (JSDoc's templates: default, docdash)
    if generator == "typedoc" and root.xpath("//h2[normalize-space(.)='Hierarchy Summary']"):
        return "a TypeDoc hierarchy page"  # hierarchy.html: every type's name, in a tree of what extends what
    if re.search(r"\brustdoc\b", generator, re.I):
        body = root.find("body")
        if body is not None and _classes(body) & {"source", "src"}:
            return "a rustdoc source listing"  # src/**/*.rs.html: every source file of the crate and its dependencies
        if any(" ".join(h.text_content().split()) in _RUSTDOC_PAGES for h in root.xpath("//h1")):
            return "a rustdoc list of all items or settings page"
    # Sphinx's index tables and search page, whatever the theme (Read the Docs' drops the generator meta and writes no
    # permalink on these pages)
    if root.xpath("//table[contains(concat(' ', @class, ' '), ' indextable ') or contains(concat(' ', @class, ' '), "
                  "' domainindex-table ')]"):  # Furo's module index: domainindex-table
        return "a Sphinx index page"
    if root.xpath("//*[@id='search-results']"):
        return "a Sphinx search page"
    # Sphinx's viewcode listings: its viewcode-block class is its own, whatever the theme
    if root.xpath("//div[contains(concat(' ', @class, ' '), ' viewcode-block ')]"):
        return "a Sphinx source listing (viewcode)"
    if _sphinx(root, generator):
        headings = [" ".join(h.text_content().split()) for h in root.xpath("//h1")]
        listing = root.xpath("//div[contains(concat(' ', @class, ' '), ' highlight ')]")
        if any((h.startswith("Source code for ") and listing) or h == "All modules for which code is available"
               for h in headings):
            return "a Sphinx source listing (viewcode)"
    if re.search("doxygen", generator, re.I):
        contents = root.xpath("//div[contains(concat(' ', @class, ' '), ' contents ')]")
        text = " ".join(contents[0].text_content().split()) if contents else ""
        if _DOXYGEN_INDEX.match(text) or re.match(r"^- \w+ -", text.lstrip("\xa0 ")):
            return "a Doxygen index or source page"
        if root.xpath("//*[contains(concat(' ', @class, ' '), ' classindex ')]"):
            return "a Doxygen index or source page"  # classes.html: "Data Structure Index", "Class Index"
    return None


# a site's error page's heading: "404 - Not found", "Page Not Found", "404", YARD's frames page's "Oops!"
# mdBook's "Document not found (404)"
_NOT_FOUND = re.compile(r"(?:404\s*[-:\u2013\u2014]?\s*)?"
                        r"(?:(?:(?:page|document)\s+)?not\s+found(?:\s*\(404\))?|oops[^a-z]*)[.!]?|404", re.I)
# the most text a redirect page's body holds: a line pointing to the target ("The node you are looking for is at
# XREFeig.", "Redirecting to the new page. If you are not redirected automatically, follow this link.")
_REDIRECT_TEXT = 200


# a script sending the reader to another page
_SCRIPT_REDIRECT = re.compile(r"\blocation(?:\.href)?\s*=[^=]|\blocation\.(?:replace|assign)\s*\(")


# a refresh's URL written without "url=", as HTML allows: "0; ./cli.html" (``_redirect``)
_REFRESH_URL = re.compile(r"\s*\d+(?:\.\d*)?\s*[;,]\s*['\"]?([^'\"\s][^'\"]*)")


def _redirect(root) -> str | None:
    """Where the page sends its reader, where that is all it does: a ``<meta http-equiv="refresh">`` naming a URL and
    no more body text than a line pointing there (``_REDIRECT_TEXT``). Texinfo writes one for every anchor and old
    node name of a manual split into pages (2,356 of GNU Octave's 2,863), Sphinx's and MkDocs' redirect plugins one
    for every moved page; the target page is read on its own. Or a page with no text at all whose script sends the
    reader on (the Rust reference's ``*-redirect.html``, mapping old anchors to new pages)."""
    scripts = " ".join(root.xpath("//script/text()"))
    if _SCRIPT_REDIRECT.search(scripts) and len(root.text_content()) < len(scripts) + 1000 and not " ".join(
            root.xpath("//text()[not(ancestor::script) and not(ancestor::style) and not(ancestor::title)]")).strip():
        return "where its script sends it"
    for meta in root.iter("meta"):
        if (meta.get("http-equiv") or "").strip().lower() != "refresh":
            continue
        content = meta.get("content") or ""  # "0; url=page.html", or as HTML allows, "0; page.html" (SQLite's)
        url = re.search(r"url\s*=\s*['\"]?([^'\"]+)", content, re.I) or _REFRESH_URL.match(content)
        body = root.find("body")
        text = "" if body is None else " ".join(
            " ".join(body.xpath(".//text()[not(ancestor::script) and not(ancestor::style)]")).split())
        return url.group(1).strip() if url and url.group(1).strip() and len(text) <= _REDIRECT_TEXT else None
    return None


# a template language's tags (Jinja's and Django's statements, expressions and comments): opener -> closer
_TEMPLATE_TAGS = {"{%": "%}", "{{": "}}", "{#": "#}"}
_TEMPLATE_OPEN = re.compile(r"\{[%{#]")


def _template(root) -> bool:
    """Whether the file is a template a site's theme left among its pages, not a page: text made only of template tags
    (pydata-sphinx-theme copies its ``webpack-macros.html``, ``{% macro head_pre_icons() %}`` and links, into every
    built site's ``_static``: pandas', groonga's). It would fail as a file with no text. One pass, stopping at the
    first text outside a tag (a page about templates quotes them among its text)."""
    if "{%" not in root.text_content():  # (the check below walks every text node's ancestors: a rustdoc source page
        return False  # holds a million)
    text = "".join(root.xpath("//text()[not(ancestor::script) and not(ancestor::style)]"))
    at = 0
    while (tag := _TEMPLATE_OPEN.search(text, at)) is not None:
        if text[at : tag.start()].strip():
            return False
        end = text.find(_TEMPLATE_TAGS[tag.group()], tag.end())
        if end < 0:
            return False
        at = end + 2
    return not text[at:].strip()


def _mdbook_print(root) -> bool:
    """Whether the page is an mdBook's print.html: every chapter of the book again on one page, which its generator
    marks for search engines to leave out (robots "noindex"); read beside the chapters, every passage would be there
    twice."""
    made = root.xpath("/html/head/comment()[contains(., 'generated using mdBook')]")
    return bool(made) and any("noindex" in (m.get("content") or "").lower() for m in root.iter("meta")
                              if (m.get("name") or "").lower() == "robots")


def _sphinx(root, generator: str) -> bool:
    """Whether the page is Sphinx's (or docutils'): by its generator meta, or by Sphinx's own markup where a theme
    dropped the meta."""
    return bool(re.search("sphinx|docutils", generator, re.I)) or _has_class(root, ("sphinxsidebar",)) or all(
        root.xpath(path) for path in _SPHINX)


def is_doc_page(root) -> bool:
    """Whether ``root`` (a parsed page, its class names in lower case: ``lower_classes``) comes from one of the
    generators read here."""
    if _GENERATORS.search(_generator(root)):
        return True
    if _has_class(root, _MARKERS):
        return True
    return all(root.xpath(path) for path in _SPHINX)


def read_root(root) -> tuple[str, Blocks | None]:
    """(title, blocks) of any page's content root, read as a generator's page is (``read``), where the page has a
    known one (``_ROOTS``, or an element with the id ``main-content``); ("", None) where it has none."""
    roots = _ROOTS + ("//*[@id='main-content']",)
    if not any(root.xpath(path) for path in roots):
        return "", None
    return read(root, roots)


def read(root, roots: tuple[str, ...] = _ROOTS) -> tuple[str, Blocks]:
    """(title, blocks) of a documentation page: its title heading (else its <title>), and its content's blocks.

    The title heading is the first h1 that the page's <title> begins with ("QuerySet API reference" of
    "QuerySet API reference — Django 3.2.25 documentation"), else its first h1: a theme may put the site's name
    in an h1 of every page's header (Django's). Where no known content root holds the page, a Sphinx page's
    content is what holds the section its title heading opens, without the theme's header, navigation and
    footer around it; other pages are read whole (DocBook's, AsciiDoc's and Texinfo's by design).
    """
    whole = _read_whole(root)
    generator = _generator(root)
    # MkDocs' readthedocs theme's page name, without the site's ("Options", not "Options - Typer"), before scripts go
    named = _MKDOCS_PAGE.search(" ".join(root.xpath("//script/text()"))) if generator == "mkdocs-readthedocs" else None
    if _IS_SITE.search(generator):
        _site_shape(root)
    if generator == "gi-docgen":  # its content section (a pdoc page has a section#main too: a member named main)
        _gidocgen_shape(root)
        roots = ("//section[@id='main']", *roots)
    if generator == "erl_docgen":
        _erldocgen_shape(root)
        roots = ("//div[@id='content']", *roots)
    if generator == "httpd-manual":
        roots = ("//div[@id='page-content']", *roots)
    if generator == "sqlite-docs":  # a page's "fancy" title is a <div>
        for title_div in root.xpath(f"//div[{_class('fancy_title')}]"):
            title_div.tag = "h1"
    galleries = {t.getparent() for t in root.xpath(_THUMBNAILS)}
    for path in _NOISE + tuple(p for made_by, paths in _FURNITURE if made_by.search(generator) for p in paths):
        for el in root.xpath(path):
            _drop(el)
    for section in galleries:  # "Examples using X" with its thumbnails gone: a heading over nothing
        if section.tag == "section" and section.getparent() is not None and not "".join(
                c.text_content() for c in section if isinstance(c.tag, str) and not _HEADING.fullmatch(c.tag)).strip():
            _drop(section)
    if generator == "haddock":  # the module's name is its title; a group heading wrapped in its own anchor is one
        for caption in root.xpath("//div[@id='module-header']/p[contains(concat(' ', @class, ' '), ' caption ')]"):
            caption.tag = "h1"
        for anchor in root.xpath("//a[h1|h2|h3|h4|h5|h6]"):
            anchor.drop_tag()
        _haddock_signatures(root)
    if generator == "typedoc":
        _typedoc_shape(root)
    for title_div in root.xpath("//div[contains(concat(' ', @class, ' '), ' headertitle ')]"
                                "/div[contains(concat(' ', @class, ' '), ' title ')]"):
        title_div.tag = "h1"  # Doxygen's page title ("SDL_video.h File Reference") is a <div>
    page_title = named.group(1) if named else " ".join((root.findtext(".//title") or "").split())
    content = next((found[0] for path in roots if (found := root.xpath(path))), None)
    if content is None:
        body = root.find("body") if root.find("body") is not None else root
        section = None if whole else _section_root(_title_heading(body, page_title))
        content = body if section is None else section
    heading = _title_heading(content, page_title)
    title = _inline(heading) if heading is not None else page_title
    out = Blocks()
    _drop_noncharacters(content)
    mark_code(content)
    _Walker(out).container(content)
    return title, out


def _haddock_signatures(root) -> None:
    """A Haddock entry whose arguments are documented one by one writes its name alone on its line and its type in
    the rows of an "Arguments" table (":: Exception e", "=> IO a", "-> (e -> IO a)", "-> IO a"): the type joined
    onto the name's line, "catch :: Exception e => IO a -> (e -> IO a) -> IO a", as every other entry writes it (the
    reader takes it for a typed declaration, ``function.model.reader._TYPED_DECLARATION``); the table stays for
    its descriptions."""
    for args in root.xpath(f"//div[{_class('subs')} and {_class('arguments')}]"):
        name = args.getprevious()
        if name is None or name.tag != "p" or "src" not in _classes(name):
            continue
        parts = (" ".join(td.text_content().split()) for td in args.xpath(f".//td[{_class('src')}]"))
        signature = " ".join(p for p in parts if p)
        if not signature:
            continue
        if len(name):
            name[-1].tail = (name[-1].tail or "").rstrip() + " " + signature
        else:
            name.text = (name.text or "").rstrip() + " " + signature


def _gidocgen_shape(root) -> None:
    """gi-docgen's page heading as a browser shows it: out of the <header> the walker drops, its parts joined by "."
    as the page's <title> writes them ("Json.Node.get_parent"), the kind above it ("Method") a line of its own."""
    for header in root.xpath("//section[@id='main']/header"):
        for kind in header.xpath("./h3"):
            kind.tag = "p"
        for sep in header.xpath(f".//span[{_class('sep')}]"):
            sep.text = "."
        header.drop_tag()


def _erldocgen_shape(root) -> None:
    """Erlang/OTP's function heads as one heading each: a head's several signatures (one per arity, written one after
    the other) joined by "; ", the version it came in ("OTP 17.1.2") a line after the heading; each function's
    "Types" label a line, not a heading under the function's."""
    for head in root.xpath(f"//article[{_class('func')}]/*[{_class('func-head')}]"):
        names = head.xpath(f".//span[{_class('title-name')}]")
        for name in names[:-1]:
            name.tail = "; " + (name.tail or "")
        for since in head.xpath(f".//div[{_class('title-since')}]"):
            line = head.makeelement("p", {})
            line.text = "Since " + " ".join(since.text_content().split())
            since.getparent().remove(since)
            head.addnext(line)
    for label in root.xpath(f"//h3[{_class('func-types-title')}]"):
        label.tag = "p"


def _site_shape(root) -> None:
    """A static site's page as the walker reads it: Docusaurus' page heading out of the <header> the walker drops, its
    admonitions' heading (a <div> of hashed classes: "note", "tip") their title; each tab's label leading its panel as
    a paragraph (MkDocs Material's content tabs, VitePress' code groups), where the walker would glue all the labels
    into one line before the panels ("npmyarn")."""
    for markdown in root.xpath(f"//div[{_class('theme-doc-markdown')}]"):
        for header in markdown.xpath(".//header"):
            header.drop_tag()
        for heading in markdown.xpath(f".//div[{_class('theme-admonition')}]/div[1]"):
            heading.set("class", "admonition-title")
    for labels, panels in [(t.xpath(f"./div[{_class('tabbed-labels')}]/label"),
                            t.xpath(f"./div[{_class('tabbed-content')}]/div[{_class('tabbed-block')}]"))
                           for t in root.xpath(f"//div[{_class('tabbed-set')}]")] + \
                          [(g.xpath(f"./div[{_class('tabs')}]/label"), g.xpath(f"./div[{_class('blocks')}]/div"))
                           for g in root.xpath(f"//div[{_class('vp-code-group')}]")]:
        if not labels or len(labels) != len(panels):
            continue
        for label, panel in zip(labels, panels):
            lead = panel.makeelement("p", {})
            lead.text = _inline(label)
            panel.insert(0, lead)
            _drop(label)


def _typedoc_shape(root) -> None:
    """TypeDoc's markup as the reader reads an entry: a member's heading (h3) is its name, without its flags
    ("Optional", "Readonly": a flag elsewhere is a word of its own); a property's or parameter's line (h5) and the
    "Parameters", "Returns number" titles (h4) are lines of the entry, not headings; a block tag whose value is one
    short line is one line ("Default: true", "Name: differenceInDays"), else its title leads its text; each
    signature (a list of overloads) an entry led by it."""
    for flag in root.xpath("//code[contains(concat(' ', @class, ' '), ' tsd-tag ')]"):
        if any(_HEADING.fullmatch(a.tag) and a.tag != "h5" for a in flag.iterancestors()):
            _drop(flag)
        else:
            flag.tail = " " + (flag.tail or "").lstrip()
    for tag in root.xpath("//div[starts-with(@class, 'tsd-tag-')]"):
        title = tag.find("h4")
        rest = [el for el in tag if el is not title]
        value = " ".join(rest[0].text_content().split()) if len(rest) == 1 else ""
        if title is not None and value and len(value) <= 80 and "\n" not in rest[0].text_content().strip():
            line = tag.makeelement("p", {})
            line.text = f"{' '.join(title.text_content().split())}: {value}"
            for el in list(tag):
                tag.remove(el)
            tag.append(line)
    for title in root.xpath("//div[contains(concat(' ', @class, ' '), ' col-content ')]//*[self::h4 or self::h5]"):
        title.tag = "p"
    for signatures in root.xpath("//ul[contains(concat(' ', @class, ' '), ' tsd-signatures ')]"):
        signatures.tag = "div"  # each overload's signature, then its description: an entry each, not a list's line
        for item in signatures.findall("li"):
            item.tag, item.attrib["class"] = "div", "tsd-signature-item"


def _drop_noncharacters(content) -> None:
    """The page's own U+FDD0 and U+FDD1 out of ``content``'s text, which a character reference (``&#xFDD0;``) puts
    there after ``extract`` dropped the raw bytes: they would read as ``mark_code``'s marks."""
    for el in content.iter():
        if el.text and (CODE_OPEN in el.text or CODE_CLOSE in el.text):
            el.text = unmarked(el.text)
        if el.tail and (CODE_OPEN in el.tail or CODE_CLOSE in el.tail):
            el.tail = unmarked(el.tail)


def _title_heading(content, page_title: str):
    """The first h1 of ``content`` that ``page_title`` begins with, else its first h1 (None without one)."""
    h1s = content.xpath(".//h1")
    return next((h for h in h1s if (text := _inline(h)) and page_title.startswith(text)), h1s[0] if h1s else None)


def _read_whole(root) -> bool:
    """Whether the page is DocBook's, AsciiDoc's or Texinfo's, read whole (``_ROOTS``): by its generator or its
    markup."""
    return bool(_WHOLE.search(_generator(root))) or _has_class(
        root, ("navheader", "refentry", "refnamediv", "sectionbody", "titlepage"))


def _section_root(heading):
    """The element holding the outermost section (``div.section`` or ``<section>``, as Sphinx writes them) that
    ``heading`` opens; None where it opens none."""
    if heading is None:
        return None
    sections = [a for a in heading.iterancestors() if a.tag == "section" or "section" in _classes(a)]
    return sections[-1].getparent() if sections else None


def _drop(el) -> None:
    """Remove an element and what it holds, keeping the text that follows it."""
    if el.getparent() is not None:
        el.drop_tree()


def _space(text: str | None) -> str:
    """Source text as the browser shows it: each run of white space (line breaks too) one space."""
    return re.sub(r"\s+", " ", text or "")


def _inline(el) -> str:
    """An element's text on one line (white space as the browser shows it, blocks a space apart: ``_spaced_text``)."""
    return " ".join(_spaced_text(el).split())


def _spaced_text(el) -> str:
    """``el``'s text with a space at each block element's start and end and at each ``<br>``: lxml's
    ``text_content()`` joins "<dt>'peak_heights'</dt><dd><p>If height ..." into "'peak_heights'If height"."""
    parts: list[str] = [el.text or ""]
    stack = [(child, False) for child in reversed(el)]  # (element, closing): depth-first, without recursion
    while stack:
        e, closing = stack.pop()
        edge = isinstance(e.tag, str) and (e.tag in _BLOCK or e.tag == "br")
        if closing:
            parts.append(" " if edge else "")
            parts.append(e.tail or "")
            continue
        if not isinstance(e.tag, str):  # a comment or processing instruction: its text is not the page's
            parts.append(e.tail or "")
            continue
        parts.append(" " if edge else "")
        parts.append(e.text or "")
        stack.append((e, True))
        stack.extend((child, False) for child in reversed(e))
    return "".join(parts)


# an id docutils makes up where the name's own is taken ("id4": an object documented twice, a citation's label)
_AUTO_ID = re.compile(r"id\d+")


def _signature_name(dt) -> str | None:
    """A Sphinx signature's qualified name, from its ``sig-prename`` and ``sig-name`` ("humanfriendly." "format_size");
    None where it has none (a citation's or a glossary's term: titled by its text)."""
    parts = [" ".join(el.text_content().split()) for el in dt.iter()
             if isinstance(el.tag, str) and _classes(el) & {"sig-prename", "sig-name", "descclassname", "descname"}]
    return "".join(parts) or None


class _Walker:
    def __init__(self, out: Blocks):
        self.out = out
        self._shift = 0.0  # added to heading levels inside a reference entry headed by its name (``refentry``)

    def container(self, el) -> None:
        """A block container: runs of inline content become paragraphs, block children are walked."""
        run: list[str] = [_space(el.text)]
        for child in el:
            if not isinstance(child.tag, str):  # a comment or processing instruction
                pass
            elif child.tag in _BLOCK:
                self._paragraph(run)
                run = []
                self.block(child)
            elif child.tag == "br":
                run.append("\n")
            else:
                run.append(_space(child.text_content()))
            run.append(_space(child.tail))
        self._paragraph(run)

    def _paragraph(self, run: list[str]) -> None:
        text = "".join(run)
        if text.strip():
            self.out.text(text)

    def block(self, el) -> None:
        tag = el.tag
        classes = _classes(el)
        if classes & {"admonitionblock"}:  # AsciiDoc: a table of an icon cell (the title) and a content cell
            label = el.xpath(".//td[contains(@class, 'icon')]")
            content = el.xpath(".//td[contains(@class, 'content')]")
            if label and content:  # the label is text, or an icon's title ("Note") with Asciidoctor's font icons
                self.out.lead(_inline(label[0]) or next(iter(label[0].xpath(".//@title")), ""))
                self.container(content[0])
                return
        if "refentry" in classes and self.refentry(el):
            return
        if "seglistitem" in classes and self.segmented_item(el):
            return
        if tag == "table" and "memberdecls" in classes:  # Doxygen's member summaries
            self.member_declarations(el)
            return
        if "memitem" in classes and self.signed_entry(el, "memproto"):  # Doxygen's member details
            return
        if "fragment" in classes:  # Doxygen's code listing: a <div> per line, its number dropped as furniture
            lines = el.xpath("./div[contains(concat(' ', @class, ' '), ' line ')]")
            self.out.text("\n".join(line.text_content() for line in lines) if lines else el.text_content(), kind="code")
            return
        if "memtitle" in classes:  # Doxygen's member heading, under its group's ("Function Documentation")
            self.out.heading(int(tag[1]) + 1 if _HEADING.fullmatch(tag) else 3, _inline(el))
            return
        if "summary-table" in classes:  # javadoc's member summary: a grid of <div> cells, not a <table>
            self.grid(el)
            return
        if "detail" in classes and self.signed_entry(el, "member-signature"):  # javadoc's member details
            return
        if "top" in classes and self.signed_entry(el, "src"):  # Haddock's entry: its signature (p.src), its doc
            return
        if "tsd-signature-item" in classes and self.signed_entry(el, "tsd-signature"):  # TypeDoc's (_typedoc_shape)
            return
        if _pdoc_signature(el) is not None:  # pdoc's member: a section (a class's: div.classattr) with its signature
            self.pdoc_member(el)
            return
        if tag in ("ul", "ol") and el.xpath("./li/section|./li/h1|./li/h2|./li/h3|./li/h4|./li/h5|./li/h6"):
            for item in el:  # a list laying out sections (javadoc's summary and detail lists): not a list
                if item.tag == "li":
                    self.container(item)
            return
        if _HEADING.fullmatch(tag) and not (classes & {"title"} and self._in_admonition(el)):
            level = int(tag[1]) + self._shift
            self.out.heading(level, _inline(el))
        elif classes & _ADMONITION_TITLE and self._in_admonition(el):
            self.out.lead(_inline(el))
        elif tag == "pre":
            self.out.text(pre_text(el), kind="code")
        elif tag in ("ul", "ol"):
            lines: list[str] = []
            self.list(el, lines)
            self.out.text("\n".join(lines))
        elif tag == "dl":
            self.definitions(el)
        elif tag == "table":
            self.table(el)
        elif tag == "hr":
            return
        else:  # p, div, section, blockquote, li and dd outside their lists, ...
            self.container(el)

    def grid(self, el) -> None:
        """javadoc's summary table (``div.summary-table``): its cells are the <div> children in reading order, as many
        a row as it has header cells (``table-header``); one "cell | cell" line per row, the header row first."""
        cells = [c for c in el if isinstance(c.tag, str)]
        width = sum("table-header" in _classes(c) for c in cells) or 1
        lines = [" | ".join(_inline(c) for c in cells[i : i + width]) for i in range(0, len(cells), width)]
        self.out.text("\n".join(line for line in lines if line.strip(" |")), kind="table")

    def member_declarations(self, table) -> None:
        """Doxygen's summary of a page's members (``table.memberdecls``): its group heading ("Functions"), then one
        "type | name (parameters) | brief description" line per member, the description from the row after it."""
        rows: list[list[str]] = []
        for tr in table.iter("tr"):
            classes = _classes(tr)
            cells = [c for c in tr if c.tag in ("td", "th")]
            if "heading" in classes:
                self._rows(rows)
                rows = []
                for h in tr.xpath(".//h1|.//h2|.//h3|.//h4|.//h5|.//h6"):
                    self.out.heading(int(h.tag[1]), _inline(h))
            elif any(c.startswith("memdesc") for c in classes) and rows:
                description = " ".join(_inline(c) for c in cells if _inline(c))
                if description:
                    rows[-1].append(description)
            elif any(c.startswith(("memitem", "memtemplitem", "inherit")) for c in classes):
                row = [_inline(c) for c in cells]
                if any(row):
                    rows.append([c for c in row if c])
        self._rows(rows)

    def _rows(self, rows: list[list[str]]) -> None:
        if rows:
            self.out.text("\n".join(" | ".join(r) for r in rows), kind="table")

    def pdoc_member(self, el) -> None:
        """A member of a pdoc page (``_pdoc_signature``): a heading named by its qualified name ("Session.request"),
        a level below the module's title for a module's member and one further for each class around it, then an
        entry whose first line is its signature ("def get(url, params=None, **kwargs):") and whose description is its
        docstring, so that the docstring's "Parameters" and "Returns" headings sit under the member. A class's own
        members follow its entry, each under its own heading."""
        signature = _pdoc_signature(el)
        depth = sum(1 for a in el.iterancestors() if _pdoc_signature(a) is not None)
        self.out.heading(2 + depth, el.get("id"))
        members = [c for c in el if isinstance(c.tag, str) and _pdoc_signature(c) is not None]
        self.out.open_entry(_signature_line(signature), "")
        for child in el:
            if isinstance(child.tag, str) and child is not signature and child not in members:
                self.block(child)
        self.out.close_entry()
        for member in members:
            self.pdoc_member(member)

    def signed_entry(self, el, signature_class: str) -> bool:
        """An API member's details whose signature is ``el``'s child of ``signature_class`` (javadoc's
        ``section.detail`` with ``div.member-signature``; Doxygen's ``div.memitem`` with ``div.memproto``, its
        prototype laid out as a table) as one entry whose first line is the signature on one line ("SDL_Window *
        SDL_CreateWindow (const char * title, int x, ...)"), the children before it (javadoc's name heading) walked
        first. The member's heading names it, so the entry adds no name of its own to a continuing passage's title.
        Whether it was read so (no signature: walked as it is)."""
        signature = el.xpath(f"./*[contains(concat(' ', @class, ' '), ' {signature_class} ')]")
        if not signature:
            return False
        for child in el:
            if child is signature[0]:
                self.out.open_entry(_signature_line(child), "")
            elif isinstance(child.tag, str):
                self.block(child)
        self.out.close_entry()
        return True

    def segmented_item(self, el) -> bool:
        """A DocBook segmentedlist's item (aptitude's "Option: / Default: / Description:" for each of its configuration
        options) as one entry, its first segment its first line and, without that segment's title, its name
        ("APT::Get::List-Cleanup"), the other segments its text: each was a paragraph of its own, so a passage could
        hold two options and their two defaults, titled by neither, and end on an option whose default began the
        next. Whether it was read so (fewer than two segments: walked as it is)."""
        segs = el.xpath(f"./div[{_class('seg')}]")
        if len(segs) < 2:
            return False
        labels = segs[0].xpath(f".//*[{_class('segtitle')}]")
        first = _inline(segs[0])
        said, label = unmarked(first), unmarked(_inline(labels[0])) if labels else ""
        self.out.open_entry(first, said[len(label):].strip() if label and said.startswith(label) else said)
        for seg in segs[1:]:
            self.block(seg)
        self.out.close_entry()
        return True

    def refentry(self, el) -> bool:
        """A DocBook reference entry (a function, a command) among others in one page (PostGIS's manual): its name
        heading is the generic "Name", and its "Synopsis", "Description" and "Examples" headings are at its
        section's own level, so every passage of it would be titled by its section and "Description" alone. It is
        walked as a heading of its own, its name ("ST_Distance" of "ST_Distance — Returns the distance ..."), a
        quarter level below its headings' level, and its headings half a level below. Whether it was walked so: an
        entry whose heading or page already names it is walked as it is."""
        if self._shift:
            return False
        names = el.xpath("./div[contains(concat(' ', @class, ' '), ' refnamediv ')]")
        heading = names[0].xpath("./h1|./h2|./h3|./h4|./h5|./h6") if names else []
        if not heading:
            return False
        said = unmarked(_inline(names[0]))[len(unmarked(_inline(heading[0]))):].strip()
        name = re.split(r"\s+(?:\u2014|--|-)\s+", said, maxsplit=1)[0].strip() if said else ""
        level = int(heading[0].tag[1])
        named = re.compile(rf"(?<![\w.]){re.escape(name)}(?![\w.])") if name else None
        if not named or len(name) > 120 or any(named.search(h) for h in (unmarked(_inline(heading[0])),
                                                                         *self.out.headings.above(level))):
            return False
        self.out.heading(level + 0.25, name)
        self._shift = 0.5
        try:
            self.container(el)
        finally:
            self._shift = 0.0
        return True

    @staticmethod
    def _in_admonition(el) -> bool:
        for parent in el.iterancestors():
            if _classes(parent) & _ADMONITIONS:
                return True
            if parent.tag in ("section", "body") or _classes(parent) & {"section", "sect1", "sect2", "sect3",
                                                                        "refsect1", "refsect2", "refsection"}:
                return False
        return False

    def definitions(self, dl) -> None:
        """Each run of <dt> and the <dd> after it: one entry."""
        # javadoc's "Parameters:", "Returns:"; Doxygen's "Parameters", "Returns", "See also"
        unnamed = bool(_classes(dl) & {"field-list", "docinfo", "notes", "params", "section"})
        terms: list = []
        for child in dl:
            if child.tag == "dt":
                terms.append(child)
            elif child.tag == "dd":
                signature = ", ".join(t for t in (_term(x) for x in terms) if t)
                if unnamed and signature:  # "Parameters:", whether the generator wrote the colon or not
                    signature = signature.rstrip(": ") + ":"
                ids = [x.get("id") for x in terms if x.get("id")]
                # Texinfo's <dt id> is an index anchor ("index-cd"), not a name: its entry is named by its term; a
                # docutils id made up for an object documented twice ("id4") is none either: the signature's name is
                named = [i for i in ids if not _AUTO_ID.fullmatch(i)]
                if unnamed:
                    name = ""
                elif ids and ids[0].startswith("index-"):
                    name = None
                else:
                    name = named[0] if named else _signature_name(terms[0]) if terms else None
                self.out.open_entry(signature, name)
                self.container(child)
                self.out.close_entry()
                terms = []
            elif child.tag == "div":  # HTML5 allows <div> wrapping a <dt>/<dd> group
                self.definitions(child)
        for dt in terms:  # a term without a description
            self.out.text(_inline(dt))

    def table(self, table) -> None:
        """Rows as "cell | cell" lines; a DocBook variablelist laid out as a table (term | description) as
        entries (docutils' option lists too); a DocBook function prototype laid out as a table (one cell per
        parameter) as its one line; a layout table (one holding headings, definition lists or code) as its
        cells' content in order."""
        rows = [tr for tr in table.iter("tr") if next(tr.iterancestors("table")) is table]
        if "funcprototype-table" in _classes(table):  # DocBook's function synopsis: one prototype, one line
            # its cells join as written ("pam_start(", then "service_name, "), not a space apart as other blocks
            self.out.text(" ".join(table.text_content().split()), kind="code")
            return
        if _classes(table) & {"variablelist", "option-list"}:  # DocBook's as a table, docutils' option lists
            term = ""  # a long option's term spans the row above its description (docutils)
            for tr in rows:
                cells = [c for c in tr if c.tag in ("td", "th")]
                if len(cells) < 2:
                    term = _term(cells[0]) if cells else term
                    continue
                self.out.open_entry(_term(cells[0]) or term)
                for cell in cells[1:]:
                    self.container(cell)
                self.out.close_entry()
                term = ""
            return
        if table.xpath(".//h1|.//h2|.//h3|.//h4|.//h5|.//h6|.//dl|.//pre"):  # layout, or code beside its line numbers
            for tr in rows:
                for cell in tr:
                    if cell.tag in ("td", "th"):
                        self.container(cell)
            return
        lines = table_lines([[_inline(c) for c in tr if c.tag in ("td", "th")] for tr in rows])
        self.out.text("\n".join(lines), kind="table")

    def list(self, el, lines: list[str]) -> None:
        """ "- item" lines (numbered in an <ol>), nested lists after their item's text; a code block in an item
        ends the lines so far (a block of their own) and becomes a code block, the item's text going on after."""
        ordered = el.tag == "ol"
        number = int(el.get("start")) if ordered and (el.get("start") or "").isdigit() else 1
        for item in el:
            if item.tag != "li":
                continue
            marker = f"{number}. " if ordered else "- "
            number += 1
            own = [_space(item.text)]
            for child in item:
                if not isinstance(child.tag, str):
                    pass
                elif child.tag in ("ul", "ol"):
                    marker = _line(lines, marker, own)
                    self.list(child, lines)
                elif child.tag == "pre" or child.xpath(".//pre"):
                    marker = _line(lines, marker, own)
                    self.out.text("\n".join(lines))
                    lines.clear()
                    self.block(child)
                else:  # a block in the item (a <p>, a <div>) shows on a line of its own: a space, at least, apart
                    text = " " if child.tag == "br" else _space(_spaced_text(child))
                    own.append(f" {text} " if child.tag in _BLOCK else text)
                own.append(_space(child.tail))
            _line(lines, marker, own)


def _signature_line(el) -> str:
    """A signature laid out over lines or cells, on one line: no space inside the brackets or before a comma, as the
    code writes it."""
    return re.sub(r"\s+,", ",", re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", _inline(el))))


def _pdoc_signature(el):
    """pdoc's signature of the member ``el`` (a ``section`` with an id, or a class's ``div.classattr``): its
    ``div.attr`` of a function, class or variable; None for any other element."""
    if not isinstance(el.tag, str) or not el.get("id") or not (el.tag == "section" or "classattr" in _classes(el)):
        return None
    return next((c for c in el if c.tag == "div" and "attr" in (k := _classes(c)) and k & {"function", "class",
                                                                                          "variable"}), None)


def _term(dt) -> str:
    """A <dt>'s text; terms it holds on lines of their own (DocBook's "-p port<br>--port=port") joined by ", "."""
    for br in dt.iter("br"):
        br.tail = "\ue000" + (br.tail or "")  # a private-use character as the separator
    return ", ".join(t for t in (" ".join(p.split()) for p in dt.text_content().split("\ue000")) if t)


def _line(lines: list[str], marker: str, own: list[str]) -> str:
    """The text gathered in ``own`` as a list line (emptying it); the marker for the item's next line."""
    text = " ".join("".join(own).split())
    own.clear()
    if not text:
        return marker
    lines.append(marker + text)
    return ""
