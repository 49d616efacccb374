"""Per HTML page under the given folders: distinct section headings, text length and a hash of the extraction.

    python sections.py CODE_ROOT OUT.json FOLDER ...   # CODE_ROOT: a checkout whose function/ extracts
"""

import hashlib
import json
import os
import sys

sys.path.insert(0, sys.argv[1])
from function.ingest.extract import NotDocumentation, extract  # noqa: E402


def digest(d) -> str:
    return hashlib.sha1(json.dumps([d.title, d.text, [(s.heading, s.start, s.end) for s in d.sections],
                                    [(s.kind, s.start, s.end, s.name) for s in d.spans]]).encode()).hexdigest()


def main() -> None:
    out = {}
    for root in sys.argv[3:]:
        for folder, _, files in os.walk(root):
            for f in files:
                if not f.endswith(".html"):
                    continue
                path = os.path.join(folder, f)
                try:
                    d = extract(f, open(path, "rb").read())
                    out[path] = [len({s.heading for s in d.sections}), len(d.text), digest(d)]
                except NotDocumentation:
                    out[path] = ["nav"]
                except Exception as e:  # noqa: BLE001 - counted, as ingestion would report it
                    out[path] = ["ERR " + type(e).__name__]
    json.dump(out, open(sys.argv[2], "w"))
    print(len(out))


if __name__ == "__main__":
    main()
