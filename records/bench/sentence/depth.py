"""Study (not built): reading ten retrieved passages instead of five, always or only when the best span of the
first five is unsure; SQuAD dev, BM25, the shipped ranking with the sentence term, on the dump of
`squad_dump.py bm25 10`.
PYTHONPATH=. python records/bench/sentence/depth.py > records/bench/sentence/depth.txt   (seconds)"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import sweep as SW  # noqa: E402


def pick(c, r, depth):
    """F1 and softmax probability of the best span among the first ``depth`` passages."""
    c = c[c[:, 4] < depth]
    if not len(c):
        return 0.0, 0.0
    base = c[:, 0] + 8 * c[:, 3] - 0.5 * c[:, 1]  # BM25 / the best one: the first passage's, read either way
    f = SW.features(r["q"], r["t"], [(int(x[8]), int(x[9]), int(x[10])) for x in c], base)
    k = base + 2 * f[:, 0]
    p = np.exp(k - k.max())
    i = int(np.argmax(k))
    return c[i, 7], p[i] / p.sum()


if __name__ == "__main__":
    res = []
    for r in json.loads((SW.DUMPS / "cands-bm25-k10.json").read_text()):
        c = np.array(r["c"]).reshape(-1, 11)
        f5, p5 = pick(c, r, 5) if len(c) else (0.0, 0.0)
        res.append((f5, p5, pick(c, r, 10)[0] if len(c) else 0.0))
    res = np.array(res)
    print(f"read 5: {res[:, 0].mean():.2f}   read 10: {res[:, 2].mean():.2f}")
    for t in (0.3, 0.5, 0.7, 0.9):
        deep = res[:, 1] < t
        f = np.where(deep, res[:, 2], res[:, 0])
        print(f"read the next five when the best of five has p < {t}: {f.mean():.2f} ({deep.mean() * 100:.1f}% read "
              f"ten; odd {f[1::2].mean():.2f}, even {f[0::2].mean():.2f})")
