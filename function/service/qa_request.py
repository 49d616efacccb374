"""The question the service answers (``QARequest``), whatever brought it: ``function.http.parse``
validates one from a JSON body. Stdlib only: nothing heavy on this path."""

from __future__ import annotations

from dataclasses import dataclass

from function.retrieval.filters import PassageFilter


@dataclass(frozen=True)
class QARequest:
    question: str
    context: str | None
    passage_ids: tuple[str, ...] | None  # de-duplicated, in the caller's order
    top_k: int
    max_answer_tokens: int
    top_k_passages: int | None = None  # passages to retrieve: set when neither context nor ids are given
    abstain: bool | None = None  # may the reply say "no answer"; None: the artifact's default
    where: PassageFilter | None = None  # retrieval: only passages within it (documents, source_prefix, tags)
    passages: bool = False  # retrieval: the reply's ``retrieved`` also carries each passage's text

    @property
    def retrieves(self) -> bool:
        return self.context is None and self.passage_ids is None

    @property
    def kind(self) -> str:
        """``context``, ``passage_ids`` or ``retrieval`` (``function.config.REQUEST_KINDS``)."""
        return "context" if self.context is not None else "passage_ids" if self.passage_ids is not None else "retrieval"
