"""Copy a folder of Markdown into a Starlight project's src/content/docs/, each page given the front-matter title
Starlight requires (its first "# " heading, then removed from the body; a README.md becomes index.md).

    python titles.py DOCS_DIR PROJECT/src/content/docs
"""
import glob
import os
import re
import sys

src, dest = sys.argv[1], sys.argv[2]
for f in glob.glob(src + "/**/*.md", recursive=True):
    rel = os.path.relpath(f, src)
    text = open(f).read()
    m = re.search(r"^# (.+)$", text, re.M)
    title = m.group(1).strip() if m else os.path.basename(rel)[:-3]
    if m:
        text = text[:m.start()] + text[m.end():]
    out = os.path.join(dest, re.sub(r"README\.md$", "index.md", rel))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    title = title.replace(":", " -")
    open(out, "w").write(f"---\ntitle: {title}\n---\n{text}")
