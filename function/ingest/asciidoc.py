"""AsciiDoc sources (``.adoc``, ``.asciidoc``, ``.asc``) read into blocks for ``extract._assemble``.

AsciiDoc is the source format of Git's, Spring's and many Java projects' documentation, of Antora sites and of
``README.adoc`` files. No well-kept library fits here: asciidoc-py is GPLv2+ (this project is Apache-2.0),
Asciidoctor is Ruby, and the one Python parser under a permissive license is an alpha. What documentation uses is
line-oriented, so this module reads it directly:

- section titles (``== Title``, and the older two-line form underlined with ``=``, ``-``, ``~``, ``^``, ``+``) are
  headings; the document title (level 0) is the title, its author and revision lines left out;
- paragraphs are joined into lines (a hard break, `` +`` at a line's end, kept); an admonition paragraph
  (``NOTE: ...``) or an admonition block's first paragraph is led by its label ("Note: ..."), a block title
  (``.Title``) is a line before its block;
- delimited listing (``----``) and literal (``....``) blocks, Markdown-style fences, indented literal paragraphs and
  ``[source]``, ``[listing]``, ``[literal]`` and ``[verse]`` paragraphs are code blocks with their lines; example,
  sidebar, quote and open blocks give their content; passthrough blocks their text; comments nothing;
- lists are "- item" / "1. item" lines, a list continuation (``+``) attaching the next block to its item; a
  labelled list's terms (``--dry-run::``, several terms sharing one description) are an entry whose first line is its
  terms joined by ", ", as a Sphinx ``<dl>`` entry is;
- a table (``|===``) is one "cell | cell" line per row;
- inline markup is reduced to its text: ```monospace``` is inline code (``extract.code_marked``), emphasis and
  strong marks go, links and cross references give their text, another macro its target and text ("linkgit:
  git-commit[1]" -> "git-commit(1)"), attribute references their value where the document or AsciiDoc defines it.

``include::`` is not followed (a file never makes ingestion read another file, as for reStructuredText), and
preprocessor conditionals keep what they enclose.
"""

from __future__ import annotations

import re
import textwrap

from function.ingest.extract import Blocks, _strip_tags, code_marked

# AsciiDoc's built-in attributes that stand for characters (``{nbsp}``, ``{startsb}``, ...).
_BUILTIN = {"nbsp": "\u00a0", "zwsp": "", "wj": "", "sp": " ", "empty": "", "blank": "", "amp": "&", "lt": "<",
            "gt": ">", "startsb": "[", "endsb": "]", "vbar": "|", "caret": "^", "asterisk": "*", "tilde": "~",
            "plus": "+", "backslash": "\\", "backtick": "`", "two-colons": "::", "two-semicolons": ";;", "cpp": "C++",
            "apos": "'", "quot": '"', "deg": "\u00b0", "brvbar": "\u00a6", "ldquo": "\u201c", "rdquo": "\u201d",
            "lsquo": "\u2018", "rsquo": "\u2019"}
_ADMONITIONS = ("NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION")
_CODE_STYLES = ("source", "listing", "literal", "verse")  # a [verse] block: a synopsis, whose lines matter

_COMMENT = re.compile(r"//(?!//)")
_ATTRIBUTE_ENTRY = re.compile(r":(!?[\w][\w-]*!?):(?:[ \t]+(.*?))?[ \t]*")
_BLOCK_ATTRIBUTES = re.compile(r"\[(?!\[)[^\]]*\]|\[\[[^\]]*\]\]")
_BLOCK_TITLE = re.compile(r"\.([^.\s\t].*)")
_TITLE = re.compile(r"(={1,6})[ \t]+(.+?)(?:[ \t]+=+)?[ \t]*")
_UNDERLINES = {"=": 0, "-": 1, "~": 2, "^": 3, "+": 4}
_DELIMITER = re.compile(r"(-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,}|--|`{3,}.*|~{3,}.*)")
_TABLE = re.compile(r"[|,:!]={3,}")
_DIRECTIVE = re.compile(r"(?:include|ifdef|ifndef|ifeval|endif)::.*\[.*\]")
_BULLET = re.compile(r"[ \t]*(\*{1,5}|-)[ \t]+(?:\[[ x*]\][ \t]+)?(.*)")
_NUMBERED = re.compile(r"[ \t]*(\.{1,5}|\d+\.)[ \t]+(.*)")
_LABELLED = re.compile(r"(?![ \t])(.*?\S)(:{2,4}|;;)(?:[ \t]+(.*))?")
_ADMONITION = re.compile(rf"({'|'.join(_ADMONITIONS)}):[ \t]+(.*)")

# inline markup
_ATTRIBUTE_REF = re.compile(r"(\\?)\{([\w][\w-]*)\}")
_QUOTED = re.compile(r"``(?!\s)([^`']+?)''")
_PASS = re.compile(r"pass:[a-z,]*\[(.*?)\]|\+\+\+(.+?)\+\+\+|\+\+(.+?)\+\+")
_MONO = re.compile(r"(?<![\w`\\])``?(?!\s)(.+?)(?<!\s)``?(?![\w`])")
_PLUS = re.compile(r"(?<![\w+\\])\+(?!\s)([^+\n]+?)(?<!\s)\+(?![\w+])")
_STRONG = re.compile(r"\*\*(.+?)\*\*|(?<![\w*\\])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_EMPHASIS = re.compile(r"__(.+?)__|(?<![\w_\\])_(?!\s)(.+?)(?<!\s)_(?![\w_])|(?<![\w'\\])'(?=\S)([^'\n]*?\S)'(?![\w'])")
_MARK = re.compile(r"##(.+?)##|(?<![\w#\\&])#(?!\s)([^#\n]+?)(?<!\s)#(?![\w#])")
_XREF = re.compile(r"<<([^,>]+?)(?:,[ \t]*([^>]+?))?>>")
_URL = re.compile(r"(?<![\w/])((?:https?|ftp|irc|mailto):[^\s\[\]<>]+)\[([^\]]*)\]")
_MACRO = re.compile(r"(?<![\w\\])([a-z][\w-]*):(?!//)([^\s\[\]]*)\[([^\]]*)\]")
_INDEX_TERMS = re.compile(r"\(\(\((.*?)\)\)\)|\(\((.*?)\)\)")
_LINK_MACROS = {"link", "xref", "mailto"}
_TEXT_MACROS = {"kbd": lambda target, text: text, "btn": lambda target, text: text,
                "footnote": lambda target, text: f" ({text})" if text else "",
                "image": lambda target, text: text, "icon": lambda target, text: "",
                "anchor": lambda target, text: "", "indexterm": lambda target, text: "",
                "indexterm2": lambda target, text: text,
                "menu": lambda target, text: " > ".join([target, *[x.strip() for x in text.split(">") if x.strip()]])}


def _attributes(text: str, attrs: dict[str, str]) -> str:
    return _ATTRIBUTE_REF.sub(lambda m: "{" + m.group(2) + "}" if m.group(1) else attrs.get(m.group(2), m.group(0)),
                              text)


def _macro(m: re.Match) -> str:
    name, target, text = m.group(1), m.group(2), m.group(3).split(",")[0].strip().strip('"')
    if name in _LINK_MACROS:
        return text or target
    if name in _TEXT_MACROS:
        return _TEXT_MACROS[name](target, text)
    return f"{target}({text})" if text else target  # linkgit:git-commit[1] -> git-commit(1), as Git's pages show it


def inline(text: str, attrs: dict[str, str]) -> str:
    """A line's text without AsciiDoc's inline markup (monospace kept as inline code marks)."""
    text = _attributes(text, attrs)
    codes: list[str] = []

    def keep(code: str) -> str:  # code spans are set aside so that no other markup applies inside them
        codes.append(code)
        return f"\ue100{len(codes) - 1}\ue101"

    text = _PASS.sub(lambda m: m.group(1) or m.group(2) or m.group(3) or "", text)
    text = _QUOTED.sub("\u201c\\1\u201d", text)  # ``text'': AsciiDoc's older typographic quotes
    text = _MONO.sub(lambda m: keep(code_marked(m.group(1).strip("+") or m.group(1))), text)
    text = _URL.sub(lambda m: m.group(2).split(",")[0].strip().strip('"') or m.group(1), text)
    text = _XREF.sub(lambda m: (m.group(2) or m.group(1)).strip(), text)
    text = _MACRO.sub(_macro, text)
    text = _INDEX_TERMS.sub(lambda m: m.group(2) or "", text)
    text = _PLUS.sub(lambda m: m.group(1), text)
    text = _STRONG.sub(lambda m: m.group(1) or m.group(2), text)
    text = _EMPHASIS.sub(lambda m: m.group(1) or m.group(2) or m.group(3), text)
    text = _MARK.sub(lambda m: m.group(1) or m.group(2), text)
    text = re.sub(r"\\([*_`#+{\[<'])", r"\1", text)  # escaped marks
    return re.sub("\ue100(\\d+)\ue101", lambda m: codes[int(m.group(1))], text)


def _cells(line: str) -> tuple[str, list[str]]:
    """(text before the first cell separator, the cells a table line starts), a cell's spec ("2+", "a") dropped."""
    parts = re.split(r"(?:(?<![^\s])[\d.*+]*[adehlmsv]?)?(?<!\\)\|", line)
    return parts[0], [p.strip() for p in parts[1:]]


def _columns(spec: str) -> int:
    """How many columns a table's ``cols`` attribute declares ("1,3", "3*", "2*,1")."""
    count = 0
    for col in (c.strip() for c in spec.split(",") if c.strip()):
        repeat = re.match(r"(\d+)\*", col)
        count += int(repeat.group(1)) if repeat else 1
    return count


class _Reader:
    def __init__(self, source: str):
        self.lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        self.i = 0
        self.attrs = dict(_BUILTIN)
        self.out = Blocks()
        self.title = ""
        self.style = ""  # the next block's style, from its attribute line ("source", "NOTE", "verse", ...)
        self.cols = 0  # the next table's columns, from its attribute line
        self.items: list[str] = []  # the open list's lines
        self.entry = False  # a labelled list's entry is open
        self.attached = False  # a list continuation ("+") attaches the next block to the open item
        self.hardbreaks = False  # the next paragraph keeps its line breaks ([%hardbreaks])

    # -- blocks

    def read(self) -> tuple[str, Blocks]:
        while self.i < len(self.lines):
            self.step()
        self.end_list()
        return self.title, self.out

    def step(self) -> None:
        line = self.lines[self.i]
        stripped = line.strip()
        if not stripped:
            self.i += 1
            if not self.attached and self.items and not self._list_goes_on():
                self.end_list()
            return
        if stripped == "+" and (self.items or self.entry):
            self.attached = True
            self.i += 1
            return
        if stripped.startswith("////") and not stripped.strip("/"):
            self.skip_to(stripped)
            return
        if _COMMENT.match(line) or _DIRECTIVE.fullmatch(stripped):
            self.i += 1
            return
        if (entry := _ATTRIBUTE_ENTRY.fullmatch(line)) and not self.items:
            name = entry.group(1)
            if name.startswith("!") or name.endswith("!"):
                self.attrs.pop(name.strip("!"), None)
            else:
                self.attrs[name] = entry.group(2) or ""
            self.i += 1
            return
        if _BLOCK_ATTRIBUTES.fullmatch(stripped):
            self.block_attributes(stripped)
            self.i += 1
            return
        if (block_title := _BLOCK_TITLE.fullmatch(line)) and not stripped.startswith(".."):
            self.end_list_unless_attached()
            self.out.text(inline(block_title.group(1), self.attrs))
            self.i += 1
            return
        if (title := _TITLE.fullmatch(line)) or self._underlined():
            self.end_list()
            if title:
                level, text = len(title.group(1)) - 1, title.group(2)
                self.i += 1
            else:
                level, text = _UNDERLINES[self.lines[self.i + 1].strip()[0]], stripped
                self.i += 2
            self.heading(level, text)
            return
        if _TABLE.fullmatch(stripped):
            self.end_list_unless_attached()
            self.table(stripped)
            return
        if _DELIMITER.fullmatch(stripped):
            self.delimited(stripped)
            return
        if self.labelled(line) or self.list_item(line):
            return
        self.paragraph()

    def _underlined(self) -> bool:
        """Whether the line is a two-line title: text over a line of one of ``_UNDERLINES``, about as long."""
        if self.i + 1 >= len(self.lines):
            return False
        text, under = self.lines[self.i].rstrip(), self.lines[self.i + 1].rstrip()
        return (len(under) >= 2 and under[0] in _UNDERLINES and under == under[0] * len(under)
                and abs(len(under) - len(text)) <= 2 and text[:1] not in " \t" and not text.startswith(under[0] * 2)
                and any(ch.isalnum() for ch in text))

    def _list_goes_on(self) -> bool:
        """After a blank line: whether the next non-blank line continues the open list (another item)."""
        j = self.i
        while j < len(self.lines) and not self.lines[j].strip():
            j += 1
        if j >= len(self.lines):
            return False
        line = self.lines[j]
        return bool(_BULLET.fullmatch(line) or _NUMBERED.fullmatch(line)) and not _DELIMITER.fullmatch(line.strip())

    def heading(self, level: int, text: str) -> None:
        text = inline(text, self.attrs)
        if level == 0:
            self.title = self.title or " ".join(text.split())
            self.out.heading(1, text)
            while self.i < len(self.lines) and self.lines[self.i].strip() and not (
                    _ATTRIBUTE_ENTRY.fullmatch(self.lines[self.i]) or _COMMENT.match(self.lines[self.i])):
                self.i += 1  # the header's author and revision lines
        else:
            self.out.heading(level + 1, text)

    def block_attributes(self, line: str) -> None:
        inner = line[1:-1].strip()
        if inner.startswith("[") or not inner:  # an anchor ([[id]])
            return
        first = inner.split(",")[0].strip()
        self.hardbreaks = "%hardbreaks" in first
        self.style = first.lstrip("#.%").split("#")[0].split(".")[0].split("%")[0]
        if cols := re.search(r'cols\s*=\s*"([^"]*)"', inner):
            self.cols = _columns(cols.group(1))

    def skip_to(self, delimiter: str) -> list[str]:
        """The lines up to the closing ``delimiter`` (the block's content), past it."""
        self.i += 1
        content = []
        while self.i < len(self.lines) and self.lines[self.i].strip() != delimiter:
            content.append(self.lines[self.i])
            self.i += 1
        self.i += 1
        return content

    def delimited(self, delimiter: str) -> None:
        style, self.style = self.style, ""
        kind = delimiter[0]
        if (kind in "-." and delimiter != "--") or kind in "`~" or (delimiter == "--" and style in _CODE_STYLES):
            closing = re.match(r"[`~]+", delimiter).group(0) if kind in "`~" else delimiter  # a fence: its backticks
            content = self.skip_to(closing)
            self.code("\n".join(content))
            return
        if kind == "+":  # passthrough: raw markup, its text
            self.end_list_unless_attached()
            self.out.text(_strip_tags("\n".join(self.skip_to(delimiter))))
            return
        # example, sidebar, quote, open blocks: their content is read as any other; the delimiters go
        self.end_list_unless_attached()
        self.i += 1
        if style.upper() in _ADMONITIONS:
            self.out.lead(style.capitalize())

    def code(self, text: str) -> None:
        text = textwrap.dedent(text.expandtabs(8)).strip("\n")
        if self.items and self.attached:  # the list so far, the code, then the rest of the list
            self.flush_items()
        elif not self.entry or not self.attached:
            self.end_list()
        self.attached = False
        self.out.text(text, kind="code")

    def table(self, delimiter: str) -> None:
        cols, self.cols, self.style = self.cols, 0, ""
        content = self.skip_to(delimiter)
        separator = {"|": "|", ",": ",", ":": ":", "!": "!"}[delimiter[0]]
        cells: list[str] = []
        for line in content:
            if not line.strip():
                continue
            if separator == "|":
                before, started = _cells(line)
            else:  # CSV-like tables: one row a line
                before, started = "", [c.strip() for c in line.split(separator)]
            if before.strip() and cells:
                cells[-1] = f"{cells[-1]} {before.strip()}".strip()
            if not cols and started:
                cols = len(started)
            cells.extend(started)
        if not cells:
            return
        cols = cols or len(cells)
        rows = [cells[k:k + cols] for k in range(0, len(cells), cols)]
        self.out.text("\n".join(" | ".join(inline(c, self.attrs) for c in row) for row in rows), kind="table")

    def paragraph_lines(self, first: str | None = None) -> list[str]:
        """The paragraph's lines: up to a blank line, a block delimiter, a list item, a continuation or a title;
        ``first`` read in place of the current line (a list item's text after its marker)."""
        lines = [self.lines[self.i] if first is None else first]
        self.i += 1
        while self.i < len(self.lines):
            line = self.lines[self.i]
            stripped = line.strip()
            if (not stripped or stripped == "+" or _DELIMITER.fullmatch(stripped) or _TABLE.fullmatch(stripped)
                    or _BLOCK_ATTRIBUTES.fullmatch(stripped) or _COMMENT.match(line)
                    or (not lines[0][:1].isspace() and (_BULLET.fullmatch(line) or _NUMBERED.fullmatch(line)
                                                        or _LABELLED.fullmatch(line)))):
                break
            lines.append(line)
            self.i += 1
        return lines

    def paragraph(self) -> None:
        style, self.style = self.style, ""
        indented = self.lines[self.i][:1] in (" ", "\t")
        lines = self.paragraph_lines()
        if style in _CODE_STYLES or (indented and not (self.entry and self.attached)
                                                                   and not (self.items and not self.attached)):
            self.code("\n".join(lines))
            return
        text = self.join(lines)
        if self.items and (self.attached or indented):
            self.items[-1] += " " + text.replace("\n", " ")
            self.attached = False
            return
        if self.entry and (self.attached or indented):
            self.out.text(text)
            self.attached = False
            return
        self.end_list()
        if admonition := _ADMONITION.match(text):
            self.out.lead(admonition.group(1).capitalize())
            text = admonition.group(2)
        elif style.upper() in _ADMONITIONS:
            self.out.lead(style.capitalize())
        self.out.text(text)

    def join(self, lines: list[str]) -> str:
        """A paragraph's lines as one line of text (a hard break, " +" at a line's end, a line break; every line break
        with the hardbreaks option, on the paragraph or the document)."""
        hard, self.hardbreaks = self.hardbreaks or "hardbreaks-option" in self.attrs, False
        out = []
        for line in lines:
            line = line.strip()
            out.append(line[:-2].rstrip() + "\n" if line.endswith(" +") else line + ("\n" if hard else " "))
        return inline("".join(out).strip(), self.attrs)

    # -- lists

    def list_item(self, line: str) -> bool:
        bullet, numbered = _BULLET.fullmatch(line), _NUMBERED.fullmatch(line)
        if not (bullet or numbered) or (self.lines[self.i][:1].isspace() and not self.items and not self.entry):
            return False
        if self.entry:
            self.end_entry()
        self.attached = False
        marker, first = (bullet or numbered).group(1), (bullet or numbered).group(2)
        depth = len(marker) if marker[0] in "*." else 1
        prefix = "- " if bullet else f"{self._number(depth)}. "
        lines = self.paragraph_lines(first)
        self.items.append("  " * (depth - 1) + prefix + self.join(lines).replace("\n", " "))
        return True

    def _number(self, depth: int) -> int:
        """The next number of an ordered list at ``depth`` (items of deeper lists do not count)."""
        n = 0
        for item in reversed(self.items):
            indent = (len(item) - len(item.lstrip(" "))) // 2 + 1
            if indent < depth:
                break
            if indent == depth and re.match(r"\s*\d+\. ", item):
                n += 1
        return n + 1

    def labelled(self, line: str) -> bool:
        found = _LABELLED.fullmatch(line)
        if not found or line[:1].isspace():
            return False
        terms = [inline(found.group(1), self.attrs)]
        rest = found.group(3) or ""
        self.i += 1
        while not rest and self.i < len(self.lines) and (more := _LABELLED.fullmatch(self.lines[self.i])) \
                and not self.lines[self.i][:1].isspace():
            terms.append(inline(more.group(1), self.attrs))  # several terms sharing one description
            rest = more.group(3) or ""
            self.i += 1
        self.end_list()
        self.out.open_entry(", ".join(t for t in terms if t))
        self.entry = True
        self.attached = False
        if rest:
            self.lines[self.i - 1] = rest
            self.i -= 1
            self.out.text(self.join(self.paragraph_lines()))
        elif self.i < len(self.lines) and self.lines[self.i].strip() and not self._structural(self.lines[self.i]):
            self.out.text(self.join(self.paragraph_lines()))  # the description on the lines below
        return True

    @staticmethod
    def _structural(line: str) -> bool:
        """Whether a line opens something of its own (a block, a list item, a term, an attribute or comment line)."""
        stripped = line.strip()
        return bool(stripped == "+" or _DELIMITER.fullmatch(stripped) or _TABLE.fullmatch(stripped)
                    or _BLOCK_ATTRIBUTES.fullmatch(stripped) or _COMMENT.match(line) or _TITLE.fullmatch(line)
                    or _ATTRIBUTE_ENTRY.fullmatch(line) or _BULLET.fullmatch(line) or _NUMBERED.fullmatch(line)
                    or _LABELLED.fullmatch(line))

    def end_entry(self) -> None:
        if self.entry:
            self.out.close_entry()
            self.entry = False

    def flush_items(self) -> None:
        if self.items:
            self.out.text("\n".join(self.items))
            self.items = []

    def end_list(self) -> None:
        self.flush_items()
        self.end_entry()
        self.attached = False

    def end_list_unless_attached(self) -> None:
        if self.attached:
            self.flush_items()
        else:
            self.end_list()


def read(source: str) -> tuple[str, Blocks]:
    """(title, blocks) of an AsciiDoc document: its document title ("" if it has none) and its blocks."""
    return _Reader(source).read()
