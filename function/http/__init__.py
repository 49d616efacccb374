"""The HTTP side: what functions-framework calls, and the request format.

- ``main``: the target ``answer`` (the repository's ``main.py`` re-exports it): routes,
  health and readiness, JSON responses and errors, the request log line, the eager load;
- ``request``: the JSON body read under its size limit and validated into the service's ``QARequest``;
- ``openapi.yaml``: the API as OpenAPI 3 (a test keeps it in step with ``request``).

The answering itself is ``function.service``; errors are ``function.errors``.
"""
