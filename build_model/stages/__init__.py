"""The build's stages, in order; each reads the previous one's output and records its own inputs.

1. ``teacher``  fine-tune the large model (or take a QA model as given)
2. ``base``     fine-tune the smaller encoder the student is cut from (optional)
3. ``distil``   train the student on the teacher's soft targets
4. ``export``   ONNX, fused, parity-checked against PyTorch
5. ``quantize`` int8 candidates, the quality gate
6. ``package``  the artifact the function serves, with its manifest and report
"""
