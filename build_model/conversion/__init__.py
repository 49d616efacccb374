"""PyTorch to ONNX: export, fusion, parity checks, and the shipped file's load-time variants."""
