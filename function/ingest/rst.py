"""reStructuredText (``.rst``, and Sphinx's ``_sources/*.rst.txt`` copies) to HTML, for ``docpages`` to read.

docutils (BSD / public domain, pure Python, the reference implementation of reStructuredText that Sphinx itself
parses with) turns the source into HTML5 carrying its ``<meta name="generator" content="Docutils ...">``, so the page
is read as a docutils page is: headings, paragraphs, lists, tables, literal blocks with their lines, definition
lists as entries. Writing a parser of our own would mean reimplementing section adornments, nested blocks and
inline markup that docutils already gets right.

A documentation folder is usually written for Sphinx, whose roles and directives plain docutils does not know.
Unknown ones would come out as their source text (":ref:`installed <install>`") or be dropped with an error, so the
ones a reader meets most are registered here, mirroring what Sphinx renders:

- cross-reference roles (``:func:``, ``:class:``, ``:ref:``, ``:doc:``, ``:option:``, ... and their ``py:``, ``c:``
  ... forms) become their text: inline code for an API or command name (``:func:`os.getcwd``` -> ``os.getcwd``, with
  a leading ``~`` the last name only), the link text of ``:ref:`text <target>```;
- object descriptions (``.. function:: getcwd()``, ``class``, ``method``, ``attribute``, ``data``, ``exception``,
  ``decorator``, ``option``, ``envvar``, ``describe``, ... in any domain) become a definition list entry, the
  signature its term, as Sphinx's ``dl.py`` entries do;
- ``versionadded``, ``versionchanged`` and ``deprecated`` lead their paragraph ("New in version 2.1: ...");
  ``seealso`` and ``todo`` are admonitions; ``code-block``, ``sourcecode`` and the doctest extension's blocks are
  literal blocks; ``only``, ``hlist``, ``centered`` and ``glossary`` keep their content;
- what has nothing to read without Sphinx is dropped: ``toctree``, ``index``, ``highlight``, ``currentmodule``,
  autodoc's directives (their text is in the code, not in the file), ``literalinclude`` and ``include`` (no file is
  read: see below).

Safety: ``include``, ``literalinclude``, ``raw`` and the file and URL options of ``csv-table`` are disabled
(``file_insertion_enabled``, ``raw_enabled``): a document never makes ingestion read another file or a URL, or pass
HTML through. Messages about the source's own errors are not reported (``report_level`` 5) and never stop the
parse (``halt_level`` 5): a file with a broken table still yields its other text.
"""

from __future__ import annotations

import functools
import re

# Sphinx's cross-reference roles whose target is a name: shown as inline code.
_CODE_ROLES = ("func", "meth", "class", "attr", "mod", "exc", "data", "const", "obj", "option", "envvar", "program",
               "command", "file", "samp", "kbd", "makevar", "mailheader", "member", "macro", "type", "struct",
               "union", "enum", "enumerator", "var", "expr", "texpr", "decorator", "cfunc", "cmacro", "ctype",
               "cdata", "cmember", "token", "keyword", "dfn")
# Roles shown as their text.
_TEXT_ROLES = ("ref", "doc", "term", "any", "numref", "abbr", "download", "guilabel", "menuselection", "pep", "rfc",
               "manpage", "issue", "pr", "user", "ghissue", "bdg", "sub", "sup")
_DOMAINS = ("py", "c", "cpp", "js", "rst", "std", "math")
# Object descriptions: a definition list entry, the signature its term.
_OBJECTS = ("function", "class", "method", "classmethod", "staticmethod", "attribute", "property", "data",
            "exception", "decorator", "decoratormethod", "module", "describe", "object", "option", "cmdoption",
            "envvar", "program", "macro", "member", "type", "struct", "union", "enum", "enumerator", "var",
            "directive", "role", "confval", "setting", "fixture")
_DROPPED = ("toctree", "index", "highlight", "currentmodule", "automodule", "autoclass", "autofunction", "automethod",
            "autoattribute", "autodata", "autoexception", "autodecorator", "autoproperty", "autosummary",
            "literalinclude", "tabularcolumns", "moduleauthor", "sectionauthor", "codeauthor", "default-role",
            "default-domain", "testsetup", "testcleanup", "spelling", "graphviz", "digraph", "inheritance-diagram",
            "plot", "mermaid")
_CODE_DIRECTIVES = ("code-block", "sourcecode", "testcode", "doctest", "testoutput", "ipython", "prompt")
_VERSIONS = {"versionadded": "New in version", "versionchanged": "Changed in version",
             "deprecated": "Deprecated since version", "versionremoved": "Removed in version"}
_TARGET = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)

SETTINGS = {"report_level": 5, "halt_level": 5, "file_insertion_enabled": False, "raw_enabled": False,
            "_disable_config": True, "embed_stylesheet": False, "stylesheet_path": "", "traceback": True,
            "input_encoding": "unicode", "output_encoding": "unicode", "warning_stream": False,
            "syntax_highlight": "none", "math_output": "HTML", "doctitle_xform": True, "sectsubtitle_xform": False}


def to_html(source: str) -> str:
    """The source as an HTML5 page (its title the document's own, where it has one)."""
    from docutils.core import publish_string

    _register()
    return publish_string(source, writer="html5", settings_overrides=SETTINGS)


def _shown(text: str) -> str:
    """What Sphinx shows for a role's text: the link text of "text <target>", else the target (``~a.b.c`` -> ``c``,
    ``!a`` -> ``a``)."""
    m = _TARGET.match(text)
    if m and m.group("text"):
        return m.group("text")
    target = (m.group("target") if m else text).strip().lstrip("!")
    return target[1:].rsplit(".", 1)[-1] if target.startswith("~") else target


@functools.cache
def _register() -> None:
    """Sphinx's common roles and directives, once per process (docutils keeps them in module state)."""
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives, roles

    def code_role(name, rawtext, text, lineno, inliner, options=None, content=None):
        return [nodes.literal(rawtext, _shown(text))], []

    def text_role(name, rawtext, text, lineno, inliner, options=None, content=None):
        return [nodes.Text(_shown(text))], []

    class AnyOptions(dict):  # Sphinx's options (":noindex:", ":linenos:", ":caption:") accepted and left unused
        def __missing__(self, key):
            return directives.unchanged

    options = AnyOptions(noindex=directives.flag)  # not empty: docutils reads an empty spec as "no options"

    for prefix in ("", *(f"{d}:" for d in _DOMAINS)):
        for role in _CODE_ROLES:
            roles.register_local_role(prefix + role, code_role)
        for role in _TEXT_ROLES:
            roles.register_local_role(prefix + role, text_role)

    class Lenient(Directive):  # any arguments, content and options, as Sphinx's directives take them
        optional_arguments = 100
        final_argument_whitespace = True
        has_content = True
        option_spec = options

    class Dropped(Lenient):
        def run(self):
            return []

    class Content(Lenient):  # keeps its content, as if the directive were not there
        def run(self):
            node = nodes.container()
            self.state.nested_parse(self.content, self.content_offset, node)
            return node.children

    class Code(Lenient):
        optional_arguments = 1  # the language

        def run(self):
            text = "\n".join(self.content)
            return [nodes.literal_block(text, text)] if text.strip() else []

    class Version(Lenient):
        required_arguments = 1  # the version, then the text on the directive's lines
        optional_arguments = 1

        def run(self):
            label = f"{_VERSIONS[self.name]} {self.arguments[0]}"
            more = self.arguments[1] if len(self.arguments) > 1 else ""
            lead = nodes.paragraph()
            lead += nodes.Text(f"{label}: " if more or self.content else f"{label}.")
            if more:  # the text on the directive's lines, inline markup and all (as Sphinx reads it)
                lead.extend(self.state.inline_text(more, self.lineno)[0])
            out = [lead]
            if self.content:
                body = nodes.container()
                self.state.nested_parse(self.content, self.content_offset, body)
                if not more and body.children and isinstance(body.children[0], nodes.paragraph):
                    lead.extend(body.children[0].children)
                    body.children = body.children[1:]
                out.extend(body.children)
            return [nodes.container("", *out, classes=[self.name])]

    class Titled(Lenient):  # seealso, todo: an admonition with its title
        def run(self):
            node = nodes.admonition(classes=[self.name])
            node += nodes.title(text="See also" if self.name == "seealso" else self.name.capitalize())
            if self.arguments:  # "seealso:: :mod:`gadgets`": inline markup and all
                node += nodes.paragraph("", "", *self.state.inline_text(" ".join(self.arguments), self.lineno)[0])
            self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    class Described(Lenient):  # an object description: a definition list entry
        def run(self):
            signatures = [s.strip() for s in " ".join(self.arguments).split("\n") if s.strip()]
            if self.name.split(":")[-1] == "module":  # names the module the rest documents: nothing to read
                return []
            item = nodes.definition_list_item()
            for signature in signatures or [""]:
                item += nodes.term(signature, signature)
            body = nodes.definition()
            self.state.nested_parse(self.content, self.content_offset, body)
            item += body
            kind = self.name.split(":")[-1]
            return [nodes.definition_list("", item, classes=[self.name.split(":")[0] if ":" in self.name else "py",
                                                               kind])]

    def register(name, cls):
        for prefix in ("", *(f"{d}:" for d in _DOMAINS)):
            directives.register_directive(prefix + name, cls)

    for name in _DROPPED:
        register(name, Dropped)
    for name in ("only", "hlist", "centered", "glossary", "rst-class", "cssclass", "ifconfig", "tab", "tabs",
                 "group-tab", "tab-set", "tab-item", "card", "grid", "grid-item-card"):
        register(name, Content)
    for name in _CODE_DIRECTIVES:
        register(name, Code)
    for name in _VERSIONS:
        register(name, Version)
    for name in ("seealso", "todo"):
        register(name, Titled)
    for name in _OBJECTS:
        register(name, Described)
