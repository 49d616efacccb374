"""Span decoding: constraints, de-duplication, and scores comparable across windows."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from function.model.decode import best_spans, paragraphs
from function.model.reader import (
    WIDEST_CALL,
    PassageTokens,
    answers_from_logits,
    command_line,
    edges,
    line_end,
    path_in_answer,
    term_of_entry,
    whole_call,
    whole_code,
    whole_name,
)
from function.model.windows import WindowSpec, build_batch
from tests.support.fuzz import examples

SPEC = WindowSpec(max_seq_len=16, stride=3, max_query_tokens=5, cls_id=101, sep_id=102, pad_id=0)


def logits_for(batch, hot_start=None, hot_end=None, fill=0.0):
    start = np.full(batch.input_ids.shape, fill, dtype=np.float32)
    end = np.full(batch.input_ids.shape, fill, dtype=np.float32)
    for (w, pos), v in (hot_start or {}).items():
        start[w, pos] = v
    for (w, pos), v in (hot_end or {}).items():
        end[w, pos] = v
    return start, end


def brute_force(start, end, batch, top_k, max_len, blocks=None):
    """Every allowed span of every window, scored the documented way, best per passage span."""
    best = {}
    cs = batch.context_start
    for w in range(len(batch)):
        n = int(batch.context_len[w])
        allowed = [0] + list(range(cs, cs + n))
        ps = np.exp(start[w, allowed] - np.logaddexp.reduce(start[w, allowed].astype(np.float64)))
        pe = np.exp(end[w, allowed] - np.logaddexp.reduce(end[w, allowed].astype(np.float64)))
        for i, j in itertools.product(range(n), range(n)):
            p, t = int(batch.passage_index[w]), int(batch.token_start[w])
            if i <= j < i + max_len and (blocks is None or blocks[p][t + i] == blocks[p][t + j]):
                key = (int(batch.passage_index[w]), int(batch.token_start[w]) + i, int(batch.token_start[w]) + j)
                best[key] = max(best.get(key, 0.0), ps[1 + i] * pe[1 + j])
    ranked = sorted(best.items(), key=lambda kv: -kv[1])
    return ranked[:top_k]


def test_the_hot_span_wins_and_its_score_is_a_probability():
    b = build_batch([11, 12], [np.arange(100, 108)], SPEC)
    start, end = logits_for(b, {(0, 4 + 2): 8.0}, {(0, 4 + 5): 8.0})
    [span] = best_spans(start, end, b, top_k=1, max_answer_tokens=30)
    assert (span.passage, span.token_start, span.token_end) == (0, 2, 5)
    assert 0.5 < span.score <= 1.0


def test_question_and_padding_positions_are_never_answers():
    b = build_batch([11, 12], [np.arange(100, 108), np.array([1, 2])], SPEC)
    start, end = logits_for(b, {(0, 1): 50.0, (1, 8): 50.0}, {(0, 2): 50.0, (1, 9): 50.0})
    for s in best_spans(start, end, b, top_k=5, max_answer_tokens=30):
        assert 0 <= s.token_start <= s.token_end < [8, 2][s.passage]


def test_end_before_start_and_over_long_spans_are_excluded():
    b = build_batch([11], [np.arange(100, 112)], SPEC)
    start, end = logits_for(b, {(0, 3 + 9): 9.0}, {(0, 3 + 1): 9.0, (0, 3 + 8): 1.0})
    [span] = best_spans(start, end, b, top_k=1, max_answer_tokens=30)
    assert span.token_start <= span.token_end
    start, end = logits_for(b, {(0, 3 + 0): 9.0}, {(0, 3 + 10): 9.0})
    [span] = best_spans(start, end, b, top_k=1, max_answer_tokens=4)
    assert span.token_end - span.token_start < 4


def test_a_span_seen_in_two_overlapping_windows_is_reported_once():
    b = build_batch([11], [np.arange(100, 120)], SPEC)  # windows start at 0 and 9: tokens 9..11 overlap
    assert b.token_start.tolist()[:2] == [0, 9]
    start, end = logits_for(b, {(0, 3 + 10): 9.0, (1, 3 + 1): 9.0}, {(0, 3 + 11): 9.0, (1, 3 + 2): 9.0})
    spans = best_spans(start, end, b, top_k=3, max_answer_tokens=30)
    keys = [(s.passage, s.token_start, s.token_end) for s in spans]
    assert keys[0] == (0, 10, 11)
    assert len(set(keys)) == len(keys)


def test_a_window_that_points_at_cls_scores_below_one_that_holds_the_answer():
    b = build_batch([11], [np.arange(100, 108), np.arange(200, 208)], SPEC)
    # Passage 0: the model is sure there is no answer ([CLS]) but its best span has a big raw logit.
    # Passage 1: a clear answer with a smaller raw logit.
    start, end = logits_for(b, {(0, 0): 30.0, (0, 5): 12.0, (1, 5): 8.0}, {(0, 0): 30.0, (0, 6): 12.0, (1, 6): 8.0})
    [best] = best_spans(start, end, b, top_k=1, max_answer_tokens=30)
    assert best.passage == 1


@pytest.mark.parametrize("seed", range(12))
def test_matches_brute_force_on_random_logits(seed):
    rng = np.random.default_rng(seed)
    passages = [np.arange(int(rng.integers(1, 30))) + 1000 for _ in range(int(rng.integers(1, 4)))]
    b = build_batch([11, 12], passages, SPEC)
    start = rng.normal(0, 3, b.input_ids.shape).astype(np.float32)
    end = rng.normal(0, 3, b.input_ids.shape).astype(np.float32)
    top_k, max_len = int(rng.integers(1, 6)), int(rng.integers(1, 8))
    got = best_spans(start, end, b, top_k=top_k, max_answer_tokens=max_len)
    want = brute_force(start, end, b, top_k, max_len)
    assert [(s.passage, s.token_start, s.token_end) for s in got] == [k for k, _ in want]
    assert np.allclose([s.score for s in got], [v for _, v in want], rtol=1e-6)


@pytest.mark.parametrize("seed", range(12))
def test_each_passage_s_best_spans_join_the_batch_s_best_where_asked(seed):
    """``per_passage``: the batch's ``top_k`` best spans and each passage's ``per_passage`` best, best first, scored
    as among every span of the batch (brute force with a passage bias: one softmax over all of them)."""
    rng = np.random.default_rng(seed)
    passages = [np.arange(int(rng.integers(1, 30))) + 1000 for _ in range(int(rng.integers(2, 5)))]
    b = build_batch([11, 12], passages, SPEC)
    start = rng.normal(0, 3, b.input_ids.shape).astype(np.float32)
    end = rng.normal(0, 3, b.input_ids.shape).astype(np.float32)
    top_k, per, max_len = int(rng.integers(1, 4)), int(rng.integers(1, 3)), int(rng.integers(1, 8))
    bias = rng.normal(0, 1, len(passages))
    every = best_spans(start, end, b, top_k=10_000, max_answer_tokens=max_len, passage_bias=bias)
    key = [(s.passage, s.token_start, s.token_end) for s in every]
    want = set(key[:top_k]) | {k for p in range(len(passages)) for k in [k for k in key if k[0] == p][:per]}
    got = best_spans(start, end, b, top_k=top_k, max_answer_tokens=max_len, passage_bias=bias, per_passage=per)
    assert [(s.passage, s.token_start, s.token_end) for s in got] == [k for k in key if k in want]
    assert np.allclose([s.score for s in got], [s.score for s in every if (s.passage, s.token_start, s.token_end)
                                                in want])
    assert best_spans(start, end, b, top_k=top_k, max_answer_tokens=max_len, passage_bias=bias) == every[:top_k]


@pytest.mark.parametrize("seed", range(8))
def test_with_paragraphs_no_span_runs_across_a_blank_line_and_the_rest_rank_as_before(seed):
    rng = np.random.default_rng(100 + seed)
    passages = [np.arange(int(rng.integers(1, 30))) + 1000 for _ in range(int(rng.integers(1, 4)))]
    blocks = [np.cumsum(rng.random(len(p)) < 0.2) for p in passages]  # a new paragraph at about one token in 5
    b = build_batch([11, 12], passages, SPEC)
    start = rng.normal(0, 3, b.input_ids.shape).astype(np.float32)
    end = rng.normal(0, 3, b.input_ids.shape).astype(np.float32)
    top_k, max_len = int(rng.integers(1, 6)), int(rng.integers(2, 8))
    got = best_spans(start, end, b, top_k=top_k, max_answer_tokens=max_len, blocks=blocks)
    want = brute_force(start, end, b, top_k, max_len, blocks)
    assert [(s.passage, s.token_start, s.token_end) for s in got] == [k for k, _ in want]
    assert all(blocks[s.passage][s.token_start] == blocks[s.passage][s.token_end] for s in got)


def free_and_kept(text: str, first: int, best_last: int, next_last: int, spec=SPEC):
    """The best span with and without ``paragraphs``' blocks, one token per word of ``text``: the model likes word
    ``first`` as a start and ``best_last`` as an end, ``next_last`` a little less; and the words' blocks."""
    offsets = np.array([(m.start(), m.end()) for m in __import__("re").finditer(r"\S+", text)])
    b = build_batch([11], [np.arange(100, 100 + len(offsets))], spec)
    cs = b.context_start
    start, end = logits_for(b, {(0, cs + first): 9.0}, {(0, cs + best_last): 9.0, (0, cs + next_last): 6.0})
    [free] = best_spans(start, end, b, top_k=1, max_answer_tokens=30)
    [kept] = best_spans(start, end, b, top_k=1, max_answer_tokens=30, blocks=[paragraphs(text, offsets)])
    return (free.token_start, free.token_end), (kept.token_start, kept.token_end), paragraphs(text, offsets).tolist()


def test_the_answer_stops_at_the_blank_line_it_would_have_run_across():
    free, kept, blocks = free_and_kept("Use 1.2.6 or later:\n\n- https://example.org/advisory", 1, 5, 3)
    assert blocks == [0, 0, 0, 0, 1, 1]
    assert free == (1, 5) and kept == (1, 3)  # "1.2.6 or later:"


@pytest.mark.parametrize(("text", "want"), [
    ("--move\nMove or rename a file.", "--move"),  # a definition's term, then its description
    ("PAM_AUTH_ERR\nAuthentication failure", "PAM_AUTH_ERR"),
    ("r.encoding\n'utf-8'", "r.encoding"),  # a line of code, then its output
    ("a | b\nc | d", "a | b"),  # a table row
    ("the maximum number of\nopen files", "the maximum number of\nopen files"),  # a wrapped sentence
    ("limits, as\n  (soft) ones", "limits, as\n  (soft) ones"),
    ("one line only", "one line only"),
])
def test_an_answer_ends_with_the_line_it_starts_on_unless_the_line_wraps_a_sentence(text, want):
    assert text[:line_end(text, 0, len(text))] == want
    assert line_end(text, 0, 2) == 2  # no line break before the span's end: the span as it is


def test_answers_from_logits_cut_a_span_at_its_line_s_end_and_drop_what_then_repeats_a_better_one():
    text = "--move\nMove or rename a file."
    words = [(m.start(), m.end()) for m in __import__("re").finditer(r"\S+", text)]
    passage = PassageTokens(np.arange(100, 100 + len(words)), np.array(words))
    b = build_batch([11], [passage.ids], SPEC)
    cs = b.context_start  # the model likes "--move" as a start and "Move" then "--move" as an end
    start, end = logits_for(b, {(0, cs): 9.0}, {(0, cs + 1): 9.0, (0, cs): 8.0})
    free = answers_from_logits(start, end, b, [passage], top_k=2, max_answer_tokens=30)
    assert [text[a.start:a.end] for a in free] == ["--move\nMove", "--move"]
    got = answers_from_logits(start, end, b, [passage], top_k=2, max_answer_tokens=30, texts=[text])
    assert [text[a.start:a.end] for a in got][0] == "--move"
    assert len({(a.start, a.end) for a in got}) == len(got)  # "--move" once, not for both spans


@pytest.mark.parametrize("text, part, whole", [
    ("set core.excludesFile to a path", "core", "core.excludesFile"),
    ("set init.defaultBranch first", "defaultBranch", "init.defaultBranch"),
    ("it returns PAM_SUCCESS.", "SUCCESS", "PAM_SUCCESS"),
    ("x = os.path.join(a)", "path", "os.path.join"),
    ("the ratio is 3.5 here", "3", "3.5"),
    ("it ends. Then", "ends", "ends"),  # a full stop before a space is a sentence's end
    ("in the mid-1990s", "1990s", "1990s"),  # a hyphen does not join
    ("under /etc/skel/ by default", "skel", "skel"),  # nor a slash
    ("Runtime complexity: O(log(n))", "O", "O(log(n))"),  # a lone letter before a bracket: the expression
    ("written T(n) = 7n2", "T", "T(n)"),
    ("vitamin C (ascorbic acid)", "C", "C"),  # a space before the bracket
    ("an O(n log n + " + "m" * 40 + ") bound", "O", "O"),  # longer than WIDEST_LETTER_CALL
    ("O(n\nlog n)", "O", "O"),  # not past the line
    ("DTIME(f(n))", "E", "DTIME"),  # a word's last letter is no lone letter: a piece of the word
    ("void | SDL_SetWindowTitle (SDL_Window *window)", "WindowTitle", "SDL_SetWindowTitle"),  # a "##" piece
    ("gray is an alias of blackBright.", "Bright", "blackBright"),
    ("in the 1970s and 1980s", "1970", "1970s"),
    ("the default is 1280 pixels", "28", "1280"),
    ("东京是日本的首都", "日本", "日本"),  # only ASCII letters and digits make a word to widen to
    ("sha " + "ab" * 40 + " is the hash", "ababab", "ababab"),  # longer than WIDEST_WORD: left cut
    ("set Aptitude::Get-Root-Command to su", "Get", "Aptitude::Get"),  # "::" joins as "." does
    ("a std::vector of them", "std", "std::vector"),
    ("a label:: here", "label", "label"),  # not before a space
    ("ls -a shows them", "a", "-a"),  # an option's dashes are taken in
    ("use --prune here", "prune", "--prune"),
    ("(-v) verbose", "v", "-v"),
    ("search ?config-files first", "config-files", "?config-files"),  # a search term's "?" or "~"
    ("search ~N for new", "N", "~N"),
    ("a non-zero value", "zero", "zero"),  # a hyphen inside a word is no option's dash
    ("and ---x here", "x", "x"),  # three dashes: no option
    ("LTS ended 2019-02-25 for it", "2019", "2019-02-25"),  # a date whole
    ("LTS ended 2019-02-25 for it", "25", "2019-02-25"),
    ("in 2019 and 2020", "2019", "2019"),
    ("build 2019-02-25-rc1", "2019", "2019"),  # not a date alone
    ("syslog_facility (string)", "syslog_", "syslog_facility"),  # a span that ends on the name's "_"
    ("syslog_facility (string)", "_facility", "syslog_facility"),  # ... or starts on it
    ("use best_params_ after fit", "best_params_", "best_params_"),  # the name's own trailing "_"
    ("call __init__ first", "__init__", "__init__"),
])
def test_whole_name_widens_a_span_to_the_dotted_or_underscored_name_it_cuts(text, part, whole):
    a = text.index(part)
    s, e = whole_name(text, a, a + len(part))
    assert text[s:e] == whole


@pytest.mark.parametrize("text, part, whole", [
    ("The default value is HIGH:MEDIUM:+3DES:!aNULL, which is same as PostgreSQL.", "HIGH", "HIGH:MEDIUM:+3DES:!aNULL"),
    ("The default is 10ms, and so on", "10", "10ms"),
    ("The default is 'pg_log'.", "pg_log", "pg_log"),  # a closing quote it does not open stays out
    ("The default is 'pg_log'.", "'pg_log", "'pg_log'"),  # one it opens comes in
    ("Defaults to dict(a=1).", "dict(a", "dict(a=1)"),
    ("The default is 5432.", "5432", "5432"),  # the full stop is the sentence's
    ("Set it to HIGH:LOW for speed.", "HIGH", "HIGH"),  # no default said: as the reader gave it
])
def test_a_stated_default_is_its_whole_run_of_characters(text, part, whole):
    from function.model.reader import default_token

    a = text.index(part)
    s, e = default_token("What is the default of ssl_ciphers?", text, a, a + len(part))
    assert text[s:e] == whole
    assert default_token("Which ciphers are allowed?", text, a, a + len(part)) == (a, a + len(part))  # no default asked


@pytest.mark.parametrize("question, span, member", [
    ("Which Components method adds a security scheme?", "spec.components.security_scheme", "security_scheme"),
    ("Which canvas methods save and restore the state?", "canvas.restoreState", "restoreState"),
    ("Which canvas method adds an outline entry?", "canvas.addOutlineEntry()", "addOutlineEntry()"),
    ("Which query class restricts the results?", "whoosh.query.AndMaybe", "AndMaybe"),
    ("Which std::string method appends?", "std::string::append", "append"),  # the owner's last part
    ("Which APISpec method adds a path?", "apispec.core.APISpec", "apispec.core.APISpec"),  # the owner: no member
    ("Which class do I use for Digest authentication?", "requests.auth.HTTPDigestAuth",
     "requests.auth.HTTPDigestAuth"),  # no owner named
    ("Which core variable sets the editor?", "core.editor", "core.editor"),  # a variable's name is its whole path
    ("Which canvas method draws a line?", "the canvas.line call", "the canvas.line call"),  # not one name
])
def test_without_owner_leaves_the_member_of_the_owner_the_question_names(question, span, member):
    from function.model.reader import without_owner

    text = f"See {span} here."
    a = text.index(span)
    s, e = without_owner(question, text, a, a + len(span))
    assert text[s:e] == member


def test_answers_from_logits_give_the_whole_name():
    text = "Set core.excludesFile to a path."
    words = [(m.start(), m.end()) for m in __import__("re").finditer(r"[A-Za-z]+|[^\sA-Za-z]", text)]
    passage = PassageTokens(np.arange(100, 100 + len(words)), np.array(words))
    b = build_batch([11], [passage.ids], SPEC)
    cs = b.context_start  # the model's span is "core" alone (word 1), as a tokenizer that splits at dots allows
    start, end = logits_for(b, {(0, cs + 1): 9.0}, {(0, cs + 1): 9.0})
    [got] = answers_from_logits(start, end, b, [passage], top_k=1, max_answer_tokens=30, texts=[text])
    assert text[got.start:got.end] == "core.excludesFile"


@pytest.mark.parametrize("text, span, want", [
    ("To end it:\n$ git bisect reset\nthen", "$ git", "git bisect reset"),  # the whole command, no prompt
    ("    $ python -m pip install requests", "$ python -m", "python -m pip install requests"),  # indented block
    ("It costs $ 5 a month.", "$ 5", "$ 5"),  # not at a line's start: an amount
    ("run git bisect reset now", "git bisect", "git bisect"),  # no prompt
])
def test_command_line_gives_the_whole_command_at_a_shell_prompt(text, span, want):
    a = text.index(span)
    s, e = command_line(text, a, a + len(span))
    assert text[s:e] == want


@pytest.mark.parametrize("span, term", [
    ("opts.string - a string or array of strings", "opts.string"),  # a Markdown list's "term - description"
    ("pam_unix \u2014 module for traditional password authentication", "pam_unix"),  # a manual page's NAME line
    ("--force - do it anyway", "--force"),
    ("1914 - 1918", "1914 - 1918"),  # a range of numbers is an answer, not a term and its description
    ("Python 3 - the language", "Python 3 - the language"),  # the dash must follow the first word
    ("opts.string", "opts.string"),
])
def test_term_of_entry_stops_an_answer_at_the_term_before_its_description(span, term):
    assert span[:term_of_entry(span, 0, len(span))] == term


@pytest.mark.parametrize("text, span, term", [
    ("Settings\nlogging_collector (boolean)\nEnables it.", "logging_collector (boolean)", "logging_collector"),
    ("- lazy (bool) \u2013 Lazy-load.", "lazy (bool)", "lazy"),  # a list item's parameter
    ("work_mem (integer)", "work_mem (integer", "work_mem"),
    ("shared_buffers (floating point)", "shared_buffers (floating point)", "shared_buffers"),
    ("Set port (default 5) here", "port (default 5)", "port (default 5)"),  # not a line's start, not a type
    ("x\npoints (1/72 of an inch)", "points (1/72 of an inch)", "points (1/72 of an inch)"),  # not words
    ("x\nf (x) y", "f (x) y", "f (x) y"),  # more after the bracket
])
def test_a_parameter_s_head_answers_its_name_without_the_type(text, span, term):
    a = text.index(span)
    assert text[a:term_of_entry(text, a, a + len(span))] == term


@pytest.mark.parametrize("question, span, want", [
    ("Which file holds pam_env's rules?", "config file /etc/security/pam_env.conf", "/etc/security/pam_env.conf"),
    ("Which skeleton directory is copied?", "The skeleton directory (usually /etc/skel/)", "/etc/skel/"),
    ("Which file does it read?", "the limits.conf config file", "limits.conf"),
    ("Where is the config file?", "~/.netrc or /etc/netrc", "~/.netrc or /etc/netrc"),  # two paths: as it is
    ("Who wrote it?", "config file /etc/x.conf", "config file /etc/x.conf"),  # not a question about a file
    ("Which file is read?", "the default one", "the default one"),  # no path in the answer
    # a relative path is not cut to the name after its last hyphen or dot
    ("Which file holds the options?", "see Documentation/git-merge.txt", "see Documentation/git-merge.txt"),
    ("Which file lists the changes?", "docs/releases/A.B.txt", "docs/releases/A.B.txt"),
])
def test_path_in_answer_gives_a_file_question_the_path_its_answer_holds(question, span, want):
    a, z = path_in_answer(question, span, 0, len(span))
    assert span[a:z] == want
    assert path_in_answer(None, span, 0, len(span)) == (0, len(span))


_LONG_SPANS = """
import sys
from function.model.reader import path_in_answer, term_of_entry
n = 1_000_000
for span in ("x" * n, "a_" * (n // 2), "0x" + "60806040deadbeef" * (n // 16)):
    assert term_of_entry(span, 0, len(span)) == len(span)
for span in ("a." * (n // 2), "1." * (n // 2), "A.B." * (n // 4)):
    assert path_in_answer("Which file holds it?", span, 0, len(span)) == (0, len(span))
print("done")
"""


def test_a_long_unbroken_span_is_shaped_in_one_pass():
    """An answer span of one long unbroken word (a hex string, "a.a.a...": one [UNK] token can cover any length of
    text) is shaped without trying every split of it: those regular expressions took time growing with the span's
    length squared, 10 s for 50,000 characters and hours for a million, pinning a server thread. Run apart, so that
    a return of that would fail here (after a minute, for work now done in milliseconds) rather than hang the suite."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _LONG_SPANS], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "done", out.stderr


def test_answers_from_logits_give_a_file_question_the_path():
    text = "Rules are read from the config file /etc/env.conf by default."
    words = [(m.start(), m.end()) for m in __import__("re").finditer(r"\S+", text)]
    passage = PassageTokens(np.arange(100, 100 + len(words)), np.array(words))
    b = build_batch([11], [passage.ids], SPEC)
    cs = b.context_start  # the model's span: "config file /etc/env.conf" (words 5 to 7)
    start, end = logits_for(b, {(0, cs + 5): 9.0}, {(0, cs + 7): 9.0})
    [plain] = answers_from_logits(start, end, b, [passage], top_k=1, max_answer_tokens=30, texts=[text])
    assert text[plain.start:plain.end] == "config file /etc/env.conf"
    [asked] = answers_from_logits(start, end, b, [passage], top_k=1, max_answer_tokens=30, texts=[text],
                                  question="Which file holds the rules?")
    assert text[asked.start:asked.end] == "/etc/env.conf"


HOW = "How do I make the units one centimetre?"


@pytest.mark.parametrize("text, span, want", [
    ("unitsize(1cm);", "unitsize", "unitsize(1cm)"),
    ("Assigning settings.scroll=n for a positive n", "settings.scroll", "settings.scroll=n"),
    ("    canvas.setDash(6,3)", "canvas.setDash", "canvas.setDash(6,3)"),
    ("renderPM.drawToFile(d, 'out.png', 'PNG')", "renderPM.drawToFile", "renderPM.drawToFile(d, 'out.png', 'PNG')"),
    ("doc.build(story, onFirstPage=myFirstPage)", "onFirstPage", "onFirstPage=myFirstPage"),
    ("Border='[0 0 0]' hides it", "Border", "Border='[0 0 0]'"),
    ("set x=1.", "x", "x=1"),  # the sentence's full stop stays out
    ("void filloutside(picture pic=currentpicture, path g);", "filloutside", "filloutside"),  # a declaration
    ("string hex(pen p)", "hex", "hex"),
    ("call .opts() on the program", "opts", "opts"),  # empty brackets: the name
    ("if a==b then", "a", "a"),  # a comparison, not a value given
    ("draw(f(x,\ny))", "f", "f"),  # not past the line
    ("g(" + "1," * 50 + "2)", "g", "g"),  # longer than WIDEST_CALL
    ("the angle(1)", "the angle", "the angle"),  # words, not a name
])
def test_whole_call_gives_a_how_question_the_call_or_assignment_its_name_starts(text, span, want):
    a = text.index(span)
    s, e = whole_call(HOW, text, a, a + len(span))
    assert text[s:e] == want
    # a question that asks for the name keeps the name, and so does a span inside a call
    assert whole_call("Which function sets the units?", text, a, a + len(span)) == (a, a + len(span))
    assert whole_call(None, text, a, a + len(span)) == (a, a + len(span))


@pytest.mark.parametrize("text, span, want", [
    ("Returns defaultdict(list).", "defaultdict", "defaultdict(list)"),
    ("Returns defaultdict(int) of counts.", "defaultdict", "defaultdict(int)"),
    ("Return value=3 always", "value", "value"),  # an assignment is what to write, not what is returned
    ("Returns iter() of the items", "iter", "iter"),  # empty brackets: the name
    ("string hex(pen p)", "hex", "hex"),  # a declaration
])
def test_whole_call_gives_a_return_question_the_call_the_value_is_written_as(text, span, want):
    a = text.index(span)
    s, e = whole_call("What does group_by return?", text, a, a + len(span))
    assert text[s:e] == want
    assert whole_call("What does group_by do?", text, a, a + len(span)) == (a, a + len(span))


def test_answers_from_logits_give_a_how_question_the_whole_call():
    text = "Set the units with\n\nunitsize(1cm);\n\nbefore drawing."
    words = [(m.start(), m.end()) for m in __import__("re").finditer(r"\w+|[^\w\s]", text)]
    passage = PassageTokens(np.arange(100, 100 + len(words)), np.array(words))
    b = build_batch([11], [passage.ids], SPEC)
    cs = b.context_start  # the model's span: "unitsize" (word 4)
    start, end = logits_for(b, {(0, cs + 4): 9.0}, {(0, cs + 4): 9.0})
    for question, want in [("How do I set the units to 1cm?", "unitsize(1cm)"),
                           ("Which function sets the units?", "unitsize"), (None, "unitsize")]:
        [got] = answers_from_logits(start, end, b, [passage], top_k=1, max_answer_tokens=30, texts=[text],
                                    question=question)
        assert text[got.start:got.end] == want


def test_the_answer_stays_in_its_table_cell():
    text = "Type | Method | Description\nstatic String | random(int count) | Creates a random string."
    free, kept, blocks = free_and_kept(text, 8, 13, 9, WindowSpec(32, 3, 5, 101, 102, 0))  # one window
    assert blocks == [0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4, 4, 4, 4]
    assert free == (8, 13) and kept == (8, 9)  # "random(int count)", not on into the next cell


@pytest.mark.parametrize(("text", "rows"), [
    ("a | b\nc | d", [[1], [7]]),  # two rows
    ("static boolean | isNumeric(CharSequence cs) | Checks it.", [[14, 43]]),  # a row of three cells
    ("header_helper(header: dict) \u2192 dict | None\nReturn the header.", []),  # a union type in a signature
    ("Run it:\n( cat Doxyfile ) | doxygen -\nthen look.", []),  # a pipeline in a line of code
    ("no table here", []),
])
def test_cell_breaks_are_the_separators_of_table_rows_only(text, rows):
    from function.model.decode import cell_breaks

    assert cell_breaks(text) == [i for row in rows for i in row]
    assert all(text[i : i + 3] == " | " for i in cell_breaks(text))


def test_paragraphs_count_blank_lines_only():
    text = "a b\nc\n \nd\n\n\ne"
    offsets = np.array([(0, 1), (2, 3), (4, 5), (8, 9), (12, 13)])
    assert paragraphs(text, offsets).tolist() == [0, 0, 0, 1, 2]  # one line break is not a paragraph's end
    assert paragraphs("", np.zeros((0, 2), dtype=np.int64)).tolist() == []


# -- retrieval: raw logits plus a per-passage bias ---------------------------

def test_with_a_passage_bias_raw_logits_rank_passages_not_each_windows_probabilities():
    # Passage 0: a confident span in a window whose [CLS] is low (probability near 1).
    # Passage 1: higher raw logits, but [CLS] is higher still, so its probability is lower.
    b = build_batch([11, 12], [np.arange(100, 106), np.arange(200, 206)], SPEC)
    cs = b.context_start
    start, end = logits_for(b, {(0, cs + 1): 4.0, (1, cs + 2): 6.0, (1, 0): 9.0},
                            {(0, cs + 2): 4.0, (1, cs + 3): 6.0, (1, 0): 9.0})
    [by_probability] = best_spans(start, end, b, top_k=1)
    assert by_probability.passage == 0
    [by_logits] = best_spans(start, end, b, top_k=1, passage_bias=np.zeros(2))
    assert (by_logits.passage, by_logits.token_start, by_logits.token_end) == (1, 2, 3)
    # A retrieval score large enough for passage 0 turns the ranking back.
    [biased] = best_spans(start, end, b, top_k=1, passage_bias=np.array([5.0, 0.0]))
    assert (biased.passage, biased.token_start, biased.token_end) == (0, 1, 2)


def test_null_weight_ranks_down_the_spans_of_a_window_whose_cls_says_not_here():
    # The same logits as above: passage 1's span has the higher raw logits, but its window's [CLS]
    # (9 + 9) says the answer is not there; passage 0's [CLS] is 0. Half of it (18 x 0.5 = 9) is more
    # than the 4-point lead of passage 1's span (12 against 8).
    b = build_batch([11, 12], [np.arange(100, 106), np.arange(200, 206)], SPEC)
    cs = b.context_start
    start, end = logits_for(b, {(0, cs + 1): 4.0, (1, cs + 2): 6.0, (1, 0): 9.0},
                            {(0, cs + 2): 4.0, (1, cs + 3): 6.0, (1, 0): 9.0})
    [plain] = best_spans(start, end, b, top_k=1, passage_bias=np.zeros(2))
    assert plain.passage == 1
    [weighed] = best_spans(start, end, b, top_k=1, passage_bias=np.zeros(2), null_weight=0.5)
    assert (weighed.passage, weighed.token_start, weighed.token_end) == (0, 1, 2)
    # a smaller weight (18 x 0.2 = 3.6 < 4) leaves the ranking as it was
    [light] = best_spans(start, end, b, top_k=1, passage_bias=np.zeros(2), null_weight=0.2)
    assert light.passage == 1


def test_with_a_passage_bias_scores_are_a_softmax_over_every_candidate_span():
    b = build_batch([11, 12], [np.arange(100, 106), np.arange(200, 204)], SPEC)
    rng = np.random.default_rng(0)
    start, end = (rng.normal(size=b.input_ids.shape).astype(np.float32) for _ in range(2))
    bias = np.array([0.3, -1.2])
    spans = best_spans(start, end, b, top_k=10, max_answer_tokens=30, passage_bias=bias)
    cs = b.context_start
    logits = {}
    for w in range(len(b)):
        n, p = int(b.context_len[w]), int(b.passage_index[w])
        for i in range(n):
            for j in range(i, n):
                logits[(w, i, j)] = start[w, cs + i] + end[w, cs + j] + bias[p]
    norm = np.logaddexp.reduce(np.array(list(logits.values()), dtype=np.float64))
    want = sorted(logits.values(), reverse=True)[:10]
    assert [s.score for s in spans] == pytest.approx([float(np.exp(v - norm)) for v in want])
    assert sum(s.score for s in spans) < 1.0


@pytest.mark.parametrize("text, span, answer", [
    ("use the -f flag", "the -f", "-f"),  # an article before a lone option, code name or path goes
    ("call the .option() method", "the .option()", ".option()"),
    ("edit the /etc/pam.conf file", "the /etc/pam.conf", "/etc/pam.conf"),
    ("uses the __missing__ method", "the __missing__ method", "the __missing__ method"),  # more than the name follows
    ("the Beatles sang", "the Beatles", "the Beatles"),  # not a name written as code
    ("the byte length of a string or bytes field.", "the byte length of a string or bytes field.",
     "the byte length of a string or bytes field"),  # a full stop after several words goes
    ("in Washington D.C.", "Washington D.C.", "Washington D.C."),  # an abbreviation keeps it
    ("made by Apple Inc.", "Apple Inc.", "Apple Inc."),
    ("and appending ...", "and appending ...", "and appending ..."),  # an ellipsis too
    ("one word.", "word.", "word."),  # a single word: left as it is
    ('prefix them with a "-" character', '-" character', '"-" character'),  # an unpaired quote takes in its pair
    ('the value "a1762" here', 'a1762"', '"a1762"'),
    ('the value "a1762" here', '"a1762', '"a1762"'),
    ('say "hi" and "bye"', '"hi" and "bye"', '"hi" and "bye"'),  # paired: left as it is
    ("Default is 'shmem'.", "shmem'", "'shmem'"),  # a single quote takes in its pair beside the answer
    ("Default is 'shmem'.", "'shmem", "'shmem'"),
    ("a \u2018b\u2019 here", "b\u2019", "\u2018b\u2019"),
    ("dnl (\u201cDiscard to Next Line\u201d)", "\u201cDiscard to Next Line",
     "\u201cDiscard to Next Line\u201d"),  # a curly double quote takes in its pair beside the answer too
    ("dnl (\u201cDiscard to Next Line\u201d)", "Discard to Next Line\u201d", "\u201cDiscard to Next Line\u201d"),
    ("said \u201cDiscard to Next Line, then", "\u201cDiscard to Next Line", "Discard to Next Line"),  # no pair: goes
    ("it ends here\u201d and so", "ends here\u201d", "ends here"),
    ("\u2018begins the value", "\u2018begins the value", "begins the value"),
    ("say \u201chi\u201d and \u201cbye\u201d", "\u201chi\u201d and \u201cbye\u201d",
     "\u201chi\u201d and \u201cbye\u201d"),  # paired: as it is
    ("the users' files", "users'", "users'"),  # an apostrophe: no quote before it
    ("don't stop", "don't", "don't"),
    ("'a' or 'b'", "a' or 'b", "a' or 'b"),  # more than one quote: left as it is
    ("two numbers in points (1/72 of an inch) each", "numbers in points (1/72 of an inch",
     "numbers in points (1/72 of an inch)"),  # a bracket it opens takes in its ")"
    ("f(a, g(b) and c) here", "f(a, g(b", "f(a, g(b) and c)"),  # the first one it leaves open
    ("in the interval [0,360) or 0", "interval [0,360)", "interval [0,360)"),  # an interval: left as it is
    ("see (the next\nline)", "see (the next", "see (the next"),  # not past the line
    ("a (" + "b " * 30 + ")", "a (b", "a (b"),  # nor more than WIDEST_CLOSE past the answer
    ("write the token @NAMESPACE@ there", "NAMESPACE@", "@NAMESPACE@"),  # a placeholder's sigil left unpaired
    ("write the token @NAMESPACE@ there", "@NAMESPACE", "@NAMESPACE@"),
    ("set %APPDATA% first", "APPDATA%", "%APPDATA%"),
    ("write the token @NAMESPACE@ there", "NAMESPACE", "NAMESPACE"),  # no sigil in the answer: left as it is
    ("mail a@b@c.d", "b@", "b@"),  # a sigil after a letter is no placeholder's: "a@b" stays
    ("the %D format", "%D", "%D"),  # one sigil, nothing after it
    ("index (int) - the index", "int)", "int"),  # a closing bracket it never opened goes
    ('requires = ["setuptools"]', '"setuptools"]', '"setuptools"'),
    ("log(logging.warning, threshold=0.5))", "logging.warning, threshold=0.5))", "logging.warning, threshold=0.5"),
    ("call f(x)) here", "f(x))", "f(x)"),  # the one it opened stays
    ("a) b) c", "a) b)", "a) b"),  # only at its end
    ("verify = 'x'", "'", ""),  # a quote alone answers nothing
    ("see (x)", ")", ""),  # nor a bracket
    ('the empty string "" here', '""', '""'),  # two quotes are a value
])
def test_edges_shape_an_answer_as_documentation_writes_it(text, span, answer):
    start = text.index(span)
    a, z = edges(text, start, start + len(span))
    assert text[a:z] == answer


@pytest.mark.parametrize("question, span, answer", [
    ("Which option gives doxygen the path to hhc.exe?", "HHC_LOCATION configuration", "HHC_LOCATION"),
    ("What error is raised for a wrong type?", "SQLITE_CONSTRAINT_DATATYPE error", "SQLITE_CONSTRAINT_DATATYPE"),
    ("Which attribute holds the wrapped function?", "__original__ attribute", "__original__"),
    ("Which object keeps cookies?", "Session object", "Session object"),  # not a name's shape: as it is
    ("Which fields are required?", "top-level fields", "top-level fields"),
    ("How do I set the path?", "HHC_LOCATION configuration", "HHC_LOCATION configuration"),  # not a name question
    ("Which option sets the path?", "HHC_LOCATION to hhc", "HHC_LOCATION to hhc"),  # more than the noun
    ("Which option sets the path?", "HHC_LOCATION is", "HHC_LOCATION is"),  # not a kind's noun
    ("Which operator do I use for a KNN search?", "The <-> operator", "<->"),  # an article before it goes too
    ("Which RewriteRule flag keeps the query string?", "the [QSA] flag", "[QSA]"),
    ("Which class keeps cookies?", "the Session object", "the Session object"),  # not a name's shape
    ("Which flag?", "theory x_y flag", "theory x_y flag"),  # a word, not an article
])
def test_without_kind_cuts_a_names_answer_to_the_name(question, span, answer):
    from function.model.reader import without_kind

    a, z = without_kind(question, span, 0, len(span))
    assert span[a:z] == answer


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet="ab_.(),= \n'\"xO1", max_size=40), st.data())
def test_widening_keeps_the_span_and_its_line(text, data):
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    for s, e in (whole_call(HOW, text, start, end), whole_name(text, start, end)):
        assert s <= start and end <= e <= len(text)  # never narrower, never past the text
        assert "\n" not in text[end:e]  # nor past the line
    s, e = whole_call(HOW, text, start, end)
    assert s == start and (e == end or e - start <= WIDEST_CALL)


def _marked(text: str, *pieces: str) -> np.ndarray:
    return np.array([(text.index(p), text.index(p) + len(p)) for p in pieces], dtype=np.int64).reshape(-1, 2)


@pytest.mark.parametrize("text, pieces, span, want", [
    ("Run npm install --save-dev semantic-release first.", ["npm install --save-dev semantic-release"],
     "--save-dev semantic-release", "npm install --save-dev semantic-release"),
    ("Run npm install --save-dev semantic-release first.", ["npm install --save-dev semantic-release"],
     "npm install --save-dev semantic-release", "npm install --save-dev semantic-release"),  # the piece already
    ("Run npm install first.", ["npm"], "Run npm", "Run npm"),  # not inside a piece
    ("Call a.b(c) or\nd", ["a.b(c) or\nd"], "a.b", "a.b"),  # a piece over two lines: as it is
    ("Use " + "x" * 90 + " here", ["x" * 90], "xxx", "xxx"),  # longer than WIDEST_CODE
])
def test_whole_code_widens_an_answer_to_the_piece_of_inline_code_it_lies_in(text, pieces, span, want):
    a = text.index(span)
    s, e = whole_code(text, _marked(text, *pieces), a, a + len(span))
    assert text[s:e] == want
    assert whole_code(text, None, a, a + len(span)) == (a, a + len(span))


def test_answers_from_logits_widen_a_how_question_s_answer_to_its_inline_command_only():
    text = "Install it with npm install --save-dev semantic-release in your project."
    words = [(m.start(), m.end()) for m in __import__("re").finditer(r"\S+", text)]
    passage = PassageTokens(np.arange(100, 100 + len(words)), np.array(words))
    marks = _marked(text, "npm install --save-dev semantic-release")
    b = build_batch([11], [passage.ids], SPEC)
    cs = b.context_start  # the model's span: "--save-dev semantic-release" (words 5 to 6)
    start, end = logits_for(b, {(0, cs + 5): 9.0}, {(0, cs + 6): 9.0})
    for question, want in [("How do I install semantic-release?", "npm install --save-dev semantic-release"),
                           ("Which tool installs semantic-release?", "--save-dev semantic-release"),
                           (None, "--save-dev semantic-release")]:
        [got] = answers_from_logits(start, end, b, [passage], top_k=1, max_answer_tokens=30, texts=[text],
                                    question=question, marks=[marks])
        assert text[got.start:got.end] == want
