"""What a question asked alone may be restricted to: ``PassageFilter``. Stdlib only (request path).

A request may name documents (their ids), a source prefix and tags (given at
ingestion, ``--tag``); a passage matches when it satisfies every part given:
its document is one of ``documents``, its source starts with ``source_prefix``,
and it has at least one of ``tags``. Every index applies the filter inside its
search (``Searcher.search``), so the ``k`` passages it returns are the best
``k`` that match, not the matching ones among the best ``k`` overall.

Values are compared as they are, never parsed: each index passes them as bound
parameters (SQLite), field values (Firestore) or quoted string literals
(Lance, ``lance_index.quote``), so a quote, ``' OR 1=1 --`` or an FTS5 operator
matches a passage only if its document id, source or tag holds exactly that.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PassageFilter:
    documents: tuple[str, ...] | None = None  # document ids; None: any document
    source_prefix: str | None = None  # None: any source
    tags: tuple[str, ...] | None = None  # None: tagged or not; else at least one of these

    def __bool__(self) -> bool:
        return self.documents is not None or self.source_prefix is not None or self.tags is not None

    def matches(self, doc_id: str, source: str, tags: tuple[str, ...] | list[str]) -> bool:
        """Whether a passage of document ``doc_id`` from ``source`` with ``tags`` is within the filter."""
        return ((self.documents is None or doc_id in self.documents)
                and (self.source_prefix is None or source.startswith(self.source_prefix))
                and (self.tags is None or not set(self.tags).isdisjoint(tags)))

    def key(self) -> dict[str, Any]:
        """The filter as part of an answer's cache key: order and repeats of the values do not matter."""
        parts: dict[str, Any] = {}
        if self.documents is not None:
            parts["documents"] = sorted(set(self.documents))
        if self.source_prefix is not None:
            parts["source_prefix"] = self.source_prefix
        if self.tags is not None:
            parts["tags"] = sorted(set(self.tags))
        return parts

    def describe(self) -> str:
        """The filter in words, for a reply's "no answer" reason (values quoted, at most three of each)."""

        def some(values: tuple[str, ...]) -> str:
            shown = ", ".join(repr(v[:60]) for v in values[:3])
            return shown + (f" and {len(values) - 3} more" if len(values) > 3 else "")

        parts = []
        if self.documents is not None:
            parts.append(f"documents {some(self.documents)}")
        if self.source_prefix is not None:
            parts.append(f"source starting with {self.source_prefix[:60]!r}")
        if self.tags is not None:
            parts.append(f"tagged {some(self.tags)}")
        return "; ".join(parts)
