"""SQuAD v1.1 data, shared by training and evaluation: the JSON reader (articles -> paragraphs ->
questions) and a split's paragraphs tokenised once (``encode_paragraphs``)."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from function.model.tokenizer import Encoded, QATokenizer


@dataclass(frozen=True)
class Paragraph:
    id: str  # "<article index>-<paragraph index>", stable for a given file
    title: str
    context: str


@dataclass(frozen=True)
class Question:
    id: str
    paragraph_id: str
    question: str
    answers: tuple[str, ...]  # gold answer texts (dev has up to three); none: unanswerable (SQuAD 2.0)
    answer_start: int  # character offset of the first gold answer (-1 when unanswerable)
    answer_text: str


@dataclass(frozen=True)
class SquadSplit:
    paragraphs: dict[str, Paragraph]
    questions: list[Question]

    def article_of(self, paragraph_id: str) -> str:
        return paragraph_id.split("-", 1)[0]


class SquadFormatError(ValueError):
    """A data file that is not SQuAD JSON; the message names the file."""


def load_squad(path: str | Path, limit: int | None = None, impossible: bool = False) -> SquadSplit:
    """Read a SQuAD-format file; ``limit`` keeps the first questions (for quick runs). ``impossible``: keep
    SQuAD 2.0's unanswerable questions (``"is_impossible": true``, no answers) too; else they are skipped."""
    try:
        raw = Path(path).read_bytes()
        if str(path).endswith(".gz"):  # a generated training file committed compressed
            raw = gzip.decompress(raw)
        data = json.loads(raw.decode("utf-8"))["data"]
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, gzip.BadGzipFile, EOFError) as e:
        raise SquadFormatError(f"{path} is not a SQuAD-format JSON file ({type(e).__name__}: {e})") from None
    try:
        return _read(data, limit, impossible)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise SquadFormatError(f"{path}: a record lacks or mistypes a SQuAD field ({type(e).__name__}: {e})") from None


def _read(data: list, limit: int | None, impossible: bool = False) -> SquadSplit:
    paragraphs: dict[str, Paragraph] = {}
    questions: list[Question] = []
    for a, article in enumerate(data):
        for p, para in enumerate(article["paragraphs"]):
            pid = f"{a}-{p}"
            paragraphs[pid] = Paragraph(pid, article.get("title", ""), para["context"])
            for qa in para["qas"]:
                golds = qa["answers"]
                if qa.get("is_impossible") and golds:
                    raise ValueError(f"question {qa['id']!r} is marked is_impossible but has answers")
                if not golds:
                    if not (impossible and qa.get("is_impossible")):
                        continue
                    questions.append(Question(qa["id"], pid, qa["question"], (), -1, ""))
                else:
                    first = golds[0]
                    start = int(first["answer_start"])
                    if para["context"][start : start + len(first["text"])] != first["text"]:
                        raise ValueError(f"question {qa['id']!r}: its answer is not at answer_start {start}")
                    questions.append(
                        Question(
                            id=qa["id"],
                            paragraph_id=pid,
                            question=qa["question"],
                            answers=tuple(g["text"] for g in golds),
                            answer_start=start,
                            answer_text=first["text"],
                        )
                    )
                if limit is not None and len(questions) >= limit:
                    return SquadSplit(paragraphs, questions)
    return SquadSplit(paragraphs, questions)


def encode_paragraphs(tok: QATokenizer, split: SquadSplit) -> dict[str, Encoded]:
    """Paragraph id -> its text's token ids and character offsets, for every paragraph of ``split``."""
    ids = list(split.paragraphs)
    encoded = tok.encode_many([split.paragraphs[i].context for i in ids])
    return dict(zip(ids, encoded))
