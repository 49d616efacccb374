"""Splitting invariants, measured with the shipped artifact's own tokenizer."""

from __future__ import annotations

import random

import numpy as np
import pytest

from function.ingest.extract import Document, Section, extract
from function.ingest.split import TARGET_PASSAGE_TOKENS, TYPICAL_QUESTION_TOKENS, Chunk, budget_from_manifest, split
from function.model.artifact import load_manifest
from function.model.tokenizer import QATokenizer
from tests.conftest import REPO

ARTIFACT = REPO / "artifact"
WORDS = ("the of and a to in is was for on that by with as it from at his an were are which this be or has had "
         "river city north museum station built century king water bridge railway winter market").split()


@pytest.fixture(scope="module")
def tokenizer() -> QATokenizer:
    return QATokenizer(ARTIFACT / "tokenizer.json")


def _sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(WORDS) for _ in range(n)]
    return " ".join([words[0].capitalize(), *words[1:]]) + rng.choice(".!?")


def _paragraph(rng: random.Random, sentences: int) -> str:
    return " ".join(_sentence(rng, rng.randint(4, 40)) for _ in range(sentences))


def _markdown(seed: int = 0, paragraphs: int = 40) -> bytes:
    rng = random.Random(seed)
    parts = ["# Rivers of the North", "An introduction.", "## Bridges"]
    for i in range(paragraphs):
        if i == paragraphs // 2:
            parts += ["## Railways", "### Stations"]
        parts.append(_paragraph(rng, rng.randint(1, 8)))
    parts += ["## Facts", "- first fact here\n- second fact\n- third", "| Name | Length |\n|---|---|\n| Ouse | 84 km |"]
    return "\n\n".join(parts).encode()


def _section_index(doc: Document, pos: int) -> int:
    return next(i for i, s in enumerate(doc.sections) if s.start <= pos < s.end)


def _check(doc: Document, chunks: list[Chunk], tokenizer, max_tokens: int, overlap: bool = True,
           words_spaced: bool = True) -> None:
    """The invariants every split keeps."""
    text = doc.text
    assert [c.index for c in chunks] == list(range(len(chunks)))
    counts = [len(e.ids) for e in tokenizer.encode_many([c.text for c in chunks])]
    assert max(counts) <= max_tokens
    covered = bytearray(len(text))
    for c in chunks:
        assert c.text == text[c.start:c.end] and c.text == c.text.strip() and c.text
        assert c.encoded is not None and list(c.encoded.ids) == list(tokenizer.encode(c.text).ids)
        covered[c.start:c.end] = b"\x01" * (c.end - c.start)
    assert all(covered[i] or ch.isspace() for i, ch in enumerate(text)), "some text is in no passage"
    for a, b in zip(chunks, chunks[1:]):
        assert a.start < b.start and a.end < b.end
        fresh = b.start in {sp.start for sp in doc.spans if sp.kind == "entry"} or text[b.start - 1] == "\n" and (
            text.startswith("- ", b.start) or any(sp.kind == "table" and sp.start <= b.start < sp.end
                                                  for sp in doc.spans))  # an entry, list item or row: no overlap
        if overlap and _section_index(doc, a.end - 1) == _section_index(doc, b.start) and not fresh:
            assert b.start < a.end, f"passages {a.index} and {b.index} of one section do not overlap"
    if words_spaced:  # never inside a word: every passage starts and ends next to white space or the text's ends
        for c in chunks:
            assert c.start == 0 or text[c.start - 1].isspace(), text[c.start - 10:c.start + 10]
            assert c.end == len(text) or text[c.end].isspace(), text[c.end - 10:c.end + 10]


@pytest.mark.parametrize("max_tokens, overlap", [(60, 12), (100, 20), (357, 32)])
def test_invariants_on_a_markdown_document(tokenizer, max_tokens, overlap):
    doc = extract("rivers.md", _markdown())
    chunks = split(doc, tokenizer, max_tokens, overlap)
    assert len(chunks) > 3
    _check(doc, chunks, tokenizer, max_tokens)
    # whole sentences: passages end at a sentence's end, and start at a sentence's first word unless they
    # start with the last words of a sentence too long to repeat whole as the overlap
    for prev, c in zip([None, *chunks], chunks):
        assert c.text[-1] in ".!?" or c.text.endswith(("third", "km", "North", "Bridges", "Railways")), c.text[-40:]
        assert c.text[0].isupper() or (prev and c.start < prev.end), c.text[:40]


def test_titles_carry_the_heading_path(tokenizer):
    doc = extract("rivers.md", _markdown())
    chunks = split(doc, tokenizer, 100, 20)
    titles = {c.title for c in chunks}
    assert "Rivers of the North > Bridges" in titles
    assert "Rivers of the North > Railways > Stations" in titles
    assert "Rivers of the North > Facts" in titles
    facts = next(c for c in chunks if "first fact" in c.text)
    assert facts.title == "Rivers of the North > Facts" and "Ouse | 84 km" in facts.text
    other = split(doc, tokenizer, 100, 20, doc_title="Guide")
    assert other[-1].title == "Guide > Facts"


def test_passages_do_not_cross_a_big_section_boundary(tokenizer):
    doc = extract("rivers.md", _markdown())
    chunks = split(doc, tokenizer, 100, 20)
    bridges = next(s for s in doc.sections if s.heading[-1] == "Bridges")
    for c in chunks:
        assert not (c.start < bridges.end < c.end and "Railways" in c.text), c.text


def test_paragraphs_are_kept_whole_when_they_fit(tokenizer):
    rng = random.Random(3)
    paragraphs = [_paragraph(rng, 2) for _ in range(12)]
    doc = extract("short-paragraphs.txt", ("Notes\n\n" + "\n\n".join(paragraphs)).encode())
    chunks = split(doc, tokenizer, 120, 0)
    _check(doc, chunks, tokenizer, 120, overlap=False)
    for c in chunks:  # with no overlap asked, every passage is whole paragraphs
        assert c.start == 0 or doc.text[c.start - 2:c.start] == "\n\n"
        assert c.end == len(doc.text) or doc.text[c.end:c.end + 2] == "\n\n"


def test_one_sentence_longer_than_a_passage_is_cut_between_words(tokenizer):
    rng = random.Random(1)
    words = " ".join(rng.choice(WORDS) for _ in range(1500))
    doc = extract("run-on.txt", f"Run on\n\n{words}".encode())
    chunks = split(doc, tokenizer, 80, 16)
    assert len(chunks) > 10
    _check(doc, chunks, tokenizer, 80)


def test_cjk_text_without_spaces_is_cut_between_characters(tokenizer):
    text = "東京は日本の首都であり、世界最大の都市圏の一つです。" * 60 + "大阪は商業の中心地として知られています" * 30
    doc = extract("都市.txt", text.encode())
    chunks = split(doc, tokenizer, 70, 14)
    assert len(chunks) > 5
    _check(doc, chunks, tokenizer, 70, words_spaced=False)
    for c in chunks:  # cut between two CJK characters or after punctuation, never inside a Latin word
        assert c.start == 0 or not (doc.text[c.start - 1].isascii() and doc.text[c.start].isascii())


def test_a_short_document_is_one_passage(tokenizer):
    doc = extract("tiny.md", b"# Tiny\n\nOne small paragraph about the river.")
    (chunk,) = split(doc, tokenizer, 357, 32)
    assert chunk.text == doc.text and chunk.title == "Tiny" and (chunk.start, chunk.end) == (0, len(doc.text))


def test_sections_too_small_to_stand_alone_join_the_next(tokenizer):
    rng = random.Random(5)
    body = "\n\n".join(_paragraph(rng, 3) for _ in range(6))
    doc = extract("guide.md", f"# Guide\n\n## Setup\n\nShort.\n\n## Usage\n\n{body}".encode())
    chunks = split(doc, tokenizer, 100, 20)
    _check(doc, chunks, tokenizer, 100)
    assert chunks[0].text.startswith("Guide\n\nSetup\n\nShort.\n\nUsage")
    assert chunks[0].title == "Guide > Usage"



def test_an_entrys_last_subsection_does_not_run_on_into_the_next_entry(tokenizer):
    """gtk-doc gives each function's "Parameters" and "Returns" sections of their own under its heading: a small one
    ending an entry is a passage of its own, titled with its function, not the start of the next function's passage
    (records/bench/docs-entry-tail); subsections of one entry still go together."""
    rng = random.Random(5)
    body = "\n\n".join(_paragraph(rng, 3) for _ in range(4))
    doc = extract("ref.md", f"# Ref\n\n## f_one ()\n\n{body}\n\n### Parameters\n\nwidget: a widget\n\n"
                            f"### Returns\n\nTRUE if it spun.\n\n## f_two ()\n\n{body}".encode())
    chunks = split(doc, tokenizer, 100, 20)
    _check(doc, chunks, tokenizer, 100)
    tail = [c for c in chunks if "TRUE if it spun." in c.text]
    assert len(tail) == 1 and "f_two" not in tail[0].text and tail[0].title.startswith("Ref > f_one ()")
    assert "widget: a widget" in tail[0].text  # the entry's two subsections together
    assert [c for c in chunks if c.text.startswith("f_two ()")]

def test_an_empty_document_has_no_passages(tokenizer):
    assert split(Document("Empty", "", [], "text"), tokenizer, 100, 10) == []
    doc = Document("X", "word", [Section((), 0, 4)], "text")
    assert [c.text for c in split(doc, tokenizer, 100, 10)] == ["word"]


def test_budget_from_manifest_leaves_room_for_a_typical_question():
    manifest = load_manifest(ARTIFACT)
    max_tokens, overlap = budget_from_manifest(manifest)
    seq = manifest.sequence["max_seq_len"]
    assert max_tokens == min(seq - 2 - manifest.pair_seps - TYPICAL_QUESTION_TOKENS, TARGET_PASSAGE_TOKENS)
    assert 0 < overlap <= max_tokens // 4
    raw = {"sequence": {"max_seq_len": 512}, "special_tokens": {"pair_seps": 2}}
    assert budget_from_manifest(raw) == (TARGET_PASSAGE_TOKENS, 32)  # a window of 512 holds more than that
    small = {"sequence": {"max_seq_len": 128}, "special_tokens": {"pair_seps": 2}}
    assert budget_from_manifest(small) == (128 - 4 - TYPICAL_QUESTION_TOKENS, 25)  # the window decides
    with pytest.raises(ValueError):
        budget_from_manifest({"sequence": {"max_seq_len": 32}, "special_tokens": {}})


def test_units_are_tokenised_in_a_few_batches_not_one_call_each(tokenizer):
    """What keeps splitting fast, asserted as calls rather than seconds (benchmarks time it): a 60-paragraph
    document is tokenised in a handful of batched calls, not one call per paragraph or sentence."""
    calls = []

    class Counting:
        def __getattr__(self, name):
            return getattr(tokenizer, name)

        def encode_many(self, texts):
            calls.append(len(texts))
            return tokenizer.encode_many(texts)

    doc = extract("rivers.md", _markdown(seed=7, paragraphs=60))
    chunks = split(doc, Counting(), 357, 32)
    assert chunks and sum(calls) >= 60 and len(calls) <= 4, calls


class _ContextTokenizer:
    """A tokenizer whose count is not the sum of its sentences' (as BPE's can be): one token more per
    sentence end inside a text."""

    def __init__(self, inner: QATokenizer):
        self.inner = inner

    def encode_many(self, texts):
        from function.model.tokenizer import Encoded

        out = []
        for text, enc in zip(texts, self.inner.encode_many(texts)):
            extra = text.count(". ")
            ids = np.concatenate([enc.ids, np.full(extra, 100, dtype=np.int64)])
            offsets = np.concatenate([enc.offsets, np.repeat(enc.offsets[-1:], extra, axis=0)])
            out.append(Encoded(ids, offsets))
        return out


def test_the_limit_holds_for_a_tokenizer_whose_counts_depend_on_context(tokenizer):
    doc = extract("rivers.md", _markdown(seed=2))
    context = _ContextTokenizer(tokenizer)
    chunks = split(doc, context, 100, 20)
    assert max(len(e.ids) for e in context.encode_many([c.text for c in chunks])) <= 100


# ---------------------------------------------------------------- documentation's structure (issue 39)


def _entries_markdown(seed: int = 7, entries: int = 30) -> bytes:
    """An API reference in Markdown: definition-list entries of 10 to 140 words, some with code."""
    rng = random.Random(seed)
    parts = ["# Widget API", "Functions for widgets.", "## Functions"]
    for k in range(entries):
        parts.append(f"`widget_{k}(port, size=4)`")
        body = [_paragraph(rng, rng.randint(1, 5))]
        if k % 5 == 0:
            body.append(f"```python\nfor port in ports:\n    if port:\n        widget_{k}(port)\n```")
            body.append(_paragraph(rng, 1))
        parts.append(":   " + "\n\n".join(body).replace("\n", "\n    "))
    return "\n\n".join(parts).encode()


def _entry_tokens(doc, tokenizer, entry) -> int:
    return len(tokenizer.encode(doc.text[entry.start:entry.end]).ids)


@pytest.mark.parametrize("max_tokens, overlap", [(160, 32), (100, 20)])
def test_an_entry_that_fits_is_kept_in_one_passage_that_starts_at_its_signature(tokenizer, max_tokens, overlap):
    doc = extract("api.md", _entries_markdown())
    entries = [sp for sp in doc.spans if sp.kind == "entry"]
    assert len(entries) == 30
    chunks = split(doc, tokenizer, max_tokens, overlap)
    _check(doc, chunks, tokenizer, max_tokens)
    fitting = [e for e in entries if _entry_tokens(doc, tokenizer, e) <= max_tokens]
    assert len(fitting) >= 10
    for e in fitting:
        holder = [c for c in chunks if c.start <= e.start and e.end <= c.end]
        assert holder, f"entry {e.name} is cut"
    for c in chunks:  # a passage that holds a signature does not start with the end of an entry held whole before
        for e in entries:
            if c.start < e.start < c.end:
                assert not any(o.start < c.start < o.end for o in fitting if o.end <= e.start), c.text[:80]


def test_a_passage_continuing_an_entry_carries_its_name_in_its_title(tokenizer):
    rng = random.Random(11)
    description = "\n\n    ".join(_paragraph(rng, 4) for _ in range(5))
    md = f"# Widget API\n\n## Functions\n\n`mount(widget)`\n:   {description}\n\n`spin()`\n: Turn it once.\n"
    doc = extract("api.md", md.encode())
    chunks = split(doc, tokenizer, 100, 20)
    mount = next(sp for sp in doc.spans if sp.name == "mount(widget)")
    first = next(c for c in chunks if c.start <= mount.start < c.end)
    assert first.title == "Widget API > Functions" and "mount(widget)\n" in first.text
    inside = [c for c in chunks if mount.start < c.start < mount.end]
    assert len(inside) >= 3
    for c in inside:
        assert c.title == "Widget API > Functions > mount(widget)", c.title
    spin = next(c for c in chunks if "Turn it once" in c.text)
    assert spin.title in ("Widget API > Functions", "Widget API > Functions > mount(widget)")


def test_code_blocks_are_cut_between_lines_only(tokenizer):
    lines = [f"{'    ' * (k % 3)}value_{k} = compute(value_{k - 1}, factor={k}) + offset  # step {k}"
             for k in range(1, 80)]
    md = "# Script\n\nThe script below computes the values.\n\n```python\n" + "\n".join(lines) + "\n```\n"
    doc = extract("script.md", md.encode())
    code = next(sp for sp in doc.spans if sp.kind == "code")
    assert "\n    value_1 = compute" not in doc.text and "\n    value_4 = compute" in doc.text  # indentation kept
    chunks = split(doc, tokenizer, 80, 16)
    _check(doc, chunks, tokenizer, 80)
    assert len(chunks) > 5
    for c in chunks:
        if code.start < c.start < code.end:
            before = doc.text[:c.start].rstrip(" ")  # a passage starts at a line's first character
            assert before.endswith("\n"), doc.text[c.start - 20:c.start + 20]
        if code.start < c.end < code.end:
            assert doc.text[c.end] == "\n", doc.text[c.end - 20:c.end + 20]


def test_list_items_are_places_to_cut_without_overlap(tokenizer):
    rng = random.Random(4)
    items = "\n".join(f"- option_{k} – {_paragraph(rng, rng.randint(1, 3))}" for k in range(25))
    doc = extract("options.md", f"# Options\n\nEvery option.\n\n{items}\n".encode())
    chunks = split(doc, tokenizer, 100, 20)
    _check(doc, chunks, tokenizer, 100)
    starts = [c for c in chunks[1:] if c.text.startswith("- option_")]
    assert len(starts) >= len(chunks) // 2, [c.text[:30] for c in chunks]


def test_a_table_that_fits_is_kept_whole_with_its_header_row(tokenizer):
    rng = random.Random(9)
    rows = "\n".join(f"| option_{k} | {rng.choice(WORDS)} | {k * 10} |" for k in range(12))
    prose = "\n\n".join(_paragraph(rng, 3) for _ in range(3))
    md = f"# Settings\n\n{prose}\n\n| Name | Kind | Default |\n|---|---|---|\n{rows}\n\n{prose}\n"
    doc = extract("settings.md", md.encode())
    table = next(sp for sp in doc.spans if sp.kind == "table")
    assert len(tokenizer.encode(doc.text[table.start:table.end]).ids) <= 160
    chunks = split(doc, tokenizer, 160, 32)
    _check(doc, chunks, tokenizer, 160)
    (holder,) = [c for c in chunks if c.start <= table.start < c.end]
    assert holder.end >= table.end and holder.text.startswith("Name | Kind | Default")


def test_a_long_unbroken_word_is_cut_into_passages_of_at_most_max_chars(tokenizer):
    """One token can cover any length: WordPiece makes a single [UNK] of any word over 100 characters, so a hex dump
    or a base64 blob of 300,000 characters was one passage of one token, far over QA_MAX_CONTEXT_CHARS (a reply with
    it carried the whole blob). Words of 4,000 characters between spaces were packed 160 to a passage."""
    blob = "0123456789abcdef" * 18_750
    words = " ".join(f"{i:04d}" * 1_000 for i in range(40))
    text = f"Start of the dump.\n\n{blob}\n\n{words}\n\nThe end. It was all there."
    doc = Document("Dump", text, [Section((), 0, len(text))], "text")
    chunks = split(doc, tokenizer, 100, 20, max_chars=20_000)
    _check(doc, chunks, tokenizer, 100, words_spaced=False)
    assert max(len(c.text) for c in chunks) <= 20_000
    assert len(chunks) >= (len(blob) + 40 * 4_000) // 20_000
    assert chunks[0].text.startswith("Start of the dump.") and chunks[-1].text.endswith("It was all there.")
    # every word of the spaced ones is cut at its spaces, not inside: each passage of them ends at a word's end
    for c in chunks:
        if c.start > text.index(words) and c.end < text.index("The end."):
            assert text[c.end] == " " or text[c.end:c.end + 2] == "\n\n"
    # text of ordinary words keeps the passages it had without a character limit
    plain = extract("rivers.md", _markdown())
    assert [(c.start, c.end) for c in split(plain, tokenizer, 100, 20, max_chars=20_000)] == [
        (c.start, c.end) for c in split(plain, tokenizer, 100, 20)]


def test_ingestion_splits_a_file_by_its_recipe_s_character_limit(tokenizer):
    from function.ingest.documents import Recipe, from_file
    from function.ingest.sources import InputFile

    data = ("Header line.\n\n" + "f" * 300_000 + "\n").encode()
    for max_chars, most in ((20_000, 20_000), (8_000, 8_000)):
        (unit,) = from_file(InputFile("/docs/dump.txt", "dump.txt", "/docs/"), data, tokenizer,
                            Recipe(tokenizer.fingerprint, 100, 20, max_chars))
        assert max(len(p.text) for p in unit.pieces) <= most and len(unit.pieces) >= 300_000 // most


def test_a_passage_starting_under_an_entry_s_returns_label_says_so_in_its_title():
    """numpydoc's "Returns:" may end one passage and its "name : type" line start the next: that passage's title ends
    with the label, so that its lines read as return values (``function.model.sentence``). Not where another part's
    line stands between ("Notes"), nor where the label lies before the entry the passage starts in or after."""
    from function.ingest.extract import Span
    from function.ingest.split import _labelled, _part_floor

    text = "f(x)\nDo it.\n\nReturns:\n\nout : int\nThe count.\n\nNotes\n\nMore.\n\ng(y)\nAgain.\n"
    assert _labelled("T > f", text, 0, text.index("out :")) == "T > f > Returns"
    assert _labelled("T > f", text, 0, text.index("The count")) == "T > f > Returns"
    assert _labelled("T > f", text, 0, text.index("More.")) == "T > f"  # "Notes" ends the part
    assert _labelled("T > f", text, 0, text.index("Do it")) == "T > f"  # no label before it
    doc = Document("T", text, [Section(("f",), 0, len(text))], "text")
    entries = [Span("entry", 0, text.index("g(y)"), "f"), Span("entry", text.index("g(y)"), len(text), "g")]
    assert _part_floor(doc, entries, 0, text.index("out :")) == 0  # inside f: from f's start
    assert _part_floor(doc, entries, 0, text.index("Again.")) == text.index("g(y)")  # g's: f's label is not g's
    text2 = "Raises:\nValueError\n"
    assert _labelled("T", text2, 0, text2.index("ValueError")) == "T > Raises"


def test_any_label_line_ends_the_returns_part_a_title_says_a_passage_starts_under():
    """javadoc writes "Returns:", "Throws:", "Since:" one after another in a member's details: a passage starting after
    "Throws:" is not among the return lines. A return value that is one capitalised word ("True") is not a label."""
    from function.ingest.split import _labelled

    text = "getEnum(Class, String)\nReturns:\nthe enum, null if not found\nThrows:\nNullPointerException\nSince:\n3.0\n"
    assert _labelled("T", text, 0, text.index("the enum")) == "T > Returns"
    assert _labelled("T", text, 0, text.index("NullPointerException")) == "T"
    assert _labelled("T", text, 0, text.index("3.0")) == "T"
    text2 = "is_ok()\nReturns:\nTrue\nwhen it is.\n"
    assert _labelled("T", text2, 0, text2.index("when it is")) == "T > Returns"
