"""Study: the encoder's cosine between the question and each candidate span's sentence, in the first stage's ranking
(SEM_W: its weight). Runs any `python -m bench` command with the reader patched."""
import contextvars, os, runpy, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import numpy as np
from function.model import reader, sentence
from function.retrieval.encoder import SentenceEncoder

W = float(os.environ.get("SEM_W", "4"))
ENC = SentenceEncoder(Path(__file__).resolve().parents[1] / "encoder", threads=1)
stage1 = contextvars.ContextVar("stage1", default=False)
orig_answers, orig_by_sentence = reader.answers_from_logits, reader._by_sentence

def answers(*a, **kw):
    bias = kw.get("passage_bias", a[6] if len(a) > 6 else None)
    token = stage1.set(bias is not None)
    try:
        return orig_answers(*a, **kw)
    finally:
        stage1.reset(token)

def by_sentence(found, question, texts, weight, titles=None, marks=None):
    ranked = orig_by_sentence(found, question, texts, weight, titles, marks)
    if not stage1.get() or len({a.passage for a in ranked}) < 2 or W == 0:
        return ranked
    cache, sents = {}, []
    for a in ranked:
        s = cache.setdefault(a.passage, sentence.Sentences(texts[a.passage]))
        lo, hi = s._bounds(a.start)
        sents.append(texts[a.passage][lo:hi].strip() or texts[a.passage][a.start:a.end])
    uniq = sorted(set(sents))
    vec = ENC.embed([question] + uniq)
    cos = dict(zip(uniq, vec[1:] @ vec[0]))
    lifted = np.asarray([a.score for a in ranked]) * np.exp(W * np.asarray([cos[t] for t in sents]))
    order = np.argsort(-lifted, kind="stable")
    return [reader.Answer(ranked[i].passage, ranked[i].start, ranked[i].end, float(lifted[i])) for i in order]

reader.answers_from_logits, reader._by_sentence = answers, by_sentence
import function.service.pipeline  # noqa: the pipeline imports answers_from_logits inside _payload: patched module attr
sys.argv = ["bench"] + sys.argv[1:]
runpy.run_module("bench", run_name="__main__")
