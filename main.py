"""Source file for functions-framework and Cloud Functions: the function lives in ``function/``
(the target ``answer`` in ``function/http/main.py``).

    functions-framework --target answer
"""

from function.http.main import answer  # noqa: F401
