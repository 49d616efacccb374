"""What a line of a code block is made of, one definition for ingestion, the reader and the build stage's training
questions. Standard library only.

Ingestion marks each line of a code block as one piece of code without its prompt (``Passage.lines``,
``function.ingest.documents.code_lines``); the reader takes the line a sentence's colon introduces as the way a "How do
I ...?" question asks for (``function.model.reader.introduced_line``); ``build_model.docdata.how`` makes the same
shape into training questions, the block's first line the answer. All three read the same prompt and skip the same
lines, so a training answer is cut where serving cuts it. It also spells, once for the reader's rules, how an API
name is written and joined to its owners (``IDENTIFIER``, ``MEMBER_JOINTS``, ``JOINTS``, ``QUALIFIED``).

    >>> PROMPT.match("mydb=> SELECT 1;").end()
    7
    >>> bool(NOT_THE_WAY.match("# Forget everything")), bool(NOT_THE_WAY.match("x.clear()"))
    (True, False)
"""

from __future__ import annotations

import re

# A prompt before a line's code: a shell's "$ ", Python's ">>> " and "... ", psql's "mydb=> ", "postgres=# " and
# "mydb-> ", SQLite's "sqlite> " and "   ...> ", a REPL's "> ", PowerShell's "PS> ", Windows' "C:\> ". Not "# " (a
# comment as often as a root prompt) and not "% " (a comment in TeX, PostScript, MATLAB and Erlang as often as csh's
# prompt).
PROMPT = re.compile(r"(?:\$|>>>|\.\.\.>?|>|[A-Za-z_][\w.-]*[=-]?[#>]|[A-Za-z]:\\[^\s>]*>)[ \t]+")

# A name as an API writes it ("$" too, JavaScript's), and one qualified by its owners as API names join them
# ("os.path.join", "QString::length"); questions, YARD and erl_docgen also join with "#" and ":" ("Mock#expects",
# "maps:find": ``JOINTS``). Joints are regex alternatives, to put inside a group.
IDENTIFIER = r"[A-Za-z_$][\w$]*"
MEMBER_JOINTS = r"\.|::"
JOINTS = r"\.|::|#|:"
QUALIFIED = rf"{IDENTIFIER}(?:(?:{MEMBER_JOINTS}){IDENTIFIER})*"  # qualified or not: "join", "os.path.join"

# A line that is not the way a guide shows: a comment or an import (its block's way comes after it).
NOT_THE_WAY = re.compile(r"(?:#|//|/\*|<!--|import\s|from\s+\S+\s+import\s)")
