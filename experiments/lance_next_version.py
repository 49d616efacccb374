"""What a refresh could cost on Cloud Storage if it looked for the next version instead of listing them.

    python -m experiments.lance_next_version

``LanceIndex`` refreshes with ``latest_version`` (one listing of ``_versions/``, a Class A
request). The alternative counted here: ``checkout_version(v + 1)``, which fails when no newer
version exists. Both are sent to ``bench.gcs_counter.CountingBucket`` (the Cloud Storage stand-in
of ``python -m bench cost lance``) against a small table, and the requests are printed by kind and
billing class, for the case with no new version and with one.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path


def main() -> int:
    import lance

    from bench.gcs_counter import CountingBucket
    from function.retrieval.lance_index import IndexRow, LanceIndex

    with tempfile.TemporaryDirectory() as tmp:
        bucket = CountingBucket(Path(tmp) / "gcs")
        uri = "gs://bucket/ix.lance"
        writer = LanceIndex(uri, timeout_s=60, storage_options=bucket.storage_options)
        writer.upsert([IndexRow(f"p{i}", "d", f"normandy rollo word{i}") for i in range(50)])
        writer.optimize()
        ds = lance.dataset(uri, storage_options=bucket.storage_options)
        ds.to_table(full_text_query="normandy", limit=5, columns=["id", "_score"])
        bucket.take()
        counts = {}
        _ = ds.latest_version  # a property: the listing happens here
        counts["listing (latest_version), nothing new"] = bucket.take()
        try:
            ds.checkout_version(ds.version + 1)
        except OSError:
            pass
        counts["checkout_version(v + 1), nothing new"] = bucket.take()
        writer.upsert([IndexRow("q", "d", "vikings")])
        bucket.take()
        ds.checkout_version(ds.version + 1)
        counts["checkout_version(v + 1), a new version"] = bucket.take()
        bucket.close()
    for what, c in counts.items():
        print(f"{what}: {json.dumps(c['kinds'])}, class A {c['class_a']}, class B {c['class_b']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
