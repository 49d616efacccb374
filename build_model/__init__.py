"""Build stage: teacher -> distilled student -> ONNX -> int8 -> packaged artifact."""
