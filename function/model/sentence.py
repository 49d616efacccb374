"""The question's words around a candidate answer: how many of them its sentence holds.

An answer usually sits in the sentence that says what the question asks about: "Which option deletes
remote-tracking branches that no longer exist?" is answered by "--prune" in "--prune: Before fetching,
remove any remote-tracking references that no longer exist on the remote." The reader scores each span
from the whole window, and where several passages (or several sentences of one) look alike to it, it
often picks a span whose own sentence says nothing the question asked. ``overlap`` is the share of the
question's index terms (``function.retrieval.terms``: lower-cased words, stop-words dropped, no stemming)
that the candidate's sentence holds outside the candidate itself (a span that repeats the question's words
is not evidence for itself), and ``function.model.reader.answers_from_logits`` adds ``WEIGHT`` times it to
each candidate's score in logits (the sliding-window feature of classical reading comprehension,
Richardson et al. 2013, on top of the reader's own scores).

A sentence ends at ".", "!" or "?" followed by white space and a capital letter, digit, quote or "(";
a line break alone does not end one, so a documentation entry's name and the description on the lines
after it ("--prune\\n-p\\nBefore fetching, remove ...") are one sentence.

A question that asks what something is ("What is a Flowable in Platypus?", ``defined``) has a second piece of
evidence here: documentation states a definition in a few set forms ("Flowable is an abstract base class ...", "A
bare repository is normally an ...", a glossary's term alone on the line above its description), and a span the text
so introduces (``introduces``) gains ``function.model.reader.DEFINITION`` (surface patterns for definitions, as
question answering matched them before neural readers: Ravichandran and Hovy 2002). So has a question that asks for a
default (``asks_default``): a span its line gives as one ("defaults to 90 days", "(def: 2MB)", a signature's "lazy:
bool = False") gains ``function.model.reader.DEFAULT`` (``states_default``). And so has a question that asks what a name
returns (``returned``): a span that name's own entry gives as its return value (a signature's "→ str", "Return new
sorted keys view ...", "Returns:" on the line above) gains ``function.model.reader.RETURN`` (``states_return``).

Both weights were chosen on both dev sets, the SQuAD dev questions and the documentation benchmark's dev part
(``docs/retrieval.md``, "The question's words in the answer's sentence"). Asked alone, SQuAD would take 8, but
documentation questions share words with a page's headings and introductions more than with the line that
answers them, and lose there from 3 on; 2 gains on both. Within the passages a request gives, where the term
only chooses among one passage's sentences, 6 gains most on both together (SQuAD paragraph given 72.41 ->
73.21, documentation right passage 60.2 -> 62.3; documentation falls below where it started from 10 on).
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections.abc import Iterable

from function.retrieval.terms import located_terms, query_terms

WEIGHT = 2.0  # the spans of several retrieved passages (a question asked alone)
WEIGHT_GIVEN = 6.0  # the spans of the passages a request names (``passage_ids``) or brings (``context``)
# A span that is the question's own words (``echoes``: "pam_exec" for "Which pam_exec option ...?") loses this much,
# in logits, where the sentence term ranks spans: a near filter, answered only when nothing else comes close
# (documentation dev F1 asked alone 60.3 -> 61.0, right passage 66.0 -> 66.7: docs/retrieval.md, "An answer that
# is the question's own words").
ECHO = 8.0

# "What is/are/was/were [a|an|the] X [in Y]?", "What does [a|an|the] X mean / stand for [in Y]?": X is what the
# question asks to be defined (``defined``), at most DEFINED_WORDS words
_DEFINITION_QUESTION = re.compile(
    r"^\s*what\s+(?:(?:is|are|was|were)\s+(?:(?:an?|the)\s+)?(?P<x>[^?]+?)"
    r"|does\s+(?:(?:an?|the)\s+)?(?P<y>[^?]+?)\s+(?:mean|stand\s+for))(?:\s+in\s+[^?]+?)?\s*\??\s*$",
    re.IGNORECASE)
DEFINED_WORDS = 4
# a question's lead up to the noun of what it asks for: "which" or "what" and at most four words that are not a verb
# ("Which setup() keyword ...", "What default value ..."); ``reader.KIND_QUESTION`` and ``table.asked_column`` end it
# with their nouns
QUESTION_LEAD = (r"^\s*(?:which|what)\b(?:\s+(?!(?:is|are|was|were|does|do|did|can|could|should|would|will|must|may)"
                 r"\b)[\w.()'-]+){0,4}?\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_DOTTED = re.compile(r"[\w.]*\w\.([A-Z]\w*)(?:\(\))?")  # a dotted name; its last part, a class's name
_JOINERS = re.compile(r"(?<=\w)[-_](?=\w)|\s+")
_IDENTIFIER = re.compile(r"[^\W_]_+[^\W_]")  # an underscore between two words: "logging_collector"


# a sentence that opens by pointing back to the one before it: "This defaults to 80.", "To request this, use -i.",
# "In this case, ..."; what it says is about what that one names
_POINTS_BACK = re.compile(r"(?:This|These|That|Those|It|Such)\b"
                          r"|(?:To|For)\s+(?:\w+\s+){0,2}?(?:this|that|these|it)\b|In\s+(?:this|that|such)\s+cases?\b")


class Sentences:
    """One passage's sentences, split and analysed once however many candidates are scored in it."""

    def __init__(self, text: str):
        self.text = text
        self._starts: list[int] | None = None
        self._words: dict[int, list[tuple[str, int, int]]] = {}

    def _bounds(self, start: int) -> tuple[int, int]:
        """Where the sentence holding character ``start`` starts and ends."""
        if self._starts is None:
            self._starts = [0] + [m.end() for m in _SENTENCE_END.finditer(self.text)]
        starts = self._starts
        i = bisect.bisect_right(starts, start) - 1  # the last sentence starting at or before ``start``
        return starts[i], starts[i + 1] if i + 1 < len(starts) else len(self.text)

    def _terms(self, sentence_start: int, sentence_end: int) -> list[tuple[str, int, int]]:
        """The sentence's index terms with their character spans in the passage."""
        got = self._words.get(sentence_start)
        if got is None:
            got = [(w, sentence_start + a, sentence_start + z)
                   for w, a, z in located_terms(self.text[sentence_start:sentence_end])]
            self._words[sentence_start] = got
        return got

    def overlap(self, question: frozenset[str], start: int, end: int) -> float:
        """The share of ``question``'s terms found in the sentence ``text[start:end]`` starts in, outside
        that span, and in the sentence before it where this one points back to it (``_POINTS_BACK``: "To request
        this, use the -i option.") in the same paragraph."""
        if not question:
            return 0.0
        s, e = self._bounds(start)  # words past ``e`` that a span running on holds are its own: not counted
        found = {w for w, a, z in self._terms(s, e) if (z <= start or a >= end) and w in question}
        if s > 0 and _POINTS_BACK.match(self.text, s):
            before, _ = self._bounds(s - 1)
            if "\n\n" not in self.text[before:s]:
                found.update(w for w, _, _ in self._terms(before, s) if w in question)
        return len(found) / len(question)


SENTENCE_CHARS = 400  # how much of a span's sentence ``sentence_of`` gives (a run-on line of a table or list)


def sentence_of(text: str, start: int, end: int) -> str:
    """The sentence of ``text`` a span starts in, to the span's end where it runs on past it, at most
    ``SENTENCE_CHARS`` characters: what ``reader.SENTENCE_COSINE`` embeds."""
    s, e = Sentences(text)._bounds(start)
    return text[s:max(e, end)][:SENTENCE_CHARS]


def question_terms(question: str) -> frozenset[str]:
    """The terms ``Sentences.overlap`` looks for: the question's index terms, as retrieval searches them."""
    return frozenset(query_terms(question))


def rarity_scores(held: list[frozenset[str]]) -> list[float]:
    """Each of ``held`` (the question's terms one entry, row or passage holds) scored by its terms, each weighted by
    how few of them hold it: log(1 + len(held) / how many hold it). The entry choice's and a table row's weighing."""
    counts: dict[str, int] = {}
    for own in held:
        for t in own:
            counts[t] = counts.get(t, 0) + 1
    return [sum(math.log(1.0 + len(held) / counts[t]) for t in own) for own in held]


def echoes(question: str, answer: str) -> bool:
    """Whether ``answer`` is the question's own words: its text, case kept, with hyphens, underscores and white
    space read alike, stands whole in the question ("pam_exec" for "Which pam_exec option ...?", "git-grep" for
    "How do I get git grep to ...?"). A literal made from a question's word ("--short" for "the short format",
    "DEBUG" for "debug namespaces") is not, nor an identifier the question spells in words ("logging_collector" for
    "Which parameter enables the logging collector?"; "pam_exec" for "Which pam_exec option ...?" is). A dotted name
    whose last part is a class named in the question is the question's subject, qualified ("apispec.core.APISpec"
    for "Which APISpec method ...?"), as is one whose last part the question writes as a call
    ("whoosh.index.Index.writer" for "Which writer() argument ...?"); an attribute named after the question's word
    is not ("r.encoding" for "the encoding used ...")."""
    called = _called(question)
    if called:
        last = _LAST_PART.fullmatch(answer.strip())
        if last and last.group(1) in called:
            return True
    dotted = _DOTTED.fullmatch(answer.strip())
    if dotted:
        answer = dotted.group(1)
    if _IDENTIFIER.search(answer) and answer.strip().casefold() not in question.casefold():
        return False  # an identifier the question spells in words: "logging_collector" for "the logging collector"
    words = _JOINERS.sub(" ", answer).strip()
    spaced = _spaced(question)
    if not words or words not in spaced:  # most candidates: no pattern to build
        return False
    return re.search(r"(?<!\w)" + re.escape(words) + r"(?!\w)", spaced) is not None


_LAST_PART = re.compile(r"[\w$]+(?:\.[\w$]+)*\.([A-Za-z_$][\w$]*)(?:\(\))?")  # a dotted name's last part


@functools.lru_cache(maxsize=64)
def _called(question: str) -> frozenset[str]:
    """The names a question writes as calls, each's last part ("writer" for "Which writer() argument ...?",
    "getcwd" for "os.getcwd()")."""
    return frozenset(name.rsplit(".", 1)[-1] for name in _CALL.findall(question))


@functools.lru_cache(maxsize=64)
def _spaced(question: str) -> str:
    """``echoes``' reading of the question, once per question however many candidates it checks."""
    return _JOINERS.sub(" ", question)


@functools.lru_cache(maxsize=64)
def defined(question: str) -> str | None:
    """What a question asks to be defined ("Flowable" for "What is a Flowable in Platypus?", "Platypus" for "What
    does Platypus stand for?"), at most ``DEFINED_WORDS`` words; None for any other question."""
    m = _DEFINITION_QUESTION.match(question)
    subject = m and (m.group("x") or m.group("y")).strip()
    return subject if subject and len(subject.split()) <= DEFINED_WORDS else None


@functools.lru_cache(maxsize=64)
def _introduction(subject: str, anywhere: bool = False) -> re.Pattern:
    """The text just before a definition of ``subject``: the subject (an aside in brackets allowed), then a copula
    with at most one adverb in "-ly" ("A bare repository is normally ..."), "means", "refers to", "stands for", a
    colon or a dash, or the end of its line (a glossary's term above its description); an article may follow. At the
    end of the text searched; with ``anywhere``, before what is not white space, and after a copula only with its
    article ("A working set is a collection ...", not "The working set is scanned ...")."""
    words = r"\s+".join(re.escape(w) for w in subject.split())
    copula = r"\s+(?:is|are|was|were)(?:\s+\w+ly)?\s+" + (r"(?:an?|the)\s+" if anywhere else "")
    said = (rf"(?<!\w){words}(?:\s*\([^()\n]{{0,40}}\))?(?:{copula}"
            rf"|\s+(?:means|refers\s+to|stands\s+for)\s+|[ \t]*[:\u2014\u2013-]\s*)")  # on the subject's line
    entry = rf"(?:^|\n)[ \t]*{words}[ \t]*\n\s*"  # alone on its line, not a list's item ("- SortedKeysView")
    return re.compile(rf"(?:{said}|{entry})(?:(?:an?|the)\s+)?" + (r"(?=\S)" if anywhere else "$"), re.IGNORECASE)


def introduces(text: str, subject: str, start: int) -> bool:
    """Whether ``text`` introduces what starts at ``start`` as the definition of ``subject`` (``defined``): "A
    Drawing is | a platform-independent description ...", "evil merge\\n | An evil merge is ..."."""
    before = text[max(0, start - len(subject) - 64):start]
    return _introduction(subject).search(before) is not None


# what a text writes just before the way to do something: "use the command line | asy -V -f pdf test", "Simply add the
# line | \usepackage{asymptote}", "run the command: | python -m build", "This can be done | writing a ':' as the value"
# (``states_means``): a verb of running or writing and the kind of thing written, or "can be done (by)"
_MEANS = re.compile(
    r"(?:\b(?:use|using|run|running|execute|executing|type|typing|enter|entering|invoke|invoking|add|adding|write|"
    r"writing|put|putting|pass|passing|give|giving|call|calling|insert|inserting)\s+(?:the\s+|an?\s+)?"
    r"(?:following\s+)?(?:(?:shell\s+)?command(?:\s+line)?|line|option|flag|switch|statement|directive)\s*:?\s*"
    r"|\b(?:can|could|may)\s+be\s+(?:done|achieved|accomplished)\s+(?:by\s+)?)$", re.IGNORECASE)
MEANS_REACH = 60  # characters before a span that ``states_means`` reads, on the span's line


def states_means(text: str, start: int) -> bool:
    """Whether ``text`` gives what starts at ``start`` as the way to do something (``_MEANS``, on its line, just
    before it): "use the command line | asy -V -f pdf test", "This can be done | writing a ':' ..."; or, for what
    opens its line (a code block's line), at the end of the last line above it with words ("run the following
    command:" over "| python -m build")."""
    line = text.rfind("\n", 0, start) + 1
    if text[line:start].strip():
        return _MEANS.search(text[max(line, start - MEANS_REACH):start]) is not None
    above = text[:line].rstrip()
    return bool(above) and _MEANS.search(above[max(above.rfind("\n") + 1, len(above) - MEANS_REACH):] + " ") is not None


def introduces_somewhere(text: str, subject: str) -> bool:
    """Whether ``text`` introduces a definition of ``subject`` anywhere (``introduces``' pattern, something after it):
    the passage a question asking what ``subject`` is (``defined``) would answer from."""
    return _introduction(subject, anywhere=True).search(text) is not None


# what a definition's noun phrase goes on with in its sentence: "a non-zero integer | which uniquely identifies a
# particular string", "an appropriately named directory | with a .git suffix that ...", "a type of branch | used by
# semantic-release that ...": a relative clause or a participle, to the sentence's end (a "." before white space, a ";"
# or the line's end; ".git" does not end it), at most ``DEFINITION_CLAUSE`` characters
_DEFINITION_GOES_ON = re.compile(r"[ \t]+(?:that|which|who|whose|where|used|with)\b(?:[^.;\n]|\.(?=\S))*")
DEFINITION_CLAUSE = 160


def definition_end(text: str, subject: str, start: int, end: int) -> int:
    """Where the definition of ``subject`` (``defined``) that ``text[start:end]`` starts ends: past the relative
    clause its noun phrase goes on with (``_DEFINITION_GOES_ON``) where ``introduces`` says the span starts the
    definition; ``end`` otherwise."""
    m = _DEFINITION_GOES_ON.match(text, end)
    if m is None or m.end() - end > DEFINITION_CLAUSE or not introduces(text, subject, start):
        return end
    return m.end()


# a question that asks for several things: "What are the possible values of X?", "Which content types does Fastify
# support?", "Which logging functions are available?" (a plural noun before its verb; not "class", "status", "analysis")
_ASKS_SEVERAL = re.compile(
    r"^\s*(?:what|which)\s+(?:are\b|(?:[\w-]+\s+){0,3}?[\w-]*[^\W\d_siu]s\s+"
    r"(?:are|do|does|did|can|could|will|would|should|must|may|were|have)\b)", re.IGNORECASE)


@functools.lru_cache(maxsize=64)
def asks_several(question: str) -> bool:
    """Whether a question asks for several things (``_ASKS_SEVERAL``): its answer is a whole list, where the text
    writes one (``coordination``)."""
    return _ASKS_SEVERAL.search(question) is not None


# A coordination's items: quoted strings (one kind), or single words and names ("log", "--force", "text/plain", "pop()")
_QUOTED_ITEM = (r"(?:'[^'\n]{1,60}'|\"[^\"\n]{1,60}\"|\u2018[^\u2019\n]{1,60}\u2019|\u201c[^\u201d\n]{1,60}\u201d"
                r"|`[^`\n]{1,60}`)")
_WORD_ITEM = r"(?<![\w$@#./:+'\"`-])-{0,2}[\w$@#][\w$@#./:+-]*(?<![.:+-])(?:\(\))?(?![\w$@#(])"
_COMMA = r"[ \t]*,[ \t]*"
_AND_OR = r"(?:[ \t]*,)?[ \t]+(?:and|or)[ \t]+"
_ITEM_KINDS = {kind: (re.compile(item), re.compile(f"({_COMMA}|{_AND_OR})({item})"),
                      re.compile(f"({item})({_COMMA}|{_AND_OR})$"))
               for kind, item in (("quoted", _QUOTED_ITEM), ("word", _WORD_ITEM))}
_LIST_ENDS = re.compile(r"[ \t]*(?:[.,;:)\]]|\n|$)")  # a list of words ends at punctuation or its line's end
_JOIN = re.compile(r"\b(?:and|or)\b")
COORDINATION_ITEMS = 12
COORDINATION_CHARS = 200


def coordination(text: str, start: int, end: int) -> tuple[int, int]:
    """The whole coordination that ``text[start:end]`` is an item of (or a run of items of): "log, warn, success,
    error" from "log", "'application/json' and 'text/plain'" from either; items of one kind (quoted strings, or single
    words and names), joined by commas and one "and" / "or" at most, the last join; a list of words ends before
    punctuation or its line's end, and takes no capitalised word before it unless its own items are capitalised
    ("Thus, a and b"). (start, end) where the span is no such item or no list holds it."""
    for kind, (item, after, before) in _ITEM_KINDS.items():
        m = item.match(text, start)
        if m is None:
            continue
        pos, joined, count = m.end(), False, 1
        while pos < end and not joined:  # the span may already hold several items
            n = after.match(text, pos)
            if n is None or n.end() > end:
                break
            joined, pos, count = _JOIN.search(n.group(1)) is not None, n.end(), count + 1
        if pos != end:
            continue
        words = kind == "word"
        ends = [end]
        while not joined and count < COORDINATION_ITEMS:
            n = after.match(text, pos)
            if n is None:
                break
            joined, pos, count = _JOIN.search(n.group(1)) is not None, n.end(), count + 1
            ends.append(pos)
        if words:
            ends = [e for e in ends if _LIST_ENDS.match(text, e)] or [end]
        new_start, new_end = start, ends[-1]
        capital = text[start].isupper()
        joined = _JOIN.search(text, start, new_end) is not None
        while count < COORDINATION_ITEMS:
            n = before.search(text[max(0, new_start - 80):new_start])
            if (n is None or (joined and _JOIN.search(n.group(2)))
                    or (words and n.group(1)[0].isupper() and not capital)):
                break
            joined = joined or _JOIN.search(n.group(2)) is not None
            new_start, count = new_start - len(n.group(0)), count + 1
        if (new_start, new_end) == (start, end) or new_end - new_start > COORDINATION_CHARS:
            return start, end
        return new_start, new_end
    return start, end


_ASKS_DEFAULT = re.compile(r"\bdefaults?\b", re.IGNORECASE)
# "the default line width is | 0.5bp", "defaults to | 90 days", "(default is | ...", "Default: | ...", "(def: | 2MB",
# "(by default, | /usr/share/...": the words just before a span, on its line
# ... or a "Default:" label cell, the value in the next, after the entry's own name at most ("Default: |
# LimitRequestBody 1073741824": Apache httpd's directive tables)
# ... or numpydoc's and man pages' "default" with no verb after a comma or a bracket ("how : {...}, default | 'inner'",
# "(default | 30)"); a value may open with a quote, typographic ones too (Sphinx's smart quotes: "default=| ‘lbfgs’")
_OPENING = "['\"`(\\[\u2018\u201c]?$"
_DEFAULT_SAID = re.compile(r"(?:\bdefaults?\b[^\n]{0,40}?(?:\s(?:is|are|to|of)\s+|\s*[:=]\s*)|\bdef:\s*"
                           r"|\bby\s+default,\s*|\bdefault(?:\s+value)?\s*:?\s*\|\s*(?:[A-Za-z_][\w.-]*\s+)?"
                           r"|[,(]\s*default\s+|\b(?:or|and)\s+the\s+default\s+)" + _OPENING, re.IGNORECASE)


# what a question that asks for a default without the word says instead: the value when it is not given ("... if I
# don't pass pagesize?", "... if I turn on syslog and don't set one?", "... when no mode is given?", "... when no
# delay= argument is given?", "... if DBUSER isn't set?", "... when neither VISUAL nor EDITOR is set?", "... if I leave
# out CONNRETRY?", "... when run without --all?", "... declared without a value?", "... without an SRID, which SRID
# ...?", "... set to out of the box?", "... if omitted?"); not "without an error"
_UNSET_VERB = r"(?:specify|pass|give|set|provide|supply|choose|configure|say|name|write|include|add|enter|define)"
_ASKS_UNSET = re.compile(
    r"\bout\s+of\s+the\s+box\b|\b(?:if|when)\s+omitted\b"
    rf"|\b(?:if|when|unless)\b[^?,;.]{{0,40}}?\b(?:do\s*n[o']t|does\s*n[o']t|never|did\s*n[o']t)\s+{_UNSET_VERB}\b"
    r"|\b(?:if|when|unless)\s+(?:[\w.$-]+\s+){0,3}?(?:is|are)\s*(?:n[o']t|never)\s+"
    r"(?:specified|given|set|passed|provided|supplied|defined|configured)\b"
    r"|\b(?:if|when)\s+(?:it\s+is\s+|they\s+are\s+)?(?:not|none\s+is|nothing\s+is|no\s+(?:[\w=-]+\s+){1,2}(?:is|are))\s+"
    r"(?:specified|given|set|passed|provided|supplied)\b"
    r"|\bneither\b[^?]{0,40}\bnor\b[^?]{0,40}\b(?:is|are)\s+(?:set|given|specified|passed|provided|supplied)\b"
    r"|\blea(?:ve|ving)\s+(?:[\w.$-]+\s+){0,3}?(?:out|off)\b"
    r"|\bwithout\s+(?:specifying|passing|setting|giving|providing|supplying|any\s+|--?[A-Za-z]"
    r"|an?\s+(?!errors?\b|warnings?\b|exceptions?\b|problems?\b|issues?\b|crash|failures?\b))", re.IGNORECASE)


@functools.lru_cache(maxsize=64)
def asks_default(question: str) -> bool:
    """Whether a question asks for a default ("What is the default line width?", "Which ... by default?"), or for the
    value when none is given, which is one ("What page size does it use if I don't pass pagesize?": ``_ASKS_UNSET``)."""
    return _ASKS_DEFAULT.search(question) is not None or _ASKS_UNSET.search(question) is not None


# a parameter's type annotation in a signature, ": bool", ": dict[str, int]": up to the next parameter, not past it
# ("other: DataFrame, how: str = 'left'" assigns to how, not to other)
_ANNOTATION = r"(?::\s*(?:[^=\n,()\[\]]|\[[^\[\]\n]{0,30}\]){1,30}?)?"


@functools.lru_cache(maxsize=64)
def _assigned(question: str) -> re.Pattern | None:
    """A signature's default of one of the question's words: "lazy: bool = | False", 'fit="| Fit"'."""
    names = [re.escape(t) for t in query_terms(question) if len(t) > 2 and not _ASKS_DEFAULT.fullmatch(t)]
    if not names:
        return None
    return re.compile(rf"(?<![\w.])(?:{'|'.join(names)})\s*{_ANNOTATION}\s*=\s*['\"`\u2018\u201c]?$", re.IGNORECASE)


# a signature's assignment just before a span: "how=| 'left'", "lazy: bool = | False", "maxRedirects = | 21"
_ASSIGNMENT = re.compile(r"(?<![\w.$])(?P<name>[A-Za-z_$][\w$]*)\s*" + _ANNOTATION + r"\s*=\s*" + _OPENING)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


# what a signature assigns where the default is worked out when the call runs and said in the parameter's description
# ("max_content_width=None" over "This defaults to 80 characters"): a placeholder, not a stated default
# ... or a sentinel object that stands for "not given" ("how=_NoDefault.no_default", "default=MISSING", "NOT_PROVIDED")
_PLACEHOLDER = re.compile(r"(?:None|null|undefined|nil|NULL|[\w.]*?(?:[Nn]o_?[Dd]efault|NO_DEFAULT|NOT_?SET|NotSet|"
                          r"NOT_PROVIDED|MISSING|_?[Ss]entinel)\w*)(?![\w$])")


# just after a span: '"text/x-rst" | is used by default', "roundcap | is the default" (a closing quote or bracket first
# at most; the white space between may break the line); not a bare "by default", as often an adverb of the sentence's
# verb ("without shuffling by default") as a value's statement (docs/documents.md)
_DEFAULT_AFTER = re.compile(r"['\"`\u2019\u201d)\]]?\s*(?:(?:is|are)\s+(?:used|assumed|chosen|selected|taken)\s+"
                            r"by\s+default|(?:is|are)\s+the\s+default)\b", re.IGNORECASE)
# a bare "by default" after a value written as one: a number (its unit may follow: "10ms") or a quoted value
# ("port 80 by default", '"utf-8" by default'), the span with its quotes or inside them (``_by_default_after``)
_NUMBER = re.compile(r"-?\d[\d.,]*[A-Za-z%]{0,3}")
_QUOTES = {"'": "'", '"': '"', "`": "`", "\u2018": "\u2019", "\u201c": "\u201d"}
_BY_DEFAULT = re.compile(r"\s+by\s+default\b", re.IGNORECASE)
# an appositive: "The default line cap, | roundcap, may be changed": the value closed by a comma after it
_DEFAULT_APPOSITIVE = re.compile(r"\bdefault\s+(?:[A-Za-z][\w-]*\s+){0,3}[A-Za-z][\w-]*,\s*$", re.IGNORECASE)


_ASIDES = frozenset("however though therefore instead also too then thus still e.g i.e".split())  # not values


# a line that is a call, up to a span: it assigns a call's result ("myCanvas = Canvas(", a doctest's prompt allowed
# first), or a bracket opens with a quoted string or a number before a comma ("Canvas('myfile.pdf', "); a signature
# opens with a name
_IN_CALL = re.compile(r"^[ \t]*(?:(?:>>>|\.\.\.)[ \t]+)?[\w.\[\]]+[ \t]*=[ \t]*[\w.]+\("
                      r"|\([ \t]*(?:'[^'\n]*'|\"[^\"\n]*\"|-?\d[\w.]*)[ \t]*,", re.MULTILINE)
_METAVARIABLE = re.compile(r"[A-Za-z][\w-]*")


def _metavariable(text: str, start: int, end: int | None) -> bool:
    """Whether the plain word at ``text[start:end]`` is the name of a value, not a default: a line assigns it and ends
    with it ("umask=mask", an option's head), outside any bracket, and the passage names it again after that line
    ("The default value of mask is 0022")."""
    if end is None or not _METAVARIABLE.fullmatch(text, start, end):
        return False
    line_start, line_end = text.rfind("\n", 0, start) + 1, text.find("\n", end)
    if line_end < 0 or text[end:line_end].strip() or "(" in text[line_start:start] \
            or not text[line_start:start].rstrip().endswith("="):
        return False
    return re.search(rf"(?<![\w=-]){re.escape(text[start:end])}(?![\w-])", text[line_end:]) is not None


def _by_default_after(text: str, start: int, end: int) -> bool:
    """Whether a bare "by default" follows a span that is a number or a quoted value (``_BY_DEFAULT``): "80" of "port
    80 by default", "utf-8" of '"utf-8" by default' (its quotes in the span or around it)."""
    span = text[start:end]
    if _NUMBER.fullmatch(span) or (len(span) > 2 and _QUOTES.get(span[0]) == span[-1]):
        return _BY_DEFAULT.match(text, end) is not None
    return (0 < start and end < len(text) and _QUOTES.get(text[start - 1]) == text[end]
            and _BY_DEFAULT.match(text, end + 1) is not None)


def states_default(text: str, question: str, start: int, end: int | None = None) -> bool:
    """Whether ``text`` says, on the line of what starts at ``start`` and just before it, that it is a default
    (``_DEFAULT_SAID``), or assigns it as a signature does ("lazy: bool = False") to a word of the question or a name
    the question gives (``_assigns_named``), a placeholder (``_PLACEHOLDER``: "=None") excepted, or puts it first in
    a table cell under a "Default" header (``in_default_column``); or, given the span's ``end``, says so just after
    it ('"text/x-rst" is used by default', "roundcap is the default": ``_DEFAULT_AFTER``; a number's or a quoted
    value's bare "by default": ``_by_default_after``) or in an appositive ("The default line cap, roundcap, may ...":
    ``_DEFAULT_APPOSITIVE``). What a line assigns is no default where the line is a call (``_IN_CALL``: an example's
    "Canvas('myfile.pdf', pagesize=letter)") or the value is a name the passage uses again (``_metavariable``:
    "umask=mask")."""
    before = text[max(text.rfind("\n", 0, start) + 1, start - 80):start]
    if _DEFAULT_SAID.search(before):
        return True
    if end is not None and (_DEFAULT_AFTER.match(text, end) or _by_default_after(text, start, end)
                            or (_DEFAULT_APPOSITIVE.search(before) and text.startswith(",", end)
                                and text[start:end].casefold() not in _ASIDES)):
        return True
    if _PLACEHOLDER.match(text, start):  # "max_content_width=None": the default is computed and said in prose
        return in_default_column(text, start)
    if _IN_CALL.search(text, text.rfind("\n", 0, start) + 1, start) or _metavariable(text, start, end):
        return in_default_column(text, start)  # an example's argument or a value's name, assigned but no default
    assigned = _assigned(question)
    return ((assigned is not None and assigned.search(before) is not None) or _assigns_named(before, question)
            or in_default_column(text, start))


def signature_assigns(text: str, line_start: int, start: int) -> int:
    """Where the brackets of the signature that opens the line at ``line_start`` open (``_SIGNATURE_LINE``: "class
    KMeans(", "f("), if what starts at ``start``, after them, is what a parameter is assigned ("n_init=| 'warn'",
    "lazy: bool = | False"); else -1."""
    m = _SIGNATURE_LINE.match(text, line_start)
    if m is None or m.end() > start or _ASSIGNMENT.search(text, m.end(), start) is None:
        return -1
    return m.end() - 1


def _assigns_named(before: str, question: str) -> bool:
    """Whether ``before`` ends assigning to a name the question gives (``_named``: "how" for "how='left'", "chunk
    size" for "chunk_size=", "max redirects" for "maxRedirects ="), stop words included, not its first word (its
    interrogative: "How ... by default?" names no "how=")."""
    m = _ASSIGNMENT.search(before)
    return m is not None and _named(_CAMEL.sub("_", m.group("name")).casefold(), _assignable_names(question))


@functools.lru_cache(maxsize=64)
def _assignable_names(question: str) -> frozenset[str]:
    """The question's names but its first word (``_assigns_named``: read for every candidate of a default question)."""
    first = _QUESTION_NAME.match(question.lstrip())
    return _question_names(question) - ({first.group(0).casefold()} if first else set())


# between a table row's cells as ingestion writes them, " | ", and before an empty last cell, which ends the line " |"
_CELLS = re.compile(r" \|(?= |$)")
_DEFAULT_HEADER = re.compile(r"(?:default|default\s+value)s?", re.IGNORECASE)


def in_default_column(text: str, start: int) -> bool:
    """Whether what starts at ``start`` opens a table cell whose column's header says "Default(s)" ("Command |
    Description | Defaults" above "-c | Set cache time ... | 3600"): the header is the first of the rows (lines holding
    ``_CELLS``) that run up to the span's own, with as many cells as it (an empty last cell counted: "-s | Quiet |")."""
    line = text.rfind("\n", 0, start) + 1
    before = text[line:start]
    seps = list(_CELLS.finditer(before))
    if not seps or before[seps[-1].end():].strip():  # not in a later cell, or not at its start
        return False
    column = len(seps)
    end = text.find("\n", start)
    cells = len(_CELLS.findall(text[line:end if end >= 0 else len(text)]))
    header = None
    while line > 0:  # up the table's rows
        above = text.rfind("\n", 0, line - 1) + 1
        row = text[above:line - 1]
        if len(_CELLS.findall(row)) != cells:
            break
        header, line = row, above
    return header is not None and bool(_DEFAULT_HEADER.fullmatch(_CELLS.split(header)[column].strip()))


# "on or off", "inclusive or exclusive"; "by value or by reference": the alternatives a question offers (``offered``)
_ONE_OR_ONE = re.compile(r"(?<![\w-])([\w-]+)\s+or\s+([\w-]+)(?![\w-])", re.IGNORECASE)
_TWO_OR_TWO = re.compile(r"(?<![\w-])([\w-]+)\s+([\w-]+)\s+or\s+\1\s+([\w-]+)(?![\w-])", re.IGNORECASE)


# "one or more", "3.8 or later", "or so": a bound or a hedge, not a choice
_NOT_OFFERED = frozenset({"more", "less", "later", "earlier", "higher", "lower", "greater", "fewer", "above", "below",
                          "newer", "older", "so", "not", "else", "other", "another", "both", "all"})


@functools.lru_cache(maxsize=64)
def offered(question: str) -> tuple[str, ...]:
    """The answers a question offers, case-folded: two words joined by "or" ("on", "off" for "Is it on or off by
    default?"), or two pairs of words that begin alike ("by value", "by reference"); () for any other question."""
    m = _TWO_OR_TWO.search(question)
    if m:
        return (f"{m.group(1)} {m.group(2)}".casefold(), f"{m.group(1)} {m.group(3)}".casefold())
    m = _ONE_OR_ONE.search(question)
    if not m or m.group(2).casefold() in _NOT_OFFERED:
        return ()
    return (m.group(1).casefold(), m.group(2).casefold())


def is_offered(span: str, alternatives: tuple[str, ...]) -> bool:
    """Whether ``span`` is one of the ``alternatives`` (``offered``), or one after at most two words, as whole words:
    "off", "passed by value"; not a sentence that ends with one."""
    words = re.findall(r"[\w-]+", span.casefold())
    return any(words[-len(a.split()):] == a.split() and len(words) <= len(a.split()) + 2 for a in alternatives)


# A question that begins with an auxiliary verb and offers its answers asks to choose one of them (``choice``): "Is
# SO_REUSEADDR on or off by default?", "Are the bounds of irange inclusive or exclusive?". A "What ... or ...?" question
# may offer words without asking to choose ("What does abs return for an int or a float?").
_CHOICE = re.compile(r"^\s*(?:is|are|was|were|does|do|did|can|could|should|would|will|must|may|has|have)\b",
                     re.IGNORECASE)
_OFFERS = r"\s*(?:,?\s+or\s+|/|\|)\s*"  # how a text offers alternatives itself: "on or off", "on/off", "on|off"


def choice(question: str) -> tuple[str, ...]:
    """The alternatives a question asks to choose between (``offered``), where it begins with an auxiliary verb; ()
    for any other question."""
    return offered(question) if _CHOICE.match(question) else ()


def _alternative(words: str) -> str:
    """A pattern for an alternative's words, whole, case-folded, any white space between them."""
    return r"(?<![\w-])" + r"\s+".join(re.escape(w) for w in words.split()) + r"(?![\w-])"


def offered_in(text: str, alternatives: tuple[str, ...]) -> list[tuple[int, int]]:
    """Where ``text`` writes one of the ``alternatives`` as whole words, in order: its answer to the choice. Not where
    the text offers them itself ("on or off", "on/off": the question's own words, not an answer)."""
    echoed: list[tuple[int, int]] = []
    for a in alternatives:
        for b in alternatives:
            if a != b:
                echoed += [m.span() for m in re.finditer(_alternative(a) + _OFFERS + _alternative(b), text,
                                                         re.IGNORECASE)]
    found = {m.span() for a in alternatives for m in re.finditer(_alternative(a), text, re.IGNORECASE)}
    return sorted((x, z) for x, z in found if not any(e <= x and z <= f for e, f in echoed))


# an entry's head line that is not a signature: a name alone on its line, with a bracketed type or an "=value" at most
# ("health_check_timeout (integer)", "nofile", "--prune", "user_readenv=0|1"); typed, it heads an entry whatever its
# name's shape ("level (String)"), where a plain word alone may be a section's heading ("Notes")
_TERM_LINE = re.compile(r"^[ \t]*(?P<name>-{0,2}[A-Za-z_$][\w$.:-]*)"
                        r"(?P<typed>[ \t]*\([^()\n]{0,30}\)|=\S{1,30})?[ \t]*$", re.MULTILINE)
# numpydoc's parameter line: "how : {'left', 'right'}, default 'inner'", "x1, x2 : array_like" (each name heads it)
_PARAMETER_LINE = re.compile(r"^[ \t]*(?P<names>\*{0,2}[A-Za-z_]\w*(?:,[ \t]*\*{0,2}[A-Za-z_]\w*)*)[ \t]+:[ \t]+\S",
                             re.MULTILINE)
# a list item that opens with a name, then a dash or a colon: "- maxTimeout number (optional) - Maximum ... Default:
# 30000", "- level: the logger's level"; typed where a type stands between the name and the dash (a type's word or a
# word with a bracket or "|" in it, with a bracketed note at most, or anything up to "(optional)" / "(required)":
# "number (optional)", "string[]"), so that it heads an entry whatever its name's shape, as ``_TERM_LINE``'s typed head
# does; not "- Install the package - ..."
_TYPE_WORDS = (r"(?i:number|string|boolean|bool|object|function|array|int|integer|float|double|str|dict|list|any|"
               r"null|undefined|bigint|symbol|buffer|date|regexp|promise|tuple|bytes|callable)")
_ITEM_HEAD = re.compile(r"^[ \t]*[-*\u2022][ \t]+`?(?P<name>-{0,2}[A-Za-z_$][\w$.-]*?)`?"
                        r"(?:(?P<typed>[ \t]+(?:(?:\S*[\[\]<>|]\S*|" + _TYPE_WORDS + r")(?:[ \t]+\([^()\n]{1,30}\))?"
                        r"|[^\n]{1,120}?\((?:optional|required)\)))[ \t]+[-\u2013\u2014][ \t]"
                        r"|[ \t]+[-\u2013\u2014][ \t]|:[ \t])", re.MULTILINE)
_QUESTION_NAME = re.compile(r"-{0,2}[A-Za-z_$][\w$.:-]*")
_CODE_SHAPED = re.compile(r"[_.$]|::|^-|[a-z][A-Z]")


def _name_part(name: str) -> str:
    """A head's or a question's name as compared: a dotted (or "::") name's last part in lower case
    ("SortedDict.popitem" -> "popitem"), as the return rule compares its names (``_last_part``)."""
    return _last_part(name.rstrip(".:").rsplit("::", 1)[-1])


_PLAIN_PAIR = re.compile(r"(?=\b([A-Za-z]{3,})\s+([A-Za-z]{3,})\b)")  # two adjacent plain words, overlapping


@functools.lru_cache(maxsize=64)
def _question_names(question: str) -> frozenset[str]:
    """The question's names as compared (``_name_part``), and each two adjacent plain words of three letters or more
    joined ("life checks" -> "lifechecks"): a name joins words that prose writes apart (``wd_lifecheck_query``)."""
    joined = {(a + b).casefold() for a, b in _PLAIN_PAIR.findall(question)}
    return frozenset(_name_part(n) for n in _QUESTION_NAME.findall(question)) | joined


def _named(name: str, names: frozenset[str]) -> bool:
    """Whether the question names an entry's head ``name``: as written, or as the words its "_" or "-" join, each of
    three letters or more the start of a word of the question, shorter ones left out ("syslog facility" names
    ``syslog_facility``, "max connections" ``max_connections``, "maximum iterations" ``max_iter``, "neighbors"
    ``n_neighbors``)."""
    if name in names:
        return True
    words = _joined_words(name)
    parts = [p for p in words if len(p) >= 3]
    return len(words) > 1 and bool(parts) and all(any(w.startswith(p) for w in names) for p in parts)


@functools.lru_cache(maxsize=256)
def _joined_words(name: str) -> tuple[str, ...]:
    """The words "_" or "-" join in a head's name (``_named``: read for every candidate span of a default question)."""
    return tuple(p for p in re.split(r"[_-]+", name) if p)


_DOCTEST = re.compile(r"[ \t]*(?:>>>|\.\.\.)(?:[ \t]|$)")  # a doctest's prompt: the next line is its output


@functools.lru_cache(maxsize=64)
def _heads(text: str) -> tuple[tuple[int, str, bool], ...]:
    """The head lines of ``text``'s entries in order: (where the line starts, its name as compared, whether it is a
    signature, typed or its name is code-shaped, so that it heads an entry whatever the question), a list item that
    opens with a name among them (``_ITEM_HEAD``); not a doctest's output ("SortedList(['a', 'b'])" under ">>> sl")."""
    found = [(m.start(), m.group("name"), True) for m in _HEAD_SIGNATURE.finditer(text)]
    found += [(m.start(), m.group("name"), bool(m.group("typed") or _CODE_SHAPED.search(m.group("name"))))
              for head in (_TERM_LINE, _ITEM_HEAD) for m in head.finditer(text)]
    found += [(m.start(), name.strip().lstrip("*"), True)
              for m in _PARAMETER_LINE.finditer(text) for name in m.group("names").split(",")]
    return tuple(sorted((at, _name_part(name), code) for at, name, code in found
                        if not (at and _DOCTEST.match(text, text.rfind("\n", 0, at - 1) + 1))))


# what ends a numpydoc parameter line's type: its default or "optional" after a comma, or trailing white space
_TYPE_TAIL = re.compile(r"(?:,\s*(?:default|optional)\b.*)?[ \t]*$")
# Sphinx's field list as extracted: "index (int) – index of value (default -1)", a list item's dash first at most; the
# type in the brackets between the name and the dash
_FIELD_LINE = re.compile(r"^[ \t]*(?:[-*\u2022][ \t]+)?(?P<name>\*{0,2}[A-Za-z_]\w*)[ \t]+\((?P<type>[^()\n]{1,60})\)"
                         r"[ \t]+[-\u2013\u2014][ \t]", re.MULTILINE)


def parameter_type(text: str, name: str) -> tuple[int, int] | None:
    """(start, end) of the type on ``name``'s numpydoc parameter line (``_PARAMETER_LINE``, the names listed together
    too: "x1, x2 : array_like"), up to its default or "optional" ("n_init : 'auto' or int, default=10" -> "'auto' or
    int"), or in the brackets of its Sphinx field list line ("index (int) – index of value" -> "int"); None where
    ``text`` has no such line for ``name``."""
    for m in _PARAMETER_LINE.finditer(text):
        if name in (n.strip().lstrip("*") for n in m.group("names").split(",")):
            start = m.end() - 1  # the type's first character (the pattern's last \S)
            line_end = text.find("\n", start)
            line_end = len(text) if line_end < 0 else line_end
            end = _TYPE_TAIL.search(text, start, line_end).start()
            return (start, end) if end > start else None
    for m in _FIELD_LINE.finditer(text):
        if m.group("name").lstrip("*") == name:
            start = m.start("type")
            end = _TYPE_TAIL.search(text, start, m.end("type")).start()
            return (start, end) if end > start else None
    return None


def names_entry(text: str, question: str) -> bool:
    """Whether a head line of ``text`` names a word of the question: the entry asked about is there."""
    names = _question_names(question)
    return any(_named(name, names) for _, name, _ in _heads(text))


def default_owner(text: str, question: str, start: int, entry_read: bool) -> int:
    """Whose default a span at ``start`` that its line states as one (``states_default``) is: -1 where the last head
    line before it heads another entry (a signature or a code-shaped name that is not a word of the question) while
    the entry asked about is among the passages read (``entry_read``: ``names_entry`` of one of them), as
    "health_check_period ... Default is 0" for "What is the default health_check_timeout?"; else 1 (the entry asked
    about, or nothing to tell: a plain line of its own the question does not name, a section's heading such as
    "Notes", ends the entry above it)."""
    if not entry_read:
        return 1
    names = _question_names(question)
    last = None
    for at, name, code in _heads(text):
        if at >= start:
            break
        # a plain line of its own that the question does not name (a section's heading, "Notes") ends the entry above
        last = name if _named(name, names) or code else None
    return -1 if last is not None and not _named(last, names) else 1


# "What does/do/should/may/will/can X return ...?", a noun before the auxiliary and an "In" before it allowed ("What
# type does X return?", "In what unit does X return ...?"), "give back" for "return": X holds the name whose return
# value is asked (``returned``)
_RETURN_QUESTION = re.compile(r"^\s*(?:in\s+)?what\s+(?:[\w-]+\s+){0,3}?(?:does|do|did|should|may|might|will|would|can|"
                              r"could|must)\s+(?P<x>.+?)\s+(?:return|give\s+back)\b", re.IGNORECASE)
DOTTED_NAME = r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*"  # a name as code writes it: "canvas.drawInlineImage", "$el"
_CALL = re.compile(rf"(?<![\w.])({DOTTED_NAME})\(\)")  # a name written as a call: "writer()", "os.getcwd()"
_CODE_NAME = re.compile(DOTTED_NAME + r"(?:\(|\b)")
_CODE_LIKE = re.compile(r"[_.(]|[a-z][A-Z]")
_NAMED_BY = re.compile(r"([A-Za-z_$][\w$]*)\s+(?:method|function|call|command|macro)\b", re.IGNORECASE)
# the words just before a span that say it is what is returned, on its line: a signature's "→ str" (YARD's "⇒"),
# "Return(s) ..." at the start of a line, a sentence or a table cell, "it returns ...", "The functions returns ...",
# "Return value: ...", "Parses the input string and returns ...", "Split the text and return ..." (``prose``: only
# where a signature line heads the entry, a verb in prose elsewhere: "Convert a value returned from time ... and
# return a string" is ctime's)
_RETURN_SAID = re.compile(r"(?:(?:^|[.:;|]\s+|\s[-\u2013\u2014]\s+)Returns?:?\s+"
                          r"|(?i:\b(?:it|this|which|that|functions?|methods?)\s+returns\s+)"
                          r"|(?P<prose>(?i:\band\s+returns?\s+))"
                          r"|(?:\u2192|\u21d2|->)\s*|(?i:\breturn\s+(?:value|type)\s*(?:is\s+|:\s*)))['\"`(\[]?$")
# a field label a passage's title may end with (``function.ingest.split._FIELD_LABEL``'s words)
_FIELD_LABEL = re.compile(r"Returns?|Yields?|Raises")
_RETURNS_HEADING = re.compile(r"^[ \t]*(?:Returns?|Return\s+(?:type|value)s?)[ \t]*:?[ \t]*$", re.IGNORECASE)
# numpydoc's named return value, "scores : ndarray of float", or two, "real, imag : arrays": names, " : ", a type;
# matched at a line's start
_NUMPYDOC_RETURN = re.compile(r"[ \t]*[\w.*]+(?:, [\w.*]+)* : \S")
_INDENT = re.compile(r"[ \t]*")
# a signature at a line's start, after at most three words (a type, "class", a prompt): its name, before "("
_SIGNATURE_LINE = re.compile(r"^[ \t]*(?:[\w\[\]<>*&:.]+[ \t]+){0,3}?"
                             rf"(?P<name>{DOTTED_NAME})\(", re.MULTILINE)
_HEAD_SIGNATURE = re.compile(rf"^[ \t]*(?P<name>{DOTTED_NAME})\(", re.MULTILINE)  # "name(" at a line's start
ENTRY_BACK = 400  # how far before a span its entry's signature is looked for
NAME_BACK = 200  # where no signature is, how near before a span the name must stand


# a name qualified with "::" or ":" as Erlang ("maps:find"), Rust and C++ ("HashMap::insert") write it, or with "#" as
# Ruby's and JavaScript's documentation name an instance method ("Mock#expects", "Array#map")
_QUALIFIED_NAME = re.compile(r"(?<![\w:#])[A-Za-z_]\w*(?:(?:::?|#)[A-Za-z_]\w*)+(?![\w:#])")


@functools.lru_cache(maxsize=64)
def returned(question: str) -> str | None:
    """The name a question asks the return value of ("keys" for "What does SortedDict.keys() return?", "split" for
    "What should a flowable's split method return ...?", "find" for "What does maps:find return?"); None for any other
    question."""
    m = _RETURN_QUESTION.match(question)
    if not m:
        return None
    subject = m.group("x")
    qualified = _QUALIFIED_NAME.findall(subject)
    if qualified:  # "maps:find", "HashMap::insert": the last part is the name asked
        return re.split(r"::?|#", qualified[-1])[-1]
    names = [n.rstrip("(") for n in _CODE_NAME.findall(subject)]
    code = [n for n in names if _CODE_LIKE.search(n) or n + "(" in subject]
    named = _NAMED_BY.search(subject)
    name = code[-1] if code else named.group(1) if named else names[-1] if len(names) == 1 else None
    return name.rsplit(".", 1)[-1] if name else None


# the condition a return question puts after "return": "What does SDL_CreateWindow return | on failure?", "What does
# nth return | when no such item exists?" (``return_condition``)
_CONDITION_ASKED = re.compile(r"\breturn\s+(?P<c>(?:if|when|whenever|on|for|in\s+case|upon|unless|after|given)\b.*?)"
                              r"\s*\??\s*$", re.IGNORECASE)
# an alternative a return value's text gives with its condition: "the window that was created or | NULL | on failure",
# "a timer ID or | 0 | if an error occurs", "nth item in the sequence\nor | None | if no such item exists": "or", a
# value of at most four words, then the condition's word
_CONDITIONED = re.compile(r"\bor\s+(?P<v>[^\s,;:.]+(?:[ \t]+[^\s,;:.]+){0,3}?)"
                          r"(?P<c>\s+(?:if|when|whenever|on|for|in\s+case|upon|unless|after)\b[^.;,\n]*)")


# the condition a question asks a return value or an exit status under, whatever it names: "What exit status does diff
# return | when there is trouble?", "What does fclose return | if successful?" (``asked_condition``)
_EXIT_ASKED = re.compile(r"\b(?:return|exit|exits)\b(?:\s+(?:with|code|status))?\s+"
                         r"(?P<c>(?:if|when|whenever|on|upon|unless|after|in\s+case)\b.*?)\s*\??\s*$", re.IGNORECASE)


@functools.lru_cache(maxsize=64)
def asked_condition(question: str) -> tuple[frozenset[str], bool] | None:
    """The index terms of the condition a question asks a return value or exit status under, and whether it is
    negative ("not found", "no events", "fails": ``_NEGATIVE``); None for any other question."""
    m = _EXIT_ASKED.search(question)
    if m is None:
        return None
    terms = frozenset(query_terms(m.group("c")))
    return (terms, _NEGATIVE.search(m.group("c")) is not None) if terms else None


_NEGATIVE = re.compile(r"\b(?:not|no|none|nothing|never|without|nowhere|cannot|unable|fails?|failed|failure|missing|"
                       r"absent|empty)\b|n't\b|\bun[a-z]{3,}ed\b", re.IGNORECASE)
# the values a text gives with their conditions: "htpasswd returns 1 if ..., | 2 | if there was a syntax problem",
# "the negated Boolean, or | null | if null input", "TRUE if ..., | FALSE | if called with NULL", "and | 2 | means
# trouble"; a value of at most four words after a line's start, a comma, "or", "and", "returns" or "of", not a verb
_ALT_VALUE = (r"(?:^|(?<=[,;:(])[ \t]*|\b(?i:or|and|returns?|yields?|gives?|of)[ \t]+)"
              r"(?!(?i:returns?|yields?|gives?|if|when|and|or)\b)(?P<v>[^\s,;:.]+(?:[ \t]+[^\s,;:.]+){0,3}?)")
_ALT_CLAUSE = r"(?P<c>[^.;,\n]*?)(?=[ \t]+(?:or|otherwise|else)\b|[.;,\n]|$)"
_ALTERNATIVES = (
    re.compile(_ALT_VALUE + r"[ \t]+(?i:if|when|whenever|on|upon|unless|in[ \t]+case)\b" + _ALT_CLAUSE, re.MULTILINE),
    re.compile(_ALT_VALUE + r"[ \t]+means[ \t]+" + _ALT_CLAUSE, re.MULTILINE),
    # "If successful, fclose returns | 0 |, otherwise ...", "If null is passed in, | null | will be returned"
    re.compile(r"\b(?i:if)[ \t]+(?P<c>[^,.;\n]{1,80}),[ \t]*(?:then[ \t]+)?(?:[\w.()]+[ \t]+){0,2}?"
               r"(?i:returns?|yields?|gives?)[ \t]+(?P<v>[^\s,;:.]+(?:[ \t]+[^\s,;:.]+){0,3}?)(?=[ \t]*(?:[,;.]|$))",
               re.MULTILINE),
    re.compile(r"\b(?i:if)[ \t]+(?P<c>[^,.;\n]{1,80}),[ \t]*(?P<v>[^\s,;:.]+(?:[ \t]+[^\s,;:.]+){0,3}?)[ \t]+"
               r"(?:is|are|will[ \t]+be)[ \t]+returned\b", re.MULTILINE),
)


def conditioned_alternatives(text: str) -> list[tuple[int, int, str]]:
    """The values ``text`` writes with their conditions (``_ALTERNATIVES``): (value start, value end, condition)."""
    found = {}
    for pattern in _ALTERNATIVES:
        for m in pattern.finditer(text):
            found.setdefault(m.span("v"), m.group("c"))
    return sorted((a, z, c) for (a, z), c in found.items())


def _term_like(a: str, b: str) -> bool:
    """Two index terms alike: the same, or one the other's beginning of four letters or more ("pass", "passed")."""
    short, long_ = sorted((a, b), key=len)
    return short == long_ or (len(short) >= 4 and long_.startswith(short))


def condition_share(condition: frozenset[str], said: str) -> float:
    """The share of a question's condition's terms (``asked_condition``) that a text's condition ``said`` holds,
    alike (``_term_like``)."""
    terms = query_terms(said)
    return sum(any(_term_like(c, t) for t in terms) for c in condition) / len(condition)


def conditioned_answer(text: str, asked: tuple[frozenset[str], bool], start: int, end: int) -> tuple[int, int]:
    """The value ``text`` gives under the condition a question asks (``asked_condition``), of those it writes with
    theirs (``conditioned_alternatives``): the one whose condition holds the largest share of the question's, at least
    half, of the question's polarity (``_NEGATIVE``), one value alone at the top; (start, end) where none is, or where
    the span already is such a value."""
    condition, negative = asked
    best: list[tuple[int, int]] = []
    top = 0.5
    for a, z, said in conditioned_alternatives(text):
        if (_NEGATIVE.search(said) is not None) != negative:
            continue
        share = condition_share(condition, said)
        if share > top:
            best, top = [(a, z)], share
        elif share == top:
            best.append((a, z))
    if not best or len({text[a:z].casefold() for a, z in best}) > 1:
        return start, end
    if any(a < end and start < z for a, z in best):
        return start, end
    return best[0]


# a condition right after a span: "Return -1 | if sub is not found", "Returns None | on mismatch"
_CONDITION_AFTER = re.compile(r"[ \t]+(?:if|when|whenever|on|for|in\s+case|upon|unless|after)\b[^.;,\n]*")


def conditioned(text: str, start: int, end: int, condition: frozenset[str]) -> bool:
    """Whether ``text[start:end]``, within one sentence, is followed by the condition the question asks under
    (``_same_condition``, ``return_condition``): "-1" of "Return -1 if sub is not found." for "What does find return
    if sub is not found?"."""
    if _SENTENCE_END.search(text, start, end):
        return False
    m = _CONDITION_AFTER.match(text, end)
    return m is not None and _same_condition(m.group(), condition)


def _same_condition(said: str, condition: frozenset[str]) -> bool:
    """Whether the condition ``said`` holds more than half of the question's condition's terms (``return_condition``):
    "if sub is not found" for "... if sub is not found?", not "for key if key is there" for "... if the key is
    missing?"."""
    return 2 * len(condition & frozenset(query_terms(said))) > len(condition)


@functools.lru_cache(maxsize=64)
def return_condition(question: str) -> frozenset[str] | None:
    """The index terms of the condition a question asks a return value under ("failure" for "What does X return on
    failure?", "error", "occurs" for "... return if an error occurs?"); None where the question asks for no return
    value (``returned``) or under no condition."""
    if returned(question) is None:
        return None
    m = _CONDITION_ASKED.search(question)
    terms = frozenset(query_terms(m.group("c"))) if m else frozenset()
    return terms or None


def conditioned_value(text: str, start: int, end: int, condition: frozenset[str]) -> tuple[int, int]:
    """``text[start:end]`` cut to the alternative it gives under ``condition`` (``return_condition``): "NULL" of "the
    window that was created or NULL" where "on failure" follows it and the question asks about failure; the span as
    it is where it holds no such alternative under the question's condition (``_same_condition``)."""
    for m in _CONDITIONED.finditer(text, start, min(len(text), end + 120)):
        if not start <= m.start("v") < end:
            continue
        if _same_condition(m.group("c"), condition):
            return m.start("v"), m.end("v")
    return start, end


# what a return value's phrase goes on with to its sentence's end: "True | when the image is determined to be low
# contrast", "a shallow | copy of the sorted dict", "A | contingency table": to a "." before white space, a ";", a
# table's " | " or the line's end, at most ``RETURN_CLAUSE`` characters
_RETURN_GOES_ON = re.compile(r"(?:[^.;|\n]|[.|](?=\S))+")
RETURN_CLAUSE = 160


def return_end(text: str, name: str, start: int, end: int, title: str | None = None) -> int:
    """Where the return value of ``name`` (``returned``) that ``text[start:end]`` starts ends: at its sentence's end
    (``_RETURN_GOES_ON``) where ``states_return`` says the span starts it; ``end`` otherwise."""
    stop = _run_on(text, end)
    return end if stop is None or not states_return(text, name, start, title) else stop


def _run_on(text: str, at: int) -> int | None:
    """Where a return value's phrase that goes on from ``at`` ends: its sentence's end (``_RETURN_GOES_ON``) less a
    trailing aside (``_TRAILING_ASIDE``); None where it does not go on or would run past ``RETURN_CLAUSE``."""
    m = _RETURN_GOES_ON.match(text, at)
    if m is None or m.end() - at > RETURN_CLAUSE:
        return None
    return at + len(_TRAILING_ASIDE.sub("", text[at:m.end()]))


def return_description(text: str, name: str, start: int, end: int, title: str | None = None) -> tuple[int, int] | None:
    """Where ``text[start:end]`` lies on numpydoc's "name : type" line right under "Returns:" (the reader named the
    value or its type: "out", "ndarray of dtype int"), the first sentence of the description under that line, which
    ``states_return`` says is what ``name`` (``returned``) returns ("Equalized image with float64 dtype"), at most
    ``RETURN_CLAUSE`` characters; None elsewhere."""
    line = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", line)
    line_end = len(text) if line_end < 0 else line_end
    if end > line_end or not _NUMPYDOC_RETURN.match(text, line, line_end):
        return None
    above = _line_above(text, line)
    labelled = _titled_returns(title) if above is None else bool(_RETURNS_HEADING.match(above[1]))
    if not labelled or line_end >= len(text):
        return None
    a = _INDENT.match(text, line_end + 1).end()  # the description's first character, on the line below
    z = _run_on(text, a)
    if z is None or z <= a or not states_return(text, name, a, title):
        return None
    return a, z


# what ends a return value's run-on but is not part of it: a bracketed aside ("(see datenum)", "(which may not be
# equal to ...)"), a colon or a comma before a list, white space
_TRAILING_ASIDE = re.compile(r"(?:\s+\([^()]*\))?[\s:,]*$")


def _last_part(name: str) -> str:
    return name.rsplit(".", 1)[-1].lower()


def _line_above(text: str, line: int) -> tuple[int, str] | None:
    """(start, text) of the nearest line above the line that starts at ``line`` that is not blank; None where there
    is none."""
    end = line - 1
    while end >= 0:
        start = text.rfind("\n", 0, end) + 1
        if text[start:end].strip():
            return start, text[start:end]
        end = start - 1
    return None


def _titled_returns(title: str | None) -> bool:
    """Whether a passage's title ends with a "Returns" label: it starts among an entry's return lines, their label in
    the passage before (``function.ingest.split``: "Document > Heading > name > Returns")."""
    return bool(title) and _RETURNS_HEADING.match(title.rsplit(" > ", 1)[-1]) is not None


def _entry_title(title: str | None) -> str | None:
    """``title`` less a field label its passage starts under ("... > f1_score > Returns" -> "... > f1_score")."""
    if title and " > " in title and _FIELD_LABEL.fullmatch(title.rsplit(" > ", 1)[-1]):
        return title.rsplit(" > ", 1)[0]
    return title


def _under_returns(text: str, line: int, title: str | None = None) -> bool:
    """Whether the line that starts at ``line`` is a return value under a "Returns:" line (blank lines between), or
    numpydoc's description of one: under its "name : type" line, itself right under "Returns:"; at the top of a
    passage whose ``title`` ends with "Returns" (``_titled_returns``), the label stands in the passage before."""
    end = text.find("\n", line)
    if _NUMPYDOC_RETURN.match(text[line:end if end >= 0 else len(text)]):
        return False  # "scores : ndarray of float": the description under it is the return value
    above = _line_above(text, line)
    if above is None:
        return _titled_returns(title)
    if _RETURNS_HEADING.match(above[1]):
        return True
    if not _NUMPYDOC_RETURN.match(above[1]):
        return False
    further = _line_above(text, above[0])
    return _titled_returns(title) if further is None else bool(_RETURNS_HEADING.match(further[1]))


def under_returns_label(text: str, name: str, start: int, title: str | None = None) -> bool:
    """Whether what starts at ``start`` lies on a line under ``name``'s own "Returns:" label (``_under_returns``, and
    ``states_return`` at that line's start): the Returns section that says what it returns, not a summary line's
    "Return ..." nor a prose mention."""
    line = text.rfind("\n", 0, start) + 1
    return _under_returns(text, line, title) and states_return(text, name, line, title)


def returns_section(text: str, name: str, title: str | None = None) -> tuple[int, int] | None:
    """The first line of ``text`` under ``name``'s own "Returns:" label (``under_returns_label``), as (start, end) with
    its white space trimmed; None where ``text`` has none: a passage holding the Returns section of the entry a
    return question names, whether or not the reader's best spans lie in it."""
    for m in re.finditer(r"[^\n]+", text):
        if m.group().strip() and under_returns_label(text, name, m.start(), title):
            start = m.start() + len(m.group()) - len(m.group().lstrip())
            return start, m.start() + len(m.group().rstrip())
    return None


def states_return(text: str, name: str, start: int, title: str | None = None) -> bool:
    """Whether ``text`` says, just before what starts at ``start`` (on its line, or a "Returns:" line above:
    ``_under_returns``), that it is what ``name`` (``returned``) returns, inside ``name``'s own entry: the last
    signature line before it names ``name`` or, where there is none, ``name`` stands just before it or, where it does
    not, the passage's ``title`` ends with it (a one-function page's Returns section, far from the signature)."""
    line = text.rfind("\n", 0, start) + 1
    before = text[max(line, start - 80):start]
    said = _RETURN_SAID.search(before)
    if not said:
        if before.strip() or (line == 0 and not _titled_returns(title)) or not _under_returns(text, line, title):
            return False
    window = text[max(0, start - ENTRY_BACK):start]
    signatures = list(_SIGNATURE_LINE.finditer(window))
    if signatures:
        return _last_part(signatures[-1].group("name")) == name.lower()
    if said and said.group("prose"):  # "... and returns X" with no signature to say whose entry it is
        return False
    near = text[max(0, start - NAME_BACK):start]
    if re.search(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])", near, re.IGNORECASE) is not None:
        return True
    title = _entry_title(title)
    return bool(title) and _last_part(title.rsplit(" > ", 1)[-1].strip()) == name.lower()


def overlaps(question: str, texts: Iterable[str], spans: Iterable[tuple[int, int, int]]) -> list[float]:
    """``Sentences.overlap`` of each (passage, start, end) span, each passage analysed once."""
    q = question_terms(question)
    cache: dict[int, Sentences] = {}
    texts = list(texts)
    out = []
    for p, a, z in spans:
        sentences = cache.get(p)
        if sentences is None:
            sentences = cache[p] = Sentences(texts[p])
        out.append(sentences.overlap(q, a, z))
    return out
