"""The question's words in a candidate answer's sentence (``function.model.sentence``) and the ranking that
adds them to the reader's scores (``answers_from_logits``' ``question``)."""

import re
from dataclasses import replace

import numpy as np
import pytest

from function.model.reader import PassageTokens, answers_from_logits
from function.model.sentence import Sentences, echoes, overlaps, question_terms
from function.model.windows import WindowSpec, build_batch

SPEC = WindowSpec(max_seq_len=64, stride=8, max_query_tokens=8, cls_id=101, sep_id=102, pad_id=0)


def at(text, needle):
    i = text.index(needle)
    return i, i + len(needle)


def test_overlap_is_the_share_of_question_terms_in_the_span_s_sentence_outside_the_span():
    text = "The castle was built in 1066 by William. Rouen was the capital of Normandy."
    q = question_terms("Who built the castle?")  # built, castle
    assert sorted(q) == ["built", "castle"]
    s = Sentences(text)
    assert s.overlap(q, *at(text, "William")) == 1.0
    assert s.overlap(q, *at(text, "Rouen")) == 0.0  # the next sentence says nothing the question asked
    assert s.overlap(q, *at(text, "castle was built")) == 0.0  # a span is no evidence for itself
    assert s.overlap(q, *at(text, "1066")) == 1.0
    assert s.overlap(frozenset(), *at(text, "1066")) == 0.0


def test_a_line_break_does_not_end_a_sentence_but_a_full_stop_does():
    text = "--prune\n-p\nRemove remote-tracking references that no longer exist. Fetch tags too."
    q = question_terms("Which option removes references that no longer exist?")
    s = Sentences(text)
    assert s.overlap(q, *at(text, "--prune")) > 0.5  # the entry's name and its description: one sentence
    assert s.overlap(q, *at(text, "tags")) == 0.0
    # "e.g. the" is not a sentence's end (no capital after it)
    text2 = "Use a flag, e.g. the prune flag, that removes stale references."
    assert Sentences(text2).overlap(question_terms("Which flag removes stale references?"), *at(text2, "prune")) == 1.0


def test_a_sentence_that_points_back_counts_the_sentence_before_it_in_its_paragraph():
    """ "To request this, use the -i option." holds none of the words of a question about what "this" is: they are
    in the sentence before it, which a neighbour naming another thing repeats."""
    text = ("GNU diff can treat lower case letters as equivalent. To request this, use the -i option. Tabs are kept. "
            "Lower case letters differ.\n\nThis is what the --strip option does.")
    q = question_terms("Which option treats lower case letters as equivalent?")
    s = Sentences(text)
    assert s.overlap(q, *at(text, "-i")) == 5 / 6  # "option", and the sentence before ("treat" is not "treats")
    assert s.overlap(q, *at(text, "Tabs")) == 0.0  # a sentence that does not point back
    assert s.overlap(q, *at(text, "--strip")) == 1 / 6  # a paragraph of its own: the one above is not its referent


def test_overlaps_analyses_each_passage_once_and_folds_case_and_accents():
    texts = ["Zürich lies on the LIMMAT river.", "Nothing here."]
    got = overlaps("Which city lies on the Limmat?", texts, [(0, *at(texts[0], "Zürich")), (1, 0, 7)])
    assert got == pytest.approx([2 / 3, 0.0])  # city is not in it; lies and limmat are


def _passage(text):
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    return PassageTokens(np.arange(100, 100 + len(words)), np.array(words)), [text[a:z] for a, z in words]


def _logits(batch, start_word, end_word, value):
    start = np.zeros(batch.input_ids.shape, dtype=np.float32)
    end = np.zeros(batch.input_ids.shape, dtype=np.float32)
    for w, v in zip(start_word, value):
        start[0, batch.context_start + w] = v
    for w, v in zip(end_word, value):
        end[0, batch.context_start + w] = v
    return start, end


def _two_spans(text, first, second, start_values, end_values):
    """A passage of ``text`` in one window, and logits that make the words ``first`` and ``second`` the model's spans
    (each word alone, or from one to the other), their start and end logits as given."""
    passage, words = _passage(text)
    b = build_batch([11, 12], [passage.ids], SPEC)
    at_words = [words.index(first), words.index(second)]
    start, _ = _logits(b, at_words, [], start_values)
    _, end = _logits(b, [], at_words, end_values)
    return passage, b, start, end


def _best_of(text, passage, b, start, end):
    """The best answer's text for a question, from ``_two_spans``' passage and logits (the scores still at most 1)."""
    def best(question):
        found = answers_from_logits(start, end, b, [passage], 3, 30, texts=[text], question=question)
        assert sum(a.score for a in found) <= 1.0 + 1e-9
        return text[found[0].start:found[0].end]
    return best


def _best_without(monkeypatch, switch, best, question):
    """``best(question)`` with the reader's rule ``switch`` set to 0 (off), the rule as it was afterwards."""
    from function.model import reader

    with monkeypatch.context() as patch:
        patch.setattr(reader, switch, 0.0)
        return best(question)


def test_the_question_lifts_the_span_whose_sentence_says_what_it_asks():
    text = "Paris is large. The treaty was signed in Vienna."
    passage, words = _passage(text)
    b = build_batch([11, 12], [passage.ids], SPEC)
    paris, vienna = words.index("Paris"), words.index("Vienna.")
    # the model prefers "Paris" by half a logit a side; "Vienna." sits in the sentence the question is about
    start, end = _logits(b, [paris, vienna], [paris, vienna], [4.5, 4.0])
    plain = answers_from_logits(start, end, b, [passage], 2, 30, texts=[text])
    assert text[plain[0].start:plain[0].end] == "Paris"
    asked = answers_from_logits(start, end, b, [passage], 2, 30, texts=[text], question="Where was the treaty signed?")
    assert text[asked[0].start:asked[0].end] == "Vienna."
    assert asked[0].score > asked[1].score and all(0.0 <= a.score <= 1.0 for a in asked)
    off = answers_from_logits(start, end, b, [passage], 2, 30, texts=[text], question="Where was the treaty signed?",
                              sentence_weight=0.0)
    assert [(a.start, a.end, a.score) for a in off] == [(a.start, a.end, a.score) for a in plain]
    # a much surer model keeps its span: the term is a bounded nudge, not an override
    start, end = _logits(b, [paris, vienna], [paris, vienna], [12.0, 4.0])
    sure = answers_from_logits(start, end, b, [passage], 1, 30, texts=[text], question="Where was the treaty signed?")
    assert text[sure[0].start:sure[0].end] == "Paris"


@pytest.mark.parametrize("question, answer, echo", [
    ("Which pam_exec option lets the command read the password?", "pam_exec", True),
    ("How do I get git grep to print line numbers?", "git-grep", True),  # a hyphen between words reads as a space
    ("Which service name is reserved for default rules?", "service-name", True),
    ("Which git status option gives the short format?", "--short", False),  # a literal made from a word
    ("Which environment variable enables debug namespaces?", "DEBUG", False),  # case is kept
    ("Which property tells me the encoding used to decode r.text?", "r.encoding", False),
    ("How do I set a umask at login?", "umasks", False),  # whole words only
    ("What is it?", "  ", False),
    ("Which APISpec method stores information about a tag?", "apispec.core.APISpec", True),  # the subject, qualified
    ("Which Session method mounts an adapter?", "requests.Session()", True),
    ("Which Session method mounts an adapter?", "Session.mount", False),  # its last part is not the question's
    ("Which method of Adapter sends a request?", "Adapter.send", False),
    ("Which parameter enables the logging collector?", "logging_collector", False),  # an identifier spelt in words
    ("Which Components method adds a security scheme?", "security_scheme", False),
    ("Which pam_exec option uses PAM_EXEC?", "pam_exec", True),  # the question writes it itself
    # a dotted name whose last part the question writes as a call: the question's subject, qualified
    ("Which writer() argument makes indexing use several CPUs?", "whoosh.index.Index.writer", True),
    ("Which writer() argument makes indexing use several CPUs?", "whoosh.index.Index.writer()", True),
    ("Which writer() argument makes indexing use several CPUs?", "procs", False),
    ("What does os.getcwd() return?", "os.getcwd", True),
    ("What does QueryParser.parse() return?", "whoosh.query.Query", False),  # another name
    ("Which writer argument makes indexing use several CPUs?", "whoosh.index.Index.writer", False),  # in prose
])
def test_echoes_says_whether_an_answer_is_the_question_s_own_words(question, answer, echo):
    assert echoes(question, answer) is echo


def test_an_answer_that_is_the_question_s_own_words_gives_way():
    text = "Use pam_exec with expose_authtok to hand the password to the command."
    # the model prefers the module's name (4 + 7) to the option (5 + 4) and to the span across both (4 + 4)
    passage, b, start, end = _two_spans(text, "pam_exec", "expose_authtok", [4.0, 5.0], [7.0, 4.0])
    named = _passage(text)[1].index("pam_exec")
    plain = answers_from_logits(start, end, b, [passage], 2, 30, texts=[text])
    assert text[plain[0].start:plain[0].end] == "pam_exec"
    asked = answers_from_logits(start, end, b, [passage], 5, 30, texts=[text],
                                question="Which pam_exec option hands the password to the command?")
    got = [text[a.start:a.end] for a in asked]
    assert got[0] == "expose_authtok" and "pam_exec" not in got[:3]  # below the span across both (4 + 4) too
    assert asked[0].score > asked[1].score and sum(a.score for a in asked) <= 1.0 + 1e-9
    # with nothing else to answer, the echo is still the answer
    start, end = (x - 20.0 for x in _logits(b, [named], [named], [26.0]))  # every other span far weaker
    alone = answers_from_logits(start, end, b, [passage], 1, 30, texts=[text],
                                question="Which pam_exec option hands the password to the command?")
    assert text[alone[0].start:alone[0].end] == "pam_exec"


def test_with_a_passage_bias_the_lifted_scores_still_sum_to_at_most_one():
    texts = ["Paris is large. The treaty was signed in Vienna.", "The treaty of Rome was signed by six states."]
    passages = [_passage(t)[0] for t in texts]
    b = build_batch([11, 12], [p.ids for p in passages], SPEC)
    rng = np.random.default_rng(0)
    start, end = (rng.normal(size=b.input_ids.shape).astype(np.float32) for _ in range(2))
    got = answers_from_logits(start, end, b, passages, 10, 30, np.array([0.5, 0.0]), texts=texts,
                              question="Where was the treaty signed?")
    scores = [a.score for a in got]
    assert scores == sorted(scores, reverse=True)
    assert 0.0 < sum(scores) <= 1.0 + 1e-9


def test_the_service_ranks_its_answers_with_the_request_s_question(tiny_artifact, monkeypatch, tmp_path):
    """``POST /``'s answers go through the sentence ranking with the question asked (a context here)."""
    from function.config import Settings
    from function.service.pipeline import QAService
    from function.service.qa_request import QARequest
    from function.service.runtime import Runtime

    seen = []

    def overlaps(question, texts, spans):
        seen.append((question, list(texts)))
        return [0.0] * len(list(spans))

    monkeypatch.setattr("function.model.sentence.overlaps", overlaps)
    service = QAService(Runtime(Settings.from_env({"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_CACHE": "0",
                                                   "QA_SQLITE_PATH": str(tmp_path / "unused.sqlite")})))
    context = "The Normans gave their name to Normandy, a region in France."
    service.answer(QARequest("Who gave their name to Normandy?", context, None, top_k=1, max_answer_tokens=30,
                             abstain=False))
    assert seen == [("Who gave their name to Normandy?", [context])]


def test_passages_a_request_gives_weigh_the_sentence_more_than_retrieved_ones():
    # "Paris" leads by 1.5 logits a side (3 in all); "Vienna." sits in the sentence the question is about (overlap 1):
    # WEIGHT_GIVEN (6) turns that around, WEIGHT (2) does not
    from function.model import sentence

    assert sentence.WEIGHT_GIVEN > 3.0 > sentence.WEIGHT
    text = "Paris is large. The treaty was signed in Vienna."
    passage, words = _passage(text)
    b = build_batch([11, 12], [passage.ids], SPEC)
    paris, vienna = words.index("Paris"), words.index("Vienna.")
    start, end = _logits(b, [paris, vienna], [paris, vienna], [5.5, 4.0])
    question = "Where was the treaty signed?"
    [given] = answers_from_logits(start, end, b, [passage], 1, 30, texts=[text], question=question)
    assert text[given.start:given.end] == "Vienna."
    [weak] = answers_from_logits(start, end, b, [passage], 1, 30, texts=[text], question=question,
                                 sentence_weight=sentence.WEIGHT)
    assert text[weak.start:weak.end] == "Paris"


def _two_passages(bias_second: float):
    """"Paris" (5.5 a side) and "Vienna." (4 a side, in the sentence the question asks about) in the first passage,
    "Bonn" (5 a side, no question word near it) in the second, which retrieval favours by ``bias_second``."""
    texts = ["Paris is large. The treaty was signed in Vienna.", "Bonn hosted the ceremony."]
    (first, words), (second, _) = _passage(texts[0]), _passage(texts[1])
    b = build_batch([11, 12], [first.ids, second.ids], SPEC)
    start = np.zeros(b.input_ids.shape, dtype=np.float32)
    for row, word, value in ((0, words.index("Paris"), 5.5), (0, words.index("Vienna."), 4.0), (1, 0, 5.0)):
        assert b.passage_index[row] == row
        start[row, b.context_start + word] = value
    return texts, [first, second], b, start, start.copy(), np.array([0.0, bias_second])


def test_asked_alone_the_passages_compete_at_the_low_weight_then_the_chosen_one_is_read_as_given():
    """Two stages for retrieved passages: the best span across passages (bias, sentence term at WEIGHT) chooses the
    passage; within it, the answer is what the passage would give if the request had named it (WEIGHT_GIVEN)."""
    question = "Where was the treaty signed?"
    # Bonn 10 + 0.8 = 10.8 < Paris 11, Vienna 8 + 2 = 10: the first passage; read as given, Vienna 8 + 6 beats Paris
    texts, passages, b, start, end, bias = _two_passages(0.8)
    got = answers_from_logits(start, end, b, passages, 3, 30, bias, texts=texts, question=question)
    assert (got[0].passage, texts[0][got[0].start:got[0].end]) == (0, "Vienna.")
    first_stage = answers_from_logits(start, end, b, passages, 3, 30, bias, texts=texts, question=question,
                                      sentence_weight=0.0)  # no sentence term, so no second stage either
    assert texts[0][first_stage[0].start:first_stage[0].end] == "Paris"
    # the answer supersedes the first stage's best span, in its place and with its score; the others follow
    rest = [(a.passage, texts[a.passage][a.start:a.end]) for a in got[1:]]
    assert (0, "Vienna.") not in rest and (0, "Paris") not in rest and (1, "Bonn") in rest
    scores = [a.score for a in got]
    assert scores == sorted(scores, reverse=True) and 0.0 < sum(scores) <= 1.0 + 1e-9
    # Bonn 10 + 1.5 = 11.5 beats Paris 11 at the low weight: the second passage is chosen, although Vienna would
    # win across passages at WEIGHT_GIVEN (8 + 6 = 14)
    texts, passages, b, start, end, bias = _two_passages(1.5)
    [chosen] = answers_from_logits(start, end, b, passages, 1, 30, bias, texts=texts, question=question)
    assert (chosen.passage, texts[1][chosen.start:chosen.end]) == (1, "Bonn")
    # the windows an abstention verdict leaves are the only ones read in both stages
    [kept] = answers_from_logits(start, end, b, passages, 1, 30, bias, texts=texts, question=question,
                                 windows=np.array([True, False]))
    assert (kept.passage, texts[0][kept.start:kept.end]) == (0, "Vienna.")


@pytest.mark.parametrize("text, title, span, heading", [
    ("Timeouts\n\nUse the timeout parameter.", "Quickstart > Timeouts", "Timeouts", True),
    ("Timeouts\n\nUse the timeout parameter.", "Quickstart > Timeouts", "timeout", False),  # under it
    ("Timeouts\n\nUse the timeout parameter.", None, "Timeouts", False),  # no title: a context
    ("Timeouts\n\nUse the timeout parameter.", "Quickstart > Proxies", "Timeouts", False),  # not a heading of it
    ("Quickstart\n\nTimeouts\n\nUse it.", "Quickstart > Timeouts", "Quickstart", True),  # the page's own heading
    ("Use Timeouts\n\nalways.", "Quickstart > Timeouts", "Timeouts", False),  # a word of a block, not the block
    ("use_uid\nEvaluate as the caller.", "Modules > use_uid", "use_uid", False),  # an entry's term and its text
    ("os.path — Pathname manipulations\n\nThis module ...", "os.path — Pathname manipulations", "os.path", False),
    ("--prune\n\nRemove stale references.", "git-fetch > --prune", "--prune", False),  # a name: may be the answer
    ("Digest Authentication\n\nDigest Authentication is supported.", "Auth > Digest Authentication",
     "Digest Authentication is", False),  # the same words in the text under it
    # a heading's section number is no name's dot (SQLite's, DocBook's, Texinfo's numbered headings)
    ("2.2. DEFERRED and EXCLUSIVE\n\nThe default is DEFERRED.", "SQL > 2.2. DEFERRED and EXCLUSIVE",
     "2.2. DEFERRED and", True),
    ("3. Activating WAL\n\nRun it.", "WAL > 3. Activating WAL", "3.", True),  # the number alone
    ("3. Activating WAL\n\nRun it.", "WAL > 3. Activating WAL", "Activating", True),
    ("A.1. os.path\n\nPaths.", "Library > A.1. os.path", "os.path", False),  # a name after the number
    ("A Widget Story\n\nIt spins.", "Tales > A Widget Story", "A Widget", True),  # an article, not a number
])
def test_in_heading_says_whether_a_span_is_a_heading_of_words(text, title, span, heading):
    from function.model.reader import in_heading

    start = text.index(span)
    assert in_heading(text, title, start, start + len(span)) is heading


def test_a_heading_gives_way_to_the_text_under_it_unless_nothing_else_is_left():
    text = "Timeouts\n\nRequests stops waiting after the timeout parameter's seconds."
    passage, words = _passage(text)
    b = build_batch([11, 12], [passage.ids], SPEC)
    heading, body = words.index("Timeouts"), words.index("timeout")
    # the reader is sure of the heading (12 a side) and not of "timeout" (2 a side)
    start, end = _logits(b, [heading, body], [heading, body], [12.0, 2.0])
    question = "Which parameter stops waiting?"
    untitled = answers_from_logits(start, end, b, [passage], 2, 30, texts=[text], question=question)
    assert text[untitled[0].start:untitled[0].end] == "Timeouts"
    titled = answers_from_logits(start, end, b, [passage], 3, 30, texts=[text], question=question,
                                 titles=["Quickstart > Timeouts"])
    got = [text[a.start:a.end] for a in titled]
    assert got[0] == "timeout" and "Timeouts" not in got
    assert sum(a.score for a in titled) <= 1.0 + 1e-9
    # asked alone (a passage bias): the passage chosen, its answer is read without the heading
    [alone] = answers_from_logits(start, end, b, [passage], 1, 30, np.array([0.0]), texts=[text], question=question,
                                  titles=["Quickstart > Timeouts"])
    assert text[alone.start:alone.end] == "timeout"
    # a passage that is its heading alone still answers with it
    only = "Timeouts"
    passage, words = _passage(only)
    b = build_batch([11, 12], [passage.ids], SPEC)
    start, end = _logits(b, [0], [0], [12.0])
    [kept] = answers_from_logits(start, end, b, [passage], 1, 30, texts=[only], question=question,
                                 titles=["Quickstart > Timeouts"])
    assert only[kept.start:kept.end] == "Timeouts"


def test_the_service_gives_the_reader_its_passages_titles(tiny_artifact, monkeypatch, tmp_path):
    """Stored passages' titles reach the heading rule (``in_heading``); a context has none."""
    import json

    from function.config import Settings
    from function.ingest.cli import main as ingest_main
    from function.model import reader
    from function.service.pipeline import QAService
    from function.service.qa_request import QARequest
    from function.service.runtime import Runtime

    corpus = tmp_path / "c.jsonl"
    text = "Timeouts\n\nRequests stops waiting after the timeout parameter's seconds."
    corpus.write_text(json.dumps({"id": "t", "title": "Quickstart > Timeouts", "doc_id": "q", "text": text}) + "\n")
    env = {"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_CACHE": "0", "QA_SQLITE_PATH": str(tmp_path / "p.db")}
    assert ingest_main([str(corpus), "--quiet", "--store", "sqlite", "--sqlite-path", env["QA_SQLITE_PATH"],
                        "--artifact", env["QA_ARTIFACT_DIR"]]) == 0
    seen = []
    original = reader.in_heading

    def recording(text, title, start, end):
        seen.append(title)
        return original(text, title, start, end)

    monkeypatch.setattr(reader, "in_heading", recording)
    service = QAService(Runtime(Settings.from_env(env)))
    got = service.answer(QARequest("Which parameter stops waiting?", None, ("t",), top_k=5, max_answer_tokens=30,
                                   abstain=False)).payload["answers"]
    assert set(seen) == {"Quickstart > Timeouts"}
    texts = [a["text"] for a in got]
    assert "Timeouts" not in texts[:-1] or all(t == "Timeouts" for t in texts[texts.index("Timeouts"):])
    seen.clear()
    service.answer(QARequest("Which parameter stops waiting?", text, None, top_k=1, max_answer_tokens=30,
                             abstain=False))
    assert set(seen) == {None}


@pytest.mark.parametrize("block, span", [
    ("os — Miscellaneous operating system interfaces", "os"),  # a module's page
    ("text", "text"),  # gitattributes: an attribute's subsection
    ("nofile", "nofile"),
])
def test_one_word_that_is_not_capitalised_is_a_name_even_in_a_heading(block, span):
    from function.model.reader import in_heading

    text = f"{block}\n\nWhat it does."
    assert not in_heading(text, f"Page > {block}", 0, len(span))
    assert in_heading("Timeouts\n\nWhat it does.", "Page > Timeouts", 0, 8)


@pytest.mark.parametrize("block, span, heading", [
    ("Timeouts", "outs", True),  # a piece of a heading's word is no name
    ("$ python -m pip install requests", "python -m pip install requests", False),  # a command as a section's title
    ("$ python -m pip install requests", "m", True),
    ("Proxies and timeouts", "timeouts", True),  # a word not capitalised, but not the heading's first
])
def test_a_piece_of_a_heading_is_a_name_only_when_it_looks_like_one(block, span, heading):
    from function.model.reader import in_heading

    text = f"{block}\n\nWhat it does."
    start = text.index(span)
    assert in_heading(text, f"Page > {block}", start, start + len(span)) is heading


@pytest.mark.parametrize("text, mark, span, code", [
    ("call .opts() now", "opts", ".opts()", True),  # a leading dot and a trailing "()" aside, either side
    ("call .opts() now", ".opts()", "opts", True),
    ("use `DEBUG` here", "DEBUG", "`DEBUG`", True),
    ("requests.get(url)", "requests.get", "requests.get", True),
    ("requests.get(url)", "requests.get", "get", False),  # a piece of the code is not the code
    ("requests.get(url)", "requests.get", "requests.get(url", False),
    ("set the nofile item", "nofile", "item", False),
])
def test_is_code_says_whether_a_span_is_one_whole_piece_of_marked_code(text, mark, span, code):
    from function.model.reader import is_code

    marks = np.array([at(text, mark)])
    assert is_code(text, marks, *at(text, span)) is code
    assert not is_code(text, None, *at(text, span)) and not is_code(text, np.zeros((0, 2)), *at(text, span))


def test_where_a_question_asks_for_a_name_the_page_s_code_is_lifted():
    text = "Options: declare requiredOption for a mandatory one."
    # the reader prefers the label (6 + 5.5) to the method's name (5 + 5)
    passage, b, start, end = _two_spans(text, "Options:", "requiredOption", [6.0, 5.0], [5.5, 5.0])
    marks = [np.array([at(text, "requiredOption")])]
    name = "Which method declares a mandatory option?"

    def best(question, marks):
        found = answers_from_logits(start, end, b, [passage], 3, 30, texts=[text], question=question, marks=marks)
        assert sum(a.score for a in found) <= 1.0 + 1e-9
        return text[found[0].start:found[0].end]

    assert best(name, marks) == "requiredOption"
    assert best(name, None) == "Options:"  # nothing marked: as the reader had it
    assert best("How do I make an option mandatory?", marks) == "requiredOption"  # a way to do it: often code too
    assert best("Why would an option be mandatory?", marks) == "Options:"  # not a question for a name
    [alone] = answers_from_logits(start, end, b, [passage], 1, 30, np.array([0.0]), texts=[text], question=name,
                                  marks=marks)  # asked alone: the chosen passage read with its marks too
    assert text[alone.start:alone.end] == "requiredOption"


def test_within_one_passage_the_code_lift_is_code_within(monkeypatch):
    """Ranking one passage's spans (a passage named, or the one chosen when asked alone), the code lift is
    ``CODE_WITHIN``: a method's name the reader ranks 2.5 logits below a label wins at 3, not at ``CODE``'s 2."""
    from function.model import reader

    text = "Options: declare requiredOption for a mandatory one."
    passage, b, start, end = _two_spans(text, "Options:", "requiredOption", [6.0, 5.0], [6.5, 5.0])
    marks = [np.array([at(text, "requiredOption")])]
    name = "Which method declares a mandatory option?"

    def best(bias=None):
        found = answers_from_logits(start, end, b, [passage], 3, 30, bias, texts=[text], question=name, marks=marks)
        return text[found[0].start:found[0].end]

    assert best() == "requiredOption"
    assert best(np.array([0.0])) == "requiredOption"  # asked alone: the chosen passage read within
    monkeypatch.setattr(reader, "CODE_WITHIN", reader.CODE)
    assert best() == "Options:"
    assert best(np.array([0.0])) == "Options:"


def test_an_introduced_definition_outweighs_a_span_the_reader_ranks_well_above_it(monkeypatch):
    """``DEFINITION`` is 6: a definition the text introduces ("A namespace package is | distributable.") wins over a
    name the reader ranks 10.5 logits above it, beside what the rest of the ranking weighs; at 4, its size until
    2026-12-06, it did not."""
    from function.model import reader

    text = "A namespace package is distributable. Put namespace_packages here."
    passage, b, start, end = _two_spans(text, "distributable.", "namespace_packages", [5.0, 16.0], [5.5, 5.0])
    best = _best_of(text, passage, b, start, end)
    assert best("What is a namespace package?") == "distributable."
    monkeypatch.setattr(reader, "DEFINITION", 4.0)
    assert best("What is a namespace package?") == "namespace_packages"


def test_a_code_block_s_line_holding_a_space_is_lifted_only_where_the_question_asks_a_way():
    """A code block's line is a statement or a command: the answer to "How do I ...?", not to "Which target ...?";
    inline code of several words is a name ("git worktree lock") and is lifted for both."""
    text = "Run make build or clean."
    # the reader prefers the command (6 + 5.5) to the target's name (5.6 + 5.5) and to "make" (6 + 5)
    passage, b, start, end = _two_spans(text, "make", "build", [6.0, 5.6], [5.0, 5.5])
    command, name = np.array([at(text, "make build")]), np.array([at(text, "build")])

    def best(question, marks, lines=None):
        found = answers_from_logits(start, end, b, [passage], 3, 30, texts=[text], question=question, marks=marks,
                                    lines=lines)
        return text[found[0].start:found[0].end]

    block = {"marks": [name], "lines": [command]}  # the command a block's line, the target's name inline
    assert best("Which target compiles everything?", **block) == "build"  # a name: the block's line gets no lift
    assert best("How do I compile everything?", **block) == "make build"  # a way: both lifted, the command ahead
    inline = {"marks": [np.concatenate([command, name])]}  # both inline: two words of code are a name too
    assert best("Which target compiles everything?", **inline) == "make build"
    assert best("How do I compile everything?", **inline) == "make build"


def test_inline_code_and_a_code_block_s_lines_of_an_ingested_page_reach_the_reader(tiny_artifact, monkeypatch,
                                                                                   tmp_path):
    """Markdown's `backticks` become the stored passage's marks, a fenced block's line its lines, and the reader gets
    both apart; a context has none."""
    from function.config import Settings
    from function.ingest.cli import main as ingest_main
    from function.model import reader
    from function.service.pipeline import QAService
    from function.service.qa_request import QARequest
    from function.service.runtime import Runtime
    from function.store.sqlite import SqliteStore

    docs = tmp_path / "docs"
    docs.mkdir()
    text = "Declare a mandatory option with `requiredOption()`, or set `mandatory` on an `Option`."
    (docs / "guide.md").write_text("# Options\n\n" + text + "\n\n```sh\n$ npm install commander\n```\n")
    env = {"QA_ARTIFACT_DIR": str(tiny_artifact.folder), "QA_CACHE": "0", "QA_SQLITE_PATH": str(tmp_path / "p.db")}
    assert ingest_main([str(docs), "--quiet", "--store", "sqlite", "--sqlite-path", env["QA_SQLITE_PATH"],
                        "--artifact", env["QA_ARTIFACT_DIR"]]) == 0
    store = SqliteStore(tmp_path / "p.db")
    [stored] = store.get_many(list(store.passages_of("guide.md"))).values()
    store.close()
    inline, block = ["requiredOption()", "mandatory", "Option"], ["npm install commander"]
    assert [stored.text[a:z] for a, z in stored.code_spans] == inline
    assert [stored.text[a:z] for a, z in stored.line_spans] == block
    assert "`" not in stored.text and "\ufdd0" not in stored.text + stored.title
    seen = []
    original = reader.answers_from_logits

    def recording(*args, **kwargs):
        texts, marks, lines = kwargs["texts"], kwargs.get("marks"), kwargs.get("lines")
        seen.append(None if marks is None and lines is None
                    else [[texts[0][a:z] for a, z in m[0]] for m in (marks, lines)])
        return original(*args, **kwargs)

    monkeypatch.setattr(reader, "answers_from_logits", recording)
    service = QAService(Runtime(Settings.from_env(env)))
    service.answer(QARequest("Which method declares a mandatory option?", None, (stored.id,), top_k=3,
                             max_answer_tokens=30, abstain=False))
    assert seen == [[inline, block]]
    seen.clear()
    service.answer(QARequest("Which method declares a mandatory option?", text, None, top_k=3, max_answer_tokens=30,
                             abstain=False))
    assert seen == [None]  # a context brings no marks: nothing to lift


@pytest.mark.parametrize("span, option", [
    ("-k", True), ("--prune", True), ("-h, --help", True), ("-h,--help", True), ("--depth=<depth>", True),
    ("--set-upstream", True), ("-c <count>", True),
    ("helpOption", False), ("git fetch --prune", False), ("-", False), ("--", False), ("key=val", False),
    ("e", False), ("The -k", False),
])
def test_is_option_says_whether_a_span_is_a_command_line_option_or_a_list_of_its_forms(span, option):
    from function.model.reader import is_option

    assert is_option(span) is option


def test_where_a_question_asks_for_an_option_a_span_that_is_one_is_lifted():
    text = "Start it with helpOption or -h to print the help."
    # the reader prefers the method's name (6 + 5.5) to the flag (5 + 5)
    passage, b, start, end = _two_spans(text, "helpOption", "-h", [6.0, 5.0], [5.5, 5.0])
    best = _best_of(text, passage, b, start, end)
    assert best("Which option prints the help?") == "-h"
    assert best("Which flag prints the help?") == "-h"
    assert best("Which method prints the help?") == "helpOption"  # not a question for an option


@pytest.mark.parametrize("text, span, typed", [
    ("def chunked(iterable, n, strict=False) -> Iterator[list]:", "Iterator[list]", True),
    ("timeout?: number", "number", True),
    ("public boolean contains(T element)", "boolean", True),
    ("boolean | contains(T element) | Checks whether the element occurs.", "boolean", True),  # a summary row's cells
    ("int | SDL_Init (Uint32 flags) | Initialize the SDL library.", "int", True),
    ("Returns: | boolean", "boolean", False),  # a type cell after its label, not before a name
    ("spin(turns: int) \u2192 None", "None", True),
    ("The value is a number in prose.", "number", False),  # a type's word, not in a type's place
    ("x = list(y)", "list", False),
    ("timeout?: number", "timeout", False),  # the name, not its type
    ("Returns: a list of widgets", "a list", False),
])
def test_in_type_position_says_whether_a_span_is_a_type_where_a_signature_puts_one(text, span, typed):
    from function.model.reader import in_type_position

    at = text.index(span)
    assert in_type_position(text, at, at + len(span)) is typed


def test_where_a_question_asks_for_a_name_a_type_beside_it_gives_way():
    text = "chunked (iterable, n) -> Iterator[list]\nBreak iterable into lists of length n."
    # the reader prefers the return type (6 + 5) to the function's name (5 + 5.5)
    passage, b, start, end = _two_spans(text, "Iterator[list]", "chunked", [6.0, 5.0], [5.0, 5.5])
    best = _best_of(text, passage, b, start, end)
    assert best("Which function breaks an iterable into lists of length n?") == "chunked"
    assert best("What does chunked return?") == "Iterator[list]"  # asked for what it returns: the type is the answer
    assert best("What type does chunked return?") == "Iterator[list]"


@pytest.mark.parametrize("text, span, parameter", [
    ("method : str\nMethod used for testing and adjustment of pvalues.", "method", True),  # numpydoc
    ("- reverse (bool) \u2013 yield values in reverse order", "reverse", True),  # autodoc's field list
    ("backend_port (integer)\nThe port number of the backend.", "backend_port", True),  # a configuration entry
    ("nullok\nAllow an empty password.", "nullok", True),  # a term alone on its line
    ("opts.string - a string or array of strings", "opts.string", True),
    ("irange(minimum=None, maximum=None, inclusive=(True, True), reverse=False)", "reverse", True),
    ("json.dumps(obj, *, skipkeys=False, sort_keys=False)", "sort_keys", True),
    ("f(*args, **kwargs)", "kwargs", True),
    ("irange(minimum=None, maximum=None, inclusive=(True, True), reverse=False)", "True", False),  # a default's value
    ("irange(minimum=None, maximum=None)", "None", False),
    ("Method used for testing and adjustment of p-value", "p-value", False),
    ("Pass them as key=val pairs.", "key", False),
    ("The method returns a corrected p value.", "method", False),  # a word of prose
    ("See the notes (method, alpha) below.", "alpha", False),  # brackets, not a call's
])
def test_is_parameter_says_whether_a_span_is_a_parameters_name_where_documentation_lists_it(text, span, parameter):
    from function.model.reader import is_parameter

    at = text.index(span)
    assert is_parameter(text, at, at + len(span)) is parameter


def test_where_a_question_asks_which_parameter_a_parameters_name_is_lifted():
    text = "method : str\nMethod used for testing and adjustment of pvalues here."
    # the reader prefers the description's word (6 + 5.5) to the parameter's name (5 + 5)
    passage, b, start, end = _two_spans(text, "pvalues", "method", [6.0, 5.0], [5.5, 5.0])
    best = _best_of(text, passage, b, start, end)
    assert best("Which argument chooses the correction?") == "method"
    assert best("Which parameter of multipletests chooses the correction?") == "method"
    assert best("What does multipletests correct?") == "pvalues"  # not a question for a parameter
    assert best("Which correction is the default parameter?") == "pvalues"  # a default is asked for, not a name


# a numpydoc Parameters section as extracted, a nested list of one parameter's values under it
_NUMPYDOC_PARAMETERS = ("Parameters:\n\nx : array_like\nThe data to smooth.\n\nfrac : float\nBetween 0 and 1. The "
                        "fraction of the data used when estimating each y-value.\n\nmethod : str\nHow the fit is "
                        "made:\n\n- bonferroni : one-step correction\n- sidak : one-step correction\n\ndelta : float\n"
                        "Distance within which to use linear-interpolation instead of weighted regression.\n")


@pytest.mark.parametrize("text, names", [
    (_NUMPYDOC_PARAMETERS, ["x", "frac", "method", "delta"]),  # numpydoc's "name : type"; nested values are not
    # entries
    ("OPTIONS\n\ndebug\nPrint debug information.\n\ngroup=name\nUse the name group.\n", ["debug", "group=name"]),
    ("Options:\n\n-d, --debug\nRun in debug mode.\n\n-n, --dont-detach\nDon't run in daemon mode.\n",
     ["-d, --debug", "-n, --dont-detach"]),  # command-line options; "Options:" is a heading
    ("Note\nThis is a note.\n\nstatsmodels.api.lowess\n\nlowess(endog, exog)\nA smoother.\n", []),  # a heading,
    # a title with no description under it, a signature
    ("- threshold: 1024\n- level: 3\n", ["threshold", "level"]),
])
def test_entries_are_the_names_a_passage_lists_at_its_lines_heads(text, names):
    from function.model.reader import entries

    assert [text[a:z] for a, z, _ in entries(text)] == names


def test_a_code_blocks_lines_list_no_entries():
    import numpy as np

    from function.model.reader import entries

    text = "Set it so:\n\n- threshold: 1024\n- level: 3\n"
    block = np.asarray([[text.index("- threshold"), len(text) - 1]], dtype=np.int32)
    assert entries(text, block) == []


def test_a_programs_help_listing_in_a_code_block_lists_its_options():
    import numpy as np

    from function.model.reader import asked_entry, entries

    text = ("Processing:\n  -2                       perform a two-pass analysis\n  -M <packet count>        perform "
            "session auto reset\n  -R <read filter>, --read-filter <read filter>\n                           packet "
            "Read filter (requires -2)\n  $ tshark -2 -r in.pcap  # an example\n")
    block = np.asarray([[text.index("  -2"), len(text) - 1]], dtype=np.int32)  # one code block
    assert [text[a:z] for a, z, _ in entries(text, block)] == ["-2", "-M", "-R"]
    at = text.index("-M")  # the reader names the row after the description asked about
    named = asked_entry("Which tshark option performs a two-pass analysis?", text, at, at + 2, block)
    assert named is not None and text[named[0]:named[1]] == "-2"


@pytest.mark.parametrize("question, answer, named", [
    ("Which lowess parameter sets the fraction of the data used for each estimate?", "y-value", "frac"),
    ("Which parameter makes lowess use linear interpolation within a distance?", "weighted", "delta"),
    ("Which lowess parameter sets the fraction of the data used for each estimate?", "frac", None),  # an entry already
    ("Which lowess parameter sets the fraction of the data used for each estimate?", "delta", "frac"),  # another entry,
    # the question's terms clearly in "frac"'s
    ("Which parameter sets the fraction of the data to smooth?", "x", None),  # another entry, not clearly behind
    ("Which lowess parameter sets the fraction?", "y-value", None),  # one term held: too little to choose on
])
def test_asked_entry_names_the_entry_whose_text_holds_the_questions_terms_best(question, answer, named):
    from function.model.reader import asked_entry

    at = _NUMPYDOC_PARAMETERS.index(answer)
    got = asked_entry(question, _NUMPYDOC_PARAMETERS, at, at + len(answer))
    assert (None if got is None else _NUMPYDOC_PARAMETERS[got[0]:got[1]]) == named


@pytest.mark.parametrize("question, asks", [
    ("Which pam_unix option lets users with an empty password log in?", True),
    ("Which limits.conf item sets the maximum number of open file descriptors?", True),  # a configuration file's items
    ("Which Doxyfile tag makes doxygen parse the subdirectories too?", True),
    ("Which field of the time structure holds the day of the month?", True),
    ("Which setup.cfg directive reads a value from a module attribute?", True),
    ("What type is the n_init parameter of KMeans?", False),  # its type, not which entry
    ("Which key holds the cache option by default?", False),  # a default
    ("Which exception does Validate.notNull throw?", False),  # no list's entry
    ("Which anova_lm argument chooses between type I, II and III ANOVA?", True),  # "type" in what the entry does
    ("Which parameter of Series.value_counts returns relative frequencies?", True),
    ("What type of value is the data argument of a Table?", False),  # "type" in its head: it asks for a type
])
def test_which_entry_questions_name_a_lists_kind_of_entry(question, asks):
    from function.model.reader import _asks_entry

    assert _asks_entry(question) is asks


@pytest.mark.parametrize("question, asks", [
    ("What type is the n_init parameter of KMeans?", True),
    ("What does g_hash_table_insert return?", True),  # no entry head: the word asks, as before
    ("Which value does mode return when two values have the same frequency?", True),  # "does ... return": asked
    ("Which parameter of SortedList.irange makes it yield values in descending order?", False),
    ("Which control value returns success to the application at once?", False),
    ("Which anova_lm argument chooses between type I, II and III ANOVA?", False),
    ("Which parameter sets the window?", False),  # no such word at all
])
def test_a_type_word_asks_for_a_type_in_an_entry_questions_head_only(question, asks):
    from function.model.reader import asks_type

    assert asks_type(question) is asks


@pytest.mark.parametrize("question, kind", [
    ("Which function gets the value of a hint?", ["function"]),
    ("Which Canvas constructor argument turns on compression?", ["argument"]),  # the compound's last noun
    ("Which command-line option allows writing files anywhere?", ["option"]),
    ("Which ttest_ind argument switches to Welch's t-test?", ["argument"]),  # "switches" a verb here
    ("How do I open a file?", []),
])
def test_the_kind_asked_is_the_last_kind_noun_of_the_questions_head(question, kind):
    from function.model.reader import _asked_kind

    assert _asked_kind(question) == kind


@pytest.mark.parametrize("question, name", [
    ("What does SortedDict.keys() return?", "keys"),
    ("What type does the ST_Extent aggregate return?", "ST_Extent"),  # a noun before the auxiliary
    ("In what unit does g_timer_elapsed return the elapsed time?", "g_timer_elapsed"),
    ("What does get_or_create() give back?", "get_or_create"),
    ("What year did Doctor Who finally return to television?", None),  # no name in it: no return question
])
def test_a_return_question_is_read_in_its_other_wordings(question, name):
    from function.model import sentence

    assert sentence.returned(question) == name


def test_a_sentinel_a_signature_assigns_is_no_stated_default():
    from function.model import sentence

    text = "DataFrame.dropna(*, axis=0, how=_NoDefault.no_default, subset=None)\nhow : {'any', 'all'}, default 'any'"
    question = "What is the default value of how in DataFrame.dropna?"
    at = text.index("_NoDefault")
    assert not sentence.states_default(text, question, at, at + len("_NoDefault.no_default"))
    said = text.rindex("any'")  # the value inside its quotes after "default", as the reader's span has it
    assert sentence.states_default(text, question, said, said + 3)


_PAM_UNIX_OPTIONS = ("quiet\nTurns off informational messages.\n\nnullok\nThe default action is to not permit the "
                     "user access if their password is blank. The nullok argument overrides this default.\n\n"
                     "nullresetok\nAllow users to authenticate with a blank password if a reset is enforced.\n")


@pytest.mark.parametrize("nullok, nullresetok, answer, named", [
    (0.6, 0.45, "nullresetok", "nullok"),  # nullok's description clearly nearer the question in meaning
    (0.5, 0.45, "nullresetok", None),  # not 0.1 nearer: the reader's entry stands
    (0.6, 0.45, "nullok\n", None),  # the reader named the nearest already
    (0.6, 0.45, "blank", None),  # no entry named: not this choice's
])
def test_meant_entry_names_the_entry_whose_description_is_nearest_in_meaning(nullok, nullresetok, answer, named):
    from function.model.reader import meant_entry

    def near(descriptions):  # a stand-in for the sentence encoder: each description's cosine to the question
        return [0.1 if d.startswith("Turns") else nullok if d.startswith("The default") else nullresetok
                for d in descriptions]

    at = _PAM_UNIX_OPTIONS.index(answer)
    got = meant_entry(_PAM_UNIX_OPTIONS, at, at + len(answer.strip()), near)
    assert (None if got is None else _PAM_UNIX_OPTIONS[got[0]:got[1]]) == named


def test_asked_entry_chooses_no_entry_where_two_hold_the_questions_terms_alike():
    from function.model.reader import asked_entry

    text = "a : int\nThe first count of rows.\n\nb : int\nThe second count of rows.\n"
    at = text.index("first")
    assert asked_entry("Which int parameter holds a count?", text, at, at + 5) is None
    second = asked_entry("Which int parameter holds the second count?", text, at, at + 5)
    assert second is not None and text[second[0]:second[1]] == "b"


_SIGNATURE_PAGE = ("lowess(endog, exog, frac=0.6, it=3)\nParameters:\n\nendog : 1-D numpy array\nThe y-values of "
                   "the observed points.\n\nexog : 1-D numpy array\nThe x-values of the observed points.\n")
_REST_OF_PAGE = ("frac : float\nBetween 0 and 1. The fraction of the data used when estimating each y-value.\n\n"
                 "it : int\nThe number of residual-based reweightings to perform.\n")


@pytest.mark.parametrize("pages, read, answer, named", [
    ([("lowess.html", 0), ("lowess.html", 1)], {0, 1}, "endog", "frac"),  # the next passage's entry, clearly ahead
    ([("lowess.html", 0), ("lowess.html", 2)], {0, 1}, "endog", "endog"),  # not next to it in its page
    ([("lowess.html", 0), ("other.html", 1)], {0, 1}, "endog", "endog"),  # another page
    ([("lowess.html", 0), ("lowess.html", 1)], {0}, "endog", "endog"),  # the neighbour was not read (the cascade)
    ([None, ("lowess.html", 1)], {0, 1}, "endog", "endog"),  # a passage without a chunk (a JSON record)
])
def test_asked_alone_an_entry_of_the_passage_next_to_the_chosen_one_may_name_the_answer(pages, read, answer, named):
    from function.model.reader import Answer, _entry_next_door

    texts = [_SIGNATURE_PAGE, _REST_OF_PAGE]
    at = _SIGNATURE_PAGE.index(answer)
    found = [Answer(0, at, at + len(answer), 0.9)]
    question = "Which lowess parameter sets the fraction of the data used for each estimate?"
    best = _entry_next_door(found, question, texts, None, pages, read)[0]
    assert texts[best.passage][best.start:best.end] == named and best.score == 0.9


def test_asked_alone_the_passage_next_door_counts_though_the_reader_says_it_holds_no_answer(monkeypatch):
    """The neighbour is weighed for its entries' text: every passage run counts, also one whose windows the reader
    calls "no answer" (a numpydoc parameter list's second chunk)."""
    from function.model import reader

    first, words = _passage(_SIGNATURE_PAGE)
    second, _ = _passage(_REST_OF_PAGE)
    b = build_batch([11, 12], [first.ids, second.ids], SPEC)
    assert np.asarray(b.passage_index).tolist() == [0, 1]
    start = np.zeros(b.input_ids.shape, dtype=np.float32)
    end = np.zeros(b.input_ids.shape, dtype=np.float32)
    start[0, b.context_start + words.index("endog")] = end[0, b.context_start + words.index("endog")] = 6.0

    def best():
        found = answers_from_logits(start, end, b, [first, second], 1, 30, passage_bias=np.zeros(2),
                                    texts=[_SIGNATURE_PAGE, _REST_OF_PAGE], windows=np.array([True, False]),
                                    question="Which lowess parameter sets the fraction of the data used for each "
                                             "estimate?", pages=[("lowess.html", 0), ("lowess.html", 1)])
        return [_SIGNATURE_PAGE, _REST_OF_PAGE][found[0].passage][found[0].start:found[0].end]

    assert best() == "frac"  # the second chunk's window is not an answering one, yet its entry names the answer
    monkeypatch.setattr(reader, "ENTRY_NEXT_DOOR", False)
    assert best() == "endog"


def test_where_a_question_asks_which_entry_its_name_replaces_the_readers_answer():
    text = ("frac : float\nThe fraction of the data used for each y-value.\n\ndelta : float\nDistance within which to "
            "use linear interpolation.")
    # the reader is sure of a word of the description, and gives the entry's name nothing
    passage, b, start, end = _two_spans(text, "y-value.", "Distance", [6.0, 5.0], [6.0, 5.0])
    best = _best_of(text, passage, b, start, end)
    assert best("Which lowess parameter sets the fraction of the data used?") == "frac"
    assert best("What is the fraction of the data used?") == "y-value."  # not a question for an entry
    assert best("What type is the parameter that sets the fraction of the data used?") == "y-value."  # a type
    assert best("Which parameter sets the fraction of the data used by default?") == "y-value."  # a default


_SESSION_METHODS = ("merge_environment_settings(url, proxies, stream, verify, cert)\nCheck the environment and merge "
                    "it with some settings.\n\nmount(prefix, adapter)\nRegisters a connection adapter to a prefix.\n\n"
                    "Adapters are sorted in descending order by prefix length.\n\noptions(url, **kwargs)\nSends a "
                    "OPTIONS request.\n")


@pytest.mark.parametrize("text, names", [
    (_SESSION_METHODS, ["merge_environment_settings", "mount", "options"]),  # Sphinx: the description under it
    ("logsf(x, loc=0, scale=1) | Log of the survival function.\nppf(q, loc=0, scale=1) | Percent point function.\n",
     ["logsf", "ppf"]),  # a table's rows: the description in the next cell
    ("static String | trim(String str) | Removes control characters.\n", ["trim"]),  # a type's cell before it
    (": fliplr (x)\nFlip array left to right.\n\n: flipud (x)\nFlip array upside down.\n", ["fliplr", "flipud"]),
    ("tag(tag: dict) \u2192 apispec.core.APISpec\nStore information about a tag.\n", ["tag"]),  # a return annotation
    ("peekitem(index=- 1)\nReturn (key, value) pair at index.\nUnlike popitem(), it is not modified.\n",
     ["peekitem"]),  # a capitalised word before a bracket, and a call inside prose, are no entries
    ("spec.path(\n    path='/gist',\n)\nspec.components.schema(...).parameter(...)\n", []),  # an open call;
    # a call alone with no description under it
    ("chalk.rgb(15, 100, 204)\n", []),
])
def test_api_entries_are_signature_lines_with_their_descriptions(text, names):
    from function.model.reader import api_entries

    assert [text[a:z] for a, z, _ in api_entries(text)] == names


def test_an_example_in_a_code_block_lists_no_api_entries():
    import numpy as np

    from function.model.reader import api_entries

    text = "Examples:\n\nchalk.hex('#DEADED')\nchalk.rgb(15, 100, 204)\nchalk.bgHex('#DEADED')\n"
    block = np.asarray([[text.index("chalk.hex"), len(text) - 1]], dtype=np.int32)
    assert [text[a:z] for a, z, _ in api_entries(text)] == ["chalk.hex", "chalk.rgb"]  # unmarked, they would
    assert api_entries(text, block) == []


@pytest.mark.parametrize("question, listing", [
    ("Which Session method registers a connection adapter to a URL prefix?", "api_entries"),
    ("Which function returns a function that always returns x?", "api_entries"),  # "returns": still a name
    ("What class parses an OpenAPI version string?", "api_entries"),
    ("How do I register a connection adapter for a URL prefix?", "api_entries"),  # a way: often a listed function
    ("How to register a connection adapter?", "api_entries"),
    ("Which lowess parameter sets the fraction of the data used?", "entries"),
    ("What does the mount method do?", None),  # not which one
    ("Which function sets the default timeout, by default?", None),  # a default question
    ("Which is faster, mount or options?", None),  # no noun of an API entry
])
def test_the_entry_choice_weighs_a_lists_entries_or_api_entries_by_the_question(question, listing):
    from function.model.reader import _listing

    got = _listing(question)
    assert (None if got is None else got.entries.__name__) == listing


@pytest.mark.parametrize("answer, named", [
    ("merge_environment_settings", "mount"),  # another entry, the question's terms clearly in "mount"'s
    ("connection adapter", "mount"),  # a word of the description
    ("mount", None),  # the entry already
])
def test_asked_entry_names_the_api_entry_whose_text_holds_the_questions_terms_best(answer, named):
    from function.model.reader import API_ENTRIES, asked_entry

    question = "Which Session method registers a connection adapter to a URL prefix?"
    at = _SESSION_METHODS.index(answer)
    got = asked_entry(question, _SESSION_METHODS, at, at + len(answer), None, API_ENTRIES)
    assert (None if got is None else _SESSION_METHODS[got[0]:got[1]]) == named


def test_an_answer_outside_the_api_entries_keeps_its_place():
    from function.model.reader import API_ENTRIES, LIST_ENTRIES, asked_entry

    text = "Resolver\nalias of SchemaResolver\n\n" + _SESSION_METHODS
    question = "Which Session method registers a connection adapter to a URL prefix?"
    at = text.index("SchemaResolver")
    assert asked_entry(question, text, at, at + len("SchemaResolver"), None, API_ENTRIES) is None
    # the guard is the API listing's own: the same entries without it let the choice replace the prose's span
    unguarded = asked_entry(question, text, at, at + len("SchemaResolver"), None, replace(API_ENTRIES, among=False))
    assert unguarded is not None and text[unguarded[0]:unguarded[1]] == "mount"
    assert not LIST_ENTRIES.among
    at = text.index("merge_environment_settings")
    named = asked_entry(question, text, at, at + 5, None, API_ENTRIES)
    assert named is not None and text[named[0]:named[1]] == "mount"


_CWD = ("os.getcwd()\nReturn a string representing the current working directory.\n\n"
        "os.getcwdb()\nReturn a bytestring representing the current working directory.\n\n"
        "os.chdir(path)\nChange the current working directory to path.\n")


@pytest.mark.parametrize("question, answer, named", [
    # the two entries hold the question's terms alike: the plain name, not its suffixed variant
    ("Which function returns the current working directory?", "os.getcwdb", "os.getcwd"),
    ("Which function returns the current working directory?", "os.getcwd", None),  # the plain one already
    ("Which function returns the current working directory as a bytestring?", "os.getcwdb", None),  # the variant
    # asked for
])
def test_where_entries_tie_the_plain_name_stands_for_its_suffixed_variant(question, answer, named):
    from function.model.reader import API_ENTRIES, asked_entry

    at = _CWD.index(answer + "(")
    got = asked_entry(question, _CWD, at, at + len(answer), None, API_ENTRIES)
    assert (None if got is None else _CWD[got[0]:got[1]]) == named


def test_a_tie_between_names_that_are_not_variants_leaves_the_readers_answer():
    from function.model.reader import API_ENTRIES, asked_entry

    text = ("os.getcwd()\nReturn the current working directory.\n\n"
            "os.listdir()\nReturn the current working directory's entries.\n")
    at = text.index("os.listdir")
    assert asked_entry("Which function returns the current working directory?", text, at, at + 10, None,
                       API_ENTRIES) is None


def test_where_a_question_asks_which_method_the_api_entrys_name_replaces_the_readers_answer():
    # the reader is sure of the entry before the one the question describes
    passage, b, start, end = _two_spans(_SESSION_METHODS, "merge_environment_settings(url,", "Registers", [6.0, 5.0],
                                        [6.0, 5.0])
    best = _best_of(_SESSION_METHODS, passage, b, start, end)
    assert best("Which Session method registers a connection adapter to a URL prefix?") == "mount"
    assert best("How do I register a connection adapter to a URL prefix?") == "mount"  # a way: the function
    assert best("What registers a connection adapter to a URL prefix?") != "mount"  # not a question for an entry


@pytest.mark.parametrize("text, span, assigned", [
    ("class sklearn.cluster.KMeans(n_clusters=8, *, init='k-means++', n_init='warn', tol=0.0001)", "'warn'", True),
    ("class sklearn.cluster.KMeans(n_clusters=8, *, init='k-means++', n_init='warn', tol=0.0001)", "8", True),
    ("sklearn.linear_model.LogisticRegression(penalty='l2', *, C=1.0)", "1.0", True),
    ("def chunked(iterable, n, strict: bool = False):", "False", True),  # after a type annotation
    ("class sklearn.cluster.KMeans(n_clusters=8, *, init='k-means++', n_init='warn')", "n_init", False),  # a name
    ("f(a=g(b=1))", "1", False),  # inside a default's own call, not the signature's brackets
    ("f(a=g(1), b=2)", "2", True),  # after a default's own call
    ("f(a=1) -> None", "None", False),  # after the brackets
    ("w = myindex.writer(limitmb=256)", "256", False),  # an assignment's call, not a line opening with a signature
    ("n_init : 'auto' or int, default=10", "10", False),  # numpydoc's parameter line: no call's brackets
    ("Set it with C=1.0 in prose.", "1.0", False),
    ("canvas.bookmarkPage('my_bookmark',fit=\"XYZ\",left=0,top=200)", "XYZ", False),  # an example's call: a value
    ("scale(2, factor=3)", "3", False),
    ("f(self, /, x: dict[str, int], *, y=1, **kw)", "1", True),
    ("ColumnTransformer(transformers, *, remainder='drop')", "'drop'", True),
])
def test_is_signature_value_says_whether_a_signature_assigns_a_span(text, span, assigned):
    from function.model.reader import is_signature_value

    at = text.index(span)
    assert is_signature_value(text, at, at + len(span)) is assigned


def test_where_a_question_asks_for_no_default_a_signatures_value_gives_way():
    text = "KMeans(n_clusters=8, n_init= 'warn' )\nn_init : int\nNumber of runs."
    # the reader prefers the signature's value (6 + 5.5) to the parameter line's type (5 + 5)
    passage, b, start, end = _two_spans(text, "'warn'", "int", [6.0, 5.0], [5.5, 5.0])
    best = _best_of(text, passage, b, start, end)
    assert best("What type is the n_init parameter of KMeans?") == "int"
    assert best("What is the default n_init of KMeans?") == "'warn'"  # asked for a default: the signature says it


@pytest.mark.parametrize("question, subject", [
    ("What is a Flowable in Platypus?", "Flowable"),
    ("What is a bare repository?", "bare repository"),
    ("what are components in OAS v2", "components"),
    ("What does Platypus stand for in ReportLab?", "Platypus"),
    ("What does the === operator mean in a Wireshark display filter?", "=== operator"),
    ("What is the original meaning of the word Norman?", None),  # more than four words: not a definition's subject
    ("Which class draws a Flowable?", None),
    ("What does fetch return?", None),
])
def test_defined_is_what_a_question_asks_to_be_defined(question, subject):
    from function.model.sentence import defined

    assert defined(question) == subject


@pytest.mark.parametrize("text, subject, span, introduced", [
    ("Drawings\n\nA Drawing is a platform-independent description of shapes.", "Drawing", "a platform", True),
    ("Drawings\n\nA Drawing is a platform-independent description of shapes.", "Drawing", "platform", True),
    ("A bare repository is normally an appropriately named directory.", "bare repository", "an appropriately", True),
    ("dirty\nA tree is dirty.\n\nevil merge\nAn evil merge is a merge.", "evil merge", "An evil", True),  # glossary
    ("SNI (Server Name Indication): an extension to TLS.", "SNI", "an extension", True),
    ("Platypus stands for Page Layout and Typography Using Scripts.", "Platypus", "Page Layout", True),
    ("A Drawing holds shapes and is a platform-independent description.", "Drawing", "a platform", False),
    ("Each Drawing is drawn by a renderer.", "Drawing", "by a renderer", False),  # "drawn": not an adverb in -ly
    ("A Drawings is a typo.", "Drawing", "a typo", False),  # whole words only
    ("Views:\n\n- SortedKeysView\n- SortedItemsView\n", "SortedKeysView", "SortedItemsView", False),  # a list
    ("See SortedKeysView\nSortedItemsView holds items.", "SortedKeysView", "SortedItemsView", False),  # not alone
])
def test_introduces_says_whether_the_text_defines_the_subject_right_before_a_span(text, subject, span, introduced):
    from function.model.sentence import introduces

    assert introduces(text, subject, text.index(span)) is introduced


@pytest.mark.parametrize("text, subject, span, whole", [
    ("A GQuark is a non-zero integer which uniquely identifies a particular string. More.", "GQuark",
     "a non-zero integer", "a non-zero integer which uniquely identifies a particular string"),
    ("A bare repository is normally an appropriately named directory with a .git suffix that has no tree.\nNext",
     "bare repository", "an appropriately named directory",
     "an appropriately named directory with a .git suffix that has no tree"),  # ".git" does not end the sentence
    ("maintenance branch\nA type of branch used by semantic-release to publish; see below.", "maintenance branch",
     "A type of branch", "A type of branch used by semantic-release to publish"),  # a glossary's term; ";" ends it
    ("A GQuark is a non-zero integer. It identifies a string.", "GQuark", "a non-zero integer", None),  # ends there
    ("A GQuark is a non-zero integer and more.", "GQuark", "a non-zero integer", None),  # no relative clause
    ("Each GQuark maps a non-zero integer which identifies a string.", "GQuark", "a non-zero integer", None),  # no
    # definition of the subject starts at the span
    ("A GQuark is a non-zero integer which " + "x " * 90 + "ends.", "GQuark", "a non-zero integer", None),  # too long
])
def test_a_definition_runs_on_through_the_relative_clause_its_noun_phrase_goes_on_with(text, subject, span, whole):
    from function.model.sentence import definition_end

    start = text.index(span)
    assert text[start:definition_end(text, subject, start, start + len(span))] == (whole or span)


@pytest.mark.parametrize("text, first, second, starts, ends, question, lifted, other_question, other", [
    # the reader prefers "Frames" (6 + 5) to "abstract." (5 + 5.5) and to the span across both (5 + 5); both sentences
    # hold the question's word
    ("A Flowable is abstract. Frames hold a Flowable.", "abstract.", "Frames", [5.0, 6.0], [5.5, 5.0],
     "What is a Flowable?", "abstract.", "Which class holds a Flowable?", "Frames"),
    # the reader prefers "12" (6 + 5.5) to "10" (5 + 5) and to the span across both (6 + 5); both sentences hold the
    # question's words
    ("The width 12 is a default width. The default width is 10 now.", "10", "12", [5.0, 6.0], [5.0, 5.5],
     "What is the default width?", "10", "Which width does it give?", "12"),
    # the reader prefers "pairs" (6 + 5.5), the next entry's value, to "view" (5 + 5); one sentence holds both
    ("keys()\nReturns: view\n\nitems()\nReturns: pairs", "view", "pairs", [5.0, 6.0], [5.0, 5.5],
     "What does keys() return?", "view", "Which value does it give?", "pairs"),
    # a default asked as the value when none is given (postgisref-006's passage): "10" is stated as the default
    ("The width 12 is allowed. If omitted, the width defaults to 10 here.", "10", "12", [5.0, 6.0], [5.0, 5.5],
     "Which width does it use if I don't pass one?", "10", "Which width is allowed?", "12"),
])
def test_a_definition_or_a_default_the_question_asks_for_is_lifted(text, first, second, starts, ends, question, lifted,
                                                                    other_question, other):
    """Where the question asks what something is, what its default is or what a name returns, the span the text gives
    as such wins; another question about the same words keeps the reader's choice."""
    passage, b, start, end = _two_spans(text, first, second, starts, ends)

    def best(asked):
        found = answers_from_logits(start, end, b, [passage], 3, 30, texts=[text], question=asked)
        assert sum(a.score for a in found) <= 1.0 + 1e-9
        return text[found[0].start:found[0].end]

    assert best(question) == lifted
    assert best(other_question) == other


@pytest.mark.parametrize("text, question, span, stated", [
    ("the default line width is 0.5bp.", "What is the default line width?", "0.5bp", True),
    ("gc.reflogExpire, which in turn defaults to 90 days.", "How long is the default expiry?", "90 days", True),
    ("Prune loose objects older than date (default is 2 weeks ago).", "What is the default?", "2 weeks ago", True),
    ("size of kernel buffer (def: 2MB)", "What is the default buffer size?", "2MB", True),
    ("directory (by default, /usr/share/asymptote)", "Which directory by default?", "/usr/share/asymptote", True),
    ("add(component_id: str, *, lazy: bool = False)", "What is the default of lazy?", "False", True),  # a signature
    ('bookmarkPage(name,\n    fit="Fit")', "Which fit does bookmarkPage use by default?", "Fit", True),
    ("The width is 10.", "What is the default width?", "10", False),
    ("a default\n10 pixels", "What is the default width?", "10 pixels", False),  # another line
    ("width=10", "What is the default height?", "10", False),  # not a word of the question
    # a "Default:" label cell, the value in the next after the entry's name at most (Apache httpd's directive tables)
    ("Default: | LimitRequestBody 1073741824", "What is the default LimitRequestBody?", "1073741824", True),
    ("Default: | LimitRequestBody 1073741824", "What is the default LimitRequestBody?", "LimitRequestBody 1073741824",
     True),
    ("Default | Off", "Is it on or off by default?", "Off", True),
    ("Compatibility: | the default value was 0", "What is the default limit?", "0", False),  # no longer the default
    ("Default: | Listen 80 443", "What is the default Listen?", "443", False),  # two words past the cell
    # numpydoc's "default VALUE" after a comma, a man page's "(default VALUE)"; Sphinx's typographic quotes
    ("how : {‘left’, ‘inner’}, default ‘inner’", "What is the default value of how?", "inner", True),
    ("copy : bool, default True", "Does it copy by default?", "True", True),
    ("-t N  Seconds to wait (default 30).", "How long does it wait by default?", "30", True),
    ("solver : {‘lbfgs’, ‘saga’}, default=‘lbfgs’", "Which solver by default?", "lbfgs", True),
    ("savgol_filter(x, mode=‘interp’)", "Which mode does it use by default?", "interp", True),  # a signature
    ("the default 30 seconds", "How long by default?", "30", False),  # "default" with neither verb nor comma
    # a signature's assignment to a name the question gives: a stop word, "_" or camelCase parts; not its interrogative
    ("DataFrame.join(other, on=None, how='left', lsuffix='')", "What is the default value of how in DataFrame.join?",
     "left", True),
    ("iter_content(chunk_size=1, decode_unicode=False)", "What is the default chunk size of iter_content?", "1", True),
    ("axios(maxRedirects = 21)", "What is the default maximum number of redirects?", "21", True),
    ("merge(how='inner')", "How does merge join by default?", "inner", False),
    # a type annotation reaches no further than its parameter
    ("join(other: DataFrame, how: str = 'left')", "What is the default value of how in DataFrame.join?", "left", True),
    ("f(lazy: bool, size: int = 3)", "What is the default of lazy?", "3", False),
    ("f(d: dict[str, int] = DEFAULTS)", "What is the default of d in f?", "DEFAULTS", True),
    # a placeholder a signature assigns is no stated default (the description says what it becomes); said, it is
    ("Context(command, max_content_width=None)", "What is the default max_content_width?", "None", False),
    ("f(d: dict[str, int] = None)", "What is the default of d in f?", "None", False),
    ("createServer(options = undefined)", "What are the default options of createServer?", "undefined", False),
    ("Default: None", "What is the default max_content_width?", "None", True),
    ("name (String)\nDefault: undefined", "What is the default name?", "undefined", True),
    ("f(flag=Nonesuch)", "What is the default flag?", "Nonesuch", True),  # a name, not the placeholder
    ("f(timeout=0)", "What is the default of max iterations?", "0", False),
    # a call in an example assigns no default; a signature does
    ("myCanvas = Canvas('myfile.pdf', pagesize=letter)", "What page size if I don't pass pagesize?", "letter", False),
    (">>> Canvas('myfile.pdf', pagesize=letter)", "What page size if I don't pass pagesize?", "letter", False),
    ("Use it so:\nc = Canvas(name, pagesize=letter)", "What page size if I don't pass pagesize?", "letter", False),
    ("Canvas(filename, pagesize=letter)", "What page size if I don't pass pagesize?", "letter", True),
    ("takes one of TOP, MIDDLE or the default BOTTOM", "What is the default vertical alignment?", "BOTTOM", True),
])
def test_states_default_says_whether_the_line_gives_a_span_as_a_default(text, question, span, stated):
    from function.model.sentence import asks_default, states_default

    assert asks_default(question)
    assert states_default(text, question, text.rindex(span)) is stated


@pytest.mark.parametrize("text, span, stated", [
    ("umask=mask\nThe mode mask is set to mask. The default value of mask is 0022.", "=mask", False),  # its name
    ("umask=mask\nThe mode mask is set to mask. The default value of mask is 0022.", "0022", True),
    ("umask=0077\nThe mode mask.", "=0077", True),  # not named again: a value
    ("f(umask=mask)\nThe default value of mask is 0022.", "=mask", True),  # in a signature's brackets: a default
])
def test_a_value_s_name_that_an_option_s_head_assigns_is_no_default(text, span, stated):
    from function.model.sentence import states_default

    start = text.index(span) + span.startswith("=")
    end = text.index(span) + len(span)
    assert states_default(text, "What is the default umask?", start, end) is stated


@pytest.mark.parametrize("text, span, stated", [
    ('If content-type is not given, "text/x-rst" is used by default.', "text/x-rst", True),  # said after it
    ("Split dataset into k consecutive folds (without shuffling by default).", "shuffling", False),  # of the verb
    ("Caps: squarecap, roundcap is the default.", "roundcap", True),
    ("The default line cap, roundcap, may be changed with defaultpen(pen).", "roundcap", True),  # an appositive
    ("The default line cap, however, may be changed.", "however", False),  # an aside, no value
    ("The default line cap, roundcap may be changed.", "roundcap", False),  # the appositive not closed
    ("Compression is enabled by default.", "Compression", False),  # what is on by default, not a value
    ("Apache listens on port 80 by default.", "80", True),  # a number, then a bare "by default"
    ('The encoding is "utf-8" by default.', "utf-8", True),  # a quoted value
    ("The delay is 10ms by default.", "10ms", True),
    ("It converts all elements to str by default.", "str", False),  # a bare word: as often the verb's object
])
def test_states_default_reads_a_default_said_after_the_span_given_its_end(text, span, stated):
    from function.model.sentence import states_default

    start = text.index(span)
    assert states_default(text, "What is the default line cap?", start, start + len(span)) is stated
    assert states_default(text, "What is the default line cap?", start) is False  # without its end: before only


_OPTIONS_TABLE = ("Options\nCommand | Description | Defaults\n-p | Port to use | 8080\n"
                  "-c | Set cache time (in seconds), e.g. -c10 | 3600\nEnd.")


@pytest.mark.parametrize("text, span, stated", [
    (_OPTIONS_TABLE, "3600", True),  # first in a cell under "Defaults"
    (_OPTIONS_TABLE, "8080", True),
    (_OPTIONS_TABLE, "Set cache", False),  # under "Description"
    (_OPTIONS_TABLE, "-c ", False),  # the row's first cell
    (_OPTIONS_TABLE, "Defaults", False),  # the header itself
    ("-p | Port to use | 8080\n-c | Cache | 3600", "3600", False),  # rows with no header above them
    ("Option | Default value | Description\nlimit | 5 | How many\n", "5", True),
    ("Option | Default value | Description\nlimit | 5 | How many\n", "How many", False),
    ("Option | Type | Default\nlimit | number | 5 or 10", "10", False),  # not at its cell's start
    ("Flag | Description | Default\n-s | Quiet |\n-c | Cache time | 3600", "3600", True),  # a row's empty last cell
])
def test_a_value_first_in_a_cell_under_a_default_header_is_stated_as_a_default(text, span, stated):
    from function.model.sentence import states_default

    assert states_default(text, "What is the default?", text.index(span)) is stated


@pytest.mark.parametrize("question, asks", [
    ("What is the default line width?", True),
    ("What page size does a ReportLab canvas use if I don't pass pagesize?", True),
    ("What mode does git reset use when no mode is given?", True),
    ("What resampling algorithm does ST_Resample use when I don't specify one?", True),
    ("If I declare a column as geography(POINT) without an SRID, which SRID does it use?", True),
    ("What are path variables initialized to when declared without a value?", True),
    ("What is postgis.gdal_enabled_drivers set to out of the box?", True),
    ("Which separator is used if omitted?", True),
    # a negated verb later in the clause, a name that is not set, "no" and two words, neither/nor, left out, an option
    ("What syslog facility does slon use if I turn on syslog and don't set one?", True),
    ("Which postgres user does the slon connect as if DBUSER isn't set?", True),
    ("What HTTP method does axios use when method is not set?", True),
    ("What delay does pam_faildelay use when no delay= argument is given?", True),
    ("What does program.parse() use when no arguments are passed to it?", True),
    ("Which editor does Git fall back to when neither VISUAL nor EDITOR is set?", True),
    ("If I leave out CONNRETRY in STORE PATH, how many seconds does slon wait?", True),
    ("Is a generated column VIRTUAL or STORED when I leave that keyword off?", True),
    ("Which kind of tags does git describe consider when run without --all or --tags?", True),
    ("What happens if I set it twice, and don't restart?", False),  # the clause ends before the negated verb
    ("When is the cache not set up?", False),
    ("Which command adds members to a group without an error?", False),  # not a value left out
    ("How do I pass a page size?", False),
    ("Which SRID does ST_Transform use?", False),
])
def test_asks_default_reads_a_value_left_out_as_a_default(question, asks):
    from function.model.sentence import asks_default

    assert asks_default(question) is asks


@pytest.mark.parametrize("question, alternatives", [
    ("Is SSL on or off by default in Pgpool-II?", ("on", "off")),
    ("Are Asymptote function arguments passed by value or by reference?", ("by value", "by reference")),
    ("Are start and stop of islice inclusive or exclusive?", ("inclusive", "exclusive")),
    ("Does it take one or more workers?", ()),  # a bound, not a choice
    ("Which Python 3.8 or later release added it?", ()),
    ("What does git rebase do?", ()),
])
def test_offered_reads_the_answers_a_question_allows(question, alternatives):
    from function.model.sentence import offered

    assert offered(question) == alternatives


@pytest.mark.parametrize("span, offered, want", [
    ("off", ("on", "off"), True),
    ("Off.", ("on", "off"), True),
    ("passed by value", ("by value", "by reference"), True),  # after at most two words
    ("Default is off", ("on", "off"), True),
    ("for both the frontend and backend. Default is off", ("on", "off"), False),  # a sentence that ends with one
    ("offset", ("on", "off"), False),  # whole words
])
def test_is_offered_says_whether_a_span_is_one_of_the_answers_offered(span, offered, want):
    from function.model.sentence import is_offered

    assert is_offered(span, offered) is want


@pytest.mark.parametrize("question, alternatives", [
    ("Is SSL on or off by default in Pgpool-II?", ("on", "off")),
    ("Are Asymptote function arguments passed by value or by reference?", ("by value", "by reference")),
    ("  does irange include or exclude its maximum?", ("include", "exclude")),  # any case, leading space
    ("What does abs return for an int or a float?", ()),  # offers words, asks no choice
    ("Is it fast?", ()),  # asks yes or no, offers nothing
])
def test_choice_is_a_question_led_by_an_auxiliary_verb_that_offers_its_answers(question, alternatives):
    from function.model.sentence import choice

    assert choice(question) == alternatives


@pytest.mark.parametrize("text, alternatives, places", [
    ("ssl (boolean)\nWhen set to on, SSL is enabled. Default is off.", ("on", "off"), [(26, 28), (57, 60)]),
    ("Turns SSL on or off. Default is off.", ("on", "off"), [(32, 35)]),  # its own "on or off" is no answer
    ("ssl = on/off\nDefault: OFF", ("on", "off"), [(22, 25)]),
    ("Arguments are passed\nby  value.", ("by value", "by reference"), [(21, 30)]),  # any white space between
    ("The offset is kept; the cron job runs", ("on", "off"), []),  # whole words only
])
def test_offered_in_finds_the_alternatives_a_text_writes_but_not_its_own_offer(text, alternatives, places):
    from function.model.sentence import offered_in

    assert offered_in(text, alternatives) == places
    assert all(text[x:z].casefold().split() in [a.split() for a in alternatives] for x, z in places)


def test_a_choice_answered_with_none_of_its_alternatives_takes_the_one_its_passage_writes():
    """The reader's span "reused" answers none of "on or off": the passage's "off", in the sentence that holds the
    question's terms, answers; a span that is an alternative, a question that offers none, or a passage that writes
    none keeps the reader's answer."""
    from function.model.reader import Answer, _offered_answer

    texts = ["so_reuseaddr\nThe socket is reused when the flag is on. By default SO_REUSEADDR is off.",
             "Sockets are reused across restarts."]
    found = [Answer(0, 14, 40, 0.8), Answer(1, 0, 7, 0.1)]
    question = "Is SO_REUSEADDR on or off by default?"
    best = _offered_answer(found, question, texts)
    assert texts[0][best[0].start:best[0].end] == "off"
    assert (best[0].passage, best[0].score) == (0, 0.8)
    assert best[1:] == found[1:]
    on = Answer(0, texts[0].index("on."), texts[0].index("on.") + 2, 0.8)
    assert _offered_answer([on], question, texts) == [on]  # already an alternative
    assert _offered_answer(found, "When is the socket reused?", texts) == found  # no choice asked
    assert _offered_answer(found[1:], question, texts) == found[1:]  # its passage writes neither


def test_a_choice_whose_chosen_passage_writes_no_alternative_takes_the_next_passage_that_does():
    """Asked alone: the chosen passage (the neighbouring entry) writes neither "on" nor "off", so the next passage read
    that writes one in a sentence holding the question's terms answers, at the chosen span's score; a passage whose
    alternative stands in a sentence without the question's terms does not."""
    from function.model.reader import Answer, _offered_answer

    texts = ["auto_failback_interval (integer)\nThe minimum time between two auto failbacks. The default is 60.",
             "Turn the lights on when you leave.",
             "auto_failback (boolean)\nReattach a standby node. The default is off."]
    question = "Is auto_failback on or off by default?"
    found = [Answer(0, texts[0].index("60"), texts[0].index("60") + 2, 0.9), Answer(1, 0, 4, 0.05),
             Answer(2, 0, 13, 0.03), Answer(0, 0, 22, 0.01)]
    best = _offered_answer(found, question, texts)
    assert (best[0].passage, texts[2][best[0].start:best[0].end], best[0].score) == (2, "off", 0.9)
    assert best[1:] == found[1:]
    assert _offered_answer(found[:2], question, texts) == found[:2]  # "on" in a sentence without the question's terms


def _first_answer(text, first, second, starts, ends):
    """``_two_spans``' passage and logits, and the answer a question then gets first."""
    passage, b, start, end = _two_spans(text, first, second, starts, ends)

    def best(asked):
        found = answers_from_logits(start, end, b, [passage], 3, 30, texts=[text], question=asked)
        return text[found[0].start:found[0].end]
    return best


def test_an_answer_the_question_offers_wins():
    # the reader prefers "0|1" (6 + 5.5) to "off" (5 + 5)
    best = _first_answer("The flag reads 0|1 here. The flag is off by default.", "0|1", "off", [6.0, 5.0], [5.5, 5.0])
    assert best("Is the flag on or off?") == "off"
    assert best("What does the flag read?") == "0|1"


_NUMPYDOC = ("how : {‘left’, ‘inner’}, default ‘inner’\nType of merge.\n\n"
             "indicator : bool or str, default False\nIf True, adds a column.\n\n"
             "max_iter : int, default=100\nIterations.\n\nn_neighbors, n_jobs : int, default=5\nNeighbors.\n")
_ITEMS = ("- maxRetries number (optional) - Maximum number of retries. Default: 5\n"
          "- maxTimeout number (optional) - Maximum number of milliseconds to wait. Default: 30000 (30 seconds)\n"
          "- level: the logger's level. Default: 'info'\n")
_PARAMETERS = ("health_check_timeout (integer)\nSpecifies the timeout. Default value is 20 seconds.\n\n"
               "health_check_period (integer)\nSpecifies the interval. Default is 0 seconds: disabled.\n")


_LIFECHECK = ('wd_lifecheck_query (string)\nSpecifies the query to use for the life check. Default is "SELECT 1".\n\n'
              'wd_lifecheck_dbname (string)\nSpecifies the database name for the life check. Default is "template1".')


@pytest.mark.parametrize("text, question, span, owner", [
    (_PARAMETERS, "What is the default health_check_timeout?", "20", 1),  # the entry asked about
    (_PARAMETERS, "What is the default health_check_timeout?", "0", -1),  # the next parameter's default
    (_PARAMETERS, "What is the default health_check_period?", "0", 1),
    (_PARAMETERS, "What is the default health_check_period?", "20", -1),
    (_PARAMETERS, "What is the default timeout?", "0", 1),  # no entry of the question's: nothing to tell
    ("pop(index=-1)\nRemove the item. Default is the last.\n\nadd(value)\nDefault is none.",
     "Which item does SortedList.pop remove by default?", "none", -1),  # a dotted name's last part, signatures
    ("max_pool (integer)\nOptions\nDefault is 4.", "What is the default max_pool?", "4", 1),  # a plain word: no head
    ("path\n\nDefault: path.resolve(process.cwd())\n", "What is the default path?", "path.resolve", 1),  # its own line
    # a plain word with its type heads an entry as a code-shaped name does (pino's options: "level (String)")
    ("name (String)\n\nDefault: undefined\n\nThe name of the logger.\n\nlevel (String)\n\nDefault: 'info'\n",
     "What is the default value of the name option?", "'info'", -1),
    ("name (String)\n\nDefault: undefined\n\nThe name of the logger.\n\nlevel (String)\n\nDefault: 'info'\n",
     "What is the default value of the name option?", "undefined", 1),
    ("name (String)\n\nDefault: undefined\n\nlevel\n\nDefault: 'info'\n",
     "What is the default value of the name option?", "'info'", 1),  # a plain word alone: maybe a heading
    # the question writes the entry's name as the words its "_" joins
    (_PARAMETERS, "What is the default health check period?", "0", 1),
    (_PARAMETERS, "What is the default health check period?", "20", -1),
    (_PARAMETERS, "What is the default check period?", "20", 1),  # not every word named: no entry asked about
    # numpydoc's parameter lines head entries, whatever their names; a name by the start of its parts' words
    (_NUMPYDOC, "What is the default value of how in DataFrame.merge?", "inner", 1),
    (_NUMPYDOC, "What is the default value of how in DataFrame.merge?", "False", -1),  # indicator's
    (_NUMPYDOC, "What is the default indicator?", "inner", -1),
    (_NUMPYDOC, "What is the default of max iterations?", "100", 1),  # "max_iter"
    (_NUMPYDOC, "What is the default of max iterations?", "False", -1),
    (_NUMPYDOC, "How many neighbors by default?", "5", 1),  # "n_neighbors": "n" is too short to ask for
    (_NUMPYDOC, "How many neighbors by default?", "100", -1),
    # a doctest's output is no signature; a section's heading ends the entry above it
    ("pop(index=-1)\nRemove it.\n>>> sl\nSortedList(['a', 'b'])\nindex (int) - index of value (default -1)",
     "What is the default index of SortedList.pop?", "-1", 1),
    ("pop(index=-1)\nRemove it.\nSortedList(['a', 'b'])\nindex (int) - index of value (default -1)",
     "What is the default index of SortedList.pop?", "-1", -1),  # no prompt above: a signature's line
    ("bw_method : str\nThe method.\n\nweights : array_like\nWeights.\n\nNotes\n\nThe default is Scott's Rule.",
     "Which bandwidth method does gaussian_kde use by default?", "Scott", 1),
    ("bw_method : str\nThe method.\n\nweights : array_like\nWeights.\n\nThe default is Scott's Rule.",
     "Which bandwidth method does gaussian_kde use by default?", "Scott", -1),
    # a list item that opens with a name and a dash heads an entry (undici's options: "Default: X" ends each item)
    (_ITEMS, "What is the default maxTimeout of the RetryHandler?", "5", -1),  # maxRetries'
    (_ITEMS, "What is the default maxTimeout of the RetryHandler?", "30000", 1),
    (_ITEMS, "What is the default maxRetries?", "5", 1),
    (_ITEMS, "What is the default level?", "'info'", 1),  # "- level: ..."
    ("- Install it - then run it. Default: 3\n- maxRetries number - Retries. Default: 5",
     "What is the default maxRetries?", "3", 1),  # a prose item heads nothing
    # a name's part the question writes as two words: "life checks" names wd_lifecheck_query
    (_LIFECHECK, "Which query does the watchdog use for life checks by default?", '"template1"', -1),
    (_LIFECHECK, "Which query does the watchdog use for life checks by default?", '"SELECT 1"', 1),
    (_LIFECHECK, "Which query does the watchdog use by default?", '"template1"', 1),  # no entry named: no telling
])
def test_default_owner_says_whether_a_stated_default_is_the_entry_s_the_question_names(text, question, span, owner):
    from function.model.sentence import default_owner, names_entry

    start = text.rindex(span)
    assert default_owner(text, question, start, names_entry(text, question)) == owner


def test_a_default_of_the_entry_asked_about_wins_over_the_next_entry_s():
    """The reader prefers the next parameter's default (6 + 5.5 against 5 + 5); the question names the first."""
    best = _first_answer(_PARAMETERS, "20", "0", [5.0, 6.0], [5.0, 5.5])
    assert best("What is the default health_check_timeout?") == "20"
    assert best("What is the default health_check_period?") == "0"
    assert best("What is the default in seconds?") == "0"  # no entry named: the reader's choice


def test_a_numpydoc_default_of_the_parameter_asked_about_wins():
    """The reader prefers indicator's default (6 + 5.5 against 5 + 5); the question names how, a stop word."""
    text = "how : str, default inner\nType of merge.\n\nindicator : bool, default False\nAdds a column."
    best = _first_answer(text, "inner", "False", [5.0, 6.0], [5.0, 5.5])
    assert best("What is the default value of how in DataFrame.merge?") == "inner"
    assert best("What is the default value of indicator?") == "False"


@pytest.mark.parametrize("question, name", [
    ("What does to_yaml return?", "to_yaml"),
    ("What does SortedDict.keys() return?", "keys"),
    ("What does canvas.drawInlineImage return?", "drawInlineImage"),
    ("What may a plugin's header_helper return?", "header_helper"),
    ("What should a flowable's split method return when it cannot split?", "split"),
    ("What does find(string s, string t) return when t is not a substring?", "find"),
    ("What does the len function return in a display filter?", "len"),
    ("What did the king return to France with?", None),  # no name: two plain words
    ("What happens if a plugin does not return anything?", None),
    ("Which method returns the keys?", None),
    # a name qualified as Erlang, Rust and C++ qualify it: its last part
    ("What does maps:find return when no value is associated with the key?", "find"),
    ("What does proplists:get_value/2 return when the key is missing?", "get_value"),
    ("What does HashMap::insert return if the key was not present?", "insert"),
    ("What does fmt::format return?", "format"),
    ("What does Mock#expects return?", "expects"),  # Ruby's and JavaScript's instance method
])
def test_returned_is_the_name_a_question_asks_the_return_value_of(question, name):
    from function.model.sentence import returned

    assert returned(question) == name


@pytest.mark.parametrize("question, terms", [
    ("What does SDL_CreateWindow return on failure?", {"failure"}),
    ("What does SDL_AddTimer return if an error occurs?", {"error", "occurs"}),
    ("What does nth return when no such item exists?", {"item", "exists"}),
    ("What does str.find return if sub is not found?", {"sub", "found"}),
    ("What does SDL_CreateWindow return?", None),  # no condition
    ("Which function returns NULL on failure?", None),  # no return value asked
    ("What does it return on?", None),  # a condition without a term
])
def test_return_condition_is_the_condition_a_return_question_asks_under(question, terms):
    from function.model.sentence import return_condition

    got = return_condition(question)
    assert (None if got is None else terms <= got and "return" not in got) is (None if terms is None else True)


_WINDOW = "Returns the window that was created or NULL on failure; call SDL_GetError() for more information."


@pytest.mark.parametrize("text, span, condition, cut", [
    (_WINDOW, "the window that was created or NULL", {"failure"}, "NULL"),
    (_WINDOW, "the window that was created or NULL on failure", {"failure"}, "NULL"),
    (_WINDOW, "the window that was created or NULL", {"success"}, None),  # another condition: as it was
    ("a timer ID or 0 if an error occurs; call SDL_GetError()", "a timer ID or 0", {"error", "occurs"}, "0"),
    ("Returns nth item in the sequence\nor None if no such item exists.", "in the sequence\nor None", {"item"}, "None"),
    ("the passed in String, or the empty String if it was null", "the passed in String, or the empty String",
     {"null"}, "the empty String"),
    (_WINDOW, "the window", {"failure"}, None),  # the alternative is not in the span
])
def test_conditioned_value_cuts_a_span_to_the_alternative_the_condition_gives(text, span, condition, cut):
    from function.model.sentence import conditioned_value

    a = text.index(span)
    start, end = conditioned_value(text, a, a + len(span), frozenset(condition))
    assert text[start:end] == (span if cut is None else cut)


def test_a_value_followed_by_the_question_s_condition_is_lifted():
    """'What does get return if the key is missing?': "None" (followed by that condition) over the value the reader
    prefers, which "Return" starts too; no condition asked, the reader's choice stands, run on to its sentence's end
    (``sentence.return_end``)."""
    text = "get(key)\nReturn value for key if key is there. Return None if key is missing."
    passage, b, start, end = _two_spans(text, "value", "None", [5.0, 4.5], [5.0, 4.5])  # both said returned
    best = _best_of(text, passage, b, start, end)
    assert best("What does get return if the key is missing?") == "None"
    assert best("What does get return?") == "value for key if key is there"


def test_a_condition_s_clause_ends_at_a_comma():
    """ "Return PAM_SUCCESS if no file exists, the default is PAM_IGNORE.": the condition after PAM_SUCCESS is "if no
    file exists", not the default the sentence goes on to (pam-023: "... when no nologin file exists, by default?")."""
    from function.model.sentence import conditioned, return_condition

    text = "Return PAM_SUCCESS if no file exists, the default is PAM_IGNORE."
    end = text.index(" if")
    asked = return_condition("What does pam_nologin return when no nologin file exists, by default?")
    assert not conditioned(text, end - len("PAM_SUCCESS"), end, asked)
    assert conditioned(text, end - len("PAM_SUCCESS"), end, return_condition("What does it return if no file exists?"))


_ENTRIES = "keys()\nReturn new keys view of the dict.\n\nReturns:\nnew keys view\n\ncopy()\nReturn a shallow copy.\n"


@pytest.mark.parametrize("text, name, span, stated", [
    ("to_yaml(kwargs: Any | None = None) → str\nRender the spec.", "to_yaml", "str", True),  # a signature's arrow
    ("to_yaml(kwargs: Any | None = None) → str\nRender the spec.", "to_yaml", "None", False),  # its default
    ("def f(x) -> int:", "f", "int", True),
    ("#expects(method_name_or_hash, backtrace = nil) \u21d2 Expectation", "expects", "Expectation", True),  # YARD's
    (_ENTRIES, "keys", "new keys view of", True),  # "Return ..." at a line's start
    (_ENTRIES, "keys", "new keys view\n", True),  # under "Returns:"
    (_ENTRIES, "copy", "a shallow copy", True),
    (_ENTRIES, "copy", "new keys view\n", False),  # the entry above copy()'s
    (_ENTRIES, "keys", "a shallow copy", False),  # copy()'s, not keys()'s
    ("disable()\n\nWill disable all. The functions returns the namespaces enabled.", "disable", "the namespaces", True),
    ("lower | Converts to lowercase.\nlen | Returns the byte length", "len", "the byte length", True),  # a table row
    ("len | Returns the byte length", "count", "the byte length", False),  # another name's row
    ("If the key is there then return its value.", "setdefault", "its value", False),  # a verb in prose
    ("parse(text, debug=False)\nParses the input string and returns a Query object.", "parse", "a Query", True),
    ("split(text)\nSplit the text and return a list of words.", "split", "a list", True),
    ("split(text)\nSplit the text and return a list of words.", "join", "a list", False),  # another name's entry
    # "and return" in prose with no signature heading the entry: whose it is is not said
    (": ctime (t)\nConvert a value returned from time to local time and return a string.", "time", "a string", False),
])
def test_states_return_says_whether_the_text_gives_a_span_as_the_name_s_return_value(text, name, span, stated):
    from function.model.sentence import states_return

    assert states_return(text, name, text.index(span)) is stated


@pytest.mark.parametrize("text, name, span, whole", [
    ("copy()\nReturn a shallow copy of the sorted dict.\nMore.", "copy", "a shallow",
     "a shallow copy of the sorted dict"),  # to the sentence's end
    ("keys()\nReturn new sorted keys view. It is live.", "keys", "new", "new sorted keys view"),  # ". " ends it
    ("Returns:\n\nout : bool\nTrue when the image is low contrast.\n", "is_low_contrast", "True",
     "True when the image is low contrast"),  # numpydoc's description, the title naming the function
    ("entropy()\nReturns the entropies of image1|image0 and image0|image1 | next cell", "entropy", "the entropies",
     "the entropies of image1|image0 and image0|image1"),  # a table's " | " ends it, a "|" in a word does not
    ("now()\nReturn the current date as a serial day number (see datenum).", "now", "the current date",
     "the current date as a serial day number"),  # a trailing aside is not part of it
    ("update()\nReturns the number of rows matched (which may differ):\n- one", "update", "the number of rows",
     "the number of rows matched"),  # nor a colon before a list
    ("size()\nReturns the size (in pixels) of the image.", "size", "the size", "the size (in pixels) of the image"),
    ("size()\nReturns the size; or raises.", "size", "the size", None),  # ";" ends it
    ("size()\nThe size of the thing, in pixels.", "size", "The size", None),  # not said to be the return value
    ("other()\nReturns the size in pixels.", "size", "the size", None),  # another entry's
    ("size()\nReturns the size " + "and more " * 20 + "end.", "size", "the size", None),  # too long
])
def test_a_return_value_runs_on_to_its_sentences_end(text, name, span, whole):
    from function.model.sentence import return_end

    start = text.index(span)
    title = "exposure > is_low_contrast" if "out : bool" in text else None
    assert text[start:return_end(text, name, start, start + len(span), title)] == (whole or span)


# numpydoc's Returns section, as extracted: a blank line after "Returns:", a named value's "name : type" line and its
# description under it; on a one-function page no signature is near, and the passage's title names the function.
_NUMPYDOC = ("Parameters:\n\ncv : int\nThe number of folds.\n\nReturns:\n\nscores : ndarray of float\n"
             "Array of scores of the estimator.\n\nSee also\n")
_TITLE = "sklearn.model_selection.cross_val_score > sklearn.model_selection.cross_val_score"


@pytest.mark.parametrize("text, title, span, stated", [
    (_NUMPYDOC, _TITLE, "Array of scores", True),  # the description under the named value
    (_NUMPYDOC, _TITLE, "scores : ndarray", False),  # the name and type line itself
    (_NUMPYDOC, _TITLE, "The number of folds", False),  # a parameter's description
    (_NUMPYDOC, None, "Array of scores", False),  # no title: nothing says whose entry this is
    (_NUMPYDOC, "sklearn.model_selection.cross_validate", "Array of scores", False),  # another function's page
    ("cross_val_score(cv)\nReturns:\n\nDataFrame or None\nWhat it made.", None, "DataFrame or None", True),
])
def test_states_return_reads_numpydocs_returns_section(text, title, span, stated):
    from function.model.sentence import states_return

    assert states_return(text, "cross_val_score", text.index(span), title) is stated


@pytest.mark.parametrize("text, title, span, described", [
    (_NUMPYDOC, _TITLE, "scores", "Array of scores of the estimator"),  # the value's name: its description
    (_NUMPYDOC, _TITLE, "ndarray of float", "Array of scores of the estimator"),  # its type: the same
    (_NUMPYDOC, _TITLE, "Array of scores", None),  # the description itself: as it is
    (_NUMPYDOC, _TITLE, "cv", None),  # a parameter's line, not under "Returns:"
    (_NUMPYDOC, "sklearn.model_selection.cross_validate", "scores", None),  # another function's page
    (_NUMPYDOC, None, "scores", None),  # nothing says whose entry this is
    ("Returns:\n\nreal, imag : arrays\nFiltered images (both parts). Same shape.\n", _TITLE, "arrays",
     "Filtered images"),  # two named values on one line; a trailing aside left out, as ``return_end`` does
    ("Returns:\n\nout : int\n" + "word " * 40 + "end.\n", _TITLE, "int", None),  # a description too long
    ("Returns:\n\nout : int\n\nSee also\n", _TITLE, "int", None),  # no description under it
])
def test_a_numpydoc_return_values_name_or_type_gives_way_to_its_description(text, title, span, described):
    from function.model.sentence import return_description

    start = text.index(span)
    got = return_description(text, "cross_val_score", start, start + len(span), title)
    assert (None if got is None else text[got[0]:got[1]]) == described


def test_a_return_question_asked_alone_is_answered_from_the_passage_that_says_what_the_name_returns():
    """The signature passage's "False" ranks first; the Returns passage, far from the signature and titled with the
    function's name, says what it returns on numpydoc's "name : type" line: its span chooses the passage, at the
    best span's score. Where the best says so already, or none does, or the title names another function, nothing
    moves."""
    from function.model.reader import Answer, _stating_return

    texts = ["label\n\nskimage.measure.label(label_image, background=None, return_num=False)\nLabel regions.",
             "Returns:\n\nlabels : ndarray of dtype int\nLabeled array, where connected regions share a value.\n"]
    titles = ["Module: measure > label", "Module: measure > label > skimage.measure.label"]
    false = texts[0].index("False")
    labels = texts[1].index("labels")
    found = [Answer(0, false, false + 5, 0.6), Answer(0, 0, 5, 0.2), Answer(1, labels, labels + 6, 0.001)]
    best = _stating_return(found, "label", texts, titles)
    assert (best[0].passage, texts[1][best[0].start:best[0].end], best[0].score) == (1, "labels", 0.6)
    assert best[1:] == found[1:2]  # in place of the best, as the other lifts put theirs
    assert _stating_return(found[:2], "label", texts, titles) == found[:2]  # none says so
    assert _stating_return(found, "regionprops", texts, titles) == found  # another function's Returns
    assert _stating_return(found[2:] + found[:2], "label", texts, titles) == found[2:] + found[:2]  # first says so


@pytest.mark.parametrize("question, texts, want", [
    # numpydoc's line: the type between " : " and ", default" (the reader took "auto", a piece of it)
    ("What type is the n_init parameter of KMeans?",
     ["n_clusters : int, default=8\nn_init : 'auto' or int, default=10\nNumber of times k-means runs."],
     "'auto' or int"),
    # ", optional" ends it too; the passage that has the line answers where the best span's has none
    ("What type is the `ax` argument of plot_acf?",
     ["ax = plot_acf(x, lags=None)", "ax : AxesSubplot, optional\nIf given, this subplot is used to plot in."],
     "AxesSubplot"),
    ("What type are the x2 parameters of hypot?", ["x1, x2 : array_like\nLeg of the triangle(s)."], "array_like"),
    ("What type is the n_init parameter of KMeans?", ["n_init : int\n"], "int"),
    # Sphinx's field list as extracted: the type in the brackets after the name, ", optional" left out
    ("What type is the index parameter of SortedList.pop?",
     ["pop(index=-1)\nRemove and return value.", "Parameters:\nindex (int) \u2013 index of value (default -1)"], "int"),
    ("What type is the key argument of irange?", ["- key (callable, optional) \u2013 a function of one argument"],
     "callable"),
    ("What type is the key argument of irange?", ["- keys (callable) \u2013 a function of one argument"], None),
    # not asked: no parameter named, what is returned, or no numpydoc line for that name
    ("What type of value must C be in LogisticRegression?", ["C : float, default=1.0"], None),
    ("What type does plot_acf return for the ax argument?", ["ax : AxesSubplot, optional"], None),
    ("What type is the n_init parameter of KMeans?", ["n_init_max : int, default=10", "n_init is 10."], None),
])
def test_a_parameters_type_is_read_from_its_numpydoc_line(question, texts, want):
    from function.model.reader import Answer, _parameter_type

    found = [Answer(0, 0, 2, 0.9)] + [Answer(p, 0, 1, 0.1) for p in range(1, len(texts))]
    got = _parameter_type(found, question, texts)
    if want is None:
        assert got == found
    else:
        assert texts[got[0].passage][got[0].start:got[0].end] == want and got[0].score == 0.9


def test_a_return_question_asked_alone_prefers_the_returns_section_to_a_summary_line():
    """numpydoc writes a function's return twice: its summary line ("Return threshold value based on Otsu's method.")
    and its Returns section, which the question means. Both say what the name returns; the span under the "Returns:"
    label chooses the passage, though the summary's ranks first. A summary span stays where no span is under the label
    (or the label is another function's)."""
    from function.model.reader import Answer, _labelled_return, _stating_return

    texts = ["threshold_otsu\n\nskimage.filters.threshold_otsu(image=None, nbins=256)\n"
             "Return threshold value based on Otsu's method.\n",
             "Returns:\n\nthreshold : float\nUpper threshold value. All pixels above it are foreground.\n"]
    titles = ["Module: filters > threshold_otsu", "Module: filters > threshold_otsu > skimage.filters.threshold_otsu"]
    summary = texts[0].index("threshold value")
    typed = texts[1].index("threshold :")
    found = [Answer(0, summary, summary + len("threshold value based on Otsu's method"), 0.7),
             Answer(1, typed, typed + len("threshold"), 0.01)]
    best = _stating_return(found, "threshold_otsu", texts, titles)
    assert (best[0].passage, texts[1][best[0].start:best[0].end], best[0].score) == (1, "threshold", 0.7)
    assert _stating_return(found[:1], "threshold_otsu", texts, titles) == found[:1]  # no Returns section read
    assert _stating_return(found, "threshold_li", texts, titles) == found  # the Returns section of another name
    # within one passage (_labelled_return alone): the label's span first, and nothing else moved where there is none
    within = _labelled_return(found, "threshold_otsu", texts, titles)
    assert (within[0].passage, texts[1][within[0].start:within[0].end]) == (1, "threshold")
    signature = Answer(0, texts[0].index("nbins"), texts[0].index("nbins") + 5, 0.8)
    assert _labelled_return([signature, found[0]], "threshold_otsu", texts, titles) == [
        signature, found[0]]  # RETURN_FIRST's summary-line choice is not made within one passage


@pytest.mark.parametrize("question, span, share", [
    ("Which function cuts a prefix from a string if it is present?", "cut_prefix", 1.0),
    ("Which function cuts a prefix from a string if it is present?", "cut_suffix", 0.5),  # "cut" only
    ("Which class do I use for HTTP Digest authentication?", "HTTPDigestAuth", 1.0),  # capitals split; "auth"
    ("Which function gets the value of a hint?", "SDL_GetHint", 1 / 2),  # "sdl" unwritten; "hint" says a kind
    ("Which hint makes the screensaver stay on?", "SDL_HINT_SCREENSAVER", 1 / 2),  # "hint" says what kind of name
    ("Which option prints the help?", "helpOption", 0.0),  # "help" alone once "option" is left out
    ("Which flag prints the help?", "helpOption", 0.0),
    ("Which parameter sets the minimum number of idle child processes?", "min_spare_children", 2 / 3),
    # the question's own code-shaped names do not count: "pam_acct_mgmt" does not write "acct"
    ("Which constant does pam_acct_mgmt return when the password expired?", "PAM_ACCT_EXPIRED", 1 / 3),
    ("Which method does Session.mount call?", "Session.mount", 0.0),  # the question's own name
    ("Which function cuts a prefix?", "cut_prefix(s, prefix)", 0.0),  # a call, not one name
    ("Which function cuts a prefix?", "prefix", 0.0),  # not code-shaped
    ("Which option sets the flags?", "set_flags", 0.0),  # "flags" says a kind of name: "set" alone is too little
])
def test_name_pieces_share_is_how_much_of_a_name_the_question_writes_in_words(question, span, share):
    from function.model.reader import name_pieces_share

    assert name_pieces_share(question, span) == pytest.approx(share)


def test_a_question_for_a_kind_of_name_lifts_the_name_it_spells_in_words(monkeypatch):
    from function.model import reader

    text = "Use cut_suffix to trim the end. Use cut_prefix to trim the start."
    # the reader prefers the neighbour (5 + 5 against 4.8 + 4.8)
    passage, b, start, end = _two_spans(text, "cut_suffix", "cut_prefix", [5.0, 4.8], [5.0, 4.8])
    best = _best_of(text, passage, b, start, end)
    assert best("Which function cuts a prefix from a string?") == "cut_prefix"
    assert best("What cuts a prefix from a string?") == "cut_suffix"  # no kind of name asked for
    monkeypatch.setattr(reader, "NAME_PIECES", 0.0)
    assert best("Which function cuts a prefix from a string?") == "cut_suffix"


def test_a_default_question_s_subject_written_as_a_name_is_not_its_answer(monkeypatch):
    from function.model import reader

    text = "pcp_port (integer)\nThe port number used by PCP to listen for connections. Default is 9898 here."
    # the reader prefers the name, whose line holds more of the question's words than the default's sentence
    passage, b, start, end = _two_spans(text, "pcp_port", "9898", [6.0, 5.0], [6.0, 5.0])
    best = _best_of(text, passage, b, start, end)
    kind = "Which parameter sets the port PCP listens on by default?"  # asks for a name: the name keeps its score

    def scores(question):
        return [(a.start, a.end, round(a.score, 9)) for a in
                answers_from_logits(start, end, b, [passage], 3, 30, texts=[text], question=question)]

    assert best("Which port does PCP listen on by default?") == "9898"
    with_rule = scores(kind)
    monkeypatch.setattr(reader, "DEFAULT_SUBJECT", False)
    assert best("Which port does PCP listen on by default?") == "pcp_port"
    assert scores(kind) == with_rule


@pytest.mark.parametrize("question, span, subject", [
    ("Which port does PCP listen on by default?", "pcp_port", True),
    ("What syslog facility does slon use if I don't set one?", "syslog_facility", True),
    ("Which database does the streaming replication check use by default?", "sr_check_database", False),  # "sr"
    ("What socket type does a GSocketClient create by default?", "G_SOCKET_TYPE_STREAM", False),  # "stream": a value
    ("Which port does PCP listen on by default?", "port", False),  # not code-shaped
])
def test_names_subject_is_a_code_name_whose_every_word_the_question_writes(question, span, subject):
    from function.model.reader import names_subject

    assert names_subject(question, span) is subject


def test_a_table_whose_header_names_what_is_asked_gives_the_cell_of_the_row_asked_about(monkeypatch):
    from function.model import reader

    text = ("Octave draws random numbers.\nDistribution | Function\nGamma Distribution | randg\n"
            "Poisson Distribution | randp\nUniform Distribution | rand\n")
    passage, b, start, end = _two_spans(text, "Octave", "randg", [6.0, 4.0], [6.0, 4.0])
    best = _best_of(text, passage, b, start, end)
    assert best("Which function draws from a Poisson distribution?") == "randp"
    assert best("What draws from a Poisson distribution?") == "Octave"  # asks for no column of the table
    monkeypatch.setattr(reader, "TABLE", False)
    assert best("Which function draws from a Poisson distribution?") == "Octave"


# -- the meaning of an answer's sentence (reader.SENTENCE_COSINE) -------------------------------------------------


def test_a_span_s_sentence_is_the_one_it_starts_in_run_on_to_its_end():
    from function.model.sentence import sentence_of

    text = "Setuptools reads setup.cfg. The attr: directive reads a module attribute. Other text follows here."
    at = text.index("attr:")
    assert sentence_of(text, at, at + 5) == "The attr: directive reads a module attribute. "
    end = text.index("Other") + 5  # a span running on into the next sentence keeps its own end
    assert sentence_of(text, at, end) == "The attr: directive reads a module attribute. Other"
    assert sentence_of("x" * 1000, 0, 1000) == "x" * 400  # at most SENTENCE_CHARS


def test_the_best_spans_are_ranked_again_by_their_sentence_s_cosine_to_the_question():
    from function.model import reader
    from function.model.reader import Answer, _by_sentence_cosine

    texts = ["Alpha is first. Beta is the one asked for.", "Gamma is elsewhere."]
    ranked = [Answer(0, 0, 5, 0.5), Answer(0, 16, 20, 0.4), Answer(1, 0, 5, 0.05), Answer(0, 0, 8, 0.04),
              Answer(1, 9, 18, 0.01)]
    near = {"Alpha is first. ": 0.2, "Beta is the one asked for.": 0.9, "Gamma is elsewhere.": 0.5}
    asked = []

    def cosines(sentences):
        asked.append(list(sentences))
        return [near[s] for s in sentences]

    out = _by_sentence_cosine(ranked, texts, cosines)
    # each sentence embedded once, only the best SENTENCE_COSINE_TOP spans' (the fifth span's is not asked)
    assert asked == [["Alpha is first. ", "Beta is the one asked for.", "Gamma is elsewhere."]]
    w = reader.SENTENCE_COSINE
    assert [(a.passage, a.start) for a in out][:2] == [(0, 16), (0, 0)]  # Beta's sentence is nearest the question
    assert out[0].score == pytest.approx(0.4)  # the best sentence's span keeps its score
    assert out[1].score == pytest.approx(0.5 * np.exp(w * (0.2 - 0.9)))
    last = next(a for a in out if a.passage == 1 and a.start == 9)  # below the top: counted at the lowest cosine
    assert last.score == pytest.approx(0.01 * np.exp(w * (0.2 - 0.9)))
    # one candidate, or every sentence alike: nothing moves
    assert _by_sentence_cosine(ranked[:1], texts, cosines) == ranked[:1]
    assert _by_sentence_cosine(ranked, texts, lambda s: [0.3] * len(s)) == ranked


def test_spans_in_a_passage_with_a_line_break_are_not_ranked_by_their_sentence_s_meaning():
    """Documentation's lines (entries, list items, headings) hold neighbours alike in meaning: only one paragraph of
    prose is ranked so, and nothing is embedded otherwise."""
    from function.model.reader import Answer, _by_sentence_cosine

    prose = "Alpha is first. Beta is the one asked for."
    listed = "- alpha: the first entry.\n- beta: the entry asked for."
    ranked = [Answer(0, 0, 5, 0.5), Answer(0, 16, 20, 0.4), Answer(1, 2, 7, 0.05)]
    asked = []

    def cosines(sentences):
        asked.append(list(sentences))
        return [0.9 if "Beta" in s else 0.2 for s in sentences]

    assert [(a.passage, a.start) for a in _by_sentence_cosine(ranked, [prose, prose], cosines)][0] == (0, 16)
    asked.clear()
    assert _by_sentence_cosine(ranked, [prose, listed], cosines) == ranked  # the third span is in a list
    assert _by_sentence_cosine(ranked[:2], [listed, prose], cosines) == ranked[:2]  # the first two are
    assert asked == []


def test_spans_in_one_sentence_or_one_passage_are_not_embedded_their_cosines_could_not_move_the_choice():
    from function.model.reader import Answer, _by_sentence_cosine

    one = "Alpha and Beta are both here. Gamma is elsewhere."
    ranked = [Answer(0, 0, 5, 0.5), Answer(1, 10, 14, 0.4)]  # two passages, the same sentence
    asked = []

    def cosines(sentences):
        asked.append(list(sentences))
        return [0.9 if "Gamma" in t else 0.1 for t in sentences]

    assert _by_sentence_cosine(ranked, [one, one], cosines) == ranked and asked == []
    # one passage: whichever span its cosines put first, the passage chosen is that one; nothing is embedded
    in_one = [Answer(0, 0, 5, 0.5), Answer(0, 30, 35, 0.4)]
    assert _by_sentence_cosine(in_one, [one], cosines) == in_one and asked == []
    # the same two spans in two passages are weighed (Gamma's sentence is nearer)
    apart = [Answer(0, 0, 5, 0.5), Answer(1, 30, 35, 0.4)]
    assert [a.passage for a in _by_sentence_cosine(apart, [one, one], cosines)] == [1, 0] and len(asked) == 1


@pytest.mark.parametrize("question, several", [
    ("Which content types does Fastify support natively?", True),
    ("What are the possible values of onProtoPoisoning?", True),
    ("Which logging functions are available on context.logger?", True),
    ("Which log destinations does Pgpool-II support?", True),
    ("Which option sets the port?", False),  # one thing
    ("Which class does the parser return?", False),  # "class", "status", "analysis": not plurals
    ("What status does it exit with?", False),
    ("What does it return?", False),
    ("What is the default?", False),
])
def test_asks_several_says_whether_a_question_asks_for_a_list(question, several):
    from function.model.sentence import asks_several

    assert asks_several(question) is several


@pytest.mark.parametrize("text, span, whole", [
    ("Available logging functions: log, warn, success, error.", "log", "log, warn, success, error"),
    ("Available logging functions: log, warn, success, error.", "success", "log, warn, success, error"),
    ("It natively supports 'application/json' and 'text/plain' content types.", "'text/plain'",
     "'application/json' and 'text/plain'"),  # quoted items: whatever follows
    ("Possible values are 'error', 'remove', or 'ignore'.", "'remove'", "'error', 'remove', or 'ignore'"),
    ("The supported log destinations are stderr and syslog. You can", "stderr", "stderr and syslog"),
    ("The supported log destinations are stderr and syslog. You can", "stderr and", "stderr and"),  # no item
    ("Tags include alpha, beta, dev, and so on.", "beta", "alpha, beta, dev"),  # "so" runs on into prose
    ("It was built in 1990 and rebuilt in 2000.", "1990", "1990"),  # no list: "rebuilt" runs on
    ("Thus, alpha and beta.", "alpha", "alpha and beta"),  # no capitalised word before a list of lower-case ones
    ("Use 'a', 'b' and 'c' or 'd'.", "'a'", "'a', 'b' and 'c'"),  # one "and" / "or", the last join
    ("It reads 'a', b, 'c'.", "'a'", "'a'"),  # one kind of item
])
def test_coordination_is_the_whole_list_a_span_is_an_item_of(text, span, whole):
    from function.model.sentence import coordination

    start = text.index(span) if span != "log" else text.index(": log") + 2
    got = coordination(text, start, start + len(span))
    assert text[got[0]:got[1]] == whole


def test_a_question_for_several_things_gets_the_whole_list(monkeypatch):
    from function.model import reader

    best = _first_answer("Available logging functions: log and warn. Call them first", "log", "first",
                         [6.0, 1.0], [6.0, 1.0])
    assert best("Which logging functions are available?") == "log and warn"
    assert best("Which logging function prints a message?") == "log"  # one thing asked
    monkeypatch.setattr(reader, "COORDINATION", False)
    assert best("Which logging functions are available?") == "log"


_HTPASSWD = ('htpasswd returns a zero status ("true") if the username and password have been added. htpasswd returns 1 '
             'if it encounters some problem accessing files, 2 if there was a syntax problem with the command line, 3 '
             'if its operation was interrupted.')


@pytest.mark.parametrize("question, text, answer", [
    ("What exit status does htpasswd return when the command line has a syntax problem?", _HTPASSWD, "2"),
    ("What exit status does htpasswd return if its operation was interrupted?", _HTPASSWD, "3"),
    ("What exit status does diff return when there is trouble?",
     "An exit status of 0 means no differences were found, 1 means some differences were found, and 2 means trouble.",
     "2"),
    ("What does fclose return if successful?", "If successful, fclose returns 0, otherwise, it returns -1.", "0"),
    ("What does negate return when passed null?", "Negates it.\n\nIf null is passed in, null will be returned.",
     "null"),
    ("What does is_cancelled return if I pass NULL?", "TRUE if it is cancelled, FALSE if called with NULL.", "FALSE"),
    ("What does find return if sub is not found?", "Return the index where sub is. Return -1 if sub is not found.",
     "-1"),
    # the question's polarity: "found" is no answer to "not found"; two values at the top, or less than half of the
    # question's condition: none
    ("What does get return if the key is not found?", "Return the value if the key is found.", None),
    ("What does poll return when no events are pending?", "Returns 1 if there is a pending event.", None),
    ("What does f return on error?", "Returns 0 on error, 1 on error.", None),
    ("What does instr return when the substring does not occur in the string?", "0 if Y is nowhere found within X.",
     None),
    ("What does fclose return?", "If successful, fclose returns 0.", None),  # no condition asked
])
def test_conditioned_answer_is_the_value_a_text_gives_under_the_question_s_condition(question, text, answer):
    from function.model.sentence import asked_condition, conditioned_answer

    asked = asked_condition(question)
    got = None
    if asked is not None:
        start, end = conditioned_answer(text, asked, 0, 0)
        got = text[start:end] or None
    assert got == answer


def test_a_question_under_a_condition_gets_the_value_its_passage_gives_under_it(monkeypatch):
    from function.model import reader

    best = _first_answer("Exit status: 0 means no differences, and 2 means trouble. Then stop", "0", "stop",
                         [6.0, 1.0], [6.0, 1.0])
    assert best("What exit status does diff return when there is trouble?") == "2"
    assert best("What exit status does diff return?") == "0"  # no condition asked
    assert best("What exit status does diff return when there is trouble, by default?") == "0"  # a default: not this
    monkeypatch.setattr(reader, "CONDITIONED", False)
    assert best("What exit status does diff return when there is trouble?") == "0"


# -- the project's own name (reader.PROJECT) ------------------------------------------------------------------------


def test_a_document_s_folders_name_its_project_and_a_word_in_capitals_is_not_it():
    from function.model.reader import is_project_name, project_words

    words = project_words("python-setuptools-doc/userguide/ext_modules.html")
    assert words == {"python", "setuptools", "doc", "userguide"}  # the folders, not the file's name
    assert project_words("README.md") == frozenset()  # a document at the top names no folder
    assert project_words("libglib2.0-doc/gio/GApplication.html") == {"libglib2", "doc", "gio"}  # "0": a version
    assert is_project_name("Setuptools", words) and is_project_name(" setuptools ", words)
    assert not is_project_name("ext_modules", words) and not is_project_name("Setuptools supports", words)
    assert not is_project_name("DEBUG", project_words("debug/README.md"))  # the variable, not the package
    assert is_project_name("A", frozenset({"a"}))  # one capital letter is the word itself


def test_the_project_s_own_name_loses_to_the_name_its_sentence_offers(monkeypatch):
    from function.model import reader

    text = "Setuptools exposes a read_configuration() function for parsing setup.cfg into a dictionary."
    passage, b, start, end = _two_spans(text, "Setuptools", "read_configuration()", [4.0, 5.0], [7.0, 5.0])
    question = "Which function parses a setup.cfg file into a dictionary?"

    def best(pages, bias=None):
        found = answers_from_logits(start, end, b, [passage], 3, 30, bias, texts=[text], question=question,
                                    pages=pages)
        return text[found[0].start:found[0].end]

    assert best([("python-setuptools-doc/setuptools.html", 9)]) == "read_configuration()"
    # asked alone: the passage chosen, then read as if named (``_within_chosen_passage``), its page still known
    assert best([("python-setuptools-doc/setuptools.html", 9)], np.zeros(1)) == "read_configuration()"
    assert best([("docs/setuptools.html", 9)]) == "Setuptools"  # another project's folder: no reason to doubt it
    assert best(None) == "Setuptools"  # a context or a record without a document: nothing known
    monkeypatch.setattr(reader, "PROJECT", 0.0)
    assert best([("python-setuptools-doc/setuptools.html", 9)]) == "Setuptools"


def test_a_kind_of_name_question_is_not_answered_with_a_file_s_name(monkeypatch):
    text = "Commands of MANIFEST.in are kept in tox.ini here.\ngraft adds every file under a directory."
    # the reader prefers the file's name, whose sentence writes the question's "MANIFEST.in" and "command"
    passage, b, start, end = _two_spans(text, "tox.ini", "graft", [6.0, 5.0], [6.0, 5.0])
    best = _best_of(text, passage, b, start, end)
    question = "Which MANIFEST.in command adds all the files inside a directory?"
    assert best(question) == "graft"
    assert _best_without(monkeypatch, "FILE_NAME", best, question) == "tox.ini"
    assert best("Which file lists the files to include?") == "tox.ini"  # asks for a file: no kind of name


@pytest.mark.parametrize("span, file", [
    ("tox.ini", True), ("`pyproject.toml`", True), ("MANIFEST.in", True), ("~/.gitconfig", True),
    ("/etc/nologin", True), ("os.path", False), ("res.json", False), ("./configure", False),
    ("core.excludesFile", False), ("a/b test", False), ("1/72", False), ("10.0.0.5", False),
])
def test_is_file_name_takes_a_file_s_name_or_an_absolute_path_alone(span, file):
    from function.model.reader import is_file_name

    assert is_file_name(span) is file


def test_a_how_question_takes_the_span_the_text_gives_as_the_way(monkeypatch):
    text = "Batch mode writes a PostScript file. If you prefer PDF output, use the command line asy -f pdf test"
    # the reader prefers the output format the passage names first, by more than the sentence term gives the other
    passage, b, start, end = _two_spans(text, "PostScript", "asy", [7.5, 5.0], [7.5, 5.0])
    best = _best_of(text, passage, b, start, end)
    question = "How do I get PDF output from a drawing?"
    assert best(question) == "asy"
    assert best("Which format does batch mode write?") == "PostScript"  # asks no way: as the reader gave it
    assert _best_without(monkeypatch, "MEANS", best, question) == "PostScript"


@pytest.mark.parametrize("text, at, means", [
    ("If you prefer PDF output, use the command line asy -V -f pdf test", "asy", True),
    ("Simply add the line \\usepackage{asymptote} at the beginning", "\\usepackage", True),
    ("This can be done writing a ':' as the value", "writing", True),
    ("To build, run the following command:\n\n    python -m build", "python", True),  # the line above
    ("Use this method with care", "this", False),  # no kind of thing written
    ("Run it.\n\nasy -V", "asy", False),
    ("the command line\nasy -V", "asy", False),  # no verb
])
def test_states_means_reads_a_verb_of_running_or_writing_just_before_a_span(text, at, means):
    from function.model.sentence import states_means

    assert states_means(text, text.index(at)) is means


_BISECT = ("After a bisect session, to clean up the bisection state and return to the original HEAD, issue the "
           "following command:\n\n$ git bisect reset\n\nBy default, this returns your tree to the commit checked out.")


def _code_lines(text, *pieces):
    """``Passage.lines``' rows for ``pieces`` of ``text``, as ingestion marks a code block's lines."""
    return np.array([(text.index(p), text.index(p) + len(p)) for p in pieces], dtype=np.uint32)


@pytest.mark.parametrize("text, span, code, way", [
    (_BISECT, "to clean up the bisection state", ["git bisect reset"], "git bisect reset"),
    # the block's first line that says what to write: a comment and an import are not the way
    ("To read a CSV file, run this:\n\n# read it\nimport csv\nrows = list(csv.reader(f))", "read a CSV file",
     ["# read it", "import csv", "rows = list(csv.reader(f))"], "rows = list(csv.reader(f))"),
    # the span is what the line names last, the way itself: kept
    ("To verify if your name is free you can use npm-name-cli:\n\n$ npm install --global npm-name-cli",
     "npm-name-cli", ["npm install --global npm-name-cli"], None),
    ("To clean up the state, run it. Then do this:\n\n$ git bisect reset", "clean up the state",
     ["git bisect reset"], None),  # a sentence ends between the span and the colon
    ("To clean up the state, do the following:\n\nRead the page first.\n\n$ git bisect reset",
     "clean up the state", ["git bisect reset"], None),  # the colon introduces prose
    ("To clean up the state, issue the command\n\n$ git bisect reset", "clean up the state",
     ["git bisect reset"], None),  # no colon
    ("To undo it, do this:\n\n# a comment\n\nand some prose after it.", "undo it", ["# a comment"], None),
    # every prompt ingestion leaves out of the line (``code.PROMPT``): psql's, Windows'
    ("To list the tables, type:\n\nmydb=> \\dt", "list the tables", ["\\dt"], "\\dt"),
    ("To see the version, enter:\n\nC:\\> node --version", "see the version", ["node --version"], "node --version"),
])
def test_introduced_line_gives_the_code_line_the_purpose_s_colon_introduces(text, span, code, way):
    from function.model.reader import introduced_line

    a = text.index(span)
    got = introduced_line(text, _code_lines(text, *code), a, a + len(span))
    assert (None if got is None else text[got[0]:got[1]]) == way


def test_a_how_question_answered_with_a_purpose_gets_the_way_its_colon_introduces(monkeypatch):
    """The reader takes the purpose ("to clean up the bisection state") and never ranks the command (`git-003` of the
    benchmark): the code line the purpose's colon introduces answers a how question (``INTRODUCED``); without the rule,
    or asked something else, the reader's span."""
    from function.model import reader

    text = _BISECT
    passage, words = _passage(text)
    b = build_batch([11, 12], [passage.ids], SPEC)
    start, end = _logits(b, [words.index("to")], [words.index("state")], [8.0])
    lines = [_code_lines(text, "git bisect reset")]

    def best(question):
        found = answers_from_logits(start, end, b, [passage], 1, 30, texts=[text], question=question, lines=lines)
        return text[found[0].start:found[0].end]

    assert best("How do I end a bisect session and go back to where I started?") == "git bisect reset"
    assert best("Why would I issue git bisect reset after a bisect session?") == "to clean up the bisection state"
    monkeypatch.setattr(reader, "INTRODUCED", False)
    assert best("How do I end a bisect session and go back to where I started?") == "to clean up the bisection state"


def test_a_question_for_what_is_called_is_not_answered_with_what_is_passed_to_it(monkeypatch):
    from function.model import reader

    text = "@monkey( cls_or_module , name=None)\nMonkey-patches a class or module by adding a function to it."
    # the reader prefers the parameter, whose name the question's "class or module" writes
    passage, b, start, end = _two_spans(text, "cls_or_module", "@monkey(", [6.0, 5.0], [6.0, 5.0])
    found = answers_from_logits(start, end, b, [passage], 3, 30, texts=[text],
                                question="Which decorator monkey-patches a class or module?")
    assert text[found[0].start:found[0].end].startswith("@monkey(")  # the signature, the decorator's name first
    monkeypatch.setattr(reader, "CALL_PARAMETER", 0.0)
    found = answers_from_logits(start, end, b, [passage], 3, 30, texts=[text],
                                question="Which decorator monkey-patches a class or module?")
    assert text[found[0].start:found[0].end] == "cls_or_module"


@pytest.mark.parametrize("text, span, inside", [
    ("@monkey(cls_or_module, name=None)", "cls_or_module", True),
    ("@monkey(cls_or_module, name=None)", "name", True),
    ("@monkey(cls_or_module, name=None)", "monkey", False),
    ("irange(minimum=None, reverse=False)", "reverse", True),
    ("Use cls_or_module here.", "cls_or_module", False),
])
def test_in_parameter_list_is_a_name_straight_inside_a_signature_s_brackets(text, span, inside):
    from function.model.reader import in_parameter_list

    a = text.index(span)
    assert in_parameter_list(text, a, a + len(span)) is inside


def test_asked_alone_the_passage_is_chosen_by_the_answer_most_spans_agree_on(monkeypatch):
    """Two of three passages read give "beta", each ranked a little below the one that gives "alpha": together they
    hold more of the ranking's probability, so "beta" answers (``AGREEMENT``); without the rule, "alpha"."""
    from function.model import reader

    texts = ["Use alpha for this.", "Use beta for this.", "Use beta for this."]
    passages = [_passage(t)[0] for t in texts]
    b = build_batch([11, 12], [p.ids for p in passages], SPEC)
    start = np.zeros(b.input_ids.shape, dtype=np.float32)
    end = np.zeros(b.input_ids.shape, dtype=np.float32)
    for row, value in ((0, 6.0), (1, 5.8), (2, 5.8)):  # the word after "Use" in each passage
        start[row, b.context_start + 1] = end[row, b.context_start + 1] = value

    def best():
        found = answers_from_logits(start, end, b, passages, 3, 30, np.zeros(3), texts=texts,
                                    question="What should I use for this?")
        return texts[found[0].passage][found[0].start:found[0].end]

    assert best() == "beta"
    monkeypatch.setattr(reader, "AGREEMENT", False)
    assert best() == "alpha"


def _return_reading(texts, values, bias):
    """``texts`` as passages read together, each one's word before "here." (or its "delta.") given ``values`` as its
    start and end logits (every other word 0); ``bias``: each passage's. The best answer's passage and text for "What
    does f return?" asked alone."""
    passages = [_passage(t)[0] for t in texts]
    b = build_batch([11, 12], [p.ids for p in passages], SPEC)
    start = np.zeros(b.input_ids.shape, dtype=np.float32)
    end = np.zeros(b.input_ids.shape, dtype=np.float32)
    for row, (text, value) in enumerate(zip(texts, values)):
        at = text.index("delta") if "delta" in text else text.index("here")  # "delta.", or the word before "here."
        word = len(text[:at].split()) - (0 if "delta" in text else 1)
        start[row, b.context_start + word] = end[row, b.context_start + word] = value
    found = answers_from_logits(start, end, b, passages, 3, 30, np.asarray(bias, dtype=np.float64), texts=texts,
                                question="What does f return?")
    return found[0].passage, texts[found[0].passage][found[0].start:found[0].end]


def test_a_return_question_s_passage_chosen_by_its_returns_section_is_not_undone_by_agreement():
    """Three passages give "alpha" in f's prose, one gives "beta" under f's "Returns:" label, ranked a little below the
    "alpha"s: the return rule chooses the Returns passage (``RETURN_FIRST``, ``RETURNS_LABEL``), and the spans'
    agreement on "alpha", which chose the passage after it before 2026-12-06's eighth sitting, chooses before it."""
    texts = ["f(x)\nUse alpha here.", "f(x)\nUse alpha here.", "f(x)\nReturns:\nbeta here.", "f(x)\nUse alpha here."]
    passage, answer = _return_reading(texts, [7.0, 6.9, 4.0, 6.9], [0.0] * 4)
    assert passage == 2 and answer.startswith("beta")


def test_a_passage_read_holding_the_returns_section_chooses_where_no_best_span_lies_in_it(monkeypatch):
    """The Returns passage is read, but the reader's best spans in it all lie around "delta", above its "Returns:"
    label, and say nothing of what f returns: the passage holding f's Returns section still chooses
    (``RETURNS_SECTION``); without the rule, the prose's "alpha". Another function's Returns section does not. (The
    reader's best 16 spans: these passages are so short that its best 48 reach "beta", which the return rule lifts.)"""
    from function.model import reader

    monkeypatch.setattr(reader, "CANDIDATES", 16)
    texts = ["f(x)\nUse alpha here.", "f(x)\nSee delta.\nReturns:\nbeta here.", "g(x)\nUse gamma here."]
    passage, answer = _return_reading(texts, [6.0, 6.0, 5.0], [0.0, -3.0, 0.0])
    assert passage == 1 and answer.startswith("beta")
    other = [texts[0], texts[1].replace("Returns", "Raises"), texts[2]]
    assert _return_reading(other, [6.0, 6.0, 5.0], [0.0, -3.0, 0.0]) == (0, "alpha")
    monkeypatch.setattr(reader, "RETURNS_SECTION", False)
    assert _return_reading(texts, [6.0, 6.0, 5.0], [0.0, -3.0, 0.0]) == (0, "alpha")


@pytest.mark.parametrize("text, title, line", [
    ("f(x)\nReturns:\n\nthe result of f.\n", None, "the result of f."),
    ("Returns:\n\nout : int\nThe count.\n", "mod > f", "The count."),  # numpydoc: the description, its title f's
    ("Returns:\n\nout : int\nThe count.\n", "mod > g", None),  # another function's page
    ("f(x)\nReturn the result.\n", None, None),  # a summary line, no Returns section
    ("g(x)\nReturns:\nthe result of g.\n", None, None),  # another entry's
])
def test_returns_section_is_the_first_line_under_the_named_entry_s_returns_label(text, title, line):
    from function.model.sentence import returns_section

    got = returns_section(text, "f", title)
    assert (None if got is None else text[got[0]:got[1]]) == line


def test_agreement_groups_spans_by_their_text_case_and_punctuation_aside():
    from function.model.reader import Answer, _agreed

    texts = ["TimeLimit", "timelimit.", "Searcher", "other"]
    found = [Answer(2, 0, 8, 0.4), Answer(0, 0, 9, 0.3), Answer(1, 0, 10, 0.2), Answer(3, 0, 5, 0.1)]
    assert _agreed(found, texts) == found[1]  # 0.3 + 0.2 agree on "TimeLimit": its best-ranked span
    assert _agreed(found[:2], texts) == found[0]  # its own group the largest: the first span
    tied = [Answer(2, 0, 8, 0.5), Answer(3, 0, 5, 0.5)]
    assert _agreed(tied, texts) == tied[0]  # a tie: the better ranked


def test_a_passage_titled_under_a_returns_label_reads_its_first_lines_as_return_values():
    """A passage that starts among an entry's return lines, their "Returns:" label in the passage before, is titled
    "... > name > Returns" at ingestion (``function.ingest.split._labelled``): its numpydoc "name : type" line and the
    description under it read as under the label, and the entry is still the title's name. Without the label in its
    title, nothing says so."""
    from function.model.sentence import return_description, returns_section, states_return, under_returns_label

    text = "f1_score : float or array of float\nF1 score of the positive class.\n\nSee also\n\nfbeta_score\n"
    titled = "sklearn.metrics.f1_score > sklearn.metrics.f1_score > Returns"
    plain = "sklearn.metrics.f1_score > sklearn.metrics.f1_score"
    at = text.index("F1 score")
    assert under_returns_label(text, "f1_score", at, titled)
    assert not under_returns_label(text, "f1_score", at, plain)
    assert states_return(text, "f1_score", at, titled) and not states_return(text, "f1_score", at, plain)
    got = return_description(text, "f1_score", 0, len("f1_score"), titled)
    assert got is not None and text[got[0]:got[1]].startswith("F1 score of the positive class")
    assert return_description(text, "f1_score", 0, len("f1_score"), plain) is None
    assert text[slice(*returns_section(text, "f1_score", titled))] == "F1 score of the positive class."
    assert returns_section(text, "f1_score", plain) is None
    assert returns_section(text, "precision_score", titled) is None  # another function's page


@pytest.mark.parametrize("question, owner", [
    ("Which parameter of read_csv sets the column delimiter?", "read_csv"),
    ("Which argument of scipy.fft.fft sets the number of parallel jobs?", "fft"),
    ("Which MixedLM parameter takes the covariates for the random effects?", "mixedlm"),
    ("Which git fetch option deletes remote-tracking branches?", "fetch"),
    ("Which `SDL_Init` flag initializes the video subsystem?", "sdl_init"),
    ("Which StringUtils method removes control characters?", "stringutils"),
    ("Which keyword argument publishes a component only if it is referenced?", None),  # a kind, not an entry
    ("What does the max_retries parameter of HTTPAdapter default to?", None),  # the parameter itself, not its owner
    ("What is the function of the TARDIS?", None),  # a stop word
    ("What is the default chunk size of iter_content?", "iter_content"),  # a default question's entry
    ("What is the default value of Session.verify?", "verify"),
    ("What does max_retries default to?", "max_retries"),
    ("What is the default port?", None),
])
def test_owned_by_is_the_entry_a_question_asks_a_parameter_option_or_member_of(question, owner):
    from function.model.reader import owned_by

    assert owned_by(question) == owner


@pytest.mark.parametrize("text, title, owns", [
    ("model : str\nType of seasonal component.", "statsmodels > seasonal_decompose", True),  # a word of its title
    ("seasonal_periods : int\nThe number of periods.", "holtwinters > ExponentialSmoothing", False),
    ("pop(key)\nRemove key.\n\npopitem(index=-1)\nRemove.", "Sorted Dict > SortedDict.pop", True),  # entries after
    ("pop(key)\nRemove key.\n\npopitems(n)\nRemove.", "Sorted Dict > SortedDict.pop", False),  # another name
    ("- SortedDict.popitem(index=-1)\nRemove and return.", "Sorted Dict", True),  # an entry's head, qualified
    ("class SortedDict(*args)\nA sorted dict.", None, False),
    ("Calls popitem() on the dict.", "Sorted Dict", False),  # named in prose: not its entry
])
def test_names_entry_is_a_title_word_or_an_entry_head(text, title, owns):
    from function.model.reader import names_entry

    owner = "seasonal_decompose" if "seasonal" in text else "popitem"
    assert names_entry(text, title, owner) is owns


def _owned_reading(values, question="Which parameter of seasonal_decompose sets the type of seasonal component?"):
    """ExponentialSmoothing's and seasonal_decompose's parameter lists read together, each one's first word given
    ``values`` as its start and end logits (every other word 0), asked alone; the best answer's passage and text."""
    texts = ["seasonal_periods : int\nType of seasonal cycle.", "model : str\nType of seasonal component."]
    titles = ["holtwinters > ExponentialSmoothing", "seasonal > seasonal_decompose"]
    passages = [_passage(t)[0] for t in texts]
    b = build_batch([11, 12], [p.ids for p in passages], SPEC)
    start = np.zeros(b.input_ids.shape, dtype=np.float32)
    end = np.zeros(b.input_ids.shape, dtype=np.float32)
    for row, value in enumerate(values):
        start[row, b.context_start] = end[row, b.context_start] = value
    found = answers_from_logits(start, end, b, passages, 2, 30, np.zeros(2), texts=texts, titles=titles,
                                question=question)
    return found[0].passage, texts[found[0].passage][found[0].start:found[0].end]


def test_a_parameter_question_takes_its_answer_from_the_entry_it_names(monkeypatch):
    """The neighbouring entry's parameter ranks first, the named entry's a little below: the named entry's passage
    answers (``OWNED``); without the rule, or asked of no entry, the neighbour's. A span the reader all but rules
    out (under ``OWNED_SURE`` of the best's probability) is not moved to."""
    from function.model import reader

    assert _owned_reading([6.0, 5.0]) == (1, "model")
    assert _owned_reading([6.0, 5.0], "Which parameter sets the type of seasonal component?")[0] == 0
    assert _owned_reading([12.0, 1.0])[0] == 0
    monkeypatch.setattr(reader, "OWNED", False)
    assert _owned_reading([6.0, 5.0])[0] == 0


def test_a_default_question_takes_its_answer_from_the_entry_it_names(monkeypatch):
    """The same reading asked for a default of the entry it names (``OWNED_DEFAULT``): its passage answers; without
    the rule, the neighbour's."""
    from function.model import reader

    question = "What is the default type of seasonal component of seasonal_decompose?"
    assert _owned_reading([6.0, 5.0], question) == (1, "model")
    monkeypatch.setattr(reader, "OWNED_DEFAULT", False)
    assert _owned_reading([6.0, 5.0], question)[0] == 0


def test_the_rules_rank_the_reader_s_best_48_spans_not_only_its_best_16(monkeypatch):
    """A rule chooses only among the spans it is shown: the definition the text introduces ("A namespace package is |
    distributable.") is ranked below the 21 spans of six words the reader is surer of, and ``DEFINITION`` lifts it
    over them where ``CANDIDATES`` is 48 (since 2026-12-07); among the best 16 it was not there to lift."""
    from function.model import reader

    text = "A namespace package is distributable. Put one two three four five six here."
    passage, words = _passage(text)
    b = build_batch([11, 12], [passage.ids], SPEC)
    six = [words.index(w) for w in ("one", "two", "three", "four", "five", "six")]
    defined = words.index("distributable.")
    # each span of the six words 9 + 7 logits; the definition 5 + 9; from it into the six 5 + 7
    start = _logits(b, [*six, defined], [], [9.0] * 6 + [5.0])[0]
    end = _logits(b, [], [*six, defined], [7.0] * 6 + [9.0])[1]

    def best():
        found = answers_from_logits(start, end, b, [passage], 3, 30, texts=[text],
                                    question="What is a namespace package?")
        return text[found[0].start:found[0].end]

    assert best() == "distributable."
    monkeypatch.setattr(reader, "CANDIDATES", 16)
    assert best() != "distributable."


@pytest.mark.parametrize("line, span, name", [
    ("pub fn len(&self) -> usize", "pub", "len"),  # rustdoc's declaration line: a keyword is not the name
    ("pub fn len(&self) -> usize", "pub fn len(&self) -> usize", "len"),  # the whole line
    ("pub fn map<U, F>(self, f: F) -> Option<U> where F: FnOnce(T) -> U,", "pub fn map", "map"),  # past its generics
    ("pub fn ok(self) -> Option<T>", "self", "ok"),  # the receiver
    ("pub fn entry(&mut self, key: K) -> Entry<'_, K, V>", "&mut self", "entry"),
    ("public static String join(Object[] array)", "String", "join"),  # the return type before the name
    ("pub struct HashMap<K, V, S = RandomState> { /* private fields */ }", "pub", "HashMap"),  # no parameters
    ("export function parse(text)", "export function", "parse"),
    ("awaitable sleep(delay, result=None)", "awaitable", "sleep"),  # Sphinx's annotations before a name
    ("property Session.headers", "property", "Session.headers"),
    # C's and C++'s: a type keyword, a template head (Breathe writes a comma after it), a qualified name
    ("void SDL_Quit(void)", "void", "SDL_Quit"),
    ("template<typename ...T>, inline auto fmt::format(format_string<T...> fmt, T&&... args) -> std::string",
     "std::string", "fmt::format"),
    ("auto out = std::vector<char>();", "auto", None),  # an assignment declares no function
    ("void means nothing here (none).", "void", None),  # prose: more than a type and a name before the bracket
    ("pub fn entry(&mut self, key: K) -> Entry<'_, K, V>", "key", "entry"),  # a parameter is not what is called
    ("pub fn len(&self) -> usize", "usize", "len"),  # nor the return type
    ("pub fn get<Q: ?Sized>(&self, k: &Q) -> Option<&V> where K: Borrow<Q>, Q: Hash + Eq,", "Q: Hash + Eq", "get"),
    ("pub fn ok(self) -> Option<T>\n\nConverts self into an Option<T>", "self", "ok"),  # the receiver in prose
    ("pub fn len(&self) -> usize", "len", None),  # the name already
    ("mount(prefix, adapter)", "mount", None),  # no keywords
    ("Returns the public key of the pair.", "public", None),  # prose
    ("Returns self unchanged.", "self", None),  # the receiver, no declaration above
    # a typed declaration (Haddock's "name :: type", OCaml's "val name : type"): the type is not the function
    ("lines :: String -> [String]", "String -> [String]", "lines"),
    ("forever :: Applicative f => f a -> f b", "Applicative f", "forever"),
    ("mapM_ :: (Foldable t, Monad m) => (a -> m b) -> t a -> m ()", "mapM_ :: (Foldable t, Monad m)", "mapM_"),
    ("val map : ('a -> 'b) -> 'a list -> 'b list", "'a list", "map"),
    ("std::vector<int> v;", "vector", None),  # C++'s scope, no spaces around "::"
    ("Note : the value is kept.", "the value", None),  # a colon in prose
    # erl_docgen's signature: a name, its parameters and an arrow; a parameter under it, or its "Types" line
    ("nth(N, List) -> Elem", "nth(N, List) -> Elem", "nth"),
    ("join(Components) -> file:filename_all()", "filename_all", "join"),
    ("Module:handle_call(Request, From, State) -> Result", "Result", "Module:handle_call"),
    ("nth(N, List) -> Elem\n\nTypes\n\nList = [T, ...]\n\nReturns the Nth element of List.", "List", "nth"),
    ("dirname(Filename) -> file:filename_all()\n\nTypes\n\nFilename = file:name_all()", "name_all", "dirname"),
    ("pub fn entry(&mut self, key: K) -> Entry<'_, K, V>\n\nGets the given key's entry.", "key", "entry"),
    ("nth(N, List) -> Elem\n\nT = term()", "term", None),  # a type of no parameter
    ("nth(N, List) -> Elem\n\nReturns the Nth element of List.", "element", None),  # prose
    ("mount(prefix, adapter)\n\nRegisters an adapter for prefix.", "prefix", None),  # no arrow: no declaration
    ("x(1) -> y(2)", "y", None),  # a name's own call is no parameter list
    ("new() -> Map\n\nTypes\n\nMap = #{}", "Map", "new"),  # what it returns is not the function either
    # YARD's: a method's mark before its name, "⇒", no brackets without parameters, a block, a writer's "="
    ("#returns(*values) \u21d2 Expectation", "Expectation", "returns"),
    ("#twice \u21d2 Expectation", "#twice \u21d2 Expectation", "twice"),
    ("#with(*expected_parameters) {|actual_parameters| ... } \u21d2 Expectation", "actual_parameters", "with"),
    ("#stubbing_method_on_nil=(value) \u21d2 Object", "value", "stubbing_method_on_nil="),
    ("# a comment -> here", "here", None),  # a comment's "#" marks no method
    ("#twice \u21d2 Expectation\n\nReturns the same Expectation.", "Expectation", "twice"),  # returned, no brackets
    # QDoc's C++ members: its tags, a return type, "Class::member(", only qualifiers after the bracket
    ("[slot] void QTimer::start(int msec)", "void QTimer::start", "QTimer::start"),
    ("bool QTimer::isActive() const", "bool", "QTimer::isActive"),
    ("const T &QList::at(int i) const", "T", "QList::at"),
    ("Call QTimer::singleShot(200, this, SLOT(update())) to run it.", "Call", None),  # prose: values, words after
    ("You can use QObject::connect(sender, receiver) here.", "You", None),
    ("pub fn len(&self) -> usize\n\nReturns the length, a usize.", "usize", "len"),
])
def test_declared_name_is_the_name_a_declaration_s_line_declares(line, span, name):
    from function.model.reader import declared_name

    text = f"Methods\n\n{line}\n\nWhat it does."
    a = text.rindex(span)
    got = declared_name(text, a, a + len(span))
    assert (None if got is None else text[got[0]:got[1]]) == name


@pytest.mark.parametrize("line, span, name", [
    ("pub struct HashMap<K, V, S = RandomState> where K: Eq + Hash", "Eq + Hash", None),  # a trait's bound: asked
    ("class requests.Session(SessionRedirectMixin)", "SessionRedirectMixin", None),  # a class's base: asked
    ("pub struct HashMap<K, V, S = RandomState>", "pub struct", "HashMap"),  # its keywords are still not its name
    ("pub fn ok(self) -> Option<T>\n\nConverts self into an Option<T>", "self", None),
    ("nth(N, List) -> Elem\n\nReturns the Nth element of List.", "List", None),
])
def test_a_declared_name_asked_for_a_type_keeps_what_its_line_says_after_the_name(line, span, name):
    """Where the kind asked is no function's (a struct, a trait, a class: ``called`` false), what the declaration's
    line says after the name (bounds, bases) may be what is asked: only its keywords give way to the name."""
    from function.model.reader import declared_name

    text = f"{line}\n\nWhat it does."
    a = text.rindex(span)
    got = declared_name(text, a, a + len(span), called=False)
    assert (None if got is None else text[got[0]:got[1]]) == name


def test_a_which_method_question_answered_with_a_declaration_s_keyword_gets_its_name(monkeypatch):
    """rustdoc writes a method as "pub fn len(&self) -> usize"; the reader answers its first word, as a Sphinx line's
    first word is the name: the declared name answers a question for a method (``DECLARED``); a how question, or
    without the rule, the reader's span."""
    from function.model import reader

    text = "pub fn len(&self) -> usize\nReturns the number of elements in the vector."
    passage, words = _passage(text)
    b = build_batch([11, 12], [passage.ids], SPEC)
    start, end = _logits(b, [words.index("pub")], [words.index("pub")], [8.0])

    def best(question):
        found = answers_from_logits(start, end, b, [passage], 1, 30, texts=[text], question=question)
        return text[found[0].start:found[0].end]

    assert best("Which method returns the number of elements in a vector?") == "len"
    assert best("What does the vector's first line say?") == "pub"  # no declared kind asked
    monkeypatch.setattr(reader, "DECLARED", False)
    assert best("Which method returns the number of elements in a vector?") == "pub"


def test_a_qdoc_member_with_its_description_after_a_blank_line_is_an_api_entry():
    """QDoc writes a member's definition, a blank line, then its description, two or three members to a passage: each
    is an API entry (``_described_after_gap``); a declaration followed by another declaration is none."""
    from function.model import reader

    text = ("bool QTimer::isActive() const\n\nReturns true if the timer is running; otherwise returns false.\n\n"
            "Note: Getter function for property active.\n\n"
            "std::chrono::milliseconds QTimer::remainingTimeAsDuration() const\n\nReturns the time remaining.\n\n"
            "[slot] void QTimer::stop()\n\n[signal] void QTimer::timeout()")
    names = [text[a:z] for a, z, _ in reader.api_entries(text)]
    assert names == ["QTimer::isActive", "QTimer::remainingTimeAsDuration"]
    start = text.index("Returns true")
    assert reader.asked_entry("Which function tells whether a QTimer is running?", text, start, start + 12,
                              listing=reader.API_ENTRIES) == (5, len("bool QTimer::isActive"))


def test_a_declaration_s_line_with_its_description_under_it_is_an_api_entry(monkeypatch):
    """Haddock's "hFlush :: Handle -> IO ()" and javadoc's "public static String trim(String str)" list entries the
    entry choice weighs (``DECLARED_ENTRIES``), as "mount(prefix, adapter)" does; a declaration without a description
    under it is none."""
    from function.model import reader

    text = ("hGetBuffering :: Handle -> IO BufferMode\nComputation hGetBuffering hdl returns the buffering mode.\n\n"
            "hFlush :: Handle -> IO ()\nThe action hFlush hdl causes buffered items to be sent to the system.\n\n"
            "public static String trim(String str)\nRemoves control characters from both ends.\n\n"
            "hClose :: Handle -> IO ()\n\nmount(prefix, adapter)\nRegisters an adapter.")
    names = [text[a:z] for a, z, _ in reader.api_entries(text)]
    assert names == ["hGetBuffering", "hFlush", "trim", "mount"]
    assert reader.asked_entry("Which function sends a handle's buffered items to the system?", text,
                              text.index("hdl causes"), text.index("hdl causes") + 3,
                              listing=reader.API_ENTRIES) == (text.index("hFlush ::"), text.index("hFlush ::") + 6)
    monkeypatch.setattr(reader, "DECLARED_ENTRIES", False)
    assert [text[a:z] for a, z, _ in reader.api_entries(text)] == ["mount"]
