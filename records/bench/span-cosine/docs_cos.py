"""Study: bench docs with + C x cosine(question, passage) in the span bias (patched in the process).

    PYTHONPATH=. python build/s5/docs_cos.py C  [bench docs args...]
"""
import sys
import threading

import numpy as np

from function.retrieval.encoder import SentenceEncoder
from function.retrieval.hybrid import dense_text
from function.service import pipeline

C = float(sys.argv[1])
encoder = SentenceEncoder("encoder")
cache: dict = {}
local = threading.local()
retrieve = pipeline.QAService.retrieve
read_retrieved = pipeline.QAService._read_retrieved


def patched_retrieve(self, question, k, where=None, corpus=None):
    local.question = question
    return retrieve(self, question, k, where, corpus)


def patched_read(self, hits, n_question, model, with_texts=False, corpus=None):
    kept, retrieved, bias = read_retrieved(self, hits, n_question, model, with_texts, corpus)
    todo = [p for p in kept if (p.id, p.text) not in cache]
    if todo:
        for p, v in zip(todo, encoder.embed([dense_text(p.title, p.text) for p in todo])):
            cache[(p.id, p.text)] = v
    q = encoder.embed([local.question])[0]
    cos = np.array([float(cache[(p.id, p.text)] @ q) for p in kept])
    return kept, retrieved, np.asarray(bias) + C * cos


pipeline.QAService.retrieve = patched_retrieve
pipeline.QAService._read_retrieved = patched_read
from bench.docs import main  # noqa: E402

sys.exit(main(sys.argv[2:]))
