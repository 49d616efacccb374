"""Study (not kept): where a sentence ends in documentation. The shipped rule (". " before a capital, digit, quote
or "(") against also ending one at a blank line, at a list item's line, or at every line break; the documentation
dev dump (docs_dump.py), the shipped form of the term.
PYTHONPATH=. python records/bench/sentence/boundaries.py > records/bench/sentence/boundaries.txt   (seconds)"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import sweep as SW  # noqa: E402

import function.model.sentence as S  # noqa: E402

if __name__ == "__main__":
    SW.FORMS = {"outside the span (shipped)": SW.FORMS["outside the span (shipped)"]}
    shipped = S._SENTENCE_END.pattern
    for name, pattern in [("as shipped", shipped),
                          ("also at a blank line", shipped + r"|\n[^\S\n]*\n\s*"),
                          ("also at a blank line or a list item's line",
                           shipped + r"|\n[^\S\n]*\n\s*|\n(?=[^\S\n]*(?:[-*\u2022]|\d+[.)])\s)"),
                          ("also at every line break", shipped + r"|\n\s*")]:
        S._SENTENCE_END = re.compile(pattern)
        print(f"\n== {name}")
        SW.docs()
