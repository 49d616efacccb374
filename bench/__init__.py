"""Measurements of the function: ``python -m bench <command>`` (``bench/cli.py`` lists them; bench/README.md).

``bench.harness`` is what the tests and the measurements share to run the
function: the launcher, the memory reader, percentiles, the HTTP client, the
Firestore emulator.
"""
