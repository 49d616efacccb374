"""Measuring the function on questions: SQuAD's EM/F1 (``metrics``), a reply scored and a run's figures
(``scoring``), and ``python -m function.evaluate`` on your own questions file (``questions``, ``cli``)."""
