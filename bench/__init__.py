"""Serving benchmarks: cold start, warm latency and throughput of the function and its alternatives.

``python -m bench`` runs everything (see bench/README.md); ``bench/cold_start.py``
is the cold-start profiler on its own.
"""
