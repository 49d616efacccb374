"""Question-answering training examples made from documentation's own structure (issue 39, point 3).

An API entry (a Sphinx ``<dl>``, a gtk-doc function block, a DocBook variable list, a Markdown option list or
table, a man page's option paragraph) is a signature or a name with a description; templates turn it into
questions whose answer is a span of the passage that ingestion makes of the page: "Which function returns
...?" (the entry's name), "What does NAME return?", "What does NAME raise ...?", "What is the default value of
X in NAME?", "Which option ...?". Each page goes through ``function.ingest`` exactly as ``python -m
function.ingest`` would read it (same extraction, same passage budget), so training sees what serving reads,
with the neighbouring entries of the passage as distractors; about one question in four is also asked of
the best-matching passage of another package that does not hold its answer, as an unanswerable pair
(``negatives``; ``--negatives page`` takes a neighbouring passage of its own page instead, as the first set did).

    python -m build_model.docdata                       # every source of fetch.SOURCES -> build/docqa/train.json
    python -m build_model.docdata --only python-flask-doc --out /tmp/flask.json

The output is SQuAD 2.0's layout plus ``version``/``packages`` and a ``kind`` per question; see ``__main__``.
Sources held back to score the project (the Python standard library's and PostgreSQL's manuals, and the
documentation benchmark's sets) are in ``FORBIDDEN`` and refused wherever a source is named.
"""

from __future__ import annotations

import re

OUTPUT_VERSION = "docqa-1"

# Held back: the Python standard library's documentation and the PostgreSQL manual score the project, and
# the documentation benchmark (bench/docs_sets) asks its questions of these sets.
FORBIDDEN_NAMES = frozenset({
    "python3-doc", "python-doc", "postgresql-doc", "postgresql-client", "python-requests-doc", "git-doc", "git",
    "git-man", "libpam-doc",
    # the later sets of the documentation benchmark (bench/docs_sets: a test checks that each set's packages are here)
    "python-apispec-doc", "python-sortedcontainers-doc", "wireshark-doc", "python-reportlab-doc", "doxygen-doc",
    "asymptote-doc", "pgpool2", "python-funcy-doc", "libcommons-lang3-java-doc", "libsdl2-doc", "octave-doc",
    "python-setuptools-doc", "python-black-doc", "rust-doc", "ghc-doc", "erlang-doc",
    "ruby-mocha-doc", "ruby-cri-doc", "qtbase5-doc-html",
    # npm packages of the documentation benchmark
    "commander", "express", "axios", "yargs", "chalk", "dotenv", "lodash", "ws", "minimist", "debug",
    "semantic-release",
})
FORBIDDEN_PATTERNS = (re.compile(r"^python3\.\d+-doc$"), re.compile(r"^postgresql-doc(-\d+)?$"),
                      re.compile(r"^postgresql(-\d+)?$"))


class ForbiddenSource(ValueError):
    """A source that is held back to score the project was named."""


def is_forbidden(name: str) -> bool:
    """Whether the package ``name`` (Debian or npm) is held back."""
    name = name.strip().lower()
    bare = name.removeprefix("node-")  # Debian's packages of npm modules: node-commander is commander
    return (name in FORBIDDEN_NAMES or bare in FORBIDDEN_NAMES or any(p.match(name) for p in FORBIDDEN_PATTERNS))


def refuse_forbidden(name: str) -> None:
    if is_forbidden(name):
        raise ForbiddenSource(f"{name}: held back to score the project (build_model.docdata.FORBIDDEN_NAMES); "
                              "it must not be used for training")
