"""Unanswerable pairs from other packages: a question asked of the passage of ANOTHER package that BM25 ranks
first for it (``--negatives corpus``, the default).

The first set of pairs (``--negatives page``) asked a question again of a neighbouring passage of its own page.
A student trained on them abstained on 21.7% of the benchmark's answerable documentation questions: a
neighbouring entry of the same page reads like the answer's (``docs/documents.md``). SQuAD's unanswerable
pairs come from other articles, and a question asked alone whose answer is not in the user's corpus reads
exactly such passages: the best-matching passages of documentation about something else. So these pairs are
made the same way: every context of the merged set is indexed (SQLite FTS5, BM25, the index the function
serves from), a seeded share of the answerable questions searches it, and the best-ranked passage of another
package that holds neither the answer nor a name the question asks about gets the question, with no answer.
Deterministic for a seed; done at merge time, so the per-package records (and their cache) stay as they are.
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Callable

_TERM = re.compile(r"\w+", re.UNICODE)
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[A-Za-z_][\w.:]*\w")
_OPTION = re.compile(r"(?<!\w)--?[A-Za-z][\w-]*")


def _names(question: str) -> list[str]:
    """The question's identifiers (``get_keys``, ``attr.s``, ``OrderedBidict``): another package's entry that
    holds one may answer it (``grl_data_get_keys`` answers "What is returned by get_keys()?"), and its options
    (``--timeout``)."""
    return [w.casefold() for w in _WORD.findall(question)
            if "_" in w or "." in w or "::" in w or any(ch.isupper() for ch in w[1:])] + [
        o.casefold() for o in _OPTION.findall(question)]


def _squeeze(text: str) -> str:
    return _SPACE.sub("", text).casefold()


def _match_query(question: str) -> str:
    """An FTS5 MATCH expression: the question's terms, each quoted (so no term is read as an operator), OR-ed."""
    terms = sorted({t.casefold() for t in _TERM.findall(question) if len(t) > 1})
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def add_corpus_negatives(articles: list[dict], package_of: Callable[[str], str], rate: float, seed: int,
                         depth: int = 30) -> int:
    """Drop same-page unanswerable pairs and add ones from other packages, in place; returns how many were added.

    ``package_of(title)`` names an article's package; ``rate``: the share of answerable questions that get a pair.
    """
    for a in articles:
        for p in a["paragraphs"]:
            p["qas"] = [q for q in p["qas"] if not q["is_impossible"]]
    paragraphs = [(package_of(a["title"]), p) for a in articles for p in a["paragraphs"]]
    if rate <= 0 or len({pkg for pkg, _ in paragraphs}) < 2:
        return 0
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='unicode61')")
    db.executemany("INSERT INTO t(rowid, body) VALUES (?, ?)",
                   ((i, p["context"]) for i, (_, p) in enumerate(paragraphs)))
    squeezed: dict[int, str] = {}
    rng = random.Random(f"{seed}:corpus-negatives")
    added: list[tuple[int, dict]] = []
    for pkg, para in paragraphs:
        for qa in list(para["qas"]):
            if rng.random() >= rate:
                continue
            query = _match_query(qa["question"])
            if not query:
                continue
            banned = [_squeeze(ans["text"]) for ans in qa["answers"]] + _names(qa["question"])
            rows = db.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (query, depth)).fetchall()
            for (j,) in rows:
                other_pkg, other = paragraphs[j]
                if other_pkg == pkg:
                    continue
                text = squeezed.setdefault(j, _squeeze(other["context"]))
                if any(b and b in text for b in banned):
                    continue
                added.append((j, {"id": qa["id"] + "-x", "question": qa["question"], "answers": [],
                                  "is_impossible": True, "kind": "unanswerable"}))
                break
    db.close()
    for j, qa in added:
        paragraphs[j][1]["qas"].append(qa)
    return len(added)
