import re, sys
import numpy as np
sys.path.insert(0, "/work/study")
import proto
from function.model import reader

W = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
AUX = r"(?:is|are|was|were|does|do|did|can|could|should|would|will|must|may|has|have)"
PLURAL_Q = re.compile(rf"^\s*(?:which|what)\s+((?:[\w.'/-]+\s+){{0,3}}?)([\w'/-]+?s)\s+{AUX}\b", re.IGNORECASE)
ITEM = r"[^\s,=()\[\]{{}}<>;:]+(?:\s+[^\s,=()\[\]{{}}<>;:]+){{0,2}}"
LIST = re.compile(rf"{ITEM}(?:\s*,\s*{ITEM})+(?:,?\s+(?:and|or)\s+{ITEM})?|{ITEM}\s+(?:and|or)\s+{ITEM}".replace("{{", "{").replace("}}", "}"))

def plural(question):
    m = PLURAL_Q.search(question)
    return (bool(m) and not re.search(r"(?:ss|us|is)$", m.group(2), re.IGNORECASE)
            and not re.search(r"\b(?:kind|type|sort|one|each|any)\s+of\s+$", m.group(1), re.IGNORECASE))

def is_list(span, question=""):
    span = span.strip()
    if not LIST.fullmatch(span) or span.lower() in question.lower():
        return False
    return span.count(",") >= 2 or re.search(r"\s(?:and|or)\s", span) is not None

orig = reader._by_sentence
def patched(found, question, texts, weight, titles=None, marks=None, lines=None):
    out = orig(found, question, texts, weight, titles, marks, lines)
    if not out or not plural(question):
        return out
    bonus = np.asarray([W * is_list(texts[a.passage][a.start:a.end], question) for a in out], dtype=float)
    if not bonus.any():
        return out
    scores = np.asarray([a.score for a in out])
    lifted = scores * np.exp(bonus)
    lifted = lifted / (1.0 + (lifted - scores).sum())
    order = np.argsort(-lifted, kind="stable")
    return [reader.Answer(out[i].passage, out[i].start, out[i].end, float(lifted[i])) for i in order]

if __name__ == "__main__":
    for n, (caps, rows) in proto.DATA.items():
        for k, r in rows.items():
            if r["part"] == "dev" and plural(r["question"]):
                print("plural:", r["id"], r["question"][:80], r["answers"][:1])
    before = proto.decode_all()
    reader._by_sentence = patched
    after = proto.decode_all()
    proto.report(before, after, parts=("dev",))
