"""The measurement harness: what the tests and the benchmarks both need to run the function.

    launch     FunctionServer: functions-framework (or the image's CMD) on a free loopback port,
               with an environment, a readiness wait and a stop of its whole process tree;
               free_port, tool, ingest (``python -m function.ingest`` with an environment)
    client     HTTP requests with client-side latency; sequential and concurrent runs
    proctree   resident memory of a process tree, from /proc
    stats      percentiles and other summaries of measured values
    firestore  the Firestore emulator on a free port, and the environment that points at it

It lives in ``bench/`` because measuring is what it is for; the tests import
it from here (tests may import bench, never the other way round). Standard
library only, so that importing it adds nothing to what is measured.
"""
