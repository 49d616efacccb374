import re, sys
import numpy as np
sys.path.insert(0, "/work/study")
import proto
from function.model import reader, sentence

W = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
_PIECE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_CODEY = re.compile(r"[_.:#]|[a-z][A-Z]")
_WORD = re.compile(r"[A-Za-z]+")

def pieces(name):
    return [p.lower() for p in _PIECE.findall(name)]

def matches(piece, words):
    return any(piece == w or (min(len(piece), len(w)) >= 3 and (w.startswith(piece) or piece.startswith(w))) for w in words)

from function.retrieval.terms import terms
_TOKEN = re.compile(r"[\w.:#+/-]+")
KIND = {"function", "functions", "method", "methods", "class", "classes", "option", "options", "flag", "flags",
        "parameter", "parameters", "argument", "arguments", "setting", "settings", "variable", "variables", "value",
        "values", "macro", "macros", "constant", "constants", "type", "types", "name", "names", "command", "commands",
        "field", "fields", "property", "attribute", "key", "keyword", "module", "package", "file", "directory",
        "event", "hook", "header", "item", "code", "switch", "decorator", "exception", "error"}

def plain_words(question):
    plain = " ".join(t for t in _TOKEN.findall(question) if not _CODEY.search(t.strip(".:/-")))
    return [w for w in terms(plain) if w not in KIND]

KIND_QUESTION = re.compile(
    r"^\s*(?:which|what)\b(?:\s+(?!(?:is|are|was|were|does|do|did|can|could|should|would|will|must|may)\b)[\w.'-]+)"
    r"{0,4}?\s+(?:functions?|methods?|class(?:es)?|macros?|constructors?|decorators?|procedures?|routines?|commands?|"
    r"parameters?|arguments?|args?|kwargs?|keywords?|options?|flags?|switch(?:es)?|settings?|variables?|constants?|"
    r"hooks?|events?|fields?|propert(?:y|ies)|attributes?|exceptions?|directives?|hints?|enums?)\b", re.IGNORECASE)
_IDENT = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*")

def share(question, span):
    span = span.strip()
    if not _IDENT.fullmatch(span) or not _CODEY.search(span) or span.lower() in question.lower():
        return 0.0
    ps = [p for p in pieces(span) if len(p) >= 2]
    if len(ps) < 2:
        return 0.0
    words = plain_words(question)
    return sum(matches(p, words) for p in ps) / len(ps)

orig = reader._by_sentence
def patched(found, question, texts, weight, titles=None, marks=None, lines=None):
    out = orig(found, question, texts, weight, titles, marks, lines)
    if not out or not KIND_QUESTION.search(question):
        return out
    bonus = np.asarray([W * share(question, texts[a.passage][a.start:a.end]) for a in out])
    if not bonus.any():
        return out
    scores = np.asarray([a.score for a in out])
    lifted = scores * np.exp(bonus)
    lifted = lifted / (1.0 + (lifted - scores).sum())
    order = np.argsort(-lifted, kind="stable")
    return [reader.Answer(out[i].passage, out[i].start, out[i].end, float(lifted[i])) for i in order]

before = proto.decode_all()
reader._by_sentence = patched
after = proto.decode_all()
proto.report(before, after)
