"""The service: answering a parsed request, and the process state it answers with.

- ``request``: ``QARequest``, the question and what it is asked about (``function.http`` parses it);
- ``pipeline``: ``QAService.answer``: answer cache -> question -> passages (given, stored or
  retrieved) -> one model run -> answers;
- ``cache``: the LRU and the two-tier answer cache (in process, and shared through the store);
- ``runtime``: per-process state created on first use behind a lock: the loaded model
  (``function.model.load``), the store client, the cold-start timings;
- ``background``: work started beside a request or the warm-up (the store's and index's warm-up, a second session,
  a shared-cache write), finished before the process exits.
"""
