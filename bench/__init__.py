"""Measurements of the function: ``python -m bench <command>`` (``bench/cli.py`` lists them; bench/README.md).

What the tests and the measurements share to run the function (the launcher,
the HTTP client, the memory reader, the Firestore emulator, the image
assembler) is ``harness``, below both; what is here is measurement only.
"""
