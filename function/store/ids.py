"""Which passage ids are valid: the ones a Firestore document id can be. Stdlib only (request path)."""

from __future__ import annotations

import re

# Firestore document ids: no '/', not '.' or '..', not __reserved__, at most 1,500 bytes.
_BAD_ID = re.compile(r"/|^\.\.?$|^__.*__$")
MAX_ID_BYTES = 500


def valid_passage_id(pid: object) -> bool:
    try:  # a lone surrogate (JSON "\ud800") is not UTF-8: no store can hold it as an id
        size = len(pid.encode("utf-8")) if isinstance(pid, str) else 0
    except UnicodeEncodeError:
        return False
    return 0 < size <= MAX_ID_BYTES and not _BAD_ID.search(pid) and "\x00" not in pid
