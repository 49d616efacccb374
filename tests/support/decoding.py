"""Decoding switches for tests that compare the function's answers with a reference implementation."""


def model_own_span(monkeypatch) -> None:
    """Answers as the model's own best span: the reader's ranking by the question's words in each span's sentence
    (``function.model.sentence``), which a reference implementation does not have, off on every path."""
    monkeypatch.setattr("function.model.sentence.WEIGHT", 0.0)
    monkeypatch.setattr("function.model.sentence.WEIGHT_GIVEN", 0.0)
