"""Questions from prose that names a code literal: "... using the `params` keyword argument." -> "..., using which
keyword argument?" with the literal (``params``) as the answer (issue 39).

The entry templates (``questions``) ask about API entries' names; what users of tutorials, guides and READMEs ask
is often which parameter, method, option or variable does something that the prose says in passing, with the
name in a code span ("Options are defined with the `.option()` method", "pass it using the `json` parameter").
The documentation benchmark's misses given the right passage were mostly these: the reader picked a word of the
sentence or a line of a code example beside it. A sentence becomes a question by putting "which NOUN" where the
code span and its noun stand (the cloze-to-question move of Lewis et al. 2019, "Unsupervised Question Answering
by Cloze Translation"), the noun being the one the prose gives ("the `X` option", "the method `X`") or, where
none is given, the literal's own shape (``--flag``: option, ``name()``: function or method).

Code spans are read from the page's markup (HTML ``code``/``tt``/``kbd``/``samp``, a DocBook ``literal`` as
rendered; Markdown's backticks), paragraphs and list items only (not code blocks, tables or headings); the
sentence is the anchor ``build.locate`` finds in ingestion's passage, so the answer is a span of what serving
reads.
"""

from __future__ import annotations

import copy
import re

from build_model.docdata.entries import _drop_permalinks, _html_root, _md_inline, md_tokens, norm
from build_model.docdata.questions import QSpec, sentences

OPEN, CLOSE = "\ue000", "\ue001"  # marks around a code span while the sentence is cut and rewritten

_NOUNS = (r"keyword arguments?|arguments?|parameters?|options?|flags?|switch|methods?|functions?|propert(?:y|ies)|"
          r"attributes?|class|classes|exceptions?|errors?|commands?|subcommands?|environment variables?|variables?|"
          r"settings?|fields?|decorators?|events?|headers?|hooks?|modules?|constants?|"
          r"config(?:uration)? (?:variables?|options?|keys?|settings?|values?)|keys?|directives?|callbacks?|"
          r"helpers?|filters?|tags?|types?")
_LIT = OPEN + r"(?P<x>[^" + OPEN + CLOSE + r"]{1,48})" + CLOSE
_AFTER = re.compile(r"(?:\b(?:the|a|an|its|their|your)\s+)?" + _LIT + r"\s+(?P<n>" + _NOUNS + r")\b", re.I)
_BEFORE = re.compile(r"\b(?:the|a|an|its|their|your)\s+(?P<n>" + _NOUNS + r")\s+" + _LIT, re.I)
_BARE = re.compile(r"(?:\b(?:the|a|an)\s+)?" + _LIT)
_OPTION = re.compile(r"^--?[A-Za-z0-9][\w-]*(?:[= ][\w<>.\-]+)?$")
_CALL = re.compile(r"^\.?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\(\)$")
_SINGULAR = {"class": "class", "classes": "class", "properties": "property", "switch": "switch"}
_CODE_TAGS = ("code", "tt", "kbd", "samp")
_MAX_PER_PAGE = 12


def _singular(noun: str) -> str | None:
    """The noun in the singular; None for a plural ("the `a` and `b` options" names two things)."""
    n = noun.lower()
    if n in _SINGULAR:
        return _SINGULAR[n]
    last = n.split()[-1]
    if last.endswith("s") and not last.endswith("ss"):
        return None
    return n


def _shape_noun(literal: str) -> str | None:
    if _OPTION.match(literal):
        return "option"
    if _CALL.match(literal):
        return "method" if literal.startswith(".") or "." in literal else "function"
    return None


def html_paragraphs(data: bytes) -> list[str]:
    """Each paragraph and list item of an HTML page as text, its code spans between ``OPEN`` and ``CLOSE``."""
    root = _html_root(data)
    if root is None:
        return []
    _drop_permalinks(root)
    out = []
    for el in root.iter("p", "li"):
        if el.tag == "li" and el.find(".//p") is not None:
            continue  # its paragraphs come on their own
        if el.xpath("ancestor::pre or ancestor::table or ancestor::dt"):
            continue
        el = copy.deepcopy(el)
        for code in el.xpath(" | ".join(f".//{t}[not(ancestor::{t})]" for t in _CODE_TAGS)):
            literal = norm(code.text_content())
            tail = code.tail
            for child in list(code):
                code.remove(child)
            code.text = f"{OPEN}{literal}{CLOSE}" if literal else ""
            code.tail = tail
        text = norm(el.text_content())
        if OPEN in text:
            out.append(text)
    return out


def markdown_paragraphs(source: str) -> list[str]:
    """Each Markdown paragraph (list items' too) as text, its code spans between ``OPEN`` and ``CLOSE``."""
    tokens = md_tokens(source)
    out = []
    for i, tok in enumerate(tokens):
        if tok.type != "inline" or i == 0 or tokens[i - 1].type != "paragraph_open":
            continue
        text = _md_inline(tok, (OPEN, CLOSE))
        if OPEN in text:
            out.append(text)
    return out


def _plain(text: str) -> str:
    return text.replace(OPEN, "").replace(CLOSE, "")


def sentence_question(sentence: str) -> tuple[str, str, str, int] | None:
    """(question, answer, anchor, offset of the answer in the anchor) for a sentence with code spans, or None."""
    anchor = _plain(sentence).rstrip()
    words = len(anchor.split())
    if words < 6 or words > 45 or anchor.endswith("?"):
        return None
    found = None
    for pattern in (_AFTER, _BEFORE):
        for m in pattern.finditer(sentence):
            noun = _singular(m.group("n"))
            if noun:
                found = (m, noun)
                break
        if found:
            break
    if found is None:
        for m in _BARE.finditer(sentence):
            noun = _shape_noun(m.group("x").strip())
            if noun:
                found = (m, noun)
                break
    if found is None:
        return None
    m, noun = found
    literal = m.group("x").strip()
    if not re.search(r"\w", literal) or len(literal.split()) > 4 or literal[0] in "'\"`‘“":
        return None  # a quoted literal is a value, not a name
    at_start = m.start() == 0
    rest_before = _plain(sentence[: m.start()])
    rest_after = _plain(sentence[m.end():])
    question = f"{rest_before}{'Which' if at_start else 'which'} {noun}{rest_after}".strip()
    question = re.sub(r"[\s.:;,!]+$", "", question) + "?"
    if len(question.split()) < 7:
        return None  # "Provide a default for which option?": too little of the sentence is left to ask with
    if re.search(r"(?<![\w.-])" + re.escape(literal) + r"(?![\w-])", question):
        return None  # the sentence names it twice: the question would give it away
    # the answer's offset in the anchor: the literal at the match, in plain text
    offset = len(_plain(sentence[: m.start("x")]))
    offset += len(m.group("x")) - len(m.group("x").lstrip())
    if anchor[offset: offset + len(literal)] != literal:
        return None
    return question, literal, anchor, offset


def prose_questions(generator: str, data: bytes, max_questions: int = _MAX_PER_PAGE) -> list[QSpec]:
    """The page's code-span sentences as "which NOUN ...?" questions (kind ``prose``), at most ``max_questions``."""
    if generator in ("man",):
        return []  # a man page rendered to text has no code spans left
    if generator == "markdown":
        paragraphs = markdown_paragraphs(data.decode("utf-8", "replace"))
    else:
        paragraphs = html_paragraphs(data)
    out: list[QSpec] = []
    seen: set[str] = set()
    for paragraph in paragraphs:
        for sentence in sentences(paragraph):
            if OPEN not in sentence:
                continue
            made = sentence_question(sentence)
            if made is None or made[0] in seen:
                continue
            seen.add(made[0])
            question, literal, anchor, offset = made
            out.append(QSpec(question, literal, anchor, offset, "prose"))
            if len(out) >= max_questions:
                return out
    return out
