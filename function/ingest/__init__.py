"""Ingestion: documents into passages in the store, tokenised once with the artifact's tokenizer.

``python -m function.ingest`` (``cli``; usage there) runs it; a passage goes through:

- ``sources``: the input files (local, ``gs://``) listed (``list_inputs``) and read (``read_bytes``);
- ``documents``: a file's bytes into ``DocumentUnit``s (``from_file``), via ``json_input`` (JSON, JSON Lines,
  SQuAD) or ``extract`` and ``split`` (text, Markdown, reStructuredText, HTML, PDF); records a caller holds via
  ``from_records``;
- ``shard``: this Cloud Run task's share of the files and documents (``Shard``), read into the job, and what
  ``--sync`` deletes;
- ``ingestion``: ``Ingestion.add`` queues documents, ``Ingestion.flush`` tokenises and writes them
  (``upsert_many``, stale passages, document records): the one write path;
- ``progress``: the bar or log lines, and the counts.
"""
