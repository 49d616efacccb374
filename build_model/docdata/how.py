"""Questions from a guide's "To do X, run:" over a code block: "How do I do X?" with the block's first line as the
answer (issue 39).

"How do I ...?" questions are where the reader is weakest on documentation (the benchmark's "how" kind, docs/
documents.md): it takes a word of the prose, or another line of an example, where the answer is the command or the
call. Guides, tutorials and READMEs say the way in a fixed shape: a sentence that starts with "To" and an infinitive
and ends with a colon ("To install the package from PyPI, run:"), then a code block whose first line is what to write;
or says the same purpose two other ways, "You can install the package by running:" and "Run the following command to
build a wheel:". The sentence becomes the question ("How do I install the package from PyPI?", "your" read as "my");
the line, its shell or interpreter prompt dropped, is the answer, found in ingestion's passage as ``build.locate``
finds every anchor, with the sentence in the same passage (``musts``), so the context holds both as serving reads
them.

Paragraphs are read from the page's markup: HTML ``p`` followed by a ``pre`` (as Sphinx writes it, inside its
``div.highlight``), Markdown's paragraph followed by a fenced or indented code block.
"""

from __future__ import annotations

import re

from build_model.docdata.entries import _drop_permalinks, _html_root, _md_inline, md_tokens, norm
from build_model.docdata.questions import QSpec, sentences
from function.ingest.documents import code_lines
from function.model.code import NOT_THE_WAY

# "To install the package from PyPI, run:", "To enable the plugin, add a line to your config:": the purpose, a comma,
# what to do, a colon (without the comma the purpose's end is a guess: "To use this class write code as follows:")
_TO = re.compile(r"^To\s+(?P<what>[a-z][a-z-]+\b[^:;,]{2,100}),\s*[^,:;]{1,60}:$")
# the same purpose said two other ways: "You can install the package by running:", "You can enable it with the
# following line:" (the way named after "by"/"with"/"using"), and "Run the following command to build a wheel:" (the
# way named first, the purpose after "to")
_YOU_CAN = re.compile(r"^(?:You|One)\s+(?:can|may|could)\s+(?P<what>[a-z][a-z-]+\b[^:;,]{2,100}?)\s+"
                      r"(?:by\s+(?:running|using|typing|calling|executing|adding|writing|entering)|with|using)"
                      r"(?:\s+(?:the\s+)?following(?:\s+(?:command|code|line|snippet|call))?)?\s*:$")
_DO_THIS_TO = re.compile(r"^(?:Run|Use|Type|Execute|Enter|Add|Call|Write)\s+(?:the\s+following|this)"
                         r"(?:\s+(?:command|code|line|snippet|call))?\s+to\s+(?P<what>[a-z][a-z-]+\b[^:;,]{2,100}):$")
# a purpose that points back ("To do so", "To use this feature") asks nothing on its own
_POINTS_BACK = re.compile(r"\b(?:this|that|these|those|so|it|them|such|above|below|following)\b", re.I)
_MAX_ANSWER = 100
_MAX_PER_PAGE = 8


def _first_line(block: str) -> str | None:
    """The code block's first line with words as ingestion marks it for the reader (``code_lines``: its prompt, a
    closing ";" and a comment after it left out), so the answer is cut where serving cuts it; None for a comment or an
    import (``code.NOT_THE_WAY``, which the reader skips too), a line too long, or a statement's or a block's first
    line of several."""
    at = 0
    for line in block.split("\n"):
        if line.strip():
            piece = next(code_lines(block, at, at + len(line)), None)
            if piece is None:
                return None  # a prompt alone, or brackets that close on a later line
            answer, rest = block[piece[0] : piece[1]], block[piece[1] : at + len(line)].strip().lstrip(";").strip()
            if rest and not rest.startswith(("#", "//")):
                return None  # a column cut that is not a comment ("GList   *list = NULL;"): not one piece of code
            if NOT_THE_WAY.match(answer) or len(answer) > _MAX_ANSWER or answer.endswith(("{", "(", ",", "\\")):
                return None  # a comment, an import, a block's or a statement's first line of several: not the way
            return answer
        at += len(line) + 1
    return None


def how_question(sentence: str) -> str | None:
    """ "How do I ...?" for a sentence "To ..., ...:" (``_TO``), "You can ... by running:" (``_YOU_CAN``) or "Run the
    following command to ...:" (``_DO_THIS_TO``), or None."""
    sentence = norm(sentence)
    m = _TO.match(sentence) or _YOU_CAN.match(sentence) or _DO_THIS_TO.match(sentence)
    if m is None or _POINTS_BACK.search(m.group("what")):
        return None
    what = m.group("what").strip()
    what = re.sub(r"\byour\b", "my", re.sub(r"\byourself\b", "myself", what))
    if len(what.split()) < 2:
        return None  # "To install:" says too little to ask with
    return f"How do I {what}?"


def html_pairs(data: bytes) -> list[tuple[str, str]]:
    """(sentence, code block) for each HTML paragraph whose next element is, or holds, a ``pre``."""
    root = _html_root(data)
    if root is None:
        return []
    _drop_permalinks(root)
    out = []
    for p in root.iter("p"):
        if p.xpath("ancestor::pre or ancestor::table or ancestor::li"):
            continue
        nxt = p.getnext()
        if nxt is None:
            continue
        pre = nxt if nxt.tag == "pre" else next(iter(nxt.iter("pre")), None)
        if pre is None:
            continue
        out.append((norm(p.text_content()), pre.text_content()))
    return out


def markdown_pairs(source: str) -> list[tuple[str, str]]:
    """(sentence, code block) for each Markdown paragraph followed by a fenced or indented code block."""
    tokens = md_tokens(source)
    out = []
    for i, tok in enumerate(tokens):
        if tok.type != "paragraph_open" or i + 3 >= len(tokens):
            continue
        inline, close, block = tokens[i + 1], tokens[i + 2], tokens[i + 3]
        if inline.type == "inline" and close.type == "paragraph_close" and block.type in ("fence", "code_block"):
            out.append((norm(_md_inline(inline)), block.content))  # `code` read as its text
    return out


def how_questions(generator: str, data: bytes, max_questions: int = _MAX_PER_PAGE) -> list[QSpec]:
    """The page's "To ...:" sentences over a code block as "How do I ...?" questions (kind ``how``)."""
    if generator == "man":
        return []  # a man page rendered to text has no code blocks to tell apart
    pairs = markdown_pairs(data.decode("utf-8", "replace")) if generator == "markdown" else html_pairs(data)
    out: list[QSpec] = []
    seen: set[str] = set()
    for paragraph, block in pairs:
        sentence = (sentences(paragraph) or [""])[-1]  # the one that ends with the colon
        question = how_question(sentence)
        answer = None if question is None else _first_line(block)
        if answer is None or question in seen:
            continue
        seen.add(question)
        out.append(QSpec(question, answer, answer, 0, "how", musts=[sentence.rstrip(":").strip()]))
        if len(out) >= max_questions:
            break
    return out
