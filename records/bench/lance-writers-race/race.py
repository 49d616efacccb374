"""W writers upserting into one new Lance table, started together, N trials: how often rows are lost.

    CODE_ROOT=CHECKOUT python race.py N [W]

Each writer is the test's (tests/test_lance_index.py): 4 upserts of 50 rows, then ``optimize``, after a barrier, so
that the writers find no table and create it at the same moment. A trial that loses rows prints which writers'
batches are missing and the table's history (each version's operation and the version it was read at).
"""

import collections
import multiprocessing
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.environ.get("CODE_ROOT", "."))
from function.retrieval.lance_index import IndexRow, LanceIndex  # noqa: E402


def _write(uri: str, task: int, start) -> None:
    index = LanceIndex(uri)
    start.wait()
    for batch in range(4):
        index.upsert([IndexRow(f"t{task}-{batch}-{i}", f"t{task}", f"word{i} task{task} shared") for i in range(50)])
    index.optimize()


def main() -> None:
    import lance

    ctx = multiprocessing.get_context("spawn")
    trials, writers = int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 4
    lost = 0
    for trial in range(trials):
        folder = tempfile.mkdtemp()
        uri = os.path.join(folder, "ix")
        start = ctx.Barrier(writers)
        tasks = [ctx.Process(target=_write, args=(uri, t, start)) for t in range(writers)]
        for t in tasks:
            t.start()
        for t in tasks:
            t.join(180)
        count = LanceIndex(uri).count()
        if count != writers * 200:
            lost += 1
            ds = lance.dataset(uri)
            ids = set(ds.to_table(columns=["id"]).column("id").to_pylist())
            wanted = (f"t{t}-{b}-{k}" for t in range(writers) for b in range(4) for k in range(50))
            missing = collections.Counter("-".join(i.split("-")[:2]) for i in wanted if i not in ids)
            print("trial", trial, "count", count, "missing", dict(missing), "exit codes", [t.exitcode for t in tasks])
            for v in ds.versions():
                done = ds.read_transaction(v["version"])
                print("   ", v["version"], type(done.operation).__name__, "read at", done.read_version,
                      "rows", ds.checkout_version(v["version"]).count_rows())
        shutil.rmtree(folder)
    print("lost in", lost, "of", trials, flush=True)


if __name__ == "__main__":
    main()
