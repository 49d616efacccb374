"""The HTTP function: http/ (routes, request format), service/ (the answer pipeline, caches, per-process
state), model/ (artifact, tokenizer, ONNX session, windows, decoding), store/, retrieval/, ingest/."""
