"""Measuring models: SQuAD data and EM/F1 through the function's reader, latency and load time."""
