"""Span features for a learned re-ranking of the reader's n best within one passage (study)."""
import re
import numpy as np
from function.model.reader import NAME_QUESTION, OPTION_QUESTION, HOW_QUESTION, is_option

Q = {
    "name": NAME_QUESTION,
    "option": OPTION_QUESTION,
    "how": HOW_QUESTION,
    "default": re.compile(r"\bdefaults?\b|\bby default\b", re.I),
    "return": re.compile(r"\breturns?\b", re.I),
    "raise": re.compile(r"\braises?\b|\bexceptions?\b", re.I),
    "yesno": re.compile(r"^\s*(?:is|are|does|do|can|will|should|must)\b", re.I),
    "define": re.compile(r"^\s*what\s+(?:is|are)\s+(?:an?\s+|the\s+)?[\w.-]+(?:\s+[\w.-]+)?\s*(?:in\s+[\w .-]+)?\?\s*$", re.I),
    "number": re.compile(r"\bhow\s+(?:many|much|long)\b|\b(?:maximum|minimum|longest|largest|size|number|port|limit)\b", re.I),
    "what_does": re.compile(r"^\s*what\s+does\b", re.I),
}
IDENT = re.compile(r"^[`'\"]?[A-Za-z_$@%<][\w.$:@/<>%-]*(?:\(\))?[`'\"]?$")
CODEY = re.compile(r"[_.:/()<>$%@]|[a-z][A-Z]|^[A-Z0-9_]{2,}$")
NUMBER = re.compile(r"^[~+-]?[\d][\d.,:x]*\s*[A-Za-z%]{0,12}$")
SIG = re.compile(r"\w\(.+\)|→|->")
WORD = re.compile(r"[A-Za-z0-9_]+")


def _words(s):
    return [w.lower() for w in WORD.findall(s)]


SHAPES = ["ident", "codey", "number", "sig", "one_word", "few_words", "many_words", "multiline", "pipe", "option",
          "in_code", "line_start", "whole_line", "echo", "quoted", "after_default", "after_return", "after_colon",
          "sentence_like", "title_word"]


def shapes(question, text, start, end, marks, title=""):
    s = text[start:end]
    w = _words(s)
    qw = set(_words(question))
    line_s = text.rfind("\n", 0, start) + 1
    line_e = text.find("\n", end)
    line_e = len(text) if line_e < 0 else line_e
    before = text[max(line_s, start - 30):start].lower()
    tw = set(_words(title or ""))
    f = {
        "ident": float(bool(IDENT.match(s)) and " " not in s),
        "codey": float(bool(CODEY.search(s)) and " " not in s.strip()),
        "number": float(bool(NUMBER.match(s.strip()))),
        "sig": float(bool(SIG.search(s))),
        "one_word": float(len(w) <= 1),
        "few_words": float(2 <= len(w) <= 4),
        "many_words": float(len(w) >= 9),
        "multiline": float("\n" in s),
        "pipe": float(" | " in s),
        "option": float(is_option(s)),
        "in_code": float(any(a <= start and end <= b for a, b in marks)),
        "line_start": float(text[line_s:start].strip(" -*•\t") == ""),
        "whole_line": float(text[line_s:start].strip(" -*•\t") == "" and text[end:line_e].strip(" .:;,") == ""),
        "echo": (sum(x in qw for x in w) / len(w)) if w else 0.0,
        "quoted": float(s[:1] in "'\"`" or s[-1:] in "'\"`"),
        "after_default": float("default" in before),
        "after_return": float("return" in before),
        "after_colon": float(before.rstrip().endswith((":", "=", "–", "-"))),
        "sentence_like": float(len(w) >= 5 and s.rstrip().endswith(".")),
        "title_word": (sum(x in tw for x in w) / len(w)) if w else 0.0,
    }
    return f


def names(interactions=True):
    out = ["logscore", "rank0"] + SHAPES
    if interactions:
        out += [f"{q}*{sh}" for q in Q for sh in SHAPES]
    return out


def vector(question, text, start, end, marks, score, best, rank, title="", interactions=True):
    sh = shapes(question, text, start, end, marks, title)
    v = [np.log(max(score, 1e-9) / max(best, 1e-9)), float(rank == 0)] + [sh[k] for k in SHAPES]
    if interactions:
        qs = {q: bool(r.search(question)) for q, r in Q.items()}
        v += [sh[k] * qs[q] for q in Q for k in SHAPES]
    return np.asarray(v, dtype=np.float64)
