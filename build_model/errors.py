"""The build's errors. ``BuildFailed`` stops the build (the command says ``BUILD FAILED`` and exits 1);
a stage turns the others, raised by the code it calls, into it with its own name in front."""


class BuildFailed(RuntimeError):
    """A check failed: ONNX parity, the int8 quality gate, or a stage's missing input."""


class StudentError(ValueError):
    """The student cannot be made: bad layer choice, or a tokenizer that differs from the teacher's."""


class ParityError(RuntimeError):
    """ONNX logits differ from PyTorch's by more than the stated tolerance."""
