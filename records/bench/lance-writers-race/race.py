"""Four writers upserting into one new Lance table at once, N trials: how often rows are lost.

    CODE_ROOT=CHECKOUT python race.py N
"""

import collections
import multiprocessing
import os
import sys
import tempfile

sys.path.insert(0, os.environ.get("CODE_ROOT", "."))
from function.retrieval.lance_index import IndexRow, LanceIndex  # noqa: E402


def _write(uri: str, task: int) -> None:
    index = LanceIndex(uri)
    for batch in range(4):
        index.upsert([IndexRow(f"t{task}-{batch}-{i}", f"t{task}", f"word{i} task{task} shared") for i in range(50)])
    index.optimize()


def main() -> None:
    import lance

    ctx = multiprocessing.get_context("spawn")
    lost = 0
    trials = int(sys.argv[1])
    for trial in range(trials):
        uri = os.path.join(tempfile.mkdtemp(), "ix")
        writers = [ctx.Process(target=_write, args=(uri, t)) for t in range(4)]
        for w in writers:
            w.start()
        for w in writers:
            w.join(120)
        count = LanceIndex(uri).count()
        if count == 800:
            continue
        lost += 1
        ds = lance.dataset(uri)
        ids = set(ds.to_table(columns=["id"]).column("id").to_pylist())
        wanted = (f"t{t}-{b}-{k}" for t in range(4) for b in range(4) for k in range(50))
        missing = collections.Counter("-".join(i.split("-")[:2]) for i in wanted if i not in ids)
        print("trial", trial, "count", count, "missing", dict(missing), "exitcodes", [w.exitcode for w in writers])
        for v in ds.versions()[:8]:
            print("   ", v.get("version"), v.get("metadata"))
    print("lost in", lost, "of", trials)


if __name__ == "__main__":
    main()
