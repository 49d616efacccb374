"""`python -m bench docs` with the day's reader changes off: PYTHONPATH=. python switch_off.py NAMES ARGS.

NAMES, comma-separated: a reader switch (ENTRY_DEFAULT, CONDITIONED, COORDINATION) set False, or ITEM_HEAD: a list item
no longer heads an entry (``sentence._ITEM_HEAD`` matches nothing). The switch-off runs of this record and of
conditioned-alternatives' (2026-12-05): one clone, one ingestion, each change measured as the difference it makes.
"""

import re
import sys

import function.model.reader as reader
import function.model.sentence as sentence
from bench.docs import main

for name in filter(None, sys.argv[1].split(",")):
    if name == "ITEM_HEAD":
        sentence._ITEM_HEAD = re.compile(r"(?!)")
    elif isinstance(getattr(reader, name, None), bool):
        setattr(reader, name, False)
    else:
        raise SystemExit(f"{name} is not a reader switch")
print("switched off:", sys.argv[1], "reader from", reader.__file__, flush=True)
sys.exit(main(sys.argv[2:]))
