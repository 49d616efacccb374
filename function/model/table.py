"""A table's cell as the answer: the column the question asks for, in the row its terms point to.

Ingestion writes an HTML or Markdown table as rows of cells joined by " | " (``function.ingest.extract``): "Distribution
| Function", "Poisson Distribution | randp", ... A question that asks for what one of the header's cells names
("Which function draws random numbers from a Poisson distribution?": the header's "Function"; "What type does
install_requires take in setup.cfg?": "Type") is answered by that column's cell in the row that holds the question's
other terms best. The reader, trained on prose, reads a row as a sentence and answers with a neighbouring cell or with
a word of the prose around the table ("Octave" for the Poisson question).
"""

from __future__ import annotations

import re

import numpy as np

from function.model import code, sentence
from function.model.decode import in_block
from function.retrieval.terms import terms

# a header cell: one to three plain words, no mark of code, the first a capital ("Function", "Minimum Version"), or
# one word in lower case ("type"); "cat a | grep b" is a pipe, not a header
_HEADER_CELL = re.compile(r"[A-Z][a-z]*(?: [A-Za-z][a-z]*){0,2}|[a-z]+")
_CODE_TOKEN = re.compile(r"[\w.:-]*[_.:][\w.:-]*\w")  # a code-shaped name the question writes ("install_requires")
WIDEST_CELL = 60  # an answer cell longer than this is a description, not a name or a value
_CALL = re.compile(rf"({code.QUALIFIED})[ \t]*\(")  # a signature's name, before "("


# a cell border: "|" with white space or the line's end on both sides ("a | b |"), not one inside a cell
# ("less|greater", "0|1")
_BORDER = re.compile(r"(?<!\S)\|(?!\S)")


def _cells(line: str, at: int) -> list[tuple[int, int]]:
    """The cells of a table row at offset ``at`` of its text, (start, end) each, white space trimmed; a "|" inside
    a cell ("less|greater") is no border (``_BORDER``)."""
    out, start = [], 0
    for end in [m.start() for m in _BORDER.finditer(line)] + [len(line)] if line else []:
        part = line[start:end]
        a = start + len(part) - len(part.lstrip())
        z = start + len(part.rstrip())
        out.append((at + a, at + max(a, z)))
        start = end + 1
    return out


def tables(text: str, block: np.ndarray | None = None) -> list[list[list[tuple[int, int]]]]:
    """The tables of ``text`` that have a header: runs of at least three lines of two or more cells joined by " | ",
    the same number of cells each, the first line's cells all header words (``_HEADER_CELL``), no line in a code
    block (``block``, ``Passage.lines``); each table's rows of cells (``_cells``), its header first."""
    if " | " not in text:  # most passages: no table row at all
        return []
    found, run = [], []
    at = 0
    for line in text.split("\n") + [None]:  # None: the end, where the last run is closed
        row = None
        if line is not None:
            if " | " in line and not in_block(block, at, at + len(line)):
                row = _cells(line, at)
            at += len(line) + 1
        if row is not None and run and len(row) == len(run[0]):
            run.append(row)
            continue
        if len(run) >= 3 and all(_HEADER_CELL.fullmatch(text[a:z]) for a, z in run[0]):
            found.append(run)
        run = [row] if row is not None else []
    return found


def asked_column(question: str, header: list[str]) -> int | None:
    """Which of a table's ``header`` cells the question asks for ("Which function ...?" -> "Function"), its noun
    within the question's first words after "which" or "what" (``sentence.QUESTION_LEAD``), singular or plural; None
    where it asks for none, or for two."""
    hits = []
    for i, cell in enumerate(header):
        words = cell.lower().split()
        if not words:
            continue
        noun = r"\s+".join(re.escape(w) for w in words[:-1]) + (r"\s+" if len(words) > 1 else "")
        noun += re.escape(words[-1].rstrip("s")) + r"(?:s|es)?"
        if re.search(sentence.QUESTION_LEAD + noun + r"\b", question, re.IGNORECASE):
            hits.append(i)
    return hits[0] if len(hits) == 1 else None


def _best_row(question: str, text: str, rows: list[list[tuple[int, int]]], column: int) -> int | None:
    """The row whose cells other than ``column`` hold the question's index terms best, each weighted by how few rows
    hold it (log(1 + rows / rows holding it)): one row ahead of all others holding at least two of them, or the one
    whose first cell is a code-shaped name the question writes ("install_requires"); None otherwise."""
    written = {t.lower() for t in _CODE_TOKEN.findall(question)}
    keyed = [i for i, row in enumerate(rows) if text[slice(*row[0])].lower() in written]
    if len(keyed) == 1 and column != 0:
        return keyed[0]
    asked = sentence.question_terms(question)
    held = [asked & frozenset(t for k, (a, z) in enumerate(row) if k != column for t in terms(text[a:z]))
            for row in rows]
    scores = sentence.rarity_scores(held)
    best = max(range(len(rows)), key=scores.__getitem__)
    if len(held[best]) < 2 or sum(s == scores[best] for s in scores) > 1:
        return None
    return best


def table_cell(question: str, text: str, block: np.ndarray | None = None) -> tuple[int, int] | None:
    """The (start, end) of the cell of one of ``text``'s tables (``tables``) that answers ``question``: the column the
    question asks for (``asked_column``) in the row its terms point to (``_best_row``); None where no table has such a
    column and row, where the cell is empty or longer than ``WIDEST_CELL``, or where two tables answer. A cell that is
    a signature ("leftPad(String str, int size)") gives its name."""
    answers = []
    for table in tables(text, block):
        column = asked_column(question, [text[a:z] for a, z in table[0]])
        if column is None:
            continue
        rows = table[1:]
        best = _best_row(question, text, rows, column)
        if best is None:
            continue
        a, z = rows[best][column]
        call = _CALL.match(text, a, z)
        if call is not None:  # a member summary's "leftPad(String str, int size)": the name
            z = call.end(1)
        if a < z <= a + WIDEST_CELL:
            answers.append((a, z))
    return answers[0] if len(answers) == 1 else None
