"""Errors a caller can cause or must know about, each with its HTTP status.

``function/http/main.py`` turns them into ``{"error": {"code", "status", "message"}}``
responses in one place; anything else becomes a 500 with no details.
"""

from __future__ import annotations


class QAError(Exception):
    """``message`` goes to the client; ``log_message`` (default: the same) to the log.

    A message that quotes strings from the request body (field names, passage
    ids) gives a ``log_message`` without them: logs hold no more of a caller's
    text than the question clipped to QA_LOG_TEXT_CHARS.
    """

    http_status = 500
    status = "INTERNAL"

    def __init__(self, message: str, details: dict | None = None, headers: dict | None = None,
                 log_message: str | None = None):
        super().__init__(message)
        self.message = message
        self.details = details or {}
        self.headers = headers or {}
        self.log_message = log_message or message

    def body(self) -> dict:
        error = {"code": self.http_status, "status": self.status, "message": self.message}
        if self.details:
            error["details"] = self.details
        return {"error": error}


class BadRequest(QAError):
    http_status = 400
    status = "INVALID_ARGUMENT"


class NotFound(QAError):
    http_status = 404
    status = "NOT_FOUND"


class NothingMatched(NotFound):
    """No stored passage matches a question asked alone. The service answers it "no answer" (a 200 whose
    ``no_answer.reason`` is this message), not an error; code that searches the store directly may treat
    it as the ``NotFound`` it is."""


class MethodNotAllowed(QAError):
    http_status = 405
    status = "METHOD_NOT_ALLOWED"


class TokenizerMismatch(QAError):
    http_status = 409
    status = "FAILED_PRECONDITION"


class EncoderMismatch(QAError, ValueError):
    """The retrieval index's vectors and the configured sentence encoder do not match: another encoder made them,
    or they have another size, or one side has none. A configuration to mend, named in the message."""

    http_status = 409
    status = "FAILED_PRECONDITION"


class PayloadTooLarge(QAError):
    http_status = 413
    status = "PAYLOAD_TOO_LARGE"


class UnsupportedMediaType(QAError):
    http_status = 415
    status = "UNSUPPORTED_MEDIA_TYPE"


class Unavailable(QAError):
    """A dependency is down or broken; the client may retry later."""

    http_status = 503
    status = "UNAVAILABLE"

    def __init__(self, message: str, retry_after_s: int = 5, details: dict | None = None):
        super().__init__(message, details, {"Retry-After": str(retry_after_s)})


class StoreUnavailable(Unavailable):
    """The passage store did not answer within its deadline."""


class ArtifactError(Unavailable):
    """The model artifact is missing, incomplete or does not match its manifest."""

    def __init__(self, message: str, details: dict | None = None):
        super().__init__(message, retry_after_s=60, details=details)
