"""Study (kept with its record): which pages of the documentation-question sources (`python -m build_model.docdata`'s
downloads in build/docdata/pkgs) extract differently. Run once in a checkout of the commit before, once after:
    (cd OLD && python /path/to/survey.py /tmp/old.json 1500)
    python records/bench/extract-list-items/survey.py /tmp/new.json 1500
then compare the "h" hashes (title, text, section headings). 1,500 HTML files under 400 kB, in a seeded order."""
import glob
import hashlib
import json
import os
import random
import sys

sys.path.insert(0, os.getcwd())
from function.ingest.extract import extract  # noqa: E402

files = sorted(glob.glob("/work/main/build/docdata/pkgs/**/*.html", recursive=True))
random.Random(0).shuffle(files)
out = {}
for f in files:
    if len(out) >= int(sys.argv[2]):
        break
    data = open(f, "rb").read()
    if len(data) > 400_000:
        continue
    try:
        d = extract(f, data)
    except Exception:  # noqa: BLE001 - a page that does not extract is left out on both sides
        continue
    key = d.title + "\x00" + d.text + json.dumps([s.heading for s in d.sections])
    out[f] = {"h": hashlib.sha256(key.encode()).hexdigest(), "text": d.text[:100000], "title": d.title}
json.dump(out, open(sys.argv[1], "w"))
print(len(out))
