"""Question + tokenised passages -> answers with character offsets, and whether there is one at all.

The function and the build stage's evaluation both read through this module:
``prepare`` before the model run (by whoever holds the model: an ONNX Runtime
session here, a PyTorch model in the build stage), then ``answers_from_logits``
for the spans and ``no_answer_verdict`` (or its ``no_answer_margin``) for abstaining.
``function.model.decode`` does the arithmetic behind it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from function.model import code, sentence, table
from function.model.decode import (
    best_spans,
    in_block,
    no_answer_probability,
    null_score,
    paragraphs,
    window_margins,
)
from function.model.windows import Batch, WindowSpec, build_batch
from function.retrieval.terms import terms

# candidate spans ranked again by their sentence and the answer-type rules (``answers_from_logits``' ``question``): a
# rule chooses only among the spans it is shown. On the SQuAD dev questions the best 8, 16, 32 or 48 give the same
# answers; on documentation the rules found the answer among the 17th to 48th best ("\usepackage{asymptote}" for "How do
# I embed Asymptote code directly in a LaTeX document?"): 48 since 2026-12-07, chosen on the benchmark's dev part
# against 8-64, at about 3 ms more decoding a question that reads five passages (docs/documents.md)
CANDIDATES = 48
# and, where retrieved passages compete (a question asked alone that the cascade's first passage did not settle),
# each passage's best ``PER_PASSAGE`` spans too (``decode.best_spans``' ``per_passage``): a passage whose spans the
# reader scores below another's still has its say where the sentence term and the answer-type lifts rank them ("Default
# is gentle." under the entry asked about, where all 16 best were the previous entry's; docs/documents.md)
PER_PASSAGE = 4
# A span inside one of its passage's headings loses this much, in logits, where the sentence term ranks spans
# (``in_heading``): in effect never the answer while any other candidate is left (the reader can be sure of a
# heading, "Timeouts" at 0.99 for "Which parameter tells Requests to stop waiting ...?", where "timeout" in the
# sentence under it reads 2e-4).
HEADING = 30.0
# A span that is a whole piece of its page's code (``is_code``: a <code> element, Markdown's `backticks`, a code block's
# line, as ingestion marks them, ``Passage.marks`` and ``Passage.lines``) gains this much, in logits, where the
# sentence term ranks spans, for a question that asks for a name or a way to do something (``NAME_QUESTION``: "Which
# option ...?", "What method ...?", "What does X return?", "How do I ...?"): documentation writes the names it means
# as code. Chosen on the documentation benchmark's dev part (docs/documents.md: 2 and 4 gained alike, a cut to the
# code inside an answer lost; "How do I" by a second rule); SQuAD's paragraphs and plain text hold no marks. A code
# block's line holding white space (a statement, a command line) is lifted only where the question asks how to do
# something (``HOW_QUESTION``); inline code of several words is a name too ("git worktree lock", "CREATE TABLE").
CODE = 2.0
# ... and ``CODE_WITHIN`` where one passage's spans are ranked among themselves (a request that names its passages or
# gives a context, and the second stage of a question asked alone, ``_within_chosen_passage``): ``CODE`` chooses among
# the passages read, where a larger lift would choose passages whose code is not the answer. Chosen on the dev part
# among 2, 3 and 4 by a rule written first (docs/documents.md).
CODE_WITHIN = 3.0
# Where a question asks for an option, a flag or a switch (``OPTION_QUESTION``), a span that is a command-line option
# or a list of its forms (``is_option``: "-k", "--prune", "-h, --help") gains ``OPTION`` logits in the same ranking:
# the answer type the question names. The size of ``CODE``, not tuned; kept on the documentation benchmark's dev part
# (docs/documents.md: one answer right, three made exact: "a" -> "-a"); no SQuAD dev question matches.
OPTION = 2.0
OPTION_QUESTION = re.compile(r"\b(?:options?|flags?|switch(?:es)?)\b", re.IGNORECASE)
# Where a question asks which parameter or argument does something (``PARAMETER_QUESTION`` in a name question that asks
# for neither a type nor a default), a span that is a parameter's name where documentation lists or declares it
# (``is_parameter``: the head of an entry's line, "method : str", "- reverse (bool) – ...", "backend_port (integer)",
# a term alone on its line; or a name in a signature's brackets before its "=", "," or ")") gains ``PARAMETER`` logits
# in the same ranking: the reader took a value, a type or a word of the description for it ("p-value" for "Which
# argument of multipletests chooses the correction method?", "key=val" for the query-string parameter). The size of
# ``OPTION`` (docs/documents.md).
PARAMETER = 2.0
PARAMETER_QUESTION = re.compile(r"\b(?:parameters?|arguments?|args?|kwargs?|keywords?)\b", re.IGNORECASE)
# Where a question asks which parameter, option, setting or variable does something (``ENTRY_QUESTION``: "Which
# argument of multipletests chooses the correction method?", "Which pgpool option keeps it from running in daemon
# mode?") and the passage the answer comes from lists such entries (``entries``: a name at its line's head, numpydoc's
# "method : str", a configuration entry's "port (integer)", an option list's "-n, --dont-detach"), the entry whose text
# holds the question's terms best names the answer (``asked_entry``), where the reader's own answer is no entry's name:
# the reader cannot tell which of a list's entries a question paraphrases, and often answers with a word of the
# description, a type or a value ("p-value", "str, default None"), a name it never ranked among its candidates. Where
# the reader named an entry, another replaces it only if it holds ``ENTRY_AHEAD`` more of the question's terms' weight.
# Kept by two rules written first (docs/documents.md: documentation dev F1 asked alone 66.3 -> 67.2, the blind sets'
# 50.5 -> 51.5; SQuAD's paragraphs hold no line break, so no list).
ENTRY = True
ENTRY_QUESTION = re.compile(
    r"^\s*(?:which|what)\b(?:\s+(?!(?:is|are|was|were|does|do|did|can|could|should|would|will|must|may)\b)[\w.'-]+)"
    r"{0,4}?\s+(?:parameters?|arguments?|args?|kwargs?|keywords?|options?|flags?|switch(?:es)?|settings?|variables?"
    r"|items?|keys?|fields?|tags?|directives?|attributes?|propert(?:y|ies)|constants?|values?|entr(?:y|ies)"
    r"|subcommands?|hooks?)\b",
    re.IGNORECASE)
ENTRY_TEXT = 600  # how much of an entry, from its name on, is compared with the question
ENTRY_TERMS = 2  # how many of the question's terms the entry chosen must hold, at least
ENTRY_AHEAD = 2.0  # how much more of the question's terms' weight it must hold than an entry the reader named
# Asked alone (the sentence encoder at hand), where the question's terms name no entry and the reader named one, the
# entry whose description is nearest in meaning to the question names the answer instead, where its cosine is
# ``ENTRY_MEANING`` above the named entry's (``meant_entry``): the reader takes the name next to the description a
# question paraphrases, and the terms miss a paraphrase ("--out-file" for json5's "-v, --validate", "table" for
# mcnemar's "exact"). Kept by a rule written first, on two blind questions (docs/documents.md); 0: off
ENTRY_MEANING = 0.1
# Asked alone, the entries of the passages read next to the chosen one in its document are weighed with its own: a
# numpydoc page's signature and the rest of its parameter list fall into two passages (docs-entry-next-door); every
# passage run is weighed, also one whose windows the reader says hold no answer (next-door-all)
ENTRY_NEXT_DOOR = True
# Where a question asks which function, method, class, macro or command does something (``API_QUESTION``: "Which
# Session method registers a connection adapter to a URL prefix?") and the passage read lists API entries
# (``api_entries``: a signature line with its description beside it or under it), the entry choice above names the
# answer the same way, where the reader's own answer lies among those entries: the reader takes a function list's
# neighbouring entry ("merge_environment_settings" for "mount") or a word of the description ("percentiles" in ppf's).
# Kept by a rule written first (docs/documents.md; the thresholds the entry choice's).
API_ENTRY = True
API_QUESTION = re.compile(
    r"^\s*(?:which|what)\b(?:\s+(?!(?:is|are|was|were|does|do|did|can|could|should|would|will|must|may)\b)[\w.'-]+)"
    r"{0,4}?\s+(?:functions?|methods?|class(?:es)?|macros?|constructors?|decorators?|procedures?|routines?|commands?)\b",
    re.IGNORECASE)

# Where a question asks what something is (``sentence.defined``: "What is a Flowable in Platypus?"), a span that the
# text introduces as that thing's definition (``sentence.introduces``: "Flowable is | an abstract base class ...",
# a glossary's term on the line above) gains ``DEFINITION`` logits in the same ranking. One setting, kept by a rule
# written first (docs/documents.md: documentation dev F1 asked alone 59.3 -> 60.2, its definition questions 34.7 ->
# 47.0; SQuAD dev unchanged); 4 until 2026-12-06, 6 since, by a scan of every weight over that day's captures
# (docs/documents.md: dev 71.83 -> 71.98 asked alone, one question).
DEFINITION = 6.0
# Where a question asks for a default (``sentence.asks_default``), a span whose line says so just before it ("defaults
# to | 90 days", "(def: | 2MB", a signature's "lazy: bool = | False": ``sentence.states_default``) gains ``DEFAULT``.
# ``DEFINITION``'s first size, 4, kept by a rule written first (docs/documents.md: documentation dev F1 asked alone
# 60.2 -> 60.5, test, reported, 53.7 -> 54.9; SQuAD dev unchanged).
DEFAULT = 4.0
# Where a question asks what a name returns (``sentence.returned``), a span its line gives as that name's return value
# ("→ | str", "Return | new sorted keys view", "Returns:" on the line above), inside that name's own entry
# (``sentence.states_return``), gains ``RETURN``. The size of ``DEFAULT``, kept by a rule written first
# (docs/documents.md).
RETURN = 4.0
# Where a return question asks under a condition (``sentence.return_condition``: "What does find return if sub is not
# found?"), a span followed by that condition ("Return -1 | if sub is not found") gains ``CONDITION``, and a span
# giving an alternative under that condition is cut to it ("the window that was created or NULL | on failure" ->
# "NULL": ``sentence.conditioned_value``). The size of ``CODE``, not tuned (docs/documents.md).
CONDITION = 2.0
# Where a question asks how to do something (``HOW_QUESTION``), a span the text gives as the way to do it
# (``sentence.states_means``: "use the command line | asy -V -f pdf test", "Simply add the line |
# \usepackage{asymptote}", "This can be done | writing a ':' as the value") gains ``MEANS``. The size of ``DEFAULT``,
# not tuned; by a rule written first (docs/documents.md).
MEANS = 4.0
# Where a question offers its answers ("on or off", "by value or by reference": ``sentence.offered``), a span that is
# one of them, or one after at most two words (``sentence.is_offered``), gains ``ALTERNATIVE`` and is no echo. The
# size of ``DEFAULT``, kept by a rule written first (docs/documents.md).
ALTERNATIVE = 4.0
# Where a question asks to choose between the answers it offers (``sentence.choice``: "Is it on or off by default?")
# and the answer chosen is none of them (``sentence.is_offered``), the passage it came from answers with the
# alternative it writes (``sentence.offered_in``) in the sentence that holds most of the question's terms, nearest
# the reader's span of those tied (``_offered_answer``): the reader took a word of the sentence that says which ("the
# socket is | reused" for "on or off") or an echo of the passage's own "A or B"; where that passage writes none, the
# next passage read that does, in a sentence holding some of the question's terms. One switch, kept by rules written
# first (docs/documents.md).
CHOICE = True
# Where a question asked alone asks what a name returns (``sentence.returned``) and a span of the passages read says
# so (``sentence.states_return``, the passage's title read as the entry's, or numpydoc's "name : type" line under
# "Returns:" whose description says so: ``sentence.return_description``), the best of those spans chooses the passage
# (``_stating_return``): a one-function page's Returns section, passages away from its signature, answers, not the
# signature's own spans the reader likes better ("False" of "return_num=False" for "What does skimage.measure.label
# return?"). One switch, kept by a rule written first (docs/documents.md).
RETURN_FIRST = True
# ... and, for such a question, a span on a line under the entry's "Returns:" label (``sentence.under_returns_label``,
# or numpydoc's "name : type" line there) comes first where the best span says what the name returns only in a
# summary line or in prose ("Return threshold value based on Otsu's method." above "Returns: / threshold : float /
# Upper threshold value. ..."): among the passages read, and within one passage. Kept by a rule written first
# (docs/documents.md: the blind sets' numpydoc return questions).
RETURNS_LABEL = True
# asked alone, where none of the best spans says what the named entry returns, a passage read that holds that entry's
# "Returns:" section chooses the passage (``_stating_return``, ``sentence.returns_section``)
RETURNS_SECTION = True
# Where a question asks the type of a parameter (an argument, option, attribute, keyword, field) it names ("What type
# is the n_init parameter of KMeans?": ``_PARAMETER_TYPE_QUESTION``), the answer is the type on that name's numpydoc
# line, "n_init : 'auto' or int, default=10" (``_parameter_type``), where a passage read has one: the reader takes a
# piece of it or the default. One switch, kept by a rule written first (docs/documents.md).
PARAMETER_TYPE = True
# asked alone, a question that asks for a parameter, option or member of an entry it names ("Which parameter of
# read_csv ...?") takes its answer from a passage of that entry where the best span's passage is another's
# (``owned_by``, ``_owned_passage``)
OWNED = True
OWNED_DEFAULT = True  # ... and so does a default question of an entry it names ("What is the default X of NAME?")
# Where a question asked alone reads several passages, the passage the answer comes from is chosen by the answer text
# most of the ranking's probability agrees on (``_agreed``: the ranked spans grouped by their text, case and
# punctuation aside, each group's probabilities summed), the best-ranked span of that group choosing it: an answer
# several windows or passages give outweighs a single span ranked a little higher (answer aggregation, Wang et al.
# 2018). One switch, kept by a rule written first (docs/documents.md).
AGREEMENT = True
# Where a question asks for several things (``sentence.asks_several``: "Which content types does it support?") and the
# answer chosen is one item of a list its sentence writes ("log, warn, success, error"), the answer is the whole list
# (``sentence.coordination``), after the ranking. One switch, kept by a rule written first (docs/documents.md).
COORDINATION = True
# Where a question asks what something returns or exits with under a condition (``sentence.asked_condition``) and the
# passage chosen writes its values with their conditions ("returns 1 if ..., 2 if there was a syntax problem ...", "0
# means ..., and 2 means trouble"), the value whose condition is the question's answers
# (``sentence.conditioned_answer``, ``_conditioned_answer``): the reader took the first of the list. One switch,
# kept by a rule written first (docs/documents.md).
CONDITIONED = True
# Where a question asks for a name (``NAME_QUESTION``) but not a type or a return value (``TYPE_QUESTION``), a span that
# is a type name standing in a signature's type position (``in_type_position``: "-> | Iterator[list]", "timeout?: |
# number", "| boolean contains(T element)") loses ``TYPE``: the reader took the type beside the name for it. The size
# of ``DEFAULT``, kept by a rule written first (docs/documents.md).
TYPE = 4.0
# Where a question does not ask for a default (``sentence.asks_default``), a span that a signature's parameter list
# assigns (``is_signature_value``: "KMeans(n_clusters=8, *, init='k-means++', n_init=| 'warn'", "C=| 1.0") loses
# ``SIGNATURE_VALUE``: such a value says what a parameter is when none is given, and the reader took it for the
# parameter's type or for the way to do something ("What type is the n_init parameter of KMeans?" -> "'warn'"). The
# size of ``DEFAULT``, kept by a rule written first (docs/documents.md).
SIGNATURE_VALUE = 4.0
# A span that is one word naming a folder its document lies in (``project_words`` of the document id:
# "axios/README.md" is axios's, "python-setuptools-doc/userguide/ext_modules.html" setuptools's), compared without
# case unless written in capitals where the folder is not ("DEBUG", the variable, in "debug/README.md"), loses
# ``PROJECT``: a question about a project's documents seldom asks for the project's own name, and the reader took the
# subject of "Setuptools exposes a read_configuration() function" for "Which function parses a setup.cfg file?".
# The size of ``DEFAULT``, kept by a rule written first (docs/documents.md).
PROJECT = 4.0
TYPE_QUESTION = re.compile(r"\btypes?\b|\breturns?\b|\byields?\b", re.IGNORECASE)
# "Which value does mode return ...?", "What does it yield ...?": the verb after an auxiliary asks for what is returned
_RETURN_ASKED = re.compile(r"\b(?:does|do|did|will|would|should|can|could|must|may)\b[^?]*?\b(?:return|yield)\b",
                           re.IGNORECASE)


def asks_type(question: str) -> bool:
    """Whether ``question`` asks for a type or a return value (``TYPE_QUESTION``), not which entry does something whose
    description holds such a word: a question with an entry head (``ENTRY_QUESTION``) asks for one only where the
    word stands in that head ("What type of value is the data argument ...?") or an auxiliary asks what is returned
    ("Which value does mode return ...?"); "Which anova_lm argument chooses between type I, II and III ANOVA?" and
    "Which parameter ... makes it yield values in descending order?" ask for an entry."""
    if not TYPE_QUESTION.search(question):
        return False
    head = ENTRY_QUESTION.search(question)
    return head is None or TYPE_QUESTION.search(head.group()) is not None or _RETURN_ASKED.search(question) is not None


# Where a question asks which function, option, parameter, constant ... does something (``KIND_QUESTION``), a span
# that is one code-shaped name gains ``NAME_PIECES`` times the share of its words the question writes in plain words
# (``name_pieces_share``: "Which function cuts a prefix ...?" -> ``cut_prefix`` over its neighbour ``cut_suffix``;
# "Which class do I use for HTTP Digest authentication?" -> ``HTTPDigestAuth``): the reader confuses an entry with
# its neighbour in a list of similar names. The size of ``CODE``, not tuned; kept by a rule written first
# (docs/documents.md).
NAME_PIECES = 2.0
# Where a question asks for a default (``sentence.asks_default``) and not which kind of name (``KIND_QUESTION``: "Which
# configuration variable sets the default branch ...?" asks for a name), a span that is one code-shaped name every word
# of which the question writes (``names_subject``: "pcp_port" for "Which port does PCP listen on by default?") is the
# question's subject, not its answer: it loses ``sentence.ECHO``, as the question's own words do. The entry's name
# line holds more of the question's terms than its "Default is 9898." sentence, and takes the code lift. By a rule
# written first (docs/documents.md).
DEFAULT_SUBJECT = True
# Where a question asks which function, method, class or other kind of name that is called (``_CALLED_KINDS``), a span
# that is a name straight inside a signature's brackets (``in_parameter_list``: "cls_or_module" of "@monkey(
# cls_or_module, name=None)" for "Which decorator monkey-patches a class or module?") loses ``CALL_PARAMETER`` logits:
# it is passed to what the question asks for, and the question's words often paraphrase it. The size of ``CODE``, not
# tuned; by a rule written first (docs/documents.md).
CALL_PARAMETER = 2.0
# Where a question asks which kind of name (``KIND_QUESTION``: a command, a directive, a method, a variable), a span
# that is a file's name or a path and nothing else (``is_file_name``: "tox.ini", "pyproject.toml", "~/.gitconfig")
# loses ``FILE_NAME`` logits: a file is not that kind of name, and such a question's subject is often the file the name
# is written in ("Which MANIFEST.in command ...?", "Which setup.cfg directive ...?"). The size of ``CODE``, not tuned.
# By a rule written first (docs/documents.md).
FILE_NAME = 2.0
# Where the passage read holds a table whose header names what the question asks for ("Distribution | Function" for
# "Which function draws random numbers from a Poisson distribution?"), that column's cell in the row the question's
# terms point to answers (``table.table_cell``), in place of the reader's span: the reader reads a row as a sentence
# and answers with its neighbouring cell or a word of the prose around the table. By a rule written first
# (docs/documents.md).
TABLE = True
# With a sentence encoder at hand (a question asked alone with ``QA_INDEX_ENCODER``: ``cosines``), the best
# ``SENTENCE_COSINE_TOP`` candidates after the ranking above have the sentence each lies in embedded, and each
# candidate's score is multiplied by exp(``SENTENCE_COSINE`` x (its sentence's cosine to the question - the best of
# those)), the others counted at the lowest: the lexical sentence term counts the question's words, this its meaning
# (a paraphrase). The size of ``sentence.WEIGHT``; the best four give the answers all sixteen give, at a third of the
# sentences embedded. Only where each of those four lies in a passage of one paragraph of prose (no line break: a
# record such as a SQuAD paragraph): documentation writes its structure as lines (headings, list items, an entry's
# signature and description, table rows, code), and there the sentence nearest in meaning is often the neighbouring
# entry's (the other error code, the other parameter), which cost the blind documentation sets 1.6 points when every
# passage was ranked so. And only where the passage is chosen among those read (the first stage of
# ``answers_from_logits``), where SQuAD's gain lies (within the chosen passage alone: +0.04 of +0.45) and each sentence
# costs an encoder run (about 3 ms here); nothing is embedded where the four lie in one passage or one sentence (the
# passage chosen could not change).
# By rules written first (docs/retrieval.md, "The question's words in the answer's sentence").
SENTENCE_COSINE = 2.0
SENTENCE_COSINE_TOP = 4
# the kinds of name a question may ask for (``KIND_QUESTION``); a name's word among them says what the name is, not
# which one (``name_pieces_share``)
_KIND_NOUNS = frozenset(
    "function method class macro constructor decorator procedure routine command parameter argument arg kwarg keyword "
    "option flag switch setting variable constant hook event field property attribute exception directive hint enum "
    "functions methods classes macros constructors decorators procedures routines commands parameters arguments args "
    "kwargs keywords options flags switches settings variables constants hooks events fields properties attributes "
    "exceptions directives hints enums".split())


def _either(words) -> str:
    """A regular expression's alternation of ``words``, the longest first (so "options" before "option"), then in
    alphabetical order: the same pattern whatever order a set gives them in (its order moves with the hash seed)."""
    return "|".join(sorted(words, key=lambda w: (-len(w), w)))


KIND_QUESTION = re.compile(sentence.QUESTION_LEAD + r"(?:" + _either(_KIND_NOUNS) + r")\b", re.IGNORECASE)
_IDENTIFIER = re.compile(rf"{code.IDENTIFIER}(?:(?:\.|::|#){code.IDENTIFIER})*")
_CODE_SHAPED = re.compile(r"[_.:#]|[a-z][A-Z]")  # a mark of code inside, or camelCase
_NAME_PIECE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")  # SDL_GetHint -> SDL, Get, Hint; HTTPDigestAuth
_QUESTION_TOKEN = re.compile(r"[\w.:#+/-]+")
_TYPE_NAME = re.compile(
    r"(?:str|int|float|bool|boolean|bytes|number|string|object|void|none|null|undefined|any|optional|iterator|iterable|"
    r"generator|list|dict|tuple|set|array|promise|callable|sequence|mapping|char|long|double|integer|map)"
    r"(?:\[[^\]\n]*\]|<[^>\n]*>)?", re.IGNORECASE)
_TYPE_BEFORE = re.compile(r"(?:\??:|->|\u2192)\s*$")  # "name: ", "name?: ", ") -> ", ") → " just before the span
# " contains(": the span is a return type before a name; " | contains(": in a cell of its own before the name's, as a
# member summary's row lays them out (javadoc's "boolean | contains(T element) | ...", Doxygen's "int | SDL_Init (")
_NAME_AFTER = re.compile(r"\s+(?:\|\s+)?[A-Za-z_$][\w$]*\s*[(<]")
_ONE_OPTION = r"--?[A-Za-z0-9?][\w.-]*(?:=<?[\w.|-]+>?| <[\w.|-]+>)?"
_OPTION = re.compile(rf"{_ONE_OPTION}(?:\s*,\s*{_ONE_OPTION})*")
_HOW = r"^\s*how\s+(?:do|can|should)\s+(?:i|you|we)\b|^\s*how\s+to\b"  # "How do I ...?", "How to ...?"
NAME_QUESTION = re.compile(
    r"^\s*which\b|^\s*what\b(?:\s+[\w.'-]+){0,4}?\s+(?:options?|flags?|switch(?:es)?|arguments?|parameters?|"
    r"keywords?|methods?|functions?|class(?:es)?|modules?|packages?|exceptions?|errors?|variables?|settings?|"
    r"files?|director(?:y|ies)|commands?|subcommands?|events?|hooks?|headers?|fields?|propert(?:y|ies)|"
    r"attributes?|items?|keys?|formatters?|values?|constants?|macros?|codes?|types?|names?)\b"
    r"|^\s*what\s+does\s+.+\s+return\b|" + _HOW, re.IGNORECASE)
_BARE = re.compile(r"[`'\"]*\.?(.*?)(?:\(\))?[`'\"]*$", re.S)  # a name as written: `.opts()` is opts
_TITLE_SEP = " > "  # function.ingest.split: "Document > Heading > Subheading"
# a heading's section number as generators write it: "2.2. ", "19.4.1. ", "A.1. ", "A. ", "3 " (``in_heading``)
_SECTION_NUMBER = re.compile(r"(?:\d+(?:\.\d+)*\.?|[A-Z](?:\.\d+)*\.)[ \t]+")
# what a name or a command has and a heading's words do not: brackets, dots, underscores, slashes, a prompt, an
# option's dash, camelCase (and ``in_heading``: a heading's first word that does not start with a capital)
_NAME_LIKE = re.compile(r"[()\[\]{}<>_./\\=`:$]|(?:^|\s)-+\w|[a-z][A-Z]")


@dataclass(frozen=True)
class PassageTokens:
    ids: np.ndarray  # [n] token ids
    offsets: np.ndarray  # [n, 2] character offsets into the passage text


@dataclass(frozen=True)
class Answer:
    passage: int  # index into the passages given to ``prepare``
    start: int  # character offsets into that passage's text
    end: int
    score: float


def prepare(question_ids: Sequence[int], passages: Sequence[PassageTokens], spec: WindowSpec) -> Batch:
    """All windows of all passages as one batch (one model call)."""
    return build_batch(question_ids, [p.ids for p in passages], spec)


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """``text[start:end]`` without leading or trailing white space (start == end when nothing is left).

    A byte-level BPE token (RoBERTa) carries the space before its word (``Ġworld``), and a
    SentencePiece one may be the word separator alone (``▁``): their offsets can include white
    space that an answer must not start or end with.
    """
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def line_end(text: str, start: int, end: int) -> int:
    """Where an answer starting at ``start`` ends at most: the end of the line it starts on, unless that line
    break only wraps a sentence (a lower-case letter, comma or semicolon before it, a lower-case letter or "("
    starting the next line, as in a hard-wrapped text file; never between a table's "a | b" rows); ``end``
    where no such line break comes before it.

    In extracted documentation a line break ends a definition's term, a list item, a table row or a line of
    code, and an answer that runs across one is a term with the start of its description ("--move\\nMove",
    "PAM_DISALLOW_NULL_AUTHTOK\\nReturn PAM_AUTH_ERR if ..."): no gold answer of the documentation benchmark
    holds one (docs/documents.md).
    """
    i = text.find("\n", start, end)
    while i >= 0:
        before, after = text[start:i].rstrip(" \t"), text[i + 1 : end].lstrip(" \t")
        row = " | " in before[before.rfind("\n") + 1 :] or " | " in after.split("\n", 1)[0]  # a table's rows
        wraps = before[-1:].islower() or before[-1:] in (",", ";")
        if row or not (wraps and after[:1] and (after[0].islower() or after[0] == "(")):
            return i
        i = text.find("\n", i + 1, end)
    return end


def whole_name(text: str, start: int, end: int) -> tuple[int, int]:
    """``text[start:end]`` widened to the whole dotted or underscored name it starts or ends inside: "core" in
    "core.excludesFile" and "defaultBranch" in "init.defaultBranch" become the names, "3" in "3.5" the number.

    The model's tokenizer splits such a name at its dots, so a span can start or end at any of its parts;
    documentation answers are the whole name. Only "." and "_" between letters or digits join: a hyphen, a
    slash or a full stop before a space leave the span as it is; a span that ends or starts on a "_" inside a name
    ("syslog_" of "syslog_facility") is the name, one that ends on a name's own trailing "_" ("best_params_") stays
    as it is. A span that starts or ends inside a word (an ASCII
    letter or digit on both sides of its edge: "WindowTitle" of "SDL_SetWindowTitle", "Bright" of "blackBright", at a
    "##" piece of the tokenizer's) is first widened to the whole word, up to ``WIDEST_WORD`` characters. A lone
    letter written straight before a bracket takes in its bracketed group ("O" of "O(log(n))", "T" of "T(n)"), on its
    line, at most ``WIDEST_LETTER_CALL`` characters in all: a letter alone is never what such text answers. "::" joins
    as "." does ("Get-Root-Command" of "Aptitude::Get-Root-Command"), and a name written straight after an option's one
    or two dashes, or a search term's "?" or "~", at a word's start, takes them in ("a" of "-a": the tokenizer splits
    them off, and "a" alone is no option); digits of a date are the date ("2019" of "2019-02-25"). A leading dot is
    not taken in: chained methods are written ".parseAsync()" as well as extensions ".orig".
    """
    def word(i: int) -> bool:
        return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")

    def letter(i: int) -> bool:
        return 0 <= i < len(text) and text[i].isascii() and text[i].isalnum()

    if start < end and ((letter(start - 1) and letter(start)) or (letter(end - 1) and letter(end))):
        wide_start, wide_end = start, end
        while letter(wide_start - 1):
            wide_start -= 1
        while letter(wide_end):
            wide_end += 1
        if wide_end - wide_start <= WIDEST_WORD:
            start, end = wide_start, wide_end
    if end - start >= 2 and text[end - 1] == "_" and word(end) and word(end - 2):
        while word(end):  # a span that ends on the "_" inside a name ("syslog_" of "syslog_facility")
            end += 1
    if end - start >= 2 and text[start] == "_" and word(start - 1) and word(start + 1):
        while word(start - 1):  # ... or starts on it ("_facility")
            start -= 1
    while True:  # joined by ".", "_" or "::" ("Aptitude::Get-Root-Command", "std::vector")
        if start >= 2 and text[start - 1] in "._" and word(start - 2) and word(start):
            start -= 1
        elif start >= 3 and text.startswith("::", start - 2) and word(start - 3) and word(start):
            start -= 2
        else:
            break
        while word(start - 1):
            start -= 1
    while True:
        if end + 1 < len(text) and text[end] in "._" and word(end + 1) and word(end - 1):
            end += 1
        elif end + 2 < len(text) and text.startswith("::", end) and word(end + 2) and word(end - 1):
            end += 2
        else:
            break
        while word(end):
            end += 1
    if end - start == 1 and text[start].isalpha() and not word(start - 1) and text.startswith("(", end):
        end = _bracket_end(text, end, min(len(text), start + WIDEST_LETTER_CALL), end)
    sigil = start
    while sigil > 0 and start - sigil < 2 and text[sigil - 1] in "-?~":
        sigil -= 1
    if sigil < start and word(start) and (sigil == 0 or text[sigil - 1].isspace() or text[sigil - 1] in "([,'\"`"):
        start = sigil  # an option's dashes ("a" of "-a"), a search term's "?" or "~"
    if text[start:end].isdigit():  # "2019" of "2019-02-25": a date is read whole
        for date in _ISO_DATE.finditer(text, max(0, start - 8), min(len(text), end + 8)):
            if date.start() <= start and end <= date.end():
                return date.start(), date.end()
    return start, end


_ISO_DATE = re.compile(r"(?<![\w-])\d{4}-\d{2}-\d{2}(?![\w-])")


# The longest word a piece of a word is widened to (``whole_name``): a longer run of letters and digits (a hash, a
# blob) stays cut.
WIDEST_WORD = 60

# The longest "O(log(n))" a lone letter before a bracket is widened to (``whole_name``).
WIDEST_LETTER_CALL = 40


def _bracket_end(text: str, i: int, stop: int, default: int) -> int:
    """Where the bracketed group opening at ``text[i]`` closes (just after its ")"), if it closes before ``stop`` and
    on the same line; ``default`` where it does not."""
    depth = 0
    for j in range(i, stop):
        if text[j] == "\n":
            break
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return j + 1
    return default


# a term with a letter: not "1914 - 1918"; the letter found by a lookahead and the term taken whole (possessive), so
# that a span of one long unbroken word costs one pass, not one per split of it (a 50,000-character hex string had
# taken 10 s)
_TERM_DASH = re.compile(r"(?=\S*?[^\W\d])(\S++) [-\u2013\u2014] \S")
# a name at a line's start and its type in brackets, the line's end or a dash after them: "logging_collector (boolean)"
_LINE_LEAD = re.compile(r"[ \t]*(?:[-*\u2022][ \t]+)?")
_TYPED_NAME = re.compile(r"[ \t]*([^\s()]+)[ \t]+\([A-Za-z]+(?:[ \t]+[A-Za-z]+){0,2}\)"
                         r"(?=[ \t]*(?:[-\u2013\u2014]|\n|$))")
_ASKS_FOR_A_PATH = re.compile(r"\b(?:files?|director(?:y|ies)|folders?|paths?)\b", re.IGNORECASE)
_PATH = re.compile(r"(?<![\w/])(?:~|\.{1,2})?/[\w.@+-]+(?:/[\w.@+-]*)*"
                   r"|(?<![\w/.-])[\w.-]+\.(?:conf|cfg|ini|json|ya?ml|toml|txt|rc)\b")
# (a file name starts where its run of name characters does: never "merge.txt" out of "git-merge.txt", and never a
# try from every dot of "a.a.a. ..." that made a long unbroken span cost time growing with its length squared)


def command_line(text: str, start: int, end: int) -> tuple[int, int]:
    """An answer that starts at a shell prompt ("$ git bisect reset", a code block's line) is the whole command on
    that line, without the prompt: the model often ends it after a word or two ("$ git", "$ python -m"). Only at a
    line's start, so an amount ("costs $ 5") is left as it is. Only "$ ", not every prompt ingestion leaves out of a
    code block's line (``code.PROMPT``): this reads any line's start, where "C# 12 adds ..." or "Note> ..." is no
    prompt."""
    if not text.startswith("$ ", start) or text[text.rfind("\n", 0, start) + 1 : start].strip():
        return start, end
    line = text.find("\n", start)
    end = len(text) if line < 0 else line
    start += 1
    while start < end and text[start].isspace():
        start += 1
    return trim(text, start, end)


HOW_QUESTION = re.compile(_HOW, re.IGNORECASE)
# Where a question asks how to do something (``HOW_QUESTION``) and the answer chosen lies in the purpose a line states
# before its colon ("After a bisect session, | to clean up the bisection state | and return to the original HEAD, issue
# the following command:"), the code block's line that colon introduces is the answer ("git bisect reset"): the
# reader found the sentence that says what the question asks and took its purpose for its way
# (``introduced_line``). The shape ``build_model.docdata.how`` makes training questions from. One switch, by a rule
# written first (docs/documents.md).
INTRODUCED = True
_PROMPT_ONLY = re.compile(rf"\s*(?:{code.PROMPT.pattern})?")  # white space, and the prompt ingestion leaves out
_WORDS = re.compile(r"\S")
_NOT_THE_WAY = re.compile(rf"\s*{code.NOT_THE_WAY.pattern}")  # a comment, an import


def introduced_line(text: str, lines: np.ndarray | None, start: int, end: int) -> tuple[int, int] | None:
    """The code block's line that the colon ending ``text[start:end]``'s line introduces, where words stand between
    the span and the colon and none ends a sentence (the span is in the purpose the colon's sentence states, not the
    way it names last: "To verify ..., you can use | npm-name-cli |:") and the next line with words is a code block's
    line (``lines``: (start, end) rows, as ingestion marks them): the block's first line that is no comment or
    import, without its prompt (``command_line``). None otherwise, and for a span that is code already."""
    if lines is None or not len(lines):
        return None
    eol = text.find("\n", end)
    eol = len(text) if eol < 0 else eol
    rest = text[end:eol].rstrip()
    if not rest.endswith(":") or not rest[:-1].strip() or re.search(r"[.!?](?:\s|$)", rest[:-1]):
        return None  # no colon, or the span is what the line names last ("you can use | npm-name-cli |:"): the way
    rows = sorted((int(a), int(z)) for a, z in lines)
    if any(a <= start < z for a, z in rows):
        return None
    words = _WORDS.search(text, eol)
    after = len(text) if words is None else words.start()  # the next line with words
    block = [(a, z) for a, z in rows if z > after]
    if not block or not (block[0][0] <= after or _PROMPT_ONLY.fullmatch(text, after, block[0][0])):
        return None
    previous = None
    for a, z in block:
        if previous is not None and text[previous:a].strip():
            return None  # prose between: the block ended with comments and imports only
        if not _NOT_THE_WAY.match(text, a):
            s, e = command_line(text, a, z)
            return (s, e) if s < e else None
        previous = z
    return None


def _parameters(text: str, paren: int, line_end: int) -> set[str]:
    """The names of the parameters of the list whose "(" is at ``paren`` (none where ``paren`` is -1): each top-level
    piece's word before its ":" or "=", else its last word ("List", "s" of "const char *s", "self" of "&mut self")."""
    if paren < 0:
        return set()
    inside = text[paren + 1:_bracket_end(text, paren, line_end, paren) - 1].replace("->", "  ")
    pieces, depth, piece = [], 0, []
    for ch in inside:
        depth += ch in "([{<"
        depth -= ch in ")]}>"
        if ch == "," and depth == 0:
            pieces.append("".join(piece))
            piece = []
        else:
            piece.append(ch)
    pieces.append("".join(piece))
    names = set()
    for p in pieces:
        words = re.findall(r"[A-Za-z_]\w*", re.split(r"[:=]", p, maxsplit=1)[0])
        if words:
            names.add(words[-1])
    return names


def _returned_names(text: str, declared: tuple[int, int, int], line_end: int) -> set[str]:
    """The names a declaration's line (``declared``: ``_declaration``'s) holds after the arrow that follows its
    parameter list, or its name where it has none ("Map" of "new() -> Map", "List2" of "delete(Elem, List1) -> List2",
    "Expectation" of YARD's "#twice ⇒ Expectation"); none where no arrow follows."""
    _, name_end, paren = declared
    after = name_end if paren < 0 else _bracket_end(text, paren, line_end, -1)
    arrow = None if after < 0 else _RETURN_ARROW.match(text, after, line_end)
    return set() if arrow is None else set(re.findall(r"[A-Za-z_]\w*", text[arrow.end():line_end]))


# a line that opens with a name and "=", "::" or ":": erl_docgen's "Types" lines under a signature ("List = [T, ...]")
_TYPES_LINE = re.compile(r"(?:[-*\u2022][ \t]+)?([A-Za-z_]\w*)[ \t]*(?:=|::?)")


# Where a question asks for a declared kind of name ("Which method ...?", ``_DECLARED_KINDS``) and the answer chosen
# lies on a declaration's line in the keywords before the name ("pub" of "pub fn len(&self) -> usize", as rustdoc
# writes every method) or covers the name and more (the whole line), or, for a function's kind (``_FUNCTION_KINDS``:
# not a class's, whose line holds its bases), anywhere on that line but the name or is the method's receiver ("self")
# in the description under it, the answer is the declared name (``declared_name``); a typed declaration ("lines ::
# String -> [String]") too. Sphinx's Python pages start the line with the name, so the reader's habit of answering a
# signature's first word serves them and not the languages that declare with keywords or types. One switch, by a rule
# written first (docs/documents.md).
DECLARED = True
# and such a line with its description under it is an API entry for the entry choice (``api_entries``): by a rule
# written first (docs/documents.md)
DECLARED_ENTRIES = True
# a declaration's keywords before its name: Rust's "pub fn", "pub(crate) const unsafe fn", "extern \"C\" fn", Python's
# "class", "async def", Sphinx's "classmethod", "property", "awaitable", Java's and C#'s "public static", JavaScript's
# "export function", Kotlin's "fun", Swift's "func", "mutating", C's and C++'s "void", "inline", "auto", a
# "template<...>" head
_DECLARATION_LEAD = re.compile(
    r"[ \t]*(?:template[ \t]*<[^\n]*?>,?[ \t]+)?"
    r"(?:(?:pub(?:\([\w: ]+\))?|const|unsafe|async|extern(?:[ \t]+\"[\w-]+\")?|default|fn|def|function|func|fun|"
    r"static|export|public|private|protected|final|abstract|override|virtual|suspend|mutating|class|struct|enum|"
    r"trait|union|interface|classmethod|staticmethod|abstractmethod|coroutine|awaitable|property|"
    r"void|auto|inline|constexpr|explicit)[ \t]+)+")
# a declaration that opens with its name and gives its type: Haskell's, Elm's, PureScript's, Idris's "name :: type",
# OCaml's "val name : type"
_TYPED_DECLARATION = re.compile(r"[ \t]*(?:(?P<name>[A-Za-z_][\w']*)[ \t]+::|val[ \t]+(?P<val>[A-Za-z_][\w']*)[ \t]+:)"
                                r"[ \t]+\S")
# where a line may declare something (``_declaration`` decides): a keyword, a name, YARD's mark or QDoc's tag first
_DECLARATION_START = re.compile(r"^(?=[ \t]*(?:[-*\u2022][ \t]+)?[A-Za-z_#.\[])", re.MULTILINE)
# "map<U, F>" of "map<U, F>(", "fmt::format" of "auto fmt::format("
_NAME_BEFORE_PARAMETERS = re.compile(rf"([A-Za-z_]\w*(?:(?:{code.MEMBER_JOINTS})[A-Za-z_]\w*)*)"
                                     r"[ \t]*(?:<[^()\n]*>)?[ \t]*$")
_GENERICS = re.compile(r"<[^<>\n]*(?:<[^<>\n]*>[^<>\n]*)*>")  # "<U, F>", "<K, V, S = RandomState>"
_NAME_AFTER_KEYWORDS = re.compile(r"[A-Za-z_][\w.]*")  # "HashMap" of "pub struct HashMap<K, V> {"
# a declaration that opens with its name and its parameter list, then an arrow and what it returns: erl_docgen's
# "nth(N, List) -> Elem", "Module:handle_call(Request, From, State) -> Result", an annotated "name(args) -> type"
# YARD's "#returns(*values) ⇒ Expectation", "#twice ⇒ Expectation" (a method's mark, "#" or ".", before its name; no
# brackets where it takes no parameters; a block's "{ ... }" after them), a Ruby writer's "=", "?" or "!" after its name
_ARROW = r"(?:[ \t]*\{[^{}\n]*\})?[ \t]*(?:->|\u2192|\u21d2)"  # what is returned comes after it (a block before)
_ARROW_SIGNATURE = re.compile(
    r"[ \t]*(?:[-*\u2022][ \t]+)?(?:[#.](?P<marked>[A-Za-z_]\w*[=?!]?)(?:(?P<marked_paren>\()"
    r"[^()\n]*(?:\([^()\n]*\)[^()\n]*)*\))?"
    r"|(?P<name>[A-Za-z_]\w*(?:(?:\.|::?)[A-Za-z_]\w*)*)(?P<paren>\()[^()\n]*(?:\([^()\n]*\)[^()\n]*)*\))"
    + _ARROW + r"[ \t]*\S")
_RETURN_ARROW = re.compile(_ARROW)
# a C++ member's definition as QDoc (Qt's reference) writes it: its tags ("[static]", "[slot]"), a "template <...>"
# head, a return type of at most three words, then "Class::member(" (``_member_declaration``), and after the bracket
# only C++'s qualifiers
_QDOC_TAG = r"\[[\w ]+\][ \t]*"  # "[static]", "[slot]"
_QDOC_TAGS = re.compile(rf"[ \t]*(?:{_QDOC_TAG})*(?:template[ \t]*<[^\n]*?>[ \t]+)?")
_MEMBER_NAME = re.compile(r"([A-Za-z_]\w*(?:::~?[A-Za-z_]\w*)+)[ \t]*$")
_QUALIFIERS = re.compile(r"(?:[ \t]*(?:const|noexcept|override|final|volatile|&&?|=[ \t]*(?:0|default|delete)))*"
                         r"[ \t]*")
_CALL_VALUE = re.compile(r"[(,][ \t]*[\d\"']")  # a number or a string where a parameter's name would be


def _declaration(text: str, line_start: int, line_end: int) -> tuple[int, int, int] | None:
    """The name the line from ``line_start`` to ``line_end`` declares, (start, end, where its parameters' "(" is or
    -1), where the line opens with declaration keywords (``_DECLARATION_LEAD``), is a typed declaration ("lines ::
    String -> [String]", "val map : ('a -> 'b) -> 'a list -> 'b list": ``_TYPED_DECLARATION``), a name, its
    parameters and an arrow ("nth(N, List) -> Elem": ``_ARROW_SIGNATURE``) or a C++ member's definition ("bool
    QTimer::isActive() const": ``_member_declaration``); else None."""
    typed = _TYPED_DECLARATION.match(text, line_start, line_end)
    if typed is not None:
        return (*typed.span("name" if typed.group("name") else "val"), -1)
    arrow = _ARROW_SIGNATURE.match(text, line_start, line_end)
    if arrow is not None:
        name = "marked" if arrow.group("marked") else "name"
        paren = arrow.start("marked_paren" if name == "marked" else "paren")  # -1: "#twice ⇒ Expectation"
        if paren >= 0 and _CALL_VALUE.search(text, paren, _bracket_end(text, paren, line_end, 0)):
            return None  # a call's values, not parameters ("f(1) -> 2")
        return (*arrow.span(name), paren)
    member = _member_declaration(text, line_start, line_end)
    if member is not None:
        return member
    lead = _DECLARATION_LEAD.match(text, line_start, line_end)
    if lead is None or lead.end() == line_end:
        return None
    paren = text.find("(", lead.end(), line_end)
    if paren >= 0:
        if len(_GENERICS.sub("", text[lead.end():paren]).split()) > 2 or "=" in text[lead.end():paren]:
            return None  # prose ("void means nothing here (none)") or an assignment ("auto out = std::vector<char>()")
        m = _NAME_BEFORE_PARAMETERS.search(text, lead.end(), paren)
        return None if m is None else (*m.span(1), paren)
    m = _NAME_AFTER_KEYWORDS.match(text, lead.end(), line_end)
    return None if m is None else (*m.span(), -1)


def _member_declaration(text: str, line_start: int, line_end: int) -> tuple[int, int, int] | None:
    """The C++ member the line declares as QDoc writes it ("[slot] void QTimer::start(int msec)", "const T
    &QList::at(int i) const": ``_QDOC_TAGS``, at most three words of a return type, a name qualified with "::" before
    its parameter list, only qualifiers after it), as ``_declaration`` gives one; None for any other line."""
    head = _QDOC_TAGS.match(text, line_start, line_end).end()
    paren = text.find("(", head, line_end)
    if paren < 0:
        return None
    m = _MEMBER_NAME.search(text, head, paren)
    if m is None:
        return None
    before = text[head:m.start(1)]
    close = _bracket_end(text, paren, line_end, -1)
    if (len(_GENERICS.sub("", before).replace("*", " ").replace("&", " ").split()) > 3 or "=" in before or close < 0
            or not _QUALIFIERS.fullmatch(text, close, line_end) or _CALL_VALUE.search(text, paren, close)):
        return None
    return (*m.span(1), paren)


def declared_name(text: str, start: int, end: int, called: bool = True) -> tuple[int, int] | None:
    """The name a declaration's line declares, where ``text[start:end]`` is on that line and starts in the keywords
    (``_DECLARATION_LEAD``) or the type before the name ("pub", "pub fn", "String" of "public static String join(")
    or covers the name and more ("pub fn len(&self) -> usize"): "len". The name is the word before the parameter
    list's "(" past its generics ("map" of "pub fn map<U, F>(self, f: F)"), or the word after the keywords where no
    "(" follows ("HashMap" of "pub struct HashMap<K, V, S = RandomState> {"). Where a function, a method or another
    called kind is asked (``called``), also for a span after the name on that line (a parameter, the return type, a
    where clause: none of them is what is called), and for the receiver "self" in the description under it ("Converts
    self into an Option<T>" under "pub fn ok(self) -> Option<T>"). None for a line that declares nothing and for a
    span inside the name."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    line_end = len(text) if line_end < 0 else line_end
    declared = _declaration(text, line_start, line_end)
    if declared is None:
        if not called:
            return None
        span, line = text[start:end].strip(), text[line_start:start]
        while line_start > 0 and declared is None:  # the receiver or a parameter: the nearest declaration above
            line_end = line_start - 1
            line_start = text.rfind("\n", 0, line_end) + 1
            declared = _declaration(text, line_start, line_end)
        if declared is None:
            return None
        names = _parameters(text, declared[2], line_end) | _returned_names(text, declared, line_end)
        opened = _TYPES_LINE.match(line.lstrip() + text[start:end])  # "List = [T, ...]": a parameter's type line
        if span == "self" or span in names or opened is not None and opened.group(1) in names:
            return declared[:2]
        return None
    a, z, _ = declared
    if a <= start and end <= z:
        return None
    return (a, z) if start < a or (start == a and end > z) or called else None


# The longest call or assignment an answer is widened to (``whole_call``): one statement on one line.
WIDEST_CALL = 80
_CALLED_NAME = re.compile(sentence.DOTTED_NAME)
_VALUE = re.compile(r"=(?![=>])(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s;,)\]}]+)")
_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")
_DECLARED = re.compile(r"[A-Za-z_][\w.]*[*&]*\s+[*&]*[A-Za-z_]\w*")  # "picture pic", "string s": a signature


def whole_call(question: str | None, text: str, start: int, end: int) -> tuple[int, int]:
    """For a question that asks how to do something (``HOW_QUESTION``), an answer that is one name written straight
    before a call's "(" or a value's "=" becomes the whole call or assignment: "unitsize" of ``unitsize(1cm);`` ->
    "unitsize(1cm)", "settings.scroll" of ``settings.scroll=n`` -> "settings.scroll=n": such a question asks for what
    to write, and the model tends to stop at the name. Not a declaration (a "type name" pair inside the brackets,
    quoted strings aside: "void filloutside(picture pic=currentpicture, ...)" keeps "filloutside"), not empty brackets
    (".opts()" stays "opts"), never past the line and at most ``WIDEST_CALL`` characters in all. A question what a name
    returns (``sentence.returned``) gets the call too, not an assignment: "defaultdict" of "Returns defaultdict(list)."
    is "defaultdict(list)". A "Which ...?" question asks for the name, and keeps it (docs/documents.md)."""
    if question is None or not _CALLED_NAME.fullmatch(text, start, end):
        return start, end
    how = HOW_QUESTION.search(question)
    if text.startswith("(", end):
        if not (how or sentence.returned(question)):
            return start, end
        close = _bracket_end(text, end, min(len(text), start + WIDEST_CALL), end)
        if close == end:  # the bracket does not close on its line within WIDEST_CALL
            return start, end
        inside = _QUOTED.sub("''", text[end + 1 : close - 1])
        return (start, close) if inside.strip() and not _DECLARED.search(inside) else (start, end)
    m = _VALUE.match(text, end) if how else None  # an assignment is what to write, never what is returned
    if m and m.end() - start <= WIDEST_CALL:
        return start, len(text[: m.end()].rstrip("."))
    return start, end


def term_of_entry(text: str, start: int, end: int) -> int:
    """Where an answer that runs from a term into its description ends: at the term. "opts.string - a string or
    array of strings ..." (a Markdown list's "term - description", a manual page's "name - summary") answers
    "opts.string"; a span whose first word is not followed by a dash is left as it is. A parameter's head that starts
    its line, "logging_collector (boolean)" or "lazy (bool) – ...", answers its name without the type."""
    if _LINE_LEAD.fullmatch(text, text.rfind("\n", 0, start) + 1, start):  # the span starts its line or list item
        typed = _TYPED_NAME.match(text, start)
        if typed and typed.end(1) < end:
            return typed.end(1)
    m = _TERM_DASH.match(text, start, end)
    return start + len(m.group(1)) if m else end


def path_in_answer(question: str | None, text: str, start: int, end: int) -> tuple[int, int]:
    """For a question about a file, directory, folder or path, the one path an answer holds, without the words
    around it ("config file /etc/security/pam_env.conf" -> "/etc/security/pam_env.conf", "The skeleton directory
    (usually /etc/skel/)" -> "/etc/skel/"); an answer with no path or several is left as it is."""
    if question is None or not _ASKS_FOR_A_PATH.search(question):
        return start, end
    found = list(_PATH.finditer(text, start, end))
    if len(found) != 1:
        return start, end
    return found[0].start(), found[0].end()


def in_heading(text: str, title: str | None, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` lies in one of the passage's headings (a block of its text, between blank lines,
    that is a part of its ``title``: ingestion titles a passage "Document > Heading > Subheading" and writes the
    headings it starts under as blocks of their own) and is made of words, not a name: a heading says what its
    section is about, the question's subject, seldom its answer ("Timeouts" for "Which parameter tells Requests to
    stop waiting ...?"), while a name or a command in a heading may be what a question asks for: "os.path",
    "--prune", "ST_Buffer", "python -m pip install requests", and a first word not capitalised as a heading's words
    are ("os" of "os — Miscellaneous operating system interfaces", gitattributes' "text" and "eol"). A heading's
    section number ("2.2. DEFERRED, IMMEDIATE, and EXCLUSIVE transactions") is no name's dot: it is left out where
    the span is judged, and a span of the number alone is a heading's."""
    if not title or start >= end:
        return False
    a = text.rfind("\n\n", 0, start)
    a = 0 if a < 0 else a + 2
    while a < start and text[a].isspace():
        a += 1
    number = _SECTION_NUMBER.match(text, a)  # "2.2. " of "2.2. DEFERRED, ...": the heading's number
    words = text[max(start, number.end()) if number else start:end]  # the span without it
    if _NAME_LIKE.search(words):
        return False
    z = text.find("\n\n", end)
    z = len(text) if z < 0 else z
    block = text[a:z].strip()
    if not block or "\n" in block or not any(block == part.strip() for part in title.split(_TITLE_SEP)):
        return False
    if not words:  # the number alone
        return True
    first = block[number.end() - a if number else 0:].split(None, 1)[0]
    return not (words == first and not first[0].isupper())  # "os" of "os — ...", gitattributes' "text"


def _bare(text: str, start: int, end: int) -> tuple[int, int]:
    m = _BARE.match(text, start, end)
    return m.start(1), m.end(1)


def in_type_position(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a type name (``_TYPE_NAME``) where a signature on its line puts a type: after a
    name's ":" or "?:" or a signature's "->" or "→", or before a name and its "(" (a Java or C return type), in the
    same cell or the cell before the name's (a member summary's row)."""
    start, end = _bare(text, start, end)
    if not _TYPE_NAME.fullmatch(text[start:end]):
        return False
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    return bool(_TYPE_BEFORE.search(text, line_start, start)
                or _NAME_AFTER.match(text, end, len(text) if line_end < 0 else line_end))


# kind nouns straight after the one ``KIND_QUESTION`` found: "constructor | argument", "command|-line option"
# (not a plural that is as often a verb: "Which ttest_ind argument switches to ...?")
_VERB_PLURALS = frozenset({"switches", "hooks", "flags", "commands", "fields", "functions", "hints"})
_KIND_AFTER = re.compile(r"(?:-[\w-]+)?((?:\s+(?:" + _either(_KIND_NOUNS - _VERB_PLURALS) + r")\b)+)", re.IGNORECASE)


def _asked_kind(question: str) -> list[str]:
    """The kind of name a question asks for, as index terms (``KIND_QUESTION``'s last word: "function" in "Which
    function gets the value of a hint?"), the last of the kind nouns that follow each other there: "argument" in
    "Which Canvas constructor argument ...?", "option" in "Which command-line option ...?"; none where it asks for
    none."""
    asked = KIND_QUESTION.search(question)
    if asked is None:
        return []
    after = _KIND_AFTER.match(question, asked.end())
    return terms((asked.group(0) if after is None else after.group(1)).split()[-1])


# the kinds of name that are called, not passed (``CALL_PARAMETER``), as index terms
_CALLED_KINDS = frozenset(terms("function functions method methods class classes macro macros constructor constructors "
                                "decorator decorators procedure procedures routine routines"))
# and the kinds of name a declaration's line declares (``DECLARED``)
_DECLARED_KINDS = _CALLED_KINDS | frozenset(terms("struct structs trait traits enum enums interface interfaces"))
# and of those the ones whose declaration's line holds nothing else asked for (a class's line holds its bases)
_FUNCTION_KINDS = _CALLED_KINDS - frozenset(terms("class classes"))


def _plain_words(question: str) -> list[str]:
    """The question's index terms outside its code-shaped names, less the kind of name it asks for (``_asked_kind``:
    "function" in "Which function gets the value of a hint?", where "hint" stays)."""
    kind = _asked_kind(question)
    plain = " ".join(t for t in _QUESTION_TOKEN.findall(question) if not _CODE_SHAPED.search(t.strip(".:/-")))
    return [w for w in terms(plain) if w not in kind]


def _piece_written(piece: str, words: list[str]) -> bool:
    """Whether the question writes a name's word: the same, or one starting with the other over three letters or more
    ("cut" and "cuts", "min" and "minimum")."""
    return any(piece == w or (min(len(piece), len(w)) >= 3 and (w.startswith(piece) or piece.startswith(w)))
               for w in words)


def name_pieces_share(question: str, span: str, words: list[str] | None = None) -> float:
    """The share of a code-shaped name's words (split at "_", "." and capitals, those of two letters or more, less those
    that say what kind of name it is, ``_KIND_NOUNS``: "option" in ``helpOption``; at least two) that
    ``question`` writes in plain words (``_plain_words``, or ``words`` where given); 0 for a span that is not one such
    name, or that the question itself writes."""
    span = span.strip()
    if not _IDENTIFIER.fullmatch(span) or not _CODE_SHAPED.search(span) or span.lower() in question.lower():
        return 0.0
    pieces = [p.lower() for p in _NAME_PIECE.findall(span) if len(p) >= 2 and p.lower() not in _KIND_NOUNS]
    if len(pieces) < 2:
        return 0.0
    words = _plain_words(question) if words is None else words
    return sum(_piece_written(p, words) for p in pieces) / len(pieces)


def names_subject(question: str, span: str, words: list[str] | None = None) -> bool:
    """Whether ``span`` is one code-shaped name every word of which ``question`` writes in plain words
    (``name_pieces_share`` 1.0: "pcp_port" for "Which port does PCP listen on by default?"), the name of what a
    question asking for a value is about."""
    return name_pieces_share(question, span, words) >= 1.0


def is_option(span: str) -> bool:
    """Whether ``span`` is a command-line option or a list of its forms: "-k", "--prune", "-h, --help",
    "--depth=<depth>"."""
    return _OPTION.fullmatch(span.strip()) is not None


_PARAMETER_NAME = re.compile(r"[A-Za-z_][\w.]*")
# after a parameter's name at its line's head: its type in brackets, then " : ", " – ", " - ", ":" or the line's end
_TERM_TAIL = re.compile(r"[ \t]*(?:\([^()\n]{1,40}\)[ \t]*)?(?:[:\u2013\u2014-](?:[ \t]|$)|$)")
_ARGUMENT_BEFORE = re.compile(r"[(,][ \t]*\**$")  # "(" or ", " (and a "*" or "**") straight before the name
_SIGNATURE_AFTER = re.compile(r"[ \t]*[=,):]")


def _in_call_brackets(text: str, line_start: int, start: int) -> bool:
    """Whether ``start`` lies straight inside the brackets of a call or signature opened on its line ("name(" with
    ``start`` at their depth, not inside a default's own brackets)."""
    depth = 0
    for j in range(start - 1, line_start - 1, -1):
        depth += {")": 1, "(": -1}.get(text[j], 0)
        if depth < 0:
            return j > line_start and (text[j - 1].isalnum() or text[j - 1] in "_.")
    return False


def _parameter_at(text: str, start: int, end: int) -> tuple[int, int, int, int] | None:
    """``text[start:end]`` as a parameter's name is read (``_bare``: no quotes, no "()"), with its line's start and
    end; None where it is no name (``_PARAMETER_NAME``)."""
    start, end = _bare(text, start, end)
    if not _PARAMETER_NAME.fullmatch(text, start, end):
        return None
    line_end = text.find("\n", end)
    return start, end, text.rfind("\n", 0, start) + 1, len(text) if line_end < 0 else line_end


def is_parameter(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a parameter's name where documentation lists or declares it: the head of its line
    (a list item's too) followed by its type in brackets, a " : " (numpydoc), a dash or the line's end (a field list's
    "- reverse (bool) – ...", a configuration entry's "port (integer)", a definition list's term alone), or a name
    straight inside a signature's brackets, before its "=", "," or ")" ("irange(minimum=None, ..., reverse=False)")."""
    at = _parameter_at(text, start, end)
    if at is None:
        return False
    start, end, line_start, line_end = at
    if _LINE_LEAD.fullmatch(text, line_start, start) and _TERM_TAIL.match(text, end, line_end):
        return True
    return _in_parameter_list(text, *at)


def _in_parameter_list(text: str, start: int, end: int, line_start: int, line_end: int) -> bool:
    """Whether the name at ``text[start:end]`` lies straight inside a signature's brackets, before its "=", "," or ")"
    ("reverse" of "irange(minimum=None, ..., reverse=False)"), on the line from ``line_start`` to ``line_end``."""
    return bool(_ARGUMENT_BEFORE.search(text, line_start, start) and _SIGNATURE_AFTER.match(text, end, line_end)
                and _in_call_brackets(text, line_start, start))


def in_parameter_list(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a name straight inside a signature's or a call's brackets (``is_parameter``'s
    second case): "cls_or_module" of "@monkey(cls_or_module, name=None)", not "monkey"."""
    at = _parameter_at(text, start, end)
    return at is not None and _in_parameter_list(text, *at)


# a list entry's name at its line's head: command-line options ("-n, --dont-detach", "--norc, -f") or a name, with a
# value where it stands alone ("group=name", "envfile=/path": a PAM module's options)
_ENTRY_HEAD = re.compile(r"^[ \t]*(?:[-*\u2022][ \t]+)?(?P<name>--?\w[\w.=<>-]*(?:,[ \t]*--?\w[\w.=<>-]*)*"
                         r"|[A-Za-z_][\w.]*(?:=[^\s,]+)?)", re.MULTILINE)
_HEADING_WORD = re.compile(r"[A-Z][a-z]*|[A-Z]+")  # "Note", "NOTE", "Usage": a heading alone on its line, no name
# a help listing's row: an option, its argument, then a gap of two spaces or more and its description on the line
_HELP_ROW = re.compile(r"[ \t]*-[^\n]*?\S[ \t]{2,}\S")


def _help_row(text: str, start: int, line_end: int) -> bool:
    """Whether the line of ``start`` (a command-line option at its head, in a code block), ending at ``line_end``, is a
    row of a program's help listing ("-2                 perform a two-pass analysis", "  -u <srcp>,<destp>   prepend
    dummy UDP header"): its description after a gap of two spaces or more, or on the next line indented deeper (an
    option too long for its column)."""
    line = text[text.rfind("\n", 0, start) + 1:line_end]
    if _HELP_ROW.match(line):
        return True
    below = _line_below(text, line_end)
    indent, deeper = len(line) - len(line.lstrip()), len(below) - len(below.lstrip())
    return bool(below.strip()) and deeper > indent + 2 and not below.lstrip().startswith("-")


def entries(text: str, block: np.ndarray | None = None) -> list[tuple[int, int, int]]:
    """The entries a passage lists, (start, end, text end) each: a name at its line's head that is a parameter's as
    documentation lists it (``is_parameter``; not a call's "name(") or a command-line option (``is_option``), or a
    name alone on its line ("group=name" too) with a description right under it; a plain word in capitals or with one
    ("Note", "NOTE") and a code block's line (``block``, ``Passage.lines``: "threshold: 1024") excepted, but for a
    program's help listing's option rows (``_help_row``: "-2        perform a two-pass analysis"). An entry's text
    runs to the next entry's name or its description's first blank line, at most ``ENTRY_TEXT`` characters."""
    heads = []
    for m in _ENTRY_HEAD.finditer(text):
        start, end = m.start("name"), m.end("name")
        name = text[start:end]
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        alone = not text[end:line_end].strip()
        if alone and not _described_below(text, line_end):
            continue  # a heading, a page's title
        if _HEADING_WORD.fullmatch(name) or text.startswith("(", end):
            continue
        if in_block(block, start, end) and not (name.startswith("-") and _help_row(text, start, line_end)):
            continue  # a code block's line, but a help listing's option row
        if name.startswith("-"):
            listed = is_option(name)
        elif "=" in name:
            listed = alone
        else:
            listed = is_parameter(text, start, end)
        if listed:
            heads.append((start, end))
    if heads:  # a list of one kind: "- bonferroni : ..." under numpydoc's "method : str" is a value, not an entry
        kind = _lead(text, heads[0][0])
        heads = [(a, z) for a, z in heads if _lead(text, a) == kind]
    out = []
    for i, (a, z) in enumerate(heads):
        stop = min(heads[i + 1][0] if i + 1 < len(heads) else len(text), a + ENTRY_TEXT)
        line_end = text.find("\n", z)
        blank = -1 if line_end < 0 else text.find("\n\n", line_end, stop)
        out.append((a, z, stop if blank < 0 else blank))
    return out


# an API entry's signature line (``sentence._SIGNATURE_LINE`` is another: a returned call's signature): a list mark,
# Octave's ": ", a type's cell ("static String | ") or a keyword before the name, its argument list closed on the
# line (one level of brackets inside), a return annotation, then the line's end or a cell
_API_ENTRY_LINE = re.compile(
    r"^[ \t]*(?:[-*\u2022:][ \t]+)?(?:[^|\n]{1,40}\|[ \t]*)?(?:(?:class|def|function|static|async)[ \t]+)?"
    r"(?P<name>[A-Za-z_$][\w$]*(?:(?:\.|::?)[A-Za-z_$][\w$]*)*)(?P<gap>[ \t]*)\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\)"
    r"(?:[ \t]*(?:->|\u2192|:)[^|\n]*)?[ \t]*(?P<cell>\|[^\n]*\w[^\n]*)?$", re.MULTILINE)


def api_entries(text: str, block: np.ndarray | None = None) -> list[tuple[int, int, int]]:
    """The API entries a passage lists, (start, end, text end) each as ``entries`` gives them: a signature line's name
    ("mount" of "mount(prefix, adapter)", "ppf" of "ppf(q, loc=0, scale=1) | Percent point function ...") where a
    table cell after it or the line under it describes it; a code block's line (``block``) excepted, and a capitalised
    word before a bracket ("Return (key, value) pair"). An entry's text runs to the next entry's name or the first
    blank line after its description's first line, at most ``ENTRY_TEXT`` characters."""
    heads = []
    for m in _API_ENTRY_LINE.finditer(text):
        start, end = m.start("name"), m.end("name")
        if m.group("gap") and _HEADING_WORD.fullmatch(m.group("name")) or in_block(block, start, end):
            continue
        if m.group("cell") or _described_below(text, m.end()):
            heads.append((start, end))
    if DECLARED_ENTRIES:  # a declaration's line ("sort :: Ord a => [a] -> [a]", "pub fn len(&self) -> usize") too
        known = {a for a, _ in heads}
        for m in _DECLARATION_START.finditer(text):
            line_end = text.find("\n", m.start())
            line_end = len(text) if line_end < 0 else line_end
            declared = _declaration(text, m.start(), line_end)
            if (declared is not None and declared[0] not in known and not in_block(block, *declared[:2])
                    and (_described_below(text, line_end) or _described_after_gap(text, line_end))):
                heads.append(declared[:2])
        heads.sort()
    out = []
    for i, (a, z) in enumerate(heads):
        stop = min(heads[i + 1][0] if i + 1 < len(heads) else len(text), a + ENTRY_TEXT)
        line_end = text.find("\n", z)
        below = -1 if line_end < 0 else text.find("\n", line_end + 1)  # the blank line after the description's first
        blank = -1 if line_end < 0 else text.find("\n\n", line_end if below < 0 else below, stop)
        out.append((a, z, stop if blank < 0 else blank))
    return out


@dataclass(frozen=True)
class Listing:
    """What the entry choice weighs: ``entries`` lists a passage's entries, (name start, name end, text end) each
    (``entries`` or ``api_entries``), and with ``among`` the reader's span must lie among them for the choice to
    replace it (``_among``: an API entry's name never replaces a span of the prose around a function list)."""

    entries: Callable[[str, np.ndarray | None], list[tuple[int, int, int]]]
    among: bool = False

    def __call__(self, text: str, block: np.ndarray | None = None) -> list[tuple[int, int, int]]:
        return self.entries(text, block)

    def allows(self, listed: list[tuple[int, int, int]], start: int, end: int) -> bool:
        """Whether the choice may replace the span ``start``-``end`` of a passage whose entries are ``listed``."""
        return not self.among or _among(listed, start, end)


LIST_ENTRIES = Listing(entries)  # a list's parameters or options
API_ENTRIES = Listing(api_entries, among=True)  # signature lines with their descriptions


def _lead(text: str, at: int) -> str:
    """The list mark ("-", "*", "\u2022") before what starts at ``at`` on its line; "" where there is none."""
    return _LINE_LEAD.match(text, text.rfind("\n", 0, at) + 1).group().strip()


def _line_below(text: str, line_end: int) -> str:
    """The line after the one ending at ``line_end``; "" where there is none."""
    if line_end >= len(text):
        return ""
    below = text.find("\n", line_end + 1)
    return text[line_end + 1:len(text) if below < 0 else below]


def _described_below(text: str, line_end: int) -> bool:
    """Whether the line after the one ending at ``line_end`` holds text (a definition list's description)."""
    return bool(_line_below(text, line_end).strip())


def _described_after_gap(text: str, line_end: int) -> bool:
    """Whether the line after the one ending at ``line_end`` is blank and the next holds text that declares nothing, a
    signature's line neither (QDoc's "bool QTimer::isActive() const", a blank line, "Returns true if the timer is
    running ...")."""
    if line_end >= len(text) or _line_below(text, line_end).strip():
        return False
    after = text.find("\n", line_end + 1)
    if after < 0 or not _line_below(text, after).strip():
        return False
    end = text.find("\n", after + 1)
    end = len(text) if end < 0 else end
    return _declaration(text, after + 1, end) is None and _API_ENTRY_LINE.match(text, after + 1, end) is None


def asked_entry(question: str, text: str, start: int, end: int, block: np.ndarray | None = None,
                listing: Listing = LIST_ENTRIES) -> tuple[int, int] | None:
    """The name of the entry of ``text`` (``listing``: a list's by default, or ``API_ENTRIES``; at least two) whose
    text holds the question's index terms best, each weighted by how few of the entries hold it (log(1 + entries /
    entries holding it)), where one entry is ahead of all others, holds at least ``ENTRY_TERMS`` of them and, where the
    span ``text[start:end]`` lies in another entry's name, ``ENTRY_AHEAD`` more weight than that entry; None otherwise,
    and where the listing does not allow replacing the span (``Listing.allows``)."""
    listed = listing(text, block)
    if len(listed) < 2 or not listing.allows(listed, start, end):
        return None
    mine = [i for i, (a, z, _) in enumerate(listed) if a <= start and end <= z]  # the entry the reader named
    best = _best_entry(question, [text[a:stop] for a, _, stop in listed], mine, [text[a:z] for a, z, _ in listed])
    return None if best is None else (listed[best][0], listed[best][1])


def meant_entry(text: str, start: int, end: int, cosines: Callable[[Sequence[str]], Sequence[float]],
                block: np.ndarray | None = None, listing: Listing = LIST_ENTRIES) -> tuple[int, int] | None:
    """The name of the entry of ``text`` (``listing``'s, at least two) whose description (its text after its name)
    ``cosines`` puts nearest the question, where the span ``text[start:end]`` lies in another entry's name whose
    description's cosine is at least ``ENTRY_MEANING`` lower; None otherwise (and where an entry has no description)."""
    listed = listing(text, block)
    if not ENTRY_MEANING or len(listed) < 2 or not listing.allows(listed, start, end):
        return None
    mine = [i for i, (a, z, _) in enumerate(listed) if a <= start and end <= z]
    described = [text[z:stop].strip() for _, z, stop in listed]
    if not mine or not all(described):
        return None
    near = [float(c) for c in cosines(described)]
    best = max(range(len(listed)), key=near.__getitem__)
    if best == mine[0] or near[best] < near[mine[0]] + ENTRY_MEANING:
        return None
    return listed[best][0], listed[best][1]


def _best_entry(question: str, listed: list[str], mine: list[int], names: list[str]) -> int | None:
    """Which of the entries' texts ``listed`` holds the question's index terms best, each weighted by how few of
    them hold it (log(1 + entries / entries holding it)): one ahead of all others, holding at least ``ENTRY_TERMS``
    of them and, where the reader named one of them (``mine``), ``ENTRY_AHEAD`` more weight than that one; None
    otherwise. Where several hold them alike and the reader named one of those, the one whose name (``names``, the
    entries' names) is the shortest proper prefix of the named one's (``_plain_variant``)."""
    asked = sentence.question_terms(question)
    held = [asked & frozenset(terms(t)) for t in listed]
    scores = sentence.rarity_scores(held)
    best = max(range(len(listed)), key=scores.__getitem__)
    if len(held[best]) < ENTRY_TERMS:
        return None
    tied = [i for i, x in enumerate(scores) if x == scores[best]]
    if len(tied) > 1:
        return None if not mine or mine[0] not in tied else _plain_variant(names, tied, mine[0])
    if mine and (best in mine or scores[best] < scores[mine[0]] + ENTRY_AHEAD):
        return None  # the reader named an entry, and none holds the question's terms clearly better: its choice stands
    return best


def _plain_variant(names: list[str], tied: list[int], named: int) -> int | None:
    """Of the entries ``tied`` (indices into ``names``), the one whose name is the shortest proper prefix of entry
    ``named``'s ("os.getcwd" of "os.getcwdb", "trim" of "trimToNull"): a name with a suffix is a variant of the one
    without it, and a question that holds what both say alike asks for the plain one; None where there is none."""
    own = names[named]
    plain = [i for i in tied if i != named and len(names[i]) < len(own) and own.startswith(names[i])]
    return min(plain, key=lambda i: len(names[i])) if plain else None


def is_signature_value(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` starts with a value a signature's parameter list assigns: straight after a
    parameter's "=" (its type annotation and an opening quote allowed), straight inside the brackets of a signature
    that opens its line ("class sklearn.cluster.KMeans(n_clusters=8, ..., n_init='warn', ...)")."""
    opened = sentence.signature_assigns(text, text.rfind("\n", 0, start) + 1, start)
    if opened < 0:
        return False
    depth, argument = 0, opened + 1  # the signature's own brackets, not a default's ("f(a=g(b=| 1))")
    for i in range(opened + 1, start):
        depth += _BRACKET_DEPTH.get(text[i], 0)
        if depth < 0:
            return False
        if depth == 0 and text[i] == ",":
            if not _SIGNATURE_ARGUMENT.fullmatch(text, argument, i):  # a value: an example's call, not a signature
                return False
            argument = i + 1
    return depth == 0


_BRACKET_DEPTH = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
# an argument as a signature declares it: a name ("*args", "**kwargs"), its annotation or default, a bare "*" or "/"
_SIGNATURE_ARGUMENT = re.compile(r"\s*(?:\*{0,2}[A-Za-z_$][\w$]*\s*(?:[:=].*)?|[*/])\s*", re.S)


def _pieces(marks: Sequence[np.ndarray | None] | None, lines: Sequence[np.ndarray | None] | None,
            n: int) -> list[np.ndarray | None] | None:
    """Each of ``n`` passages' marked pieces of code, inline (``marks``) and code blocks' lines (``lines``) together;
    None where no passage has any."""
    both = [[m for m in (None if marks is None else marks[i], None if lines is None else lines[i])
             if m is not None and len(m)] for i in range(n)]
    return [np.concatenate(b) if b else None for b in both] if any(both) else None


def is_code(text: str, marks: np.ndarray | None, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is one whole marked piece of inline code (``marks``: (start, end) rows), quotes,
    a leading "." and a trailing "()" aside on either side (".opts()" is the code "opts", "opts" the code
    ".opts()")."""
    if marks is None or not len(marks) or start >= end:
        return False
    want = _bare(text, start, end)
    return any(_bare(text, int(a), int(z)) == want for a, z in marks if a < end and z > start)


# How far past an answer the ")" of a bracket it opens may be for ``edges`` to take it in.
WIDEST_CLOSE = 40
# The longest piece of inline code a "How do I ...?" answer inside it is widened to (``whole_code``).
WIDEST_CODE = 80


def whole_code(text: str, marks: np.ndarray | None, start: int, end: int) -> tuple[int, int]:
    """``text[start:end]`` widened to the marked piece of inline code it lies inside (``marks``: (start, end) rows),
    where it is not that piece already (``is_code``'s comparison) and the piece is on one line, at most
    ``WIDEST_CODE`` characters: "--save-dev semantic-release" of ``npm install --save-dev semantic-release``. For a
    question that asks how to do something (``HOW_QUESTION``), as ``answers_from_logits`` applies it: such a question
    asks for the command or expression to write; one that asks "Which tool ...?" wants the command's first word, so
    it is not widened (docs/documents.md)."""
    if marks is None or not len(marks) or start >= end:
        return start, end
    want = _bare(text, start, end)
    for a, z in marks:
        a, z = int(a), int(z)
        if a <= start and end <= z and z - a <= WIDEST_CODE and "\n" not in text[a:z] and _bare(text, a, z) != want:
            return trim(text, a, z)
    return start, end


_ARTICLE_WORD = r"(?:the|an?)\s+"  # an article and the space after it (``edges``, ``without_kind``)
_ARTICLE_BEFORE_CODE = re.compile(_ARTICLE_WORD + r"(?=[-.$/~`]|\S*(?:_|\(\)))", re.IGNORECASE)
_ABBREVIATION = re.compile(r"(?:\b[A-Z]|\b[A-Z][A-Za-z]{0,2}|\.\.)\.$")


_PLACEHOLDER_NAME = re.compile(r"[A-Za-z_]\w*")


def _placeholder(text: str, start: int, end: int) -> tuple[int, int]:
    """A placeholder written between two like sigils whole where the span leaves one of them out ("NAMESPACE@" ->
    "@NAMESPACE@", "%APPDATA" -> "%APPDATA%"): the model's tokenizer splits the sigils off the name. The pair stands
    apart from the words around it ("a@b@c" is no placeholder)."""
    def apart(i: int) -> bool:
        return not (0 <= i < len(text) and (text[i].isalnum() or text[i] == "_"))

    span = text[start:end]
    for sigil in "@%":
        if (span.endswith(sigil) and not span.startswith(sigil) and start > 0 and text[start - 1] == sigil
                and apart(start - 2) and apart(end) and _PLACEHOLDER_NAME.fullmatch(span[:-1])):
            return start - 1, end
        if (span.startswith(sigil) and not span.endswith(sigil) and end < len(text) and text[end] == sigil
                and apart(start - 1) and apart(end + 1) and _PLACEHOLDER_NAME.fullmatch(span[1:])):
            return start, end + 1
    return start, end


def edges(text: str, start: int, end: int) -> tuple[int, int]:
    """An answer's edges as written: no article before the one name, written as code, an option or a path, that
    follows it ("the -f" -> "-f"), no full stop ending an answer of several words unless it ends an abbreviation or
    an ellipsis ("... field." -> "... field"), a double quote left unpaired takes in the one beside it
    ('-" character' -> '"-" character'), as does a placeholder's sigil ("NAMESPACE@" -> "@NAMESPACE@":
    ``_placeholder``), and a round bracket it opens takes in its ")" where that comes on the same
    line within ``WIDEST_CLOSE`` characters ("points (1/72 of an inch" -> "points (1/72 of an inch)"), a closing
    bracket at its end that it never opened goes ("int)" -> "int": ``_without_stray_closers``), and a quote or a
    bracket alone is no answer (start == end). Kept on the documentation benchmark's dev part by its "EM as written"
    (docs/documents.md); SQuAD's normalisation drops articles and punctuation, so its EM and F1 read these answers as
    before."""
    m = _ARTICLE_BEFORE_CODE.match(text, start, end)
    if m and m.end() < end and not any(c.isspace() for c in text[m.end():end]):  # "the -f", not "the X method"
        start = m.end()
    span = text[start:end]
    if span.endswith(".") and " " in span and not _ABBREVIATION.search(span):
        end -= 1
    if text.count('"', start, end) % 2:
        if start > 0 and text[start - 1] == '"':
            start -= 1
        elif end < len(text) and text[end] == '"':
            end += 1
    start, end = _single_quoted(text, start, end)
    start, end = _curly_unpaired(text, start, end)
    start, end = _placeholder(text, start, end)
    opened = _unclosed(text, start, end)
    if opened is not None:  # "points (1/72 of an inch" takes in its ")"
        end = _bracket_end(text, opened, min(len(text), end + WIDEST_CLOSE), end)
    end = _without_stray_closers(text, start, end)
    start, end = trim(text, start, end)
    if end - start == 1 and text[start] in _LONE_MARKS:  # a quote or a bracket alone answers nothing
        return start, start
    return start, end


# Characters that are no answer on their own (``edges``): a quote or a bracket opens or closes something.
_LONE_MARKS = frozenset("'\"`\u2018\u2019\u201c\u201d()[]{}")
_OPENERS, _CLOSERS = "([{", ")]}"


def _without_stray_closers(text: str, start: int, end: int) -> int:
    """Where an answer ends without the closing brackets at its end that open nowhere in it ("int)" of "index
    (int)" -> "int", '"setuptools"]' -> '"setuptools"'): the span began inside the brackets. Any opener pairs with
    any closer, so an interval stays whole ("[0,360)")."""
    if end <= start or text[end - 1] not in _CLOSERS:
        return end
    depth = 0
    for i in range(start, end):
        if text[i] in _OPENERS:
            depth += 1
        elif text[i] in _CLOSERS:
            if depth == 0 and not text[i + 1:end].strip(_CLOSERS + " \t"):
                return i  # the first closer of the run at the end that opens nowhere: cut there
            depth = max(0, depth - 1)
    return end


_CLOSING = {"'": "'", "\u2019": "\u2018"}  # a closing single quote and the quote that opens it


def _single_quoted(text: str, start: int, end: int) -> tuple[int, int]:
    """A value in single quotes whole: an answer whose one single quote ends it takes in its opening quote just before
    it ("shmem'" of "'shmem'" -> "'shmem'"), one whose one quote starts it the closing quote just after it. A single
    quote is also an apostrophe ("users'", "don't"), so nothing is taken in without its pair beside the answer."""
    span = text[start:end]
    if not span or sum(span.count(q) for q in "'\u2018\u2019") != 1:
        return start, end
    if span[-1] in _CLOSING and start > 0 and text[start - 1] == _CLOSING[span[-1]]:
        return start - 1, end
    if span[0] in ("'", "\u2018") and end < len(text) and text[end] == ("'" if span[0] == "'" else "\u2019"):
        return start, end + 1
    return start, end


_CURLY_CLOSE = {"\u201c": "\u201d", "\u2018": "\u2019"}  # an opening curly quote and the one that closes it


def _curly_unpaired(text: str, start: int, end: int) -> tuple[int, int]:
    """A curly double quote an answer leaves unpaired at its edge (a Texinfo manual's and Sphinx's smart quotes) takes
    in its pair beside the answer, as a straight one does ("\u201cDiscard to Next Line" -> "\u201cDiscard to Next
    Line\u201d"), or, with no pair beside it, goes; so does an opening single quote with no pair in the answer or
    beside it (a closing one is also an apostrophe: ``_single_quoted`` pairs those)."""
    span = text[start:end]
    closing = _CURLY_CLOSE.get(span[:1])
    if len(span) > 1 and closing is not None and closing not in span:
        if end < len(text) and text[end] == closing:
            end += 1
        else:
            start += 1
    elif len(span) > 1 and span[-1] == "\u201d" and "\u201c" not in span:
        if start > 0 and text[start - 1] == "\u201c":
            start -= 1
        else:
            end -= 1
    return trim(text, start, end)


def _unclosed(text: str, start: int, end: int) -> int | None:
    """Where the first "(" of ``text[start:end]`` that it does not close is; None where it closes every one."""
    if text.find("(", start, end) < 0:  # most answers hold none: no character-by-character walk
        return None
    opens: list[int] = []
    for i in range(start, end):
        if text[i] == "(":
            opens.append(i)
        elif text[i] == ")" and opens:
            opens.pop()
    return opens[0] if opens else None


# the noun that says what kind of name an answer is, after it ("HHC_LOCATION configuration": ``without_kind``)
_KIND_NOUN = re.compile(r"(?:options?|flags?|settings?|configurations?|tags?|variables?|parameters?|arguments?|"
                        r"functions?|methods?|class(?:es)?|errors?|exceptions?|directives?|commands?|fields?|"
                        r"propert(?:y|ies)|attributes?|modules?|macros?|keywords?|constants?|values?|objects?|files?|"
                        r"headers?|types?|operators?)", re.IGNORECASE)
_ARTICLE = re.compile(_ARTICLE_WORD, re.IGNORECASE)


def without_kind(question: str | None, text: str, start: int, end: int) -> tuple[int, int]:
    """For a question that asks for a name (``NAME_QUESTION``, not "How do I ...?"), an answer of a name and the noun
    of its kind is the name: "HHC_LOCATION configuration" -> "HHC_LOCATION", "SQLITE_CONSTRAINT_DATATYPE error" ->
    "SQLITE_CONSTRAINT_DATATYPE"; the noun is the question's word, not the answer. Only where the first word looks
    like a name (``_NAME_LIKE``): "Session object" and "top-level fields" stay as they are. An article before them
    goes too: "The <-> operator" -> "<->"."""
    words = text[start:end].split()  # most spans are not a name and a noun: the question is read only for those
    lead = _ARTICLE.match(text, start, end) if len(words) == 3 else None
    if lead is not None:
        words = words[1:]
    if len(words) != 2 or not _KIND_NOUN.fullmatch(words[1]) or not _NAME_LIKE.search(words[0]):
        return start, end
    if question is None or not NAME_QUESTION.search(question) or HOW_QUESTION.search(question):
        return start, end
    first = start if lead is None else lead.end()
    return first, first + len(words[0])


_TOKEN_TAIL = ".,;:"  # what ends a sentence or a clause after a value, not the value
_TOKEN_CLOSERS = {")": "(", "]": "[", "}": "{", "'": "'", '"': '"', "`": "`", "\u2019": "\u2018", "\u201d": "\u201c"}


def default_token(question: str | None, text: str, start: int, end: int) -> tuple[int, int]:
    """A default stated as one run of characters without white space, whole: for a question that asks for a default
    (``sentence.asks_default``), a span its line states as one (``sentence.states_default``) that ends inside such a
    run is widened to the run's end ("HIGH" of "The default value is HIGH:MEDIUM:+3DES:!aNULL, which ..." ->
    "HIGH:MEDIUM:+3DES:!aNULL"), less what follows a value (a full stop, comma, semicolon or colon) and a closing
    bracket or quote it does not open, at most ``WIDEST_WORD`` characters in all. The tokenizer cuts such a value at
    its colons, plus and bang signs, where ``whole_name`` joins only "." and "_"."""
    if (question is None or end >= len(text) or text[end].isspace() or end <= start
            or not sentence.asks_default(question) or not sentence.states_default(text, question, start, end)):
        return start, end
    wide = end
    while wide < len(text) and not text[wide].isspace():
        wide += 1
    while wide > end:
        c = text[wide - 1]
        opener = _TOKEN_CLOSERS.get(c)
        inside = text[start:wide - 1]
        unopened = opener is not None and (inside.count(c) % 2 == 0 if opener == c
                                            else inside.count(opener) <= inside.count(c))
        if c in _TOKEN_TAIL or unopened:
            wide -= 1
        else:
            break
    return (start, wide) if wide - start <= WIDEST_WORD else (start, end)


# a file's name by its extension, one that names a configuration, text, script or archive file ("tox.ini",
# "MANIFEST.in", "setup.py"), or a path from the root or the home directory ("~/.gitconfig", "/etc/nologin"), not one
# from here ("./configure": a command); not ".json" or ".html", which are methods' names as often ("res.json")
_FILE_NAME = re.compile(r"(?:(?:~|\.{1,2})?/)?(?:[\w.-]+/)*[\w.-]*\.(?:toml|cfg|ini|txt|ya?ml|md|rst|conf|xml|py|sh|"
                        r"lock|pdf|gz|zip|whl|in|gitconfig|gitignore|gitattributes|npmrc|netrc|properties|env)"
                        r"|~?/[\w.-]+(?:/[\w.-]+)*/?")


def is_file_name(span: str) -> bool:
    """Whether ``span`` is a file's name or a path and nothing else (``_FILE_NAME``), quotes or backticks around it
    aside: "tox.ini", "`pyproject.toml`", "~/.gitconfig", "/etc/nologin"; not "os.path", "res.json" or "a/b test"."""
    return _FILE_NAME.fullmatch(span.strip().strip("`'\"")) is not None


# "Which canvas method ...?", "Which Components method ...?": a name the question writes just before the kind of
# member it asks for, the member's owner (``without_owner``)
_OWNER_QUESTION = re.compile(
    rf"^\s*(?:which|what)\s+(?:[\w.()'-]+\s+){{0,3}}?(?P<owner>{code.QUALIFIED})"
    r"(?:'s)?\s+(?:methods?|functions?|class(?:es)?|attributes?|propert(?:y|ies)|members?|fields?|constants?|"
    r"decorators?|constructors?|macros?|hooks?|events?|exceptions?|enums?)\b", re.IGNORECASE)
_MEMBER_PATH = re.compile(rf"{code.IDENTIFIER}(?:(?:{code.MEMBER_JOINTS}){code.IDENTIFIER})+(?:\(\))?")
_MEMBER_JOINT = re.compile(code.MEMBER_JOINTS)


@functools.lru_cache(maxsize=64)
def _owner(question: str) -> str | None:
    """The owner a question names before the kind of member it asks for (``_OWNER_QUESTION``), its last part in lower
    case ("components" for "Which Components method ...?"); read once per question, not per candidate span."""
    m = _OWNER_QUESTION.match(question)
    return None if m is None else _MEMBER_JOINT.split(m.group("owner"))[-1].casefold()


def without_owner(question: str | None, text: str, start: int, end: int) -> tuple[int, int]:
    """For a question that asks which member of an owner it names ("Which Components method adds a security
    scheme?": ``_OWNER_QUESTION``), a dotted answer that runs through that owner is the member:
    "spec.components.security_scheme" -> "security_scheme", "canvas.restoreState" -> "restoreState"; the owner is the
    question's word, compared without case. An answer whose last part is the owner itself ("apispec.core.APISpec" for
    "Which APISpec method ...?") stays as it is: it is no member."""
    if question is None or end - start < 3 or not _MEMBER_PATH.fullmatch(text, start, end):
        return start, end
    owner = _owner(question)
    if owner is None:
        return start, end
    joints = list(_MEMBER_JOINT.finditer(text, start, end))
    parts = _MEMBER_JOINT.split(text[start:end])
    if parts[-1].removesuffix("()").casefold() == owner:
        return start, end
    for i in range(len(parts) - 2, -1, -1):
        if parts[i].casefold() == owner:
            return joints[i].end(), end
    return start, end


# "Which parameter of read_csv ...?", "Which MixedLM parameter ...?", "Which git fetch option ...?": the entry whose
# parameter, option or member the question asks for (``OWNED``); after "which" only: "What does the max_retries
# parameter ...?" names the parameter itself
_OWNED_KINDS = (r"(?:keyword\s+)?(?:parameters?|arguments?|args?|options?|flags?|settings?|methods?|functions?|"
                r"attributes?|propert(?:y|ies)|fields?|members?|constants?|macros?)")
_OWNED_NAME = r"[`'\"]?(?P<{}>" + code.QUALIFIED + ")"
_OWNED_QUESTION = re.compile(
    rf"^\s*(?:which|what)\s+{_OWNED_KINDS}\s+(?:of|to)\s+(?:the\s+)?{_OWNED_NAME.format('after')}"
    rf"|^\s*which\s+(?:[\w.()'-]+\s+){{0,3}}?{_OWNED_NAME.format('before')}[`'\"]?(?:'s)?\s+{_OWNED_KINDS}\b",
    re.IGNORECASE)
# a default question's entry: "What is the default chunk size of iter_content?", "What is the default value of
# Session.verify?", "What does max_retries default to?" (``OWNED_DEFAULT``)
_OWNED_DEFAULT = re.compile(
    rf"\bdefaults?\s+(?:[\w-]+\s+){{0,3}}?(?:of|for)\s+(?:the\s+|an?\s+)?{_OWNED_NAME.format('after')}"
    rf"|^\s*what\s+does\s+(?:the\s+)?{_OWNED_NAME.format('before')}[`'\"]?\s+(?:\w+\s+)?default\s+to\b",
    re.IGNORECASE)
_OWNED_KIND = re.compile(_OWNED_KINDS + "|keyword", re.IGNORECASE)
_WORD_NAME = re.compile(r"[A-Za-z_$][\w$]*")
OWNED_SURE = 0.01  # the least share of the best span's probability a span of the named entry's passage must have


@functools.lru_cache(maxsize=64)
def owned_by(question: str, defaults: bool = True) -> str | None:
    """The entry a question asks a parameter, option or member of, its last part in lower case: "read_csv" for
    "Which parameter of read_csv ...?", "mixedlm" for "Which MixedLM parameter ...?", "fetch" for "Which git fetch
    option ...?" (``_OWNED_QUESTION``); with ``defaults`` (``OWNED_DEFAULT``), the entry a default question asks of:
    "iter_content" for "What is the default chunk size of iter_content?", "verify" for "What is the default value of
    Session.verify?" (``_OWNED_DEFAULT``); None where it names none ("Which keyword argument ...?")."""
    m = _OWNED_QUESTION.match(question)
    if m is None and defaults and sentence.asks_default(question):
        m = _OWNED_DEFAULT.search(question)
    if m is None:
        return None
    owner = _MEMBER_JOINT.split(m.group("after") or m.group("before"))[-1]
    return None if _OWNED_KIND.fullmatch(owner) or not terms(owner) else owner.casefold()


def asked_owner(question: str | None) -> str | None:
    """The entry the owned-entry rule reads ``question`` as naming: ``owned_by`` with the module's switches
    (``OWNED``, ``OWNED_DEFAULT``); None with ``OWNED`` off. The reader's rule and the cascade's reading on
    (``function.service.cascade.owns_elsewhere``) both ask it."""
    return owned_by(question, OWNED_DEFAULT) if OWNED and question is not None else None


def names_entry(text: str, title: str | None, owner: str) -> bool:
    """Whether a passage is ``owner``'s (in lower case): a word of its title is the name, or one of its lines starts
    with the name, qualified or not, after a list mark or "class" / "def" at most, as an entry's or a signature's head
    does ("popitem(index=-1)", "class x.SortedDict(...)", "- SDL_Init(Uint32 flags)"; a passage holds the entries after
    the one its title names). A code line that starts with it ("s.verify = ...") counts too: the rule asks no more."""
    if title is not None and any(w.casefold() == owner for w in _WORD_NAME.findall(title)):
        return True
    head = (rf"^[ \t]*(?:[-*\u2022][ \t]+)?(?:(?:class|def)[ \t]+)?(?:[\w$]+(?:{code.MEMBER_JOINTS}))*"
            + re.escape(owner) + r"(?![\w$])")
    return re.search(head, text, re.IGNORECASE | re.MULTILINE) is not None


# a member named with its owner, as a question writes it: "QString::length", "os.path.join", "Mock#expects",
# "maps:find" (``qualified_names``); a file's or a site's name is not one ("setup.py", "example.com")
_QUALIFIED = re.compile(rf"(?<![\w$.:#/-]){code.IDENTIFIER}(?:(?:{code.JOINTS}){code.IDENTIFIER})+")
_JOINTS = re.compile(code.JOINTS)
_FILE_SUFFIXES = frozenset(
    "py pyi pyc toml md rst txt html htm json yaml yml cfg ini conf js mjs cjs ts tsx jsx xml sh bat rs hs erl go rb "
    "java kt cs php pl lua sql csv lock log gz tgz zip tar pdf png jpg svg css scss so dll exe com org net io dev"
    .split())
# what may open a declaration's line before its name: QDoc's tags, "class" or "def"; and a list mark (``_LINE_LEAD``)
# where the name is written alone (a summary's list writes it whole: "- SortedDict.popitem()")
_KEYWORD_HEAD = rf"(?:{_QDOC_TAG})*(?:(?:class|def|async[ \t]+def)[ \t]+)?"
_LINE_HEAD = rf"^[ \t]*{_KEYWORD_HEAD}"
_LISTED_LINE_HEAD = rf"^{_LINE_LEAD.pattern}{_KEYWORD_HEAD}"
_TYPE_WORDS = r"(?:[\w<>,*&:]+[ \t]+[*&]*){1,3}"  # at most three words of keywords or a return type, then the name
_QUALIFIERS_BEFORE = rf"(?:[\w$]+(?:{code.JOINTS}))*"  # "sortedcontainers." of "sortedcontainers.SortedDict.popitem"


@functools.lru_cache(maxsize=64)
def qualified_names(question: str) -> tuple[str, ...]:
    """The members a question names with their owners ("QString::length" of "What does QString::length return?",
    "os.path.join", "Mock#expects", "maps:find"): two or more identifiers of at least two characters each, joined by
    ".", "::", "#" or ":", the last not a file's or a site's suffix ("setup.py", "example.com")."""
    names = []
    for m in _QUALIFIED.finditer(question):
        parts = _JOINTS.split(m.group())
        if all(len(p) >= 2 for p in parts) and parts[-1].casefold() not in _FILE_SUFFIXES:
            names.append(m.group())
    return tuple(dict.fromkeys(names))


@functools.lru_cache(maxsize=256)
def _declaring(name: str) -> tuple[re.Pattern, re.Pattern, str]:
    """``declares``' two line patterns for ``name`` (whole; its last part alone) and its owner's last part."""
    parts = _JOINTS.split(name)
    whole, member = re.escape(name), re.escape(parts[-1])
    called = rf"{_LINE_HEAD}(?:{_QUALIFIERS_BEFORE}{whole}(?![\w$])|{_TYPE_WORDS}{_QUALIFIERS_BEFORE}{whole}[ \t]*\()"
    alone = rf"{_LISTED_LINE_HEAD}(?:[#.]?{member}(?![\w$])|{_TYPE_WORDS}{member}[ \t]*\()"
    return re.compile(called, re.I | re.M), re.compile(alone, re.I | re.M), parts[-2].casefold()


def declares(text: str, title: str | None, name: str) -> bool:
    """Whether a passage is the entry of ``name`` (``qualified_names``): one of its lines opens (after QDoc's tags,
    "class" or "def") with the name written whole, more qualifiers before it allowed, or with it after at most three
    words of keywords or a return type and before its parameters ("int QString::length() const",
    "sortedcontainers.SortedDict.popitem", "os.path.join(path, *paths)"; not a list's item, "- SortedDict.popitem()"
    of a summary); or opens so, or after a list mark, with its last part alone ("popitem(index=-1)", "#expects(...) ⇒
    Expectation", "pub fn with_capacity(") and a word of the passage's title is the owner's last part ("Vec in
    std::vec", "Class: Mocha::Mock")."""
    called, alone, owner = _declaring(name)
    if called.search(text) is not None:
        return True
    if title is None or not any(w.casefold() == owner for w in _WORD_NAME.findall(title)):
        return False
    return alone.search(text) is not None


def _owned_passage(found: list[Answer], owner: str, texts: Sequence[str],
                   titles: Sequence[str | None]) -> list[Answer]:
    """``found`` with its best span in a passage of the entry the question names (``names_entry``) first, at the best
    span's score, where the best span's passage is not that entry's and the reader gives the span at least
    ``OWNED_SURE`` of the best's probability: a parameter of the entry asked about, not of its neighbour (``OWNED``);
    as it was otherwise."""
    owned: dict[int, bool] = {}  # a passage's verdict, once for its several spans

    def owns(a: Answer) -> bool:
        if a.passage not in owned:
            owned[a.passage] = names_entry(texts[a.passage], titles[a.passage], owner)
        return owned[a.passage]

    return _first_where(found, owns, OWNED_SURE)


def shape(text: str, start: int, end: int, question: str | None = None) -> tuple[int, int]:
    """A span's characters as an answer: no white space at either end (``trim``), ended with its line
    (``line_end``), a name or a shell command whole (``whole_name``, ``command_line``), a term without its
    description (``term_of_entry``), for a question about a file or directory, the path (``path_in_answer``), for a
    question how to do something, a call or an assignment whole (``whole_call``), its
    edges as written (``edges``: no article before a lone code name, no full stop after several words, no unpaired
    quote), for a question that asks for a name, no noun of its kind after it (``without_kind``), and for one that
    asks for a member of an owner it names, no owner before it (``without_owner``); ``start == end`` where nothing is
    left."""
    start, end = trim(text, start, end)
    start, end = trim(text, start, line_end(text, start, end))
    if start < end:
        start, end = command_line(text, *whole_name(text, start, end))
        start, end = path_in_answer(question, text, start, term_of_entry(text, start, end))
        start, end = default_token(question, text, start, end)
        start, end = without_kind(question, text, *edges(text, *whole_call(question, text, start, end)))
        start, end = without_owner(question, text, start, end)
    return start, end


def answers_from_logits(
    start_logits: np.ndarray,
    end_logits: np.ndarray,
    batch: Batch,
    passages: Sequence[PassageTokens],
    top_k: int = 1,
    max_answer_tokens: int = 30,
    passage_bias: np.ndarray | None = None,
    texts: Sequence[str] | None = None,
    windows: np.ndarray | None = None,
    null_weight: float = 0.0,
    question: str | None = None,
    sentence_weight: float | None = None,
    titles: Sequence[str | None] | None = None,
    marks: Sequence[np.ndarray | None] | None = None,
    lines: Sequence[np.ndarray | None] | None = None,
    pages: Sequence[tuple[str, int] | None] | None = None,
    cosines: Callable[[Sequence[str]], Sequence[float]] | None = None,
) -> list[Answer]:
    """Best spans mapped to character offsets in their passage's text (``passage_bias``: see
    ``function.model.decode``), from the ``windows`` marked True only (default: all; a
    ``Verdict``'s ``answering``).

    With the passages' ``texts``, offsets are trimmed of white space (``trim``), a span of
    white space only is dropped, so ``texts[p][start:end]`` is always a clean answer, no
    span runs across a blank line (``decode.paragraphs``), an answer ends with the line it
    starts on unless that line only wraps a sentence (``line_end``), a dotted or underscored name is
    never cut (``whole_name``), a command at a shell prompt is whole (``command_line``), and a term is not
    followed into its description (``term_of_entry``).
    With the ``question`` too, a question about a file or directory gets the path a span holds
    (``path_in_answer``), a question how to do something the call or assignment a name starts (``whole_call``) and,
    with the passages' ``marks`` and ``lines``, the piece of code a span lies in (``whole_code``), and the best
    ``CANDIDATES`` spans are ranked again with ``sentence_weight``
    (default: ``sentence.WEIGHT`` with a ``passage_bias``, for retrieved passages, else
    ``sentence.WEIGHT_GIVEN``) times the share of the question's terms their sentence holds
    (``function.model.sentence``) added to their logits, less ``sentence.ECHO`` for a span that is the question's
    own words (``sentence.echoes``), less ``HEADING`` for a span in one of its passage's headings (``in_heading``,
    with the passages' ``titles``; where the passage is read, not where retrieved passages compete), and plus
    ``CODE`` for a span that is a piece of its passage's inline code (``is_code``, with the passages' ``marks``), or a
    code block's line (``lines``) holding no white space or asked how to write, where the question asks for a name
    (``NAME_QUESTION``), and ``OPTION`` for a span that is a command-line option
    (``is_option``) where it asks for an option, a flag or a switch (``OPTION_QUESTION``), and ``DEFINITION`` for a span
    the text introduces as the definition of what the question asks about (``sentence.introduces``, where
    ``sentence.defined`` finds one), ``DEFAULT`` for a span its line gives as a default where the question asks
    for one (``sentence.states_default``), and ``RETURN`` for a span the entry of the name a question asks the return
    value of gives as it (``sentence.states_return``): each score ``s`` becomes ``s * exp(weight * overlap - ECHO *
    echo - HEADING * heading + CODE * code + OPTION * option + DEFINITION * definition + DEFAULT * default + RETURN *
    returned - TYPE * typed - SIGNATURE_VALUE * assigned)``, ``typed`` a type name in a signature's type position
    where the question asks for a name, not a type (``in_type_position``), ``assigned`` a value a signature's parameter
    list assigns where the question does not ask for a default (``is_signature_value``), renormalised over what the
    spans listed add (still in [0, 1]); and, where the question asks for a kind of name (``KIND_QUESTION``: "Which
    function ...?"), plus ``NAME_PIECES`` times the share of a code-shaped name's words it writes
    (``name_pieces_share``); then, with ``cosines`` (a question asked alone, the sentence encoder at hand) and a
    ``passage_bias``, by the meaning of the best spans' sentences (``SENTENCE_COSINE``); ``CODE`` is ``CODE_WITHIN``
    where there is no ``passage_bias`` (one passage's spans ranked among themselves). With a ``passage_bias``
    (retrieved passages), that ranking chooses the passage, by the answer text its spans agree on most (``AGREEMENT``),
    and the answer is then chosen within it as if the request had named it (``_within_chosen_passage``). Where a
    passage is read so and the question asks which parameter or option does something, the entry of its list the
    question's terms point to may name the answer instead (``ENTRY``, ``asked_entry``), as may an API entry where it
    asks which function, method or class (``API_ENTRY``, ``api_entries``), asked alone with ``cosines`` the entry
    whose description is nearest the question in meaning where the terms name none (``ENTRY_MEANING``,
    ``meant_entry``), and asked alone, with each passage's
    (document, chunk) ``pages``, an entry of a passage read next to the chosen one (``ENTRY_NEXT_DOOR``,
    ``_entry_next_door``). Where the question asks to choose between the answers it offers and the answer is none of
    them, the alternative its passage (or the next passage read) writes replaces it (``CHOICE``, ``_offered_answer``);
    asked alone, a return question's best span that says what the name returns chooses the passage (``RETURN_FIRST``,
    ``_stating_return``), one under the entry's "Returns:" label first, also within one passage (``RETURNS_LABEL``);
    the type on a parameter's numpydoc line where the question asks that parameter's type (``PARAMETER_TYPE``,
    ``_parameter_type``); where the passage read
    holds a table whose header names what the question asks for, the cell of the row it asks about (``TABLE``,
    ``_table_answer``); and where it asks what something returns under a condition, the value its passage gives under
    it (``CONDITIONED``, ``_conditioned_answer``). After the ranking, a
    definition's and a return value's answer run on to the end of their phrase (``sentence.definition_end``,
    ``sentence.return_end``), an answer to a question that asks for several things over the list it is an item of
    (``COORDINATION``, ``sentence.coordination``), a return value named on numpydoc's "name : type" line gives
    way to the description under it (``sentence.return_description``), and a how question's answer inside the purpose
    a line states before its colon to the code block's line that colon introduces (``INTRODUCED``,
    ``introduced_line``), and an answer in a declaration's keywords, or its whole line, to the name it declares where
    the question asks for a function, a method, a class or another declared kind (``DECLARED``, ``declared_name``).
    """
    # a few spare candidates stand in for spans of white space only
    spare = 0 if texts is None else 2
    code = _pieces(marks, lines, len(passages))
    how = question is not None and HOW_QUESTION.search(question) is not None
    widen = texts is not None and code is not None and how
    introduced = INTRODUCED and how and texts is not None and lines is not None  # the way a purpose's colon introduces
    kinds = [] if question is None or how or texts is None or not DECLARED else _asked_kind(question)
    declared = bool(_DECLARED_KINDS.intersection(kinds))  # a declaration's name, not its keywords
    called = bool(_FUNCTION_KINDS.intersection(kinds))  # nor its parameters, return type or receiver
    condition = None if question is None else sentence.return_condition(question)
    subject = None if question is None else sentence.defined(question)
    name = None if question is None or condition is not None else sentence.returned(question)
    several = COORDINATION and question is not None and sentence.asks_several(question)
    blocks = None if texts is None else [paragraphs(t, p.offsets) for t, p in zip(texts, passages, strict=True)]
    if sentence_weight is None:
        sentence_weight = sentence.WEIGHT if passage_bias is not None else sentence.WEIGHT_GIVEN
    ranked = texts is not None and question is not None and sentence_weight > 0
    spans = best_spans(start_logits, end_logits, batch, max(top_k + spare, CANDIDATES) if ranked else top_k + spare,
                       max_answer_tokens, passage_bias, windows, null_weight, blocks,
                       PER_PASSAGE if ranked and passage_bias is not None else 0)
    found: list[Answer] = []
    for s in spans:
        offsets = passages[s.passage].offsets
        start, end = int(offsets[s.token_start, 0]), int(offsets[s.token_end, 1])
        if texts is not None:
            start, end = shape(texts[s.passage], start, end, question)
            if widen and start < end:
                start, end = whole_code(texts[s.passage], code[s.passage], start, end)
            if condition is not None and start < end:
                start, end = sentence.conditioned_value(texts[s.passage], start, end, condition)
        found.append(Answer(s.passage, start, end, s.score))
    if ranked:
        # across retrieved passages a heading's span still tells which passage answers; within it, not what
        found = _by_sentence(found, question, texts, sentence_weight, titles if passage_bias is None else None, marks,
                             lines, cosines if passage_bias is not None else None,  # the choice of passage only
                             pages, CODE if passage_bias is not None else CODE_WITHIN)
    listing = None if not ranked else _listing(question)
    if ranked and passage_bias is None and found and listing is not None:
        found = _entry_named(found, question, texts, lines, listing, cosines)
    if TABLE and ranked and passage_bias is None and found:
        found = _table_answer(found, question, texts, lines)
    # the passages run (the cascade may have stopped before the others): a rule that chooses a passage by its text
    # alone chooses among these
    read = set(np.asarray(batch.passage_index).tolist()) if ranked and passage_bias is not None else set()
    if AGREEMENT and ranked and passage_bias is not None and found:
        found = _first(replace(_agreed(found, texts), score=found[0].score), found)
    owner = asked_owner(question) if ranked and passage_bias is not None and titles is not None else None
    if owner is not None and found:
        found = _owned_passage(found, owner, texts, titles)
    if RETURN_FIRST and ranked and passage_bias is not None and found and name is not None:
        found = _stating_return(found, name, texts, titles, read)
    if RETURNS_LABEL and ranked and passage_bias is None and found and name is not None:
        found = _labelled_return(found, name, texts, titles)
    if ranked and passage_bias is not None and found:
        found = _within_chosen_passage(found, start_logits, end_logits, batch, passages, max_answer_tokens, texts,
                                       windows, question, titles, marks, lines, pages, cosines)
        if ENTRY_NEXT_DOOR and pages is not None and listing is not None:
            # every passage run, its windows said to hold an answer or not: a neighbour is weighed for its entries'
            # text, not for the reader's spans (a numpydoc parameter list's second chunk, "no answer" to the reader)
            found = _entry_next_door(found, question, texts, lines, pages, read, listing)
    if PARAMETER_TYPE and ranked and found:
        found = _parameter_type(found, question, texts)
    if CHOICE and ranked and found:
        found = _offered_answer(found, question, texts)
    if CONDITIONED and ranked and found:
        found = _conditioned_answer(found, question, texts)
    out: list[Answer] = []
    for a in found:
        if len(out) == top_k:
            break
        if subject is not None and texts is not None and a.start < a.end:  # after the ranking: it chose the span
            a = replace(a, end=sentence.definition_end(texts[a.passage], subject, a.start, a.end))
        if name is not None and texts is not None and a.start < a.end:  # the same: a return value's whole phrase
            title = None if titles is None else titles[a.passage]
            described = sentence.return_description(texts[a.passage], name, a.start, a.end, title)
            if described is not None:  # numpydoc's "name : type" line: the description under it says what it is
                a = replace(a, start=described[0], end=described[1])
            else:
                a = replace(a, end=sentence.return_end(texts[a.passage], name, a.start, a.end, title))
        if introduced and a.start < a.end:  # the same: the way its purpose introduces
            way = introduced_line(texts[a.passage], lines[a.passage], a.start, a.end)
            if way is not None:
                a = replace(a, start=way[0], end=way[1])
        if declared and a.start < a.end:  # the same: the name a declaration's line declares
            named = declared_name(texts[a.passage], a.start, a.end, called)
            if named is not None:
                a = replace(a, start=named[0], end=named[1])
        if several and texts is not None and a.start < a.end:  # the same: a list's every item
            start, end = sentence.coordination(texts[a.passage], a.start, a.end)
            a = replace(a, start=start, end=end)
        if texts is not None and (a.start == a.end or any((b.passage, b.start, b.end) == (a.passage, a.start, a.end)
                                                         for b in out)):
            continue  # white space only, or the same text as a better span once trimmed
        out.append(a)
    return out


# "What type is the n_init parameter of KMeans?", "What type is the `ax` argument ...?": the name before the noun
_PARAMETER_TYPE_QUESTION = re.compile(r"\btypes?\b[^?]*?\b(?:the\s+)?[`'\"]?([A-Za-z_]\w*)[`'\"]?\s+"
                                      r"(?:parameter|argument|option|attribute|keyword|field)s?\b", re.IGNORECASE)


def _parameter_type(found: list[Answer], question: str, texts: Sequence[str]) -> list[Answer]:
    """``found`` with, first, the type on the numpydoc line of the parameter the question asks the type of
    (``_PARAMETER_TYPE_QUESTION``, ``sentence.parameter_type``): "n_init : 'auto' or int, default=10" gives "'auto' or
    int", from the best span's passage or, where it has none, the first
    other passage ranked that has one, at the best span's score; as it was for a question about what something
    returns, or where no passage has that line."""
    asked = _PARAMETER_TYPE_QUESTION.search(question)
    if asked is None or sentence.returned(question) is not None:
        return found
    for p in dict.fromkeys(a.passage for a in found):  # the best span's passage first, then as ranked
        typed = sentence.parameter_type(texts[p], asked.group(1))
        if typed is not None:
            return _first(Answer(p, typed[0], typed[1], found[0].score), found)
    return found


def _conditioned_answer(found: list[Answer], question: str, texts: Sequence[str]) -> list[Answer]:
    """``found`` with its best span replaced, at its score, by the value its passage gives under the condition the
    question asks (``sentence.asked_condition``, ``sentence.conditioned_answer``); as it was where there is none, or
    where the question asks for a default ("What does pam_nologin return when no file exists, by default?": "Return
    PAM_SUCCESS if no file exists" is an option's)."""
    asked = sentence.asked_condition(question)
    a = found[0]
    if asked is None or a.start == a.end or sentence.asks_default(question):  # "... by default?": not an option's
        return found
    start, end = sentence.conditioned_answer(texts[a.passage], asked, a.start, a.end)
    if (start, end) == (a.start, a.end):
        return found
    return _first(Answer(a.passage, start, end, a.score), found)


def _asks_entry(question: str) -> bool:
    """Whether a question asks which entry of a list does something (``ENTRY_QUESTION``), not its type or default."""
    return (ENTRY_QUESTION.search(question) is not None and not asks_type(question)
            and not sentence.asks_default(question))


def _listing(question: str) -> Listing | None:
    """The entries the entry choice weighs for ``question``: a list's (``LIST_ENTRIES``) where it asks which parameter
    or option (``_asks_entry``), API entries (``API_ENTRIES``) where it asks which function, method or class
    (``API_QUESTION``) or how to do something (``HOW_QUESTION``), not a default; None for any other question, or with
    the listing's switch (``ENTRY``, ``API_ENTRY``) off: each gates its own."""
    if ENTRY and _asks_entry(question):
        return LIST_ENTRIES
    if (API_ENTRY and (API_QUESTION.search(question) or HOW_QUESTION.search(question))
            and not sentence.asks_default(question)):
        return API_ENTRIES
    return None


def _among(listed: list[tuple[int, int, int]], start: int, end: int) -> bool:
    """Whether a span lies among the entries ``listed``: from the first one's name to the end of the last one's text."""
    return bool(listed) and listed[0][0] <= start and end <= listed[-1][2]


def _entry_named(found: list[Answer], question: str, texts: Sequence[str],
                 lines: Sequence[np.ndarray | None] | None = None, listing: Listing = LIST_ENTRIES,
                 cosines: Callable[[Sequence[str]], Sequence[float]] | None = None) -> list[Answer]:
    """``found`` with its best span replaced by the name of the entry its passage lists that the question asks about
    (``asked_entry`` over ``listing``'s entries; where its terms name none, with ``cosines``, the entry its meaning
    points to: ``meant_entry``), at the best span's score; as it was where there is no such entry."""
    a = found[0]
    block = None if lines is None else lines[a.passage]
    named = asked_entry(question, texts[a.passage], a.start, a.end, block, listing)
    if named is None and cosines is not None:
        named = meant_entry(texts[a.passage], a.start, a.end, cosines, block, listing)
    if named is None:
        return found
    best = Answer(a.passage, named[0], named[1], a.score)
    return _first(best, found)


def _entry_next_door(found: list[Answer], question: str, texts: Sequence[str],
                     lines: Sequence[np.ndarray | None] | None, pages: Sequence[tuple[str, int] | None],
                     read: set[int], listing: Listing = LIST_ENTRIES) -> list[Answer]:
    """``found`` with its best span replaced by the name of an entry of a passage next to the chosen one (its
    document's chunk before or after, among the passages ``read``) where the entries (``listing``'s: a list's by
    default) of the chosen passage and of those weighed together (``_best_entry``) put one of a neighbour's first; as
    it was otherwise (``ENTRY_NEXT_DOOR``), and where the listing does not allow replacing the best span
    (``Listing.allows``: API entries, a span outside the chosen passage's own)."""
    a = found[0]
    page = pages[a.passage]
    if page is None:
        return found
    near = [i for i in sorted(read) if pages[i] is not None and pages[i][0] == page[0]
            and abs(pages[i][1] - page[1]) == 1]
    if not near:
        return found
    own = listing(texts[a.passage], None if lines is None else lines[a.passage])
    if not listing.allows(own, a.start, a.end):
        return found
    listed = [(a.passage, x, z, stop) for x, z, stop in own] + [
        (i, x, z, stop) for i in near for x, z, stop in listing(texts[i], None if lines is None else lines[i])]
    if len(listed) < 2:
        return found
    mine = [k for k, (i, x, z, _) in enumerate(listed) if i == a.passage and x <= a.start and a.end <= z]
    best = _best_entry(question, [texts[i][x:stop] for i, x, _, stop in listed], mine,
                       [texts[i][x:z] for i, x, z, _ in listed])
    if best is None or listed[best][0] == a.passage:
        return found  # within the chosen passage the entry choice has had its say (``_entry_named``)
    i, x, z, _ = listed[best]
    return _first(Answer(i, x, z, a.score), found)


def _table_answer(found: list[Answer], question: str, texts: Sequence[str],
                  lines: Sequence[np.ndarray | None] | None = None) -> list[Answer]:
    """``found`` with its best span replaced by the table cell its passage gives for the question
    (``table.table_cell``: the column asked for, the row the question's terms point to), at the best span's score; as
    it was where there is none."""
    a = found[0]
    cell = table.table_cell(question, texts[a.passage], None if lines is None else lines[a.passage])
    if cell is None or cell == (a.start, a.end):
        return found
    return _first(Answer(a.passage, cell[0], cell[1], a.score), found)


def _offered_answer(found: list[Answer], question: str, texts: Sequence[str]) -> list[Answer]:
    """``found`` with its best span replaced by the alternative its passage writes (``sentence.offered_in``), where
    the question asks to choose (``sentence.choice``) and that span is none of the alternatives: the one whose
    sentence holds most of the question's terms, then the nearest the span. Where that passage writes none, the next
    passage of ``found`` (retrieved passages, in the order their spans rank) that writes one in a sentence holding
    some of the question's terms answers, nearest its own best span of those tied ("off" of auto_failback's entry,
    where the chosen passage was auto_failback_interval's); as it was otherwise."""
    alternatives = sentence.choice(question)
    a = found[0]
    if not alternatives or sentence.is_offered(texts[a.passage][a.start:a.end], alternatives):
        return found
    bests: dict[int, Answer] = {}
    for c in found:  # each passage's best span, passages in the order of their best
        bests.setdefault(c.passage, c)
    for b in bests.values():
        text = texts[b.passage]
        places = sentence.offered_in(text, alternatives)
        if not places:
            continue
        shares = sentence.overlaps(question, [text], [(0, x, z) for x, z in places])
        best = max(range(len(places)), key=lambda k: (shares[k], -abs(places[k][0] - b.start)))
        if b.passage == a.passage or shares[best] > 0:
            return _first(Answer(b.passage, *places[best], a.score), found)
    return found


def _labelled_return(found: list[Answer], name: str, texts: Sequence[str],
                     titles: Sequence[str | None] | None) -> list[Answer]:
    """``found`` with its best span on a line under ``name``'s "Returns:" label (``sentence.under_returns_label``, or
    numpydoc's "name : type" line there: ``sentence.return_description``) first, at the best span's score, where the
    best is not on one: the Returns section, not a summary line's "Return ..." (``RETURNS_LABEL``); as it was
    otherwise."""
    def labelled(a: Answer) -> bool:
        text, title = texts[a.passage], None if titles is None else titles[a.passage]
        return a.start < a.end and (sentence.return_description(text, name, a.start, a.end, title) is not None
                                    or sentence.under_returns_label(text, name, a.start, title))

    return _first_where(found, labelled)


def _stating_return(found: list[Answer], name: str, texts: Sequence[str],
                    titles: Sequence[str | None] | None, read: set[int] | None = None) -> list[Answer]:
    """``found`` with its best span that says what ``name`` returns (``sentence.states_return``, each passage's title
    read as its entry's; or numpydoc's "name : type" line under "Returns:" whose description does:
    ``sentence.return_description``) first, at the best span's score; as it was where the best says so or none
    does. With ``RETURNS_LABEL``, one under the entry's "Returns:" label first (``_labelled_return``), even where the
    best says so in a summary line or in prose."""
    if RETURNS_LABEL:
        moved = _labelled_return(found, name, texts, titles)
        if moved is not found:
            return moved

    def says(a: Answer) -> bool:
        text, title = texts[a.passage], None if titles is None else titles[a.passage]
        return a.start < a.end and (sentence.states_return(text, name, a.start, title)
                                    or sentence.return_description(text, name, a.start, a.end, title) is not None)

    if says(found[0]):
        return found
    best = next((a for a in found[1:] if says(a)), None)
    if best is None and RETURNS_SECTION and read:  # none of the best spans: a passage read holding its Returns section
        best = next((Answer(p, *at, found[0].score) for p, text in enumerate(texts) if p in read
                     and (at := sentence.returns_section(text, name, None if titles is None else titles[p]))), None)
    return found if best is None else _first(replace(best, score=found[0].score), found)


def _first_where(found: list[Answer], test: Callable[[Answer], bool], sure: float = 0.0) -> list[Answer]:
    """``found`` with its best span that passes ``test`` first, at the best span's score, where the best does not
    pass and that span has at least ``sure`` of the best's probability; ``found`` itself otherwise."""
    if test(found[0]):
        return found
    best = next((a for a in found[1:] if test(a)), None)
    if best is None or best.score < sure * found[0].score:
        return found
    return _first(replace(best, score=found[0].score), found)


def _first(best: Answer, found: list[Answer]) -> list[Answer]:
    """``best`` in place of ``found``'s first answer, the others after it as ranked, less any with its span."""
    return [best] + [b for b in found[1:] if (b.passage, b.start, b.end) != (best.passage, best.start, best.end)]


_NOT_WORD = re.compile(r"\W+")


def _agreed(found: list[Answer], texts: Sequence[str]) -> Answer:
    """The best-ranked span of the answer text ``found``'s probabilities agree on most: the spans grouped by their
    text, case and punctuation aside ("TimeLimit" and "TimeLimit."), each group's scores summed (``AGREEMENT``);
    ``found[0]`` where its own group is the largest."""
    groups: dict[str, list[Answer]] = {}
    for a in found:
        groups.setdefault(_NOT_WORD.sub(" ", texts[a.passage][a.start:a.end]).strip().casefold(), []).append(a)
    best = max(groups.values(), key=lambda g: sum(a.score for a in g))  # the first such group where tied
    return best[0]


def _within_chosen_passage(found: list[Answer], start_logits: np.ndarray, end_logits: np.ndarray, batch: Batch,
                           passages: Sequence, max_answer_tokens: int, texts: Sequence[str],
                           windows: np.ndarray | None, question: str,
                           titles: Sequence[str | None] | None,
                           marks: Sequence[np.ndarray | None] | None = None,
                           lines: Sequence[np.ndarray | None] | None = None,
                           pages: Sequence[tuple[str, int] | None] | None = None,
                           cosines: Callable[[Sequence[str]], Sequence[float]] | None = None) -> list[Answer]:
    """Two stages for retrieved passages: ``found``'s best span chooses the passage (spans of every passage read,
    ``passage_bias`` and the sentence term at ``sentence.WEIGHT``; ``answers_from_logits`` has put first the best span
    of the answer text they agree on most, with ``AGREEMENT``, and then a return question's span that says what it
    returns: ``_agreed``, ``_stating_return``), then the answer is the span that passage alone gives, decoded as if
    the request had named it (its windows only, the reader's own probabilities, the sentence term at
    ``sentence.WEIGHT_GIVEN``, the code lift at ``CODE_WITHIN``). The answer takes the place and the score of the
    first stage's best span (how sure the reader is of that passage's answer among all spans read), which it
    supersedes; the other spans follow as ranked."""
    chosen = found[0].passage
    rows = np.flatnonzero(np.asarray(batch.passage_index) == chosen)  # its windows alone: a batch of one passage
    own = replace(batch.rows(rows), passage_index=np.zeros(len(rows), dtype=np.int64))  # passage 0 of [chosen]
    mine = None if windows is None else np.asarray(windows, dtype=bool)[rows]
    inner = answers_from_logits(np.asarray(start_logits)[rows], np.asarray(end_logits)[rows], own,
                                [passages[chosen]], 1, max_answer_tokens, None, [texts[chosen]], mine,
                                question=question, sentence_weight=sentence.WEIGHT_GIVEN,
                                titles=None if titles is None else [titles[chosen]],
                                marks=None if marks is None else [marks[chosen]],
                                lines=None if lines is None else [lines[chosen]],
                                pages=None if pages is None else [pages[chosen]], cosines=cosines)
    if not inner:
        return found
    a = inner[0]
    best = Answer(chosen, a.start, a.end, found[0].score)
    return _first(best, found)


def _by_sentence(found: list[Answer], question: str, texts: Sequence[str], weight: float,
                 titles: Sequence[str | None] | None = None,
                 marks: Sequence[np.ndarray | None] | None = None,
                 lines: Sequence[np.ndarray | None] | None = None,
                 cosines: Callable[[Sequence[str]], Sequence[float]] | None = None,
                 pages: Sequence[tuple[str, int] | None] | None = None,
                 code: float | None = None) -> list[Answer]:
    """``found`` ranked again with the sentence term, the echo, the heading, the code, the option, the name's words,
    the type, the definition, the default, the return value and, with the passages' (document, chunk) ``pages``, the
    project's name (``answers_from_logits``), then, with ``cosines``, by the meaning of the best ones' sentences
    (``_by_sentence_cosine``), best first. ``code``: the code lift's size (``CODE`` where None; ``answers_from_logits``
    gives ``CODE_WITHIN`` where one passage's spans are ranked)."""
    if not found:
        return found

    def each(test) -> np.ndarray:  # one value per span, ``test(text, answer)``
        return np.asarray([test(texts[a.passage], a) for a in found], dtype=np.float64)

    bonus = weight * np.asarray(sentence.overlaps(question, texts, [(a.passage, a.start, a.end) for a in found]))
    alternatives = sentence.offered(question)  # "on or off": an answer offered is the question's words, not an echo
    bonus -= sentence.ECHO * each(lambda t, a: sentence.echoes(question, t[a.start:a.end])
                                  and not (alternatives and sentence.is_offered(t[a.start:a.end], alternatives)))
    if titles is not None:
        bonus -= HEADING * each(lambda t, a: in_heading(t, titles[a.passage], a.start, a.end))
    asks_name = NAME_QUESTION.search(question) is not None
    default_asked = sentence.asks_default(question)
    if asks_name and any(m is not None and len(m) for m in (*(marks or ()), *(lines or ()))):
        how = HOW_QUESTION.search(question) is not None  # a way: a block's command line; otherwise a name, no statement
        inline, block = marks or [None] * len(texts), lines or [None] * len(texts)
        lift = CODE if code is None else code  # CODE_WITHIN within one passage (``answers_from_logits``)
        bonus += lift * each(lambda t, a: is_code(t, inline[a.passage], a.start, a.end)
                             or (is_code(t, block[a.passage], a.start, a.end)
                                 and (how or not any(c.isspace() for c in t[a.start:a.end].strip()))))
    if OPTION_QUESTION.search(question):
        bonus += OPTION * each(lambda t, a: is_option(t[a.start:a.end]))
    type_asked = asks_type(question)
    if PARAMETER and asks_name and PARAMETER_QUESTION.search(question) and not type_asked and not default_asked:
        bonus += PARAMETER * each(lambda t, a: is_parameter(t, a.start, a.end))
    kind_asked = KIND_QUESTION.search(question) is not None
    if NAME_PIECES and kind_asked:
        words = _plain_words(question)
        bonus += NAME_PIECES * each(lambda t, a: name_pieces_share(question, t[a.start:a.end], words))
    if TYPE and asks_name and not type_asked:
        bonus -= TYPE * each(lambda t, a: in_type_position(t, a.start, a.end))
    if SIGNATURE_VALUE and not default_asked:
        bonus -= SIGNATURE_VALUE * each(lambda t, a: is_signature_value(t, a.start, a.end))
    if DEFAULT and default_asked:
        entry_read = any(sentence.names_entry(texts[p], question) for p in {a.passage for a in found})
        bonus += DEFAULT * each(lambda t, a: sentence.states_default(t, question, a.start, a.end)
                                and sentence.default_owner(t, question, a.start, entry_read))
    if MEANS and HOW_QUESTION.search(question):
        bonus += MEANS * each(lambda t, a: sentence.states_means(t, a.start))
    if CALL_PARAMETER and _CALLED_KINDS.intersection(_asked_kind(question)):
        bonus -= CALL_PARAMETER * each(lambda t, a: in_parameter_list(t, a.start, a.end))
    if FILE_NAME and kind_asked:
        bonus -= FILE_NAME * each(lambda t, a: is_file_name(t[a.start:a.end]))
    if DEFAULT_SUBJECT and default_asked and not kind_asked:
        words = _plain_words(question)
        bonus -= sentence.ECHO * each(lambda t, a: names_subject(question, t[a.start:a.end], words))
    name = sentence.returned(question)
    condition = sentence.return_condition(question)
    if CONDITION and condition is not None:
        bonus += CONDITION * each(lambda t, a: sentence.conditioned(t, a.start, a.end, condition))
    if RETURN and name is not None:
        bonus += RETURN * each(lambda t, a: sentence.states_return(t, name, a.start,
                                                                   None if titles is None else titles[a.passage]))
    if ALTERNATIVE and alternatives:
        bonus += ALTERNATIVE * each(lambda t, a: sentence.is_offered(t[a.start:a.end], alternatives))
    subject = sentence.defined(question)
    if DEFINITION and subject is not None:
        bonus += DEFINITION * each(lambda t, a: sentence.introduces(t, subject, a.start))
    if PROJECT and pages is not None:
        owners = [frozenset() if page is None else project_words(page[0]) for page in pages]
        bonus -= PROJECT * each(lambda t, a: is_project_name(t[a.start:a.end], owners[a.passage]))
    scores = np.asarray([a.score for a in found], dtype=np.float64)
    lifted = scores * np.exp(bonus)
    lifted = lifted / (1.0 + (lifted - scores).sum())  # the other spans' mass as it was
    order = np.argsort(-lifted, kind="stable")
    ranked = [Answer(found[i].passage, found[i].start, found[i].end, float(lifted[i])) for i in order]
    if cosines is not None and SENTENCE_COSINE:
        ranked = _by_sentence_cosine(ranked, texts, cosines)
    return ranked


@functools.lru_cache(maxsize=256)
def project_words(doc_id: str) -> frozenset[str]:
    """The lower-cased words (letters and digits, at least one letter: "libglib2.0-doc"'s "0" is a version, not a
    name) of the folders a document id names: "python-setuptools-doc/userguide/ext_modules.html" -> python,
    setuptools, doc, userguide; none for a document at the top."""
    return frozenset(w for folder in doc_id.split("/")[:-1] for w in re.split(r"[^0-9a-z]+", folder.lower())
                     if not w.isdigit() and w)


def is_project_name(span: str, words: frozenset[str]) -> bool:
    """Whether ``span`` is one word of ``words`` (``project_words``), compared without case, unless it is written in
    capitals, more than one letter of them ("DEBUG" in the folder "debug": a variable, not the package)."""
    span = span.strip()
    return span.lower() in words and not (span.isupper() and len(span) > 1)


def _by_sentence_cosine(ranked: list[Answer], texts: Sequence[str],
                        cosines: Callable[[Sequence[str]], Sequence[float]]) -> list[Answer]:
    """``ranked`` (best first) ranked again by the meaning of its best ``SENTENCE_COSINE_TOP`` spans' sentences
    (``sentence.sentence_of``): each score times exp(``SENTENCE_COSINE`` x (its sentence's cosine to the question,
    ``cosines`` of the distinct sentences, - the best)), a span below the top counted at the lowest of them; as it
    was, embedding nothing, where one of the top spans lies in a passage with a line break (not one paragraph of
    prose: ``SENTENCE_COSINE``), where they all lie in one passage (no choice of passage to weigh: the one chosen
    would be the same) or in one sentence."""
    top = ranked[:SENTENCE_COSINE_TOP]
    if any("\n" in texts[a.passage] for a in top) or len({a.passage for a in top}) < 2:  # prose; a choice to weigh
        return ranked
    said = [sentence.sentence_of(texts[a.passage], a.start, a.end) for a in top]
    distinct = list(dict.fromkeys(said))
    if len(distinct) < 2:  # one sentence: every cosine the same, no score would move
        return ranked
    of = dict(zip(distinct, (float(c) for c in cosines(distinct)), strict=True))
    cos = np.asarray([of[t] for t in said] + [min(of.values())] * (len(ranked) - len(top)), dtype=np.float64)
    moved = np.asarray([a.score for a in ranked], dtype=np.float64) * np.exp(SENTENCE_COSINE * (cos - cos.max()))
    order = np.argsort(-moved, kind="stable")
    return [replace(ranked[i], score=float(moved[i])) for i in order]


def no_answer_margin(start_logits: np.ndarray, end_logits: np.ndarray, batch: Batch,
                     max_answer_tokens: int = 30) -> float:
    """How much likelier "no answer" is than the best span, in raw logits (``decode.null_score``'s
    margin): the model abstains where it is above the artifact's threshold, chosen on it at build time."""
    return null_score(start_logits, end_logits, batch, max_answer_tokens).margin


@dataclass(frozen=True)
class Verdict:
    """Whether the passages hold no answer, and which windows say that they hold one."""

    above: bool  # the margin is above the threshold: no answer
    probability: float  # ``decode.no_answer_probability`` of the margin
    answering: np.ndarray  # one bool per window: its own margin is at or below the threshold


def no_answer_verdict(start_logits: np.ndarray, end_logits: np.ndarray, batch: Batch,
                      threshold: float | np.ndarray, max_answer_tokens: int = 30) -> Verdict:
    """Whether the passages hold no answer (no window's margin, ``decode.window_margins``, at or below its threshold),
    the probability behind that decision (``decode.no_answer_probability``), and the windows an answer may come from.
    ``threshold`` is one number for every window, or one per window (``pipeline.Reading.window_thresholds``: a window
    whose document lacks a name the question gives answers by a lower one); the deciding window is the one whose
    margin is furthest below its own (with one threshold, ``decode.deciding_window``'s)."""
    null, span = window_margins(start_logits, end_logits, batch, max_answer_tokens)
    own = np.broadcast_to(np.asarray(threshold, dtype=np.float64), null.shape)
    with np.errstate(invalid="ignore"):
        answering = np.isfinite(span) & (null - span <= own)
    # -inf spans give +inf margins, never the minimum; with no span at all, the lowest [CLS] score decides
    w = int(np.argmin(null - span - own)) if np.isfinite(span).any() else int(np.argmin(null))
    return Verdict(not answering.any(), no_answer_probability(float(null[w] - span[w]), float(own[w])), answering)
