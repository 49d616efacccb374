"""Lexical retrieval (BM25) for questions asked without passage ids.

``terms`` turns text into index terms (shared by both stores, at ingestion and
at question time); ``bm25`` holds the ranking formula and its constants. The
stores keep the index next to the passages: SQLite in an FTS5 table ranked by
its built-in ``bm25()``, Firestore in one document per term (see
``function/store/firestore_terms.py``), scored with the same formula here.
"""
