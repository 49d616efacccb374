"""Measuring models: EM/F1 through the function's reader (on ``build_model.squad`` data), latency and load time."""
