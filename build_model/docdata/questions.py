"""Templates: an entry -> questions, each with the text that holds its answer (its anchor).

A ``QSpec``'s answer is ``anchor[offset:offset + len(answer)]``; ``build`` finds the anchor in a passage of
the page (ignoring white space), so the answer is a span of the passage text. ``musts`` must be in the same
passage too (the description a "which" question paraphrases), and a passage that also holds ``prefer`` (the
entry's signature, for a parameter's line) is taken first.

Kinds: ``which`` (the entry's name from its description), ``return``, ``raise``, ``default``, ``param`` (a
parameter's name from its description, or its description from its name), ``option`` (a command's or
package's option from its description), ``command`` (a command from its NAME line), ``definition`` (what a
class or attribute is).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from build_model.docdata.entries import Entry, Param, norm


@dataclass
class QSpec:
    question: str
    answer: str
    anchor: str
    offset: int
    kind: str
    musts: list[str] = field(default_factory=list)
    prefer: list[str] = field(default_factory=list)


# Verbs that documentation descriptions start with ("Return ...", "Creates ..."), in their base form.
VERBS = frozenset("""
accept access acquire activate add adjust allocate allow append apply assign attach authenticate begin bind block
build calculate call cancel change check choose clean clear clone close collect combine commit compare compile
complete compress compute configure connect construct consume contain convert copy count create decode decompress
decorate define delete deliver describe deserialize deserialise destroy detach detect determine disable discard
disconnect dispatch display do download drop dump emit enable encode encrypt decrypt end ensure enter evaluate
execute exit expand export extend extract fetch fill filter find finish fire flush force format forward free
generate get give group handle hash hide hold identify ignore implement import include increment decrement indicate
initialize initialise insert inspect install instantiate invoke iterate join keep kill list listen load lock log
look lookup make manage map mark match measure merge modify monitor move normalize normalise notify open optimize
output override pack parse pass patch pause perform pick ping poll pop post prepare prepend print process produce
provide publish pull push put query quote raise read receive record redirect reduce refresh register reject release
reload remove rename render reopen repeat replace report represent request require reset resolve restart restore
resume retrieve retry return reverse revoke rewind roll rotate run save scan schedule search seek select send
serialize serialise serve set setup show shut shutdown sign skip sleep sort specify split start stop store strip
submit subscribe suppress swap switch sync synchronize take tell terminate test throw toggle trace track transform
translate truncate try turn unbind unescape escape unlink unload unlock unpack unquote unregister unsubscribe
unwrap update upgrade upload use validate verify wait walk warn watch wrap write yield lowercase uppercase
capitalize
""".split())

_ROLE_NOUNS = {
    "function": ("function", "function"), "method": ("method", "method"), "class": ("class", "class"),
    "exception": ("exception", "exception class"), "attribute": ("attribute", "attribute"),
    "property": ("property", "attribute"), "decorator": ("decorator", "decorator"), "macro": ("macro", "macro"),
    "type": ("type", "type"), "member": ("member", "field"), "variable": ("variable", "variable"),
    "constant": ("constant", "value"), "option": ("option", "option"), "setting": ("setting", "configuration value"),
    "environment variable": ("environment variable", "environment variable"), "parameter": ("parameter", "setting"),
    "command": ("command", "command"), "signal": ("signal", "signal"),
    "processing instruction": ("processing instruction", "processing instruction"),
}
_CALLABLE = {"function", "method", "decorator", "macro"}


def third_person(verb: str) -> str:
    if verb == "be":
        return "is"
    if verb == "have":
        return "has"
    if verb == "do":
        return "does"
    if re.search(r"(s|sh|ch|x|z|o)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


def base_form(word: str) -> str | None:
    """The base form of a verb given in its base or third-person form, if it is a known documentation verb."""
    w = word.lower()
    candidates = [w]
    if w.endswith("ies"):
        candidates.append(w[:-3] + "y")
    if w.endswith("es"):
        candidates.append(w[:-2])
    if w.endswith("s"):
        candidates.append(w[:-1])
    return next((c for c in candidates if c in VERBS), None)


_ABBREV = re.compile(r"\b(e\.g|i\.e|etc|vs|cf|approx|incl|ca)\.$", re.I)


def first_sentence(text: str, max_words: int = 30) -> str:
    """The first sentence, without its final stop; '' if it is longer than ``max_words`` words."""
    text = norm(text)
    for m in re.finditer(r"[.!?](?=\s+[A-Z(`\"'\[]|\s*$)|:(?=\s*$)", text):
        if _ABBREV.search(text[: m.end()]) or re.search(r"\d\.$", text[: m.end()]):
            continue
        text = text[: m.start()]
        break
    text = text.strip().rstrip(".:;,")
    return text if 0 < len(text.split()) <= max_words else ""


def sentences(text: str) -> list[str]:
    out, pos = [], 0
    for m in re.finditer(r"[.!?](?=\s+[A-Z(`\"'])", text):
        if _ABBREV.search(text[: m.end()]):
            continue
        out.append(text[pos: m.end()].strip())
        pos = m.end()
    out.append(text[pos:].strip())
    return [s for s in out if s]


def _lower_first(text: str) -> str:
    if len(text) > 1 and text[1].isupper():
        return text
    return text[:1].lower() + text[1:]


_FINITE = re.compile(r"\b(is|are|was|were|will|can|could|should|must|may|has|have|does|do)\b")


@dataclass
class Predicate:
    third: str  # "returns a string ..."
    base: str | None  # "return a string ..." (None when not a verb phrase)
    np: str | None  # "a string ..." when the description is a noun phrase


def predicate(description: str) -> Predicate | None:
    s = first_sentence(description)
    if not s or len(s.split()) < 3:
        return None
    m = re.match(r"^(?:This|The) (?:function|method|class|attribute|property|option|decorator|macro|call|"
                 r"command|setting|parameter|flag)\s+(.*)$", s)
    if m:
        rest = m.group(1)
        verb = base_form(rest.split()[0])
        if verb:
            return Predicate(rest, verb + rest[len(rest.split()[0]):], None)
        if rest.split()[0] in ("is", "can", "will", "should", "may", "does"):
            return Predicate(rest, None, None)
        return None
    words = s.split()
    first = words[0]
    if first.lower() in ("a", "an", "the") and _FINITE.search(s):
        return None
    if first.lower() in ("a", "an", "the") and first[0].isupper():
        return Predicate("is " + _lower_first(s), None, _lower_first(s))
    if first.lower() in ("a", "an", "the"):
        return Predicate("is " + s, None, s)
    verb = base_form(first.strip(",")) if re.fullmatch(r"[A-Za-z]+", first) else None
    if verb is None and len(words) > 1 and re.fullmatch(r"[A-Z][a-z]{3,}[^s]e?s", first) and \
            re.fullmatch(r"the|a|an|every|all|each|whether|its|this|that|any|one|no", words[1]):
        return Predicate(first.lower() + s[len(first):], None, None)  # "Lowercases every part": a verb
    if verb is None:
        return None
    rest = s[len(first):]
    if first.lower() == verb:  # imperative: "Return a string"
        return Predicate(third_person(verb) + rest, verb + rest, None)
    return Predicate(first.lower() + rest if first[0].isupper() else first + rest, verb + rest, None)


def _leaks(question: str, entry: Entry) -> bool:
    q = question.lower()
    names = {entry.short.lower().strip("-"), entry.name.lower().strip("-")}
    return any(n and re.search(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])", q) for n in names)


def _q(text: str) -> str:
    text = norm(text).rstrip(" .:;,")
    return text[:1].upper() + text[1:] + "?"


def _display(entry: Entry, rng: random.Random) -> str:
    """How a question names the entry: its name, sometimes its short name, with () for a callable."""
    name = entry.name if rng.random() < 0.6 else entry.short
    if entry.role in _CALLABLE and rng.random() < 0.5 and not name.endswith(")"):
        name += "()"
    return name


def _name_offset(entry: Entry, answer: str) -> int:
    return entry.signature.find(answer)


_EMITTED = re.compile(r"\b(?:is )?emit(?:s|ted)(?: this signal)?(?: by \w+)? "
                      r"((?:when|whenever|after|before|if|to) .+)$")


def which_questions(entry: Entry, rng: random.Random, package: str = "") -> list[QSpec]:
    """The entry's name from its description: "Which function returns ...?" (kind ``which``, ``option``,
    ``command``), and for a noun-phrase description "What is NAME?" (kind ``definition``)."""
    out: list[QSpec] = []
    pred = predicate(entry.description)
    if entry.role == "signal":
        pred = Predicate("is emitted", None, None)
    if pred is None or entry.role not in _ROLE_NOUNS:
        return out
    noun = _ROLE_NOUNS[entry.role][rng.random() < 0.3]
    owner = entry.owner if entry.owner and entry.owner.lower() not in entry.name.lower().split(".")[:1] else ""
    answer = entry.name
    kind = {"option": "option", "setting": "option", "environment variable": "option", "command": "command",
            "parameter": "option"}.get(entry.role, "which")
    forms = [f"Which {noun} {pred.third}", f"What {noun} {pred.third}"]
    if entry.role == "option" and owner:
        forms += [f"Which {owner} option {pred.third}", f"Which option of {owner} {pred.third}",
                  f"What option do I give {owner} so that it {pred.third}"]
    elif entry.role == "command":
        forms += [f"Which command {pred.third}", f"What program {pred.third}"]
        if pred.base:
            forms += [f"What command do I use to {pred.base}"]
    elif owner and entry.role in ("method", "attribute", "property"):
        forms += [f"Which {noun} of {owner} {pred.third}", f"What {owner} {noun} {pred.third}"]
        if entry.short in entry.signature:
            answer = entry.short
    if pred.base and entry.role in _CALLABLE | {"class"}:
        base = re.sub(r"^return\b", "get", pred.base)
        forms += [f"What is used to {base}", f"How do I {base}", f"What should I call to {base}",
                  f"How can I {base}"]
        if package:
            forms += [f"How do I {base} with {package}", f"In {package}, what {noun} {pred.third}"]
    if pred.np and entry.role in ("class", "exception", "attribute", "property", "type", "constant", "variable",
                                  "setting", "member"):
        forms += [f"Which {noun} is {pred.np}", f"What {noun} represents {pred.np}"]
        if entry.role in ("attribute", "property", "member"):
            forms += [f"Which {noun} holds {pred.np}"]
    if entry.role == "signal":
        m = _EMITTED.search(first_sentence(entry.description) or "")
        forms = [f"Which signal is emitted {m.group(1)}", f"What signal is emitted {m.group(1)}"] if m else []
        if m and owner:
            forms.append(f"Which {owner} signal is emitted {m.group(1)}")
    rng.shuffle(forms)
    offset = entry.signature.find(answer)
    if offset < 0:
        return out
    desc_key = _key_phrase(entry.description)
    for form in forms:
        question = _q(form)
        if not _leaks(question, entry) and len(question.split()) <= 30:
            out.append(QSpec(question, answer, entry.signature, offset, kind, musts=[desc_key]))
            break
    if pred.np and entry.role in ("class", "exception", "attribute", "property", "setting", "type") \
            and rng.random() < 0.5:
        np_text = first_sentence(entry.description)
        start = entry.description.find(np_text)
        if start >= 0 and len(np_text.split()) <= 25:
            shown = _display(entry, rng)
            question = rng.choice([f"What is {shown}", f"What does {shown} represent", f"What is {shown} for"])
            out.append(QSpec(_q(question), np_text, entry.description, start, "definition",
                             musts=[entry.signature]))
    return out


def _key_phrase(text: str, words: int = 8) -> str:
    return " ".join(norm(text).split()[:words])


_COND = re.compile(r"\s+(?=(?:if|when|unless|otherwise|or None|or raises?|in case|after|before|once)\b)|"
                   r"\s*[,;(]\s*|\s+[–—-]\s+")


def _trim_phrase(text: str, max_words: int) -> tuple[str, str]:
    """(answer phrase, what follows it): the phrase stops at a condition ("if ...") or a comma."""
    text = norm(text).rstrip(".")
    m = _COND.search(text)
    phrase, rest = (text[: m.start()], text[m.start():].strip(" ,;(")) if m else (text, "")
    phrase = phrase.strip().rstrip(".:")
    if not phrase or len(phrase.split()) > max_words:
        return "", ""
    return phrase, rest


_NOT_A_VALUE = {"immediately", "when", "after", "once", "before", "early", "only", "without", "as", "in", "on",
                "to", "from", "control", "back", "here", "there", "then", "true,", "false,"}
_RETURN = re.compile(r"^(?:(?:This|The) (?:function|method|call) )?(?:Returns?|returns?)\s+(?!type\b)(.+)$")


def return_questions(entry: Entry, rng: random.Random) -> list[QSpec]:
    out = []
    shown = _display(entry, rng)
    seen = set()
    for para in entry.paragraphs[:4]:
        for sent in sentences(para)[:3]:
            m = _RETURN.match(sent)
            if not m:
                continue
            phrase, rest = _trim_phrase(m.group(1), 15)
            if not phrase or phrase in seen or phrase.lower() in ("a", "the", "it") or \
                    phrase.split()[0].lower() in _NOT_A_VALUE:
                continue  # "This function returns immediately": when, not what
            seen.add(phrase)
            start = para.find(sent) + m.start(1)
            cond = ""
            if re.match(r"^(if|when|unless)\b", rest) and len(rest.split()) <= 12 and "," not in rest:
                cond = " " + rest
            if not cond and phrase in _BORING:
                continue  # "What does f return?" -> "True" says nothing without its condition
            form = rng.choice([f"What does {shown} return{cond}", f"What is returned by {shown}{cond}",
                               f"What do I get back from {shown}{cond}", f"What does calling {shown} return{cond}"])
            out.append(QSpec(_q(form), phrase, para, start, "return", musts=[entry.signature]))
    if entry.returns:
        text = re.sub(r"^(?:Returns?|Return value)\s*:?\s+", "", first_sentence(entry.returns, 20) or "")
        if text and text not in seen and len(text.split()) <= 20:
            form = rng.choice([f"What does {shown} return", f"What is returned by {shown}",
                               f"What is the return value of {shown}"])
            out.append(QSpec(_q(form), text, entry.returns, entry.returns.find(text), "return",
                             musts=[entry.signature]))
    if entry.rtype and len(entry.rtype.split()) <= 6:
        form = rng.choice([f"What type does {shown} return", f"What is the return type of {shown}"])
        out.append(QSpec(_q(form), entry.rtype, entry.rtype, 0, "return", musts=[entry.signature]))
    return out


_EXC = r"([A-Z][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:Error|Exception|Warning|Exit|Fault|Timeout|Interrupt|" \
       r"Failure|Invalid|NotFound|Denied|Missing|Abort|Cancelled|Conflict)[A-Za-z0-9_]*)"
_RAISE = re.compile(r"\b(?:[Rr]aises?|[Tt]hrows?|will raise|may raise|[Rr]aising)\s+(?:an?\s+|the\s+)?" + _EXC
                    + r"(?:\s+(?:exception|error))?(.*)$")


def raise_questions(entry: Entry, rng: random.Random) -> list[QSpec]:
    out = []
    shown = _display(entry, rng)
    seen = set()
    for para in entry.paragraphs[:5]:
        for sent in sentences(para):
            m = _RAISE.search(sent)
            if not m or m.group(1) in seen:
                continue
            seen.add(m.group(1))
            rest = norm(m.group(2)).rstrip(".")
            cond = f" {rest}" if re.match(r"^(if|when|on|in case|for|unless)\b", rest) and len(rest.split()) <= 14 \
                else ""
            form = rng.choice([f"What does {shown} raise{cond}", f"What exception does {shown} raise{cond}",
                               f"Which error does {shown} raise{cond}", f"What is raised by {shown}{cond}"])
            out.append(QSpec(_q(form), m.group(1), para, para.find(sent) + m.start(1), "raise",
                             musts=[entry.signature]))
    for exc, cond, item in entry.raises:
        if exc in seen:
            continue
        seen.add(exc)
        cond = norm(cond).rstrip(".")
        cond_q = f" {_lower_first(cond)}" if re.match(r"^(if|when|on|in case|for|unless)\b", cond, re.I) and \
            len(cond.split()) <= 14 else ""
        form = rng.choice([f"What does {shown} raise{cond_q}", f"What exception does {shown} raise{cond_q}",
                           f"Which exception is raised by {shown}{cond_q}"])
        out.append(QSpec(_q(form), exc, item, item.find(exc), "raise", musts=[entry.signature]))
    return out


_NOT_A_DEFAULT = {"these", "those", "it", "they", "this", "that", "there", "when", "if", "unless", "so", "as", "we",
                  "you", "all", "both", "only"}
_PLACEHOLDERS = {"sentinel", "_SENTINEL", "NOTHING", "missing", "_missing", "DEFAULT", "_marker"}
_BORING = {"None", "False", "True", "null", "undefined", "0", "''", '""', "()", "[]", "{}"}
_DEFAULT_SENTENCE = re.compile(r"(?:\(|\b)(?:[Dd]efaults? (?:value )?(?:is|to)|[Dd]efault(?: value)?:|[Dd]efaults? =|"
                               r"(?<=\()[Dd]efault(?= )|(?<=, )default(?= ))\s*"
                               r"(.+?)(?=\)|\.\s|\.$|,|;|$)")
_BY_DEFAULT = re.compile(r"(?:^|[,(]\s*)([^\s,()]+(?: [^\s,()]+){0,2}) (?:by default|is the default)\b")


def default_questions(entry: Entry, rng: random.Random) -> list[QSpec]:
    out = []
    shown = _display(entry, rng).removesuffix("()")
    picked = [d for d in entry.defaults if 0 < len(d[1]) <= 30 and re.search(r"\w", d[1]) and d[0] != "params"
              and not d[1].startswith("<") and d[1] not in _PLACEHOLDERS
              and (d[1] not in _BORING or rng.random() < 0.3)]
    rng.shuffle(picked)
    for param, value in picked[:3]:
        needle = f"{param}={value}"
        at = entry.signature.replace(" = ", "=").find(needle)
        if at < 0 or " = " in entry.signature:
            continue
        if entry.role in ("option", "parameter") and param == entry.name:  # a Markdown table's Default column
            continue
        form = rng.choice([f"What is the default value of {param} in {shown}",
                           f"What does the {param} argument of {shown} default to",
                           f"What is {param} set to by default in {shown}",
                           f"If I don't pass {param} to {shown}, what value does it take",
                           f"What is the default {param} of {shown}"])
        out.append(QSpec(_q(form), value, entry.signature, at + len(param) + 1, "default"))
    if entry.default_at is not None:
        anchor, at, value = entry.default_at
        form = rng.choice([f"What is the default value of the {entry.name} parameter",
                           f"What does {entry.name} default to", f"What is {entry.name} set to by default"])
        out.append(QSpec(_q(form), value, anchor, at, "default", musts=[entry.name]))
    # "Defaults to X" in a parameter's or option's own description
    subjects: list[tuple[str, str, Param | None]] = [(entry.name, p, None) for p in entry.paragraphs[:3]]
    subjects += [(p.name, p.anchor, p) for p in entry.params]
    for subject, text, param in subjects:
        m = _DEFAULT_SENTENCE.search(text) or _BY_DEFAULT.search(text)
        if not m:
            continue
        value = re.split(r"\s+\(", m.group(1).strip())[0].rstrip(".")
        if not value.strip("'\"`,;:. ") or len(value.split()) > 8 or value.split()[0].lower() in _NOT_A_DEFAULT \
                or value.lower() in ("the", "a", "it", "this"):
            continue
        start = m.start(1)
        if param is None:
            if entry.role in ("option", "parameter", "setting", "property", "attribute", "environment variable"):
                form = rng.choice([f"What is the default value of {entry.name}", f"What does {entry.name} default to",
                                   f"What is the default of the {entry.name} {entry.role}"])
                if entry.owner:
                    form += rng.choice(["", f" in {entry.owner}"])
            else:
                continue
        else:
            form = rng.choice([f"What is the default value of {subject} in {shown}",
                               f"What does the {subject} parameter of {shown} default to",
                               f"What is the default {subject} for {shown}"])
        out.append(QSpec(_q(form), value, text, start, "default", musts=[entry.signature]))
    return out


def param_questions(entry: Entry, rng: random.Random) -> list[QSpec]:
    out = []
    shown = _display(entry, rng).removesuffix("()")
    params = list(entry.params)
    rng.shuffle(params)
    for p in params[:3]:
        if not p.description or not p.anchor or p.name not in p.anchor or not re.search(r"\w", p.name):
            continue
        desc = first_sentence(re.sub(r"^[\s–—:-]*(?:\((?:optional|required)\)|optional[.:]?|required[.:]?)?[\s–—:-]*",
                                     "", p.description, flags=re.I), 20)
        if not desc or len(desc.split()) < 3:
            continue
        noun = rng.choice(["parameter", "argument"]) if entry.role in _CALLABLE | {"class"} else "option"
        pred = predicate(desc)
        low = _lower_first(desc)
        if pred and pred.base is not None:
            form = f"Which {noun} of {shown} {pred.third}"
        elif re.match(r"^(if|whether|when)\b", low):
            form = f"Which {noun} of {shown} controls {low}" if low.startswith("whether") else \
                f"Which {noun} of {shown} applies {low}"
        elif re.match(r"^(a|an|the)\b", low):
            form = rng.choice([f"Which {noun} of {shown} is {low}", f"What {noun} of {shown} gives {low}"])
        elif not low.split()[0].endswith("ly"):
            form = f"Which {noun} of {shown} sets {low}"
        else:
            continue
        question = _q(form)
        if not re.search(r"(?<![\w-])" + re.escape(p.name) + r"(?![\w-])", question):
            out.append(QSpec(question, p.name, p.anchor, p.anchor.find(p.name), "param", musts=[entry.signature]))
        if rng.random() < 0.25:
            start = p.anchor.find(desc)
            if start > 0:
                form = rng.choice([f"What is the {p.name} {noun} of {shown}", f"What does the {p.name} {noun} of "
                                   f"{shown} mean", f"What is {p.name} in {shown}"])
                out.append(QSpec(_q(form), desc, p.anchor, start, "param", musts=[entry.signature]))
    return out


def option_param_entries(entry: Entry) -> list[Entry]:
    """A Markdown or DocBook entry's options as entries of their own (their "which option" questions)."""
    out = []
    for p in entry.params:
        if p.anchor and p.description and p.name in p.anchor:
            e = Entry(name=p.name, role="option", signature=p.anchor, description=p.description,
                      paragraphs=[p.description], owner=entry.short,
                      defaults=[])
            out.append(e)
    return out


def questions_for(entry: Entry, rng: random.Random, package: str = "") -> list[QSpec]:
    out = which_questions(entry, rng, package)
    out += return_questions(entry, rng)
    out += raise_questions(entry, rng)
    out += default_questions(entry, rng)
    out += param_questions(entry, rng)
    return out
