"""Source file for functions-framework and Cloud Functions: the function lives in ``function/``.

    functions-framework --target answer
"""

from function.main import answer  # noqa: F401
