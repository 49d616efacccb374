"""Tools beside the product for comparing two builds or two checkouts.

A study that has answered its question leaves its record in records/ and its conclusion in docs/;
its code is retired, and records/README.md names the commit that removed it (rerun it from the
commit before: ``git checkout COMMIT^ -- experiments/NAME.py``).

    python -m experiments.paired_f1 BASELINE_ARTIFACT OTHER_ARTIFACT...
        dev F1 of int8 artifacts on the same questions, with a paired bootstrap interval of the
        differences: whether a build report's F1 difference is more than the dev set's noise
    python -m experiments.before_after BEFORE_DIR [AFTER_DIR] --out OUT
        two checkouts' function served in turn: cold start and warm latency, interleaved
        (records/bench/before_after/)

Nothing in function/, build_model/ or bench/ imports them; tests/test_before_after.py keeps the
comparison of checkouts working (what a refactoring of the request path is checked with).
"""
