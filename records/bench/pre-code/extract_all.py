"""The extracted text of every HTML page of the benchmark's caches, pickled (path -> text).

python extract_all.py OUT.pkl [CACHE ...] from a checkout (the sandbox's caches: /work/cache/docs-bench, docs-bench2,
docs-mk, docs-fmt); run it at two commits and compare the pickles.
"""

import os
import pathlib
import pickle
import sys

sys.path.insert(0, os.getcwd())
from function.ingest.extract import extract  # noqa: E402

out = {}
for root in sys.argv[2:] or ("build/docs-bench",):
    for p in pathlib.Path(root).glob("*/corpus/**/*"):
        if p.suffix.lower() not in (".html", ".htm", ".xhtml") or not p.is_file():
            continue
        try:
            out[str(p.relative_to(root))] = extract(p.name, p.read_bytes()).text
        except Exception as e:  # noqa: BLE001 - a page that fails is recorded as such
            out[str(p.relative_to(root))] = f"ERR {type(e).__name__}"
pickle.dump(out, open(sys.argv[1], "wb"))
print(len(out))
