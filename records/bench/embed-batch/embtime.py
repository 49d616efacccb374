"""Sentences embedded one by one (as SentenceCosines does) against one batch of four: time and difference.

PYTHONPATH=. .venv/bin/python records/bench/embed-batch/embtime.py   (from the repository root, ../shared beside it)
"""
import json
import random
import re
import statistics
import time
from pathlib import Path

import numpy as np

from function.retrieval.encoder import SentenceEncoder

enc = SentenceEncoder(Path("encoder"))
enc.load()
d = json.load(open("../shared/data/squad/dev.json"))
sents = [s for a in d["data"] for p in a["paragraphs"] for s in re.split(r"(?<=[.!?])\s+", p["context"]) if len(s) > 30]
random.seed(0)
random.shuffle(sents)
one, batch, diffs = [], [], []
for trial in range(150):  # fresh sentences each trial: nothing kept by embed_one's cache
    group = sents[trial * 8: trial * 8 + 8]
    a, b = (group[:4], group[4:]) if trial % 2 == 0 else (group[4:], group[:4])  # alternate which goes first
    t0 = time.perf_counter()
    np.stack([enc.embed_one(t) for t in a])
    t1 = time.perf_counter()
    together = enc.embed(b)
    t2 = time.perf_counter()
    one.append((t1 - t0) * 1000)
    batch.append((t2 - t1) * 1000)
    diffs.append(float(np.abs(together[0] - enc.embed([b[0]])[0]).max()))
print(f"4 sentences: one by one p50 {statistics.median(one):.2f} ms, one batch p50 {statistics.median(batch):.2f} ms, "
      f"ratio {statistics.median(batch) / statistics.median(one):.2f}; max |in a batch - alone| {max(diffs):.2e}")
