"""API entries found in a documentation page's own markup: a name, its signature line and its description.

One reader per generator, each reading the page's source (not ingestion's text) for its structure:

- ``sphinx_entries``: Sphinx HTML ``<dl class="py function">`` (and method, class, attribute, exception, data,
  property, C/C++/JS objects, ``std option``/``confval``): the ``<dt>`` signature with its parameters and
  defaults, the ``<dd>``'s paragraphs, and its field list (Parameters, Returns, Return type, Raises).
- ``gtkdoc_entries``: gtk-doc (DocBook) reference pages: a ``refsect2`` block per function, macro or type,
  with its Parameters table and Returns section.
- ``docbook_entries``: DocBook ``variablelist`` terms (command options, configuration parameters).
- ``markdown_entries``: Markdown API headings (``### copy(src, dest[, options])``), option lists whose items
  start with a code span (``- `cwd` <string> Current working directory. Default: ...``) and option tables.
- ``man_entries``: a man page rendered to text: the NAME line (a command and what it does) and the option
  paragraphs of its sections.

Texts are whitespace-normalised; ``questions`` turns entries into questions and ``build`` finds their
anchors in ingestion's passages (ignoring white space), so small rendering differences do not matter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_WS = re.compile(r"\s+")


def norm(text: str) -> str:
    return _WS.sub(" ", text or "").strip()


@dataclass
class Param:
    name: str
    description: str = ""
    anchor: str = ""  # the rendered line that holds the parameter's name and description
    default: str = ""  # from "Default: X" / "defaults to X" in its description, or its table cell


@dataclass
class Entry:
    name: str  # the name as the signature shows it ("StreamReader.read_nowait", "--verbose", "g_strdup")
    role: str  # function, method, class, attribute, exception, option, parameter, command, macro, type, ...
    signature: str  # the rendered signature / term line: the name is found in it
    description: str = ""  # the first paragraph
    paragraphs: list[str] = field(default_factory=list)  # every paragraph of the description
    owner: str = ""  # the class, command or section the entry belongs to
    short: str = ""  # the last component of the name
    params: list[Param] = field(default_factory=list)
    defaults: list[tuple[str, str]] = field(default_factory=list)  # (parameter, default) from the signature
    returns: str = ""  # a Returns field
    rtype: str = ""  # a Return type field
    raises: list[tuple[str, str, str]] = field(default_factory=list)  # (exception, condition, item text)
    default_at: tuple[str, int, str] | None = None  # (anchor, offset, value): a default shown in a synopsis

    def __post_init__(self):
        if not self.short:
            self.short = re.split(r"[.#:]+|::", self.name.rstrip("."))[-1] or self.name


# ---------------------------------------------------------------- HTML helpers


_CHARSET = re.compile(rb"<meta[^>]+charset=[\"']?([\w-]+)", re.I)


def _html_root(data: bytes):
    """The parsed page; its bytes decoded by its declared charset, else as UTF-8 (lxml alone guesses Latin-1)."""
    import lxml.html

    m = _CHARSET.search(data[:4096])
    try:
        text = data.decode(m.group(1).decode() if m else "utf-8", "replace")
    except LookupError:
        text = data.decode("utf-8", "replace")
    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)
    try:
        return lxml.html.fromstring(text)
    except Exception:  # noqa: BLE001 - lxml raises several types for empty or odd documents
        return None


def _text(el) -> str:
    return norm(el.text_content()) if el is not None else ""


def _drop_permalinks(root) -> None:
    """Permalink marks and viewcode's "[source]" links: ingestion's text has neither."""
    for a in root.xpath('.//a[contains(concat(" ", normalize-space(@class), " "), " headerlink ")]'):
        a.drop_tree()
    for span in root.xpath('.//*[contains(concat(" ", normalize-space(@class), " "), " viewcode-link ")]'):
        parent = span.getparent()
        (parent if parent is not None and parent.tag == "a" else span).drop_tree()


def _classes(el) -> list[str]:
    return (el.get("class") or "").split()


# ---------------------------------------------------------------- Sphinx

_SPHINX_ROLES = {
    "function": "function", "method": "method", "classmethod": "method", "staticmethod": "method",
    "class": "class", "exception": "exception", "attribute": "attribute", "property": "property",
    "data": "attribute", "decorator": "decorator", "decoratormethod": "decorator", "macro": "macro",
    "type": "type", "struct": "type", "member": "member", "var": "variable", "enumerator": "constant",
    "option": "option", "cmdoption": "option", "confval": "setting", "envvar": "environment variable",
    "coroutinefunction": "function", "coroutinemethod": "method", "module": "",
}


def sphinx_entries(data: bytes) -> list[Entry]:
    root = _html_root(data)
    if root is None:
        return []
    _drop_permalinks(root)
    out: list[Entry] = []
    for dl in root.iter("dl"):
        cls = _classes(dl)
        role = next((_SPHINX_ROLES[c] for c in cls if c in _SPHINX_ROLES), None)
        if not role:
            continue
        dt = next((c for c in dl if c.tag == "dt"), None)
        dd = next((c for c in dl if c.tag == "dd"), None)
        if dt is None or dd is None:
            continue
        entry = _sphinx_entry(dl, dt, dd, role)
        if entry is not None:
            out.append(entry)
    return out


def _sphinx_entry(dl, dt, dd, role: str) -> Entry | None:
    signature = _text(dt)
    names = dt.xpath('.//*[contains(concat(" ", @class, " "), " descname ") or '
                     'contains(concat(" ", @class, " "), " sig-name ")]')
    prenames = dt.xpath('.//*[contains(concat(" ", @class, " "), " descclassname ") or '
                        'contains(concat(" ", @class, " "), " sig-prename ")]')
    if not names:
        return None
    if role == "option":
        flags = [_text(n) for n in names if _text(n)]
        name = next((f for f in flags if f.startswith("--")), flags[0] if flags else "")
        owner = ""
        short = name
    else:
        pre = _text(prenames[0]) if prenames else ""
        base = _text(names[0])
        name = pre + base if pre and pre + base in signature else base
        short = base
        owner = pre.rstrip(".").split(".")[-1] if pre and role in ("method", "attribute", "property") else ""
        if not owner and role in ("method", "attribute", "property"):
            owner = _enclosing_class(dl)
    if not name or len(name) > 80:
        return None
    entry = Entry(name=name, role=role, signature=signature, owner=owner, short=short)
    for em in dt.xpath('.//*[contains(concat(" ", @class, " "), " sig-param ")]'):
        n = em.xpath('.//*[contains(concat(" ", @class, " "), " n ")]')
        d = em.xpath('.//*[contains(concat(" ", @class, " "), " default_value ")]')
        if n and d:
            entry.defaults.append((_text(n[0]), _text(d[0])))
        elif "=" in _text(em):  # older Sphinx: "timeout=None" as plain text
            p, _, v = _text(em).partition("=")
            if re.fullmatch(r"\w+", p.strip()):
                entry.defaults.append((p.strip(), v.strip()))
    for child in dd:
        tag, cls = child.tag, _classes(child)
        if tag == "p":
            text = _text(child)
            if text:
                entry.paragraphs.append(text)
        elif tag == "dl" and "field-list" in cls:
            _sphinx_fields(entry, child)
        elif tag == "table" and "field-list" in cls:
            for tr in child.iter("tr"):
                th, td = tr.find("th"), tr.find("td")
                if th is not None and td is not None:
                    _sphinx_field(entry, _text(th), td)
    entry.description = entry.paragraphs[0] if entry.paragraphs else ""
    return entry if entry.description or entry.params or entry.returns or entry.raises else None


def _enclosing_class(dl) -> str:
    for parent in dl.iterancestors("dl"):
        if {"class", "exception"} & set(_classes(parent)):
            dt = next((c for c in parent if c.tag == "dt"), None)
            names = dt.xpath('.//*[contains(concat(" ", @class, " "), " sig-name ") or '
                             'contains(concat(" ", @class, " "), " descname ")]') if dt is not None else []
            return _text(names[0]) if names else ""
    return ""


def _sphinx_fields(entry: Entry, fl) -> None:
    dts = [c for c in fl if c.tag == "dt"]
    dds = [c for c in fl if c.tag == "dd"]
    for dt, dd in zip(dts, dds):
        _sphinx_field(entry, _text(dt), dd)


def _sphinx_field(entry: Entry, label: str, body) -> None:
    label = label.rstrip(":").strip().lower()
    items = body.xpath("./ul/li") or [body]
    if label in ("parameters", "parameter", "params", "arguments", "keyword arguments", "args", "other parameters"):
        for li in items:
            strong = li.xpath(".//strong")
            text = _text(li)
            if not strong or not text:
                continue
            pname = _text(strong[0])
            desc = re.split(r"\s[–—-]{1,2}\s", text, maxsplit=1)
            entry.params.append(Param(pname, desc[1] if len(desc) == 2 else "", text))
    elif label in ("returns", "return", "returns:") or label.startswith("return ") and label != "return type":
        entry.returns = _text(body)
    elif label in ("return type", "rtype"):
        entry.rtype = _text(body)
    elif label in ("raises", "raise", "exceptions", "throws"):
        for li in items:
            _add_raise(entry, _text(li))


def _add_raise(entry: Entry, text: str) -> None:
    """``ValueError – if ...`` (a Raises or Throws item): the exception, its condition, the item's text."""
    parts = re.split(r"\s[–—-]{1,2}\s", text, maxsplit=1)
    exc, cond = parts[0].strip(), (parts[1].strip() if len(parts) == 2 else "")
    if re.fullmatch(r"[A-Za-z_][\w.]*", exc):
        entry.raises.append((exc, cond, text))


# ---------------------------------------------------------------- gtk-doc (DocBook)


def gtkdoc_entries(data: bytes) -> list[Entry]:
    root = _html_root(data)
    if root is None:
        return []
    out = []
    for div in root.xpath('//div[contains(concat(" ", @class, " "), " refsect2 ")]'):
        h3 = div.find("h3")
        if h3 is None:
            continue
        title = _text(h3)
        prop = re.fullmatch(r"The [“\"]([\w:-]+)[”\"] (property|child property|style property|signal)", title)
        if prop:
            entry = _gtkdoc_property(div, title, prop.group(1), prop.group(2))
            if entry is not None:
                out.append(entry)
            continue
        m = re.fullmatch(r"([A-Za-z_]\w*)\s*(\(\))?", title)
        if not m:
            continue
        name = m.group(1)
        role = "function" if m.group(2) and not name.isupper() else "macro" if name.isupper() else "type"
        if name.startswith(("struct", "enum")):
            continue
        entry = Entry(name=name, role=role, signature=name)  # the heading's "()" may be rendered apart
        for child in div:
            cls = _classes(child)
            if child.tag == "p":
                text = _text(child)
                if text:
                    entry.paragraphs.append(text)
            elif child.tag == "div" and "refsect3" in cls:
                head = _text(child.find("h4")).lower()
                if head.startswith("parameters"):
                    for tr in child.iter("tr"):
                        pn = tr.xpath('./td[contains(@class, "parameter_name")]')
                        pd = tr.xpath('./td[contains(@class, "parameter_description")]')
                        if pn and pd and _text(pn[0]):
                            entry.params.append(Param(_text(pn[0]), _text(pd[0]),
                                                      f"{_text(pn[0])} | {_text(pd[0])}"))
                elif head.startswith("returns"):
                    entry.returns = " ".join(_text(p) for p in child.findall("p"))
        entry.description = entry.paragraphs[0] if entry.paragraphs else ""
        if entry.description or entry.returns:
            out.append(entry)
    return out


def _gtkdoc_property(div, title: str, name: str, kind: str) -> Entry | None:
    paras = [_text(p) for p in div.findall("p") if _text(p)]
    owner = next((p.split(":", 1)[1].strip() for p in paras if p.startswith("Owner:")), "")
    desc = [p for p in paras if not re.match(r"^(Owner|Flags|Default value|Allowed values|Since):", p)]
    if not desc:
        return None
    role = "signal" if kind == "signal" else "property"
    return Entry(name=name, role=role, signature=title, description=desc[0], paragraphs=paras, owner=owner)


_GIDOCGEN_ROLES = {"function": "function", "method": "method", "constructor": "function",
                   "class method": "method", "virtual method": "method"}


def gidocgen_entries(data: bytes) -> list[Entry]:
    """gi-docgen (GNOME's newer reference generator): one page per function, its C declaration, its
    description and its return value."""
    root = _html_root(data)
    if root is None:
        return []
    kind = _text(next(iter(root.xpath('//section[@id="main"]/header/h3')), None)).lower()
    role = _GIDOCGEN_ROLES.get(kind)
    decl = root.xpath('//div[contains(@class, "declaration")]//pre')
    if role is None or not decl:
        return []
    m = re.search(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", decl[0].text_content())
    paras = [_text(p) for p in root.xpath('//div[contains(@class, "description")]/div[@class="docblock"]/p')]
    paras = [p for p in paras if p]
    if not m or not paras:
        return []
    name = m.group(1)
    if "_" not in name:  # a callback's return type ("gboolean"), not a function name
        return []
    entry = Entry(name=name, role=role, signature=name, description=paras[0], paragraphs=paras)
    returns = root.xpath('//table[@class="returns"]//tr[@class="arg-description"]//p')
    if returns:
        entry.returns = _text(returns[0])
    return [entry]


# ---------------------------------------------------------------- Javadoc


def javadoc_entries(data: bytes) -> list[Entry]:
    """Javadoc member details (JDK 9+ ``section.detail``, JDK 8 ``li.blockList``): the member's name (its
    heading), its description, and its Parameters, Returns and Throws notes."""
    root = _html_root(data)
    if root is None:
        return []
    title = _text(next(iter(root.xpath("//h1 | //h2[@class='title']")), None))
    owner = title.split()[-1] if title else ""
    owner = re.sub(r"<.*", "", owner)
    out = []
    blocks = root.xpath('//section[contains(concat(" ", @class, " "), " detail ")] | '
                        '//ul[contains(@class, "blockList")]/li[contains(@class, "blockList")]')
    for block in blocks:
        head = next(iter(block.xpath("./h3 | ./h4")), None)
        sig = next(iter(block.xpath('./div[contains(@class, "member-signature")] | ./pre')), None)
        desc = next(iter(block.xpath('./div[contains(@class, "block")]')), None)
        if head is None or sig is None or desc is None:
            continue
        name = _text(head)
        if not re.fullmatch(r"[A-Za-z_$][\w$]*", name):
            continue
        signature = _text(sig)
        role = "method" if "(" in signature else "attribute"
        if role == "method" and name == owner:
            role = "class"
        paras = [_text(p) for p in desc.findall("p") if _text(p)] or [_text(desc)]
        first = desc.text.strip() if desc.text and desc.text.strip() else ""
        if first and paras and not paras[0].startswith(first[:20]):
            paras.insert(0, _text(desc).split("  ")[0])
        entry = Entry(name=name, role=role, signature=name, description=paras[0] if paras else "",
                      paragraphs=paras, owner=owner if role != "class" else "")
        label = ""
        for el in block.xpath("./dl/*"):
            if el.tag == "dt":
                label = _text(el).rstrip(":").lower()
            elif el.tag == "dd":
                text = _text(el)
                code = el.find(".//code")
                if label == "parameters" and code is not None:
                    pname = _text(code)
                    parts = text.split(" - ", 1)
                    entry.params.append(Param(pname, parts[1] if len(parts) == 2 else "", text))
                elif label == "returns":
                    entry.returns = text
                elif label in ("throws", "raises"):
                    _add_raise(entry, text)
        if entry.description or entry.returns or entry.params:
            out.append(entry)
    return out


# ---------------------------------------------------------------- Doxygen


def doxygen_entries(data: bytes) -> list[Entry]:
    """Doxygen member documentation (``div.memitem``): the name from its prototype, the description, its
    parameter table and its Returns section."""
    root = _html_root(data)
    if root is None:
        return []
    out = []
    for item in root.xpath('//div[@class="memitem"]'):
        proto = item.xpath('.//td[@class="memname"] | .//div[@class="memproto"]//table[@class="memname"]//td[1]')
        doc = next(iter(item.xpath('./div[@class="memdoc"]')), None)
        if not proto or doc is None:
            continue
        memname = _text(proto[0])
        m = re.search(r"([A-Za-z_~][\w:~]*)\s*$", memname)
        if not m:
            continue
        name = m.group(1)
        short = name.split("::")[-1]
        paras = [_text(p) for p in doc.findall("p") if _text(p)]
        if not paras:
            continue
        is_call = bool(item.xpath('.//td[@class="paramtype"] | .//td[@class="paramname"]')) or "(" in \
            _text(next(iter(item.xpath('.//div[@class="memproto"]')), None))
        role = "function" if is_call else ("macro" if short.isupper() else "attribute")
        entry = Entry(name=short, role=role, signature=short, description=paras[0], paragraphs=paras)
        for tr in doc.xpath('.//table[contains(@class, "params")]//tr'):
            tds = tr.findall("td")
            if len(tds) >= 2:
                pname, pdesc = _text(tds[-2]), _text(tds[-1])
                if pname and pdesc:
                    entry.params.append(Param(pname, pdesc, f"{pname} | {pdesc}" if len(tds) == 2 else
                                              " | ".join(_text(t) for t in tds)))
        ret = doc.xpath('.//dl[contains(@class, "return")]/dd')
        if ret:
            entry.returns = _text(ret[0])
        if entry.description:
            out.append(entry)
    return out


# ---------------------------------------------------------------- DocBook variable lists


def docbook_entries(data: bytes) -> list[Entry]:
    root = _html_root(data)
    if root is None:
        return []
    out = _refentries(root)
    heading = ""
    for el in root.iter():
        if el.tag in ("h1", "h2"):
            heading = _text(el)
        if el.tag != "div" or "variablelist" not in _classes(el):
            continue
        dl = el.find(".//dl")
        if dl is None:
            continue
        dts = [c for c in dl if c.tag == "dt"]
        dds = [c for c in dl if c.tag == "dd"]
        for dt, dd in zip(dts, dds):
            term = _text(dt)
            terms = [_text(t) for t in dt.xpath('.//span[@class="term"]')] or [term]
            name = next((t for t in terms if t.startswith("--")), terms[0]).split("=")[0].split(" ")[0].strip(",")
            if not name or len(name) > 60:
                continue
            paras = [_text(p) for p in dd.findall("p") if _text(p)]
            if not paras:
                continue
            role = "option" if name.startswith("-") else "parameter"
            out.append(Entry(name=name, role=role, signature=term, description=paras[0], paragraphs=paras,
                             owner=heading.split(" — ")[0]))
    return out


def _refentries(root) -> list[Entry]:
    """DocBook reference entries: "NAME — purpose", a synopsis (an XSL parameter's default) and a description."""
    out = []
    for div in root.xpath('//div[contains(concat(" ", @class, " "), " refentry ")]'):
        namediv = div.xpath('.//div[contains(@class, "refnamediv")]/p')
        if not namediv:
            continue
        line = _text(namediv[0])
        name, sep, purpose = line.partition(" — ")
        name = name.split(",")[0].strip()
        if not sep or not name or len(name) > 60 or not purpose:
            continue
        synopsis = _text(next(iter(div.xpath('.//div[contains(@class, "refsynopsisdiv")]//pre')), None))
        paras = [purpose] + [_text(p) for p in div.xpath('.//div[contains(@class, "refsection")]/p') if _text(p)]
        role = "parameter" if "xsl:param" in synopsis else "processing instruction" if "<?" in synopsis \
            else "command"
        entry = Entry(name=name, role=role, signature=line, description=purpose, paragraphs=paras)
        m = re.search(r'select="([^"]+)"', synopsis)
        if m and role == "parameter":
            value, start = m.group(1), m.start(1)
            if len(value) > 1 and value[0] == value[-1] == "'":
                value, start = value[1:-1], start + 1
            if value and len(value) <= 40:
                entry.default_at = (synopsis, start, value)
        out.append(entry)
    return out


# ---------------------------------------------------------------- Markdown


def _md_inline(token, code_marks: tuple[str, str] = ("", "")) -> str:
    """An inline token's text; ``code_marks`` go around each code span (``prose`` finds them by these)."""
    out = []
    for child in token.children or ():
        if child.type == "text":
            out.append(child.content)
        elif child.type == "code_inline":
            out.append(f"{code_marks[0]}{norm(child.content) if code_marks[0] else child.content}{code_marks[1]}")
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif child.type == "image":
            out.append(_md_inline(child, code_marks))
    return norm("".join(out))


def md_tokens(source: str) -> list:
    """A Markdown page's token stream (CommonMark with tables), its YAML front matter left out."""
    from markdown_it import MarkdownIt

    source = re.sub(r"\A---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", "", source, flags=re.S)
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(source)


_MD_SIGNATURE = re.compile(r"^(?:new\s+|static\s+|async\s+|function\s+|class\s+|event:?\s+)?"
                           r"(\.?[A-Za-z_$][\w$]*(?:[.#][A-Za-z_$][\w$]*)*)\s*\(")
_MD_NAME = re.compile(r"^[A-Za-z_$@-][\w$.\-/]*$")
_MD_OPTION_HEADINGS = re.compile(r"option|config|setting|propert|param|argument|flag|field|attribute|api|"
                                 r"method|event|function|prop", re.I)
_TABLE_NAME = re.compile(r"^(option|options|name|param|parameter|parameters|property|prop|argument|flag|key|"
                         r"setting|field|attribute|event|method|variable|env|config)s?$", re.I)


def markdown_entries(source: str) -> list[Entry]:
    """API headings, code-span option lists and option tables of a Markdown page."""
    tokens = md_tokens(source)
    out: list[Entry] = []
    headings: list[tuple[int, str, Entry | None]] = []
    current: Entry | None = None
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        if tok.type == "heading_open":
            level = int(tok.tag[1:])
            inline = tokens[i + 1]
            text = _md_inline(inline)
            while headings and headings[-1][0] >= level:
                headings.pop()
            current = _md_heading_entry(text, inline, headings)
            headings.append((level, text, current))
            if current is not None:
                out.append(current)
            elif _MD_OPTION_HEADINGS.search(text):  # "#### Options" under "### f(options)": f's options
                current = next((h[2] for h in reversed(headings) if h[2] is not None and h[2].role != "option"),
                               None)
            i += 3
            continue
        if tok.type == "paragraph_open" and current is not None and tokens[i - 1].type != "list_item_open":
            text = _md_inline(tokens[i + 1])
            default = re.match(r"^Default(?: value)?:\s*(.+)$", text)
            if default and not current.default_at and len(default.group(1).split()) <= 6:
                current.default_at = (text, default.start(1), default.group(1).rstrip("."))
            elif text and not re.match(r"^(Type|Types|Values|Required|Optional|Since|Deprecated)\b:?", text) \
                    and len(current.paragraphs) < 6:
                current.paragraphs.append(text)
                current.description = current.description or text
        if tok.type == "list_item_open" and tokens[i + 1].type == "paragraph_open":
            inline = tokens[i + 2]
            text = _md_inline(inline)
            default = re.match(r"^Default(?: value)?:\s*(.+)$", text)
            if default and current is not None and not current.default_at:
                value = re.split(r"\s+\(|\.\s|,\s", default.group(1))[0].rstrip(".")
                if value and len(value.split()) <= 6:
                    current.default_at = (text, default.start(1), value)
            param = _md_list_param(inline)
            method = _md_list_signature(inline) if param is None else None
            if method is not None:
                out.append(method)
            if param is not None:
                owner = current.name if current is not None else (headings[-1][1] if headings else "")
                if current is not None:
                    current.params.append(param)
                else:
                    out.append(_param_entry(param, owner))
        if tok.type == "table_open":
            j = tokens.index(next(t for t in tokens[i:] if t.type == "table_close"), i)
            owner = current.name if current is not None else (headings[-1][1] if headings else "")
            for param in _md_table(tokens[i:j]):
                if current is not None:
                    current.params.append(param)
                else:
                    out.append(_param_entry(param, owner))
            i = j + 1
            continue
        i += 1
    return [e for e in out if e.description or e.params]


def _param_entry(param: Param, owner: str) -> Entry:
    lead = owner.split(" - ")[0].strip()
    if lead != owner and re.fullmatch(r"[\w.$@/-]+", lead):  # "MD013 - Line length": the rule's name
        owner = lead
    role = "option" if param.name.startswith("-") or re.search(r"option|config|setting|flag", owner, re.I) \
        else "parameter"
    return Entry(name=param.name, role=role, signature=param.anchor, description=param.description,
                 paragraphs=[param.description], owner=owner if len(owner) <= 40 else "",
                 params=[], defaults=[(param.name, param.default)] if param.default else [])


def _md_heading_entry(text: str, inline, headings: list) -> Entry | None:
    """A heading that is an API signature, or an option's or property's name under an options heading or a
    signature heading (its owner)."""
    m = _MD_SIGNATURE.match(text)
    if m:
        name = m.group(1)
        role = "method" if "." in name or "#" in name else "function"
        if text.startswith("new ") or text.startswith("class "):
            role = "class"
        entry = Entry(name=name, role=role, signature=text)
        params = re.search(r"\((.*)\)", text)
        for part in (params.group(1).split(",") if params else ()):
            p, eq, v = part.strip(" []").partition("=")
            if eq and re.fullmatch(r"[A-Za-z_$][\w$]*", p.strip()) and 0 < len(v.strip()) <= 30:
                entry.defaults.append((p.strip(), v.strip()))
        return entry
    name = re.sub(r"\s+(?:get/set|get|set|readonly|read-only|static|async|optional|required)$", "", text).strip()
    if not _MD_NAME.match(name) or len(name) > 50 or not headings or re.fullmatch(r"[A-Z][a-z]+", name):
        return None  # a capitalised word ("Options", "Usage") is a section, not an option
    owner_entry = next((h[2] for h in reversed(headings) if h[2] is not None and h[2].role != "option"), None)
    codes = [c for c in inline.children or () if c.type == "code_inline"]
    code_only = len(codes) == 1 and norm(codes[0].content) == name  # "### `bodyLimit`": an API name
    if owner_entry is None and not code_only and not any(_MD_OPTION_HEADINGS.search(h[1]) for h in headings[-2:]):
        return None
    parent = headings[-1][1]
    role = "option" if re.search(r"option|config|setting|flag", parent, re.I) or owner_entry is not None \
        else "property" if re.search(r"propert|attribute|field|instance", parent, re.I) \
        else "method" if name.startswith(".") else "option"
    owner = owner_entry.name if owner_entry is not None else ""
    return Entry(name=name, role=role, signature=text, owner=owner)


def _md_list_signature(inline) -> Entry | None:
    """``- `.add(path)`: Add files ...`` (a list item that starts with a code span holding a call signature)."""
    children = [c for c in inline.children or () if not (c.type == "text" and not c.content.strip())]
    if not children or children[0].type != "code_inline":
        return None
    code = norm(children[0].content)
    m = _MD_SIGNATURE.match(code)
    if not m:
        return None
    text = _md_inline(inline)
    rest = re.sub(r"^\s*(?:[:\-–—]\s*)", "", text[len(code):] if text.startswith(code) else "").strip()
    if len(rest.split()) < 3:
        return None
    name = m.group(1)
    return Entry(name=name, role="method" if "." in name else "function", signature=text, description=rest,
                 paragraphs=[rest])


_DEFAULT_IN_TEXT = re.compile(r"(?:\(|\b)[Dd]efaults?(?: value)?(?: is| to|:|=|(?<=, default)(?= ))\s*"
                              r"(.+?)(?:\)|\.\s|\.$|,|;|$)")


def _md_list_param(inline) -> Param | None:
    """``- `name` ...: description`` (a list item that starts with a code span naming an option)."""
    children = [c for c in inline.children or () if not (c.type == "text" and not c.content.strip())]
    if not children or children[0].type != "code_inline":
        return None
    name = norm(children[0].content)
    if not _MD_NAME.match(name) or len(name) > 40:
        return None
    text = _md_inline(inline)
    rest = text[len(name):] if text.startswith(name) else ""
    desc = re.sub(r"^\s*(?:\([^)]*\)|<[^>]*>|\{[^}]*\}|\[[^\]]*\])?\s*(?:[.:\-–—]\s*)?", "", rest).strip()
    desc = re.sub(r"^(?:String|Number|Boolean|Object|Array|Function|string|number|boolean|object|array|"
                  r"function|int|integer|bool)\b[.:]?\s*", "", desc).strip()
    if len(desc.split()) < 3:
        return None
    m = _DEFAULT_IN_TEXT.search(desc)
    return Param(name, desc, text, norm(m.group(1)).strip("`") if m else "")


def _md_table(tokens) -> list[Param]:
    rows: list[list[str]] = []
    for k, t in enumerate(tokens):
        if t.type == "tr_open":
            rows.append([])
        elif t.type == "inline" and tokens[k - 1].type in ("th_open", "td_open"):
            rows[-1].append(_md_inline(t))
    if len(rows) < 2:
        return []
    head = [h.strip().lower() for h in rows[0]]
    name_col = next((c for c, h in enumerate(head) if _TABLE_NAME.match(h)), None)
    desc_col = next((c for c, h in enumerate(head) if h.startswith(("description", "desc", "meaning", "purpose",
                                                                     "what", "explanation", "details"))), None)
    default_col = next((c for c, h in enumerate(head) if h.startswith("default")), None)
    if name_col is None or desc_col is None:
        return []
    out = []
    for row in rows[1:]:
        if len(row) != len(head):
            continue
        name = row[name_col].strip()
        if not name or len(name) > 40 or not row[desc_col]:
            continue
        default = row[default_col] if default_col is not None else ""
        if not default:
            m = _DEFAULT_IN_TEXT.search(row[desc_col])
            default = norm(m.group(1)).strip("`") if m else ""
        out.append(Param(name, row[desc_col], " | ".join(row), default if default not in ("-", "—", "") else ""))
    return out


# ---------------------------------------------------------------- man pages (rendered text)

_MAN_SECTION = re.compile(r"^[A-Z][A-Z0-9 /&-]+$")
_MAN_OPTION = re.compile(r"^(-{1,2}[A-Za-z0-9?#@][^\s,]*(?:(?:,\s*|\s+or\s+|\s+)-{1,2}[A-Za-z0-9?#@][^\s,]*)*"
                         r"(?:[ =]\S+)?)(?:\s{2,}(.*))?$")


_MAN_COMMON = {"--help", "--version", "-h", "-V", "--usage", "-?"}  # on every page: one question would repeat


def man_entries(text: str) -> list[Entry]:
    """The NAME line and the option paragraphs (a line of flags, then indented description lines)."""
    lines = text.replace("\r", "").split("\n")
    header = lines[0].split() if lines else []
    command = ""
    if header:
        m = re.match(r"([^(]+)\(", header[0])
        command = m.group(1).lower() if m else ""
    out: list[Entry] = []
    section = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if line and not line[0].isspace() and _MAN_SECTION.match(line.strip()):
            section = line.strip()
            i += 1
            continue
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if section == "NAME" and " - " in stripped and not out:
            names, _, what = stripped.partition(" - ")
            first = names.split(",")[0].strip()
            if first and what:
                out.append(Entry(name=first, role="command", signature=stripped, description=norm(what),
                                 paragraphs=[norm(what)]))
        m = _MAN_OPTION.match(stripped) if stripped.startswith("-") and 0 < indent <= 12 else None
        if m:
            tag = m.group(1)
            desc_lines = [m.group(2)] if m.group(2) else []
            j = i + 1
            while j < len(lines) and lines[j].strip() and len(lines[j]) - len(lines[j].lstrip(" ")) > indent:
                desc_lines.append(lines[j].strip())
                j += 1
            desc = norm(" ".join(desc_lines))
            if desc and len(desc.split()) >= 2:
                flags = re.findall(r"-{1,2}[A-Za-z0-9?#@][\w\-?#@.]*", tag)
                name = next((f for f in flags if f.startswith("--")), flags[0] if flags else "")
                if name and name not in _MAN_COMMON and not re.fullmatch(r"-+\d+", name):  # "-1": a value
                    out.append(Entry(name=name, role="option", signature=tag, description=desc,
                                     paragraphs=[desc], owner=command))
            i = max(j, i + 1)
            continue
        i += 1
    return out
