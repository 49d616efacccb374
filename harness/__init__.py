"""How the function is run outside its image: what the tests, ``make run`` and the benchmarks share.

    paths      where things are in the checkout: the shipped artifact (every launcher's default),
               the sample corpus, main.py
    launch     FunctionServer: functions-framework (or the image's CMD) on a free loopback port,
               optionally on ``cpus`` CPUs (taskset), with an environment, a readiness wait and a
               stop of its whole process tree; free_port, tool, ingest (``python -m function.ingest``)
    client     HTTP requests with client-side latency; a sequential run and the one concurrent-client loop
    proctree   resident memory of a process tree, from /proc
    firestore  the Firestore emulator on a free port, and the environment that points at it
    image      the Dockerfile's images laid out on disk without a container engine, and started

``tests/``, ``scripts/`` and ``bench/`` import it; it imports none of them,
nor ``function/``, which it runs as a process. Standard library only, so
that importing it adds nothing to what is measured. Not in
the wheel: it works on a checkout (the Dockerfile, main.py, samples/), and the
wheel is the product (``function``, ``build_model``); tests, ``make run`` and
``python -m bench`` run from the repository root, which puts it on the path.
"""
