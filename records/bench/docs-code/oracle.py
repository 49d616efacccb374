"""How many gold answers are a whole inline-code element of their page (or a <dt> term), and for how many of those
the answer given with the right passage is not one: the question this record's rule asked.

    python records/bench/docs-code/oracle.py DEV_DOCS_JSON TEST_DOCS_JSON   (pages under build/docs-bench)
"""

import json
import re
import sys
from pathlib import Path

from lxml import html as lxml_html

ROOT = Path("build/docs-bench")
HTML_CODE = ("//code | //tt | //kbd | //samp | //var | //dt | //*[contains(@class, 'literal')"
             " or contains(@class, 'pre') or contains(@class, 'option') or contains(@class, 'parameter')"
             " or contains(@class, 'command')"
             " or contains(@class, 'filename') or contains(@class, 'varname') or contains(@class, 'function')"
             " or contains(@class, 'term')]")


def norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.strip().strip("`").rstrip("()").lower())


def codes(path: str) -> set[str]:
    page = next(p for s in ("requests", "npm", "git", "pam") if (p := ROOT / s / "corpus" / path).exists())
    if page.suffix == ".md":
        found = re.findall(r"`([^`\n]+)`", page.read_text(errors="replace"))
    else:
        found = [el.text_content() for el in lxml_html.fromstring(page.read_bytes()).xpath(HTML_CODE)]
    return {norm(x) for x in found}


def main() -> None:
    for f in sys.argv[1:]:
        rows = [r for s in json.load(open(f))["sets"] for r in s["rows"]]
        gold_code = given_code = fixable = 0
        for r in rows:
            cs = codes(r["file"])
            gold = any(norm(a) in cs for a in r["answers"])
            given = norm(r["answer_right_passage"] or "") in cs
            gold_code += gold
            given_code += given
            if gold and not given and r["f1_given"] < 0.99:
                fixable += 1
                print(" ", r["id"], r["kind"], r["answers"][0], "|", r["answer_right_passage"][:40])
        print(f, len(rows), "gold is code", gold_code, "given is code", given_code,
              "code gold, non-code answer", fixable)


if __name__ == "__main__":
    main()
