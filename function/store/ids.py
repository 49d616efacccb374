"""Which passage ids are valid: the ones a Firestore document id can be. Stdlib only (request path)."""

from __future__ import annotations

import re

# Firestore document ids: no '/', not '.' or '..', not __reserved__, at most 1,500 bytes.
_BAD_ID = re.compile(r"/|^\.\.?$|^__.*__$")
MAX_ID_BYTES = 500


def valid_passage_id(pid: object) -> bool:
    return (isinstance(pid, str) and 0 < len(pid.encode("utf-8", "surrogatepass")) <= MAX_ID_BYTES
            and not _BAD_ID.search(pid) and "\x00" not in pid)
