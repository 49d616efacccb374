"""Documentation question generator (build_model.docdata): hand-made pages of each generator in, questions out,
every answer a span of the passage that ingestion makes of the page; held-back packages refused. No network."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from build_model.docdata import ForbiddenSource, is_forbidden, refuse_forbidden
from build_model.docdata import __main__ as cli
from build_model.docdata.build import build_page
from build_model.docdata.entries import man_entries, markdown_entries, sphinx_entries
from build_model.docdata.fetch import Source, fetch
from build_model.docdata.questions import predicate
from function.ingest.split import budget_from_manifest
from function.model.artifact import load_manifest
from function.model.tokenizer import QATokenizer

ARTIFACT = Path(__file__).resolve().parents[1] / "artifact"

SPHINX_PAGE = b"""<!DOCTYPE html><html><head><title>Files &#8212; filekit 1.0</title></head><body>
<div class="document"><div class="body" role="main">
<section id="files"><h1>Files<a class="headerlink" href="#files">\xc2\xb6</a></h1>
<p>The filekit module copies and inspects files.</p>
<dl class="py function">
<dt class="sig sig-object py" id="filekit.getcwd"><span class="sig-prename descclassname">\
<span class="pre">filekit.</span></span><span class="sig-name descname"><span class="pre">getcwd</span></span>\
<span class="sig-paren">(</span><span class="sig-paren">)</span>\
<a class="headerlink" href="#filekit.getcwd" title="Permalink to this definition">\xc2\xb6</a></dt>
<dd><p>Return a string representing the current working directory.</p></dd></dl>
<dl class="py function">
<dt class="sig sig-object py" id="filekit.copytree"><span class="sig-prename descclassname">\
<span class="pre">filekit.</span></span><span class="sig-name descname"><span class="pre">copytree</span>\
</span><span class="sig-paren">(</span><em class="sig-param"><span class="n"><span class="pre">src</span>\
</span></em>, <em class="sig-param"><span class="n"><span class="pre">dst</span></span>\
</em>,<em class="sig-param"><span class="n"><span class="pre">symlinks</span></span><span class="o">\
<span class="pre">=</span></span><span class="default_value"><span class="pre">False</span></span>\
</em>, <em class="sig-param"><span class="n"><span class="pre">mode</span></span><span class="o">\
<span class="pre">=</span></span><span class="default_value"><span class="pre">0o755</span></span></em>\
<span class="sig-paren">)</span>\
<a class="headerlink" href="#filekit.copytree" title="Permalink to this definition">\xc2\xb6</a></dt>
<dd><p>Recursively copy an entire directory tree rooted at src to a directory named dst.</p>
<p>Raises <code>FileExistsError</code> if the destination directory already exists.</p>
<dl class="field-list simple">
<dt class="field-odd">Parameters<span class="colon">:</span></dt>
<dd class="field-odd"><ul class="simple">
<li><p><strong>src</strong> (<em>str</em>) \xe2\x80\x93 the directory to copy from.</p></li>
<li><p><strong>dst</strong> (<em>str</em>) \xe2\x80\x93 the directory to create.</p></li>
</ul></dd>
<dt class="field-even">Returns<span class="colon">:</span></dt>
<dd class="field-even"><p>the destination directory</p></dd>
</dl></dd></dl>
<dl class="py class">
<dt class="sig sig-object py" id="filekit.Walker"><em class="property"><span class="pre">class</span> </em>\
<span class="sig-prename descclassname"><span class="pre">filekit.</span></span>\
<span class="sig-name descname"><span class="pre">Walker</span></span>\
<a class="headerlink" href="#filekit.Walker">\xc2\xb6</a></dt>
<dd><p>A generator of the files below a directory, in name order.</p></dd></dl>
</section></div></div></body></html>
"""

MARKDOWN_PAGE = """# tidy-paths

Normalise file paths.

## API

### normalize(path[, options])

Returns the path with its separators made uniform.

#### Options

- `sep` (string): The separator to write between parts. Default: `/`
- `trailing` (boolean): Keeps a final separator at the end of the path.

| Option | Default | Description |
| --- | --- | --- |
| `caseFold` | `false` | Lowercases every part of the path before joining. |
"""

MAN_PAGE = """TIDY(1)                        User Commands                       TIDY(1)



NAME
       tidy - remove empty directories

SYNOPSIS
       tidy [OPTION]... DIRECTORY...

DESCRIPTION
       Remove the empty directories below each DIRECTORY.

       -n, --dry-run
              print the directories that would be removed

       -d, --depth=N
              descend at most N levels below each DIRECTORY (default 8)

       --help display this help and exit
"""


@pytest.fixture(scope="module")
def ingest():
    manifest = load_manifest(ARTIFACT)
    return QATokenizer(manifest.tokenizer_path), budget_from_manifest(manifest)


def _questions(generator: str, name: str, data: bytes, ingest) -> list[tuple[str, dict]]:
    tokenizer, budget = ingest
    source = Source("filekit-doc", "1.0-1", "deb", generator)
    article, _ = build_page(source, name, data, tokenizer, budget, random.Random(1), unanswerable_rate=0.0)
    assert article is not None
    out = []
    for para in article["paragraphs"]:
        for qa in para["qas"]:
            for ans in qa["answers"]:  # every answer is an exact span of the passage it is asked of
                assert para["context"][ans["answer_start"]:ans["answer_start"] + len(ans["text"])] == ans["text"]
            out.append((para["context"], qa))
    return out


def _by_answer(pairs) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for _, qa in pairs:
        out.setdefault(qa["answers"][0]["text"], []).append(qa)
    return out


def test_sphinx_entries_read_signature_defaults_and_fields():
    entries = {e.short: e for e in sphinx_entries(SPHINX_PAGE)}
    assert set(entries) == {"getcwd", "copytree", "Walker"}
    copytree = entries["copytree"]
    assert copytree.name == "filekit.copytree" and "¶" not in copytree.signature
    assert copytree.defaults == [("symlinks", "False"), ("mode", "0o755")]
    assert [p.name for p in copytree.params] == ["src", "dst"]
    assert copytree.returns == "the destination directory"
    assert entries["Walker"].role == "class"


def test_sphinx_page_gives_which_return_raise_default_and_param_questions(ingest):
    pairs = _questions("sphinx", "files.html", SPHINX_PAGE, ingest)
    answers = _by_answer(pairs)
    which = [qa for qa in answers["filekit.getcwd"] if qa["kind"] == "which"]
    assert which and "current working directory" in which[0]["question"]
    assert "getcwd" not in which[0]["question"]  # the answer is not leaked
    assert {qa["kind"] for qa in answers["a string representing the current working directory"]} == {"return"}
    assert any(qa["kind"] == "raise" and "destination directory already exists" in qa["question"]
               for qa in answers["FileExistsError"])
    assert any(qa["kind"] == "default" and "mode" in qa["question"] for qa in answers["0o755"])
    kinds = {qa["kind"] for _, qa in pairs}
    assert {"which", "return", "raise", "default", "param"} <= kinds
    for context, _ in pairs:
        assert "¶" not in context


def test_markdown_page_gives_function_option_and_default_questions(ingest):
    entries = {e.name: e for e in markdown_entries(MARKDOWN_PAGE)}
    assert entries["normalize"].role == "function"
    assert [p.name for p in entries["normalize"].params] == ["sep", "trailing", "caseFold"]
    pairs = _questions("markdown", "README.md", MARKDOWN_PAGE.encode(), ingest)
    answers = _by_answer(pairs)
    assert any(qa["kind"] == "which" and "separators made uniform" in qa["question"] for qa in answers["normalize"])
    assert any(qa["kind"] == "return" for qa in answers["the path with its separators made uniform"])
    assert any(qa["kind"] == "default" and "sep" in qa["question"] for qa in answers["/"])
    assert any(qa["kind"] == "param" and "final separator" in qa["question"] for qa in answers["trailing"])
    assert any(qa["kind"] == "param" and "lowercases every part" in qa["question"] for qa in answers["caseFold"])


def test_man_page_gives_command_and_option_questions(ingest):
    entries = man_entries(MAN_PAGE)
    assert [(e.name, e.role) for e in entries] == [("tidy", "command"), ("--dry-run", "option"),
                                                   ("--depth", "option")]  # --help is left out
    pairs = _questions("man", "tidy.1.txt", MAN_PAGE.encode(), ingest)
    answers = _by_answer(pairs)
    assert any(qa["kind"] == "command" and "empty directories" in qa["question"] for qa in answers["tidy"])
    dry = [qa for qa in answers["--dry-run"] if qa["kind"] == "option"]
    assert dry and "directories that would be removed" in dry[0]["question"] and "dry" not in dry[0]["question"]
    assert any(qa["kind"] == "default" for qa in answers.get("8", []))


def test_unanswerable_pairs_are_asked_of_a_passage_without_the_answer(ingest):
    tokenizer, _ = ingest
    filler = "".join(f"<p>Paragraph {i} says nothing about any function at all, only words.</p>" for i in range(40))
    page = SPHINX_PAGE.replace(b"<dl class=\"py class\">", filler.encode() + b"<dl class=\"py class\">")
    source = Source("filekit-doc", "1.0-1", "deb", "sphinx")
    article, _ = build_page(source, "files.html", page, tokenizer, (160, 32), random.Random(3), unanswerable_rate=1.0)
    impossible = [(p["context"], qa) for p in article["paragraphs"] for qa in p["qas"] if qa["is_impossible"]]
    assert impossible
    answered = {qa["id"]: qa for p in article["paragraphs"] for qa in p["qas"] if not qa["is_impossible"]}
    for context, qa in impossible:
        assert qa["answers"] == [] and qa["kind"] == "unanswerable"
        twin = answered[qa["id"].removesuffix("-u")]
        assert twin["question"] == qa["question"]
        assert twin["answers"][0]["text"].lower() not in context.lower()


def test_predicate_turns_descriptions_into_question_phrases():
    assert predicate("Return a string for the directory.").third == "returns a string for the directory"
    assert predicate("Creates a new session.").base == "create a new session"
    assert predicate("A generator of the files below a directory.").np == "a generator of the files below a directory"
    assert predicate("The cookie jar is available as an attribute.") is None  # a sentence, not a noun phrase
    assert predicate("See also the other function.") is None


@pytest.mark.parametrize("name", ["python3.11-doc", "python3-doc", "postgresql-doc-15", "python-requests-doc",
                                  "git-doc", "libpam-doc", "commander", "express", "lodash", "minimist"])
def test_forbidden_packages_are_refused(name, tmp_path):
    assert is_forbidden(name)
    with pytest.raises(ForbiddenSource):
        refuse_forbidden(name)
    with pytest.raises(ForbiddenSource):  # before anything is downloaded
        fetch(Source(name, "1.0", "deb", "sphinx"), tmp_path)
    with pytest.raises(ForbiddenSource):
        cli.main(["--only", name, "--out", str(tmp_path / "x.json")])
    assert not is_forbidden("python-flask-doc")


def test_sources_hold_no_forbidden_package():
    from build_model.docdata.fetch import SOURCES

    assert SOURCES and not [s.name for s in SOURCES if is_forbidden(s.name)]
    assert len({s.generator for s in SOURCES}) >= 3


def test_merge_checks_spans_and_refuses_forbidden_titles(tmp_path):
    good = {"package": {"name": "filekit-doc", "version": "1", "generator": "sphinx", "files": 1},
            "data": [{"title": "filekit-doc/a.html", "paragraphs": [{"context": "getcwd() returns the directory.",
                      "qas": [{"id": "1", "question": "Which function returns the directory?", "kind": "which",
                               "answers": [{"text": "getcwd", "answer_start": 0}], "is_impossible": False}]}]}]}
    summary = cli.merge([good], tmp_path / "train.json", seed=1)
    assert summary["answerable"] == 1 and summary["generators"] == {"sphinx": {"which": 1}}
    written = json.loads((tmp_path / "train.json").read_text())
    assert written["version"] == "docqa-1" and written["packages"][0]["name"] == "filekit-doc"
    assert (tmp_path / "train.summary.json").is_file()
    bad = json.loads(json.dumps(good))
    bad["data"][0]["paragraphs"][0]["qas"][0]["answers"][0]["answer_start"] = 3
    with pytest.raises(AssertionError):
        cli.merge([bad], tmp_path / "bad.json", seed=1)
    held = json.loads(json.dumps(good))
    held["data"][0]["title"] = "python-requests-doc/a.html"
    with pytest.raises(AssertionError):
        cli.merge([held], tmp_path / "held.json", seed=1)


JAVADOC_PAGE = b"""<html><head><meta charset="utf-8"><title>Strings</title></head><body><main>
<h1 class="title">Class Strings</h1>
<section class="details"><ul class="member-list"><li>
<section class="detail" id="trim(java.lang.String)"><h3>trim</h3>
<div class="member-signature"><span class="modifiers">public static</span>&nbsp;String&nbsp;\
<span class="element-name">trim</span>(String&nbsp;str)</div>
<div class="block"><p>Removes control characters from both ends of a String.</p></div>
<dl class="notes"><dt>Parameters:</dt><dd><code>str</code> - the String to be trimmed, may be null</dd>
<dt>Returns:</dt><dd>the trimmed string</dd>
<dt>Throws:</dt><dd><code>IllegalStateException</code> - if the string is locked</dd></dl>
</section></li></ul></section></main></body></html>
"""

GTKDOC_PAGE = b"""<html><head><meta charset="utf-8"><title>Strings</title></head><body>
<div class="refsect1"><h2>Functions</h2>
<div class="refsect2"><a name="g-strdup"></a><h3>g_strdup ()</h3>
<pre class="programlisting">gchar *
g_strdup (const gchar *str);</pre>
<p>Duplicates a string. If str is NULL it returns NULL.</p>
<div class="refsect3"><h4>Parameters</h4><div class="informaltable"><table><tbody><tr>
<td class="parameter_name"><p>str</p></td><td class="parameter_description"><p>the string to duplicate</p></td>
</tr></tbody></table></div></div>
<div class="refsect3"><h4>Returns</h4><p>a newly-allocated copy of str</p></div>
</div></div></body></html>
"""


def test_javadoc_and_gtkdoc_pages_give_which_return_and_raise_questions(ingest):
    javadoc = _by_answer(_questions("javadoc", "Strings.html", JAVADOC_PAGE, ingest))
    assert any(qa["kind"] == "which" and "control characters" in qa["question"] for qa in javadoc["trim"])
    assert any(qa["kind"] == "return" for qa in javadoc["the trimmed string"])
    assert any(qa["kind"] == "raise" and "locked" in qa["question"] for qa in javadoc["IllegalStateException"])
    gtkdoc = _by_answer(_questions("gtkdoc", "strings.html", GTKDOC_PAGE, ingest))
    assert any(qa["kind"] == "which" and "duplicates a string" in qa["question"] for qa in gtkdoc["g_strdup"])
    assert any(qa["kind"] == "return" for qa in gtkdoc["a newly-allocated copy of str"])


def _record(name: str, paragraphs: list[tuple[str, list[dict]]]) -> dict:
    return {"package": {"name": name, "version": "1", "generator": "sphinx", "files": 1},
            "data": [{"title": f"{name}/a.html", "paragraphs": [{"context": c, "qas": q} for c, q in paragraphs]}]}


def _qa(qid: str, question: str, context: str, answer: str) -> dict:
    return {"id": qid, "question": question, "kind": "which", "is_impossible": False,
            "answers": [{"text": answer, "answer_start": context.index(answer)}]}


def test_corpus_negatives_come_from_another_package_without_the_answer_or_the_name(tmp_path):
    """An unanswerable pair asks a question of the best BM25 match in ANOTHER package (as SQuAD's come from
    other articles), never of a passage holding the answer or the name asked about; same-page pairs go."""
    own = "compress_file(path) compresses the file at path with gzip level nine."
    twin = "decompress_file(path) restores a compressed file."
    near = "The archive tool compresses each file it is given, gzip level nine by default."
    named = "grl_data_get_keys() returns a list with all keys of data."
    keys = "get_keys() returns the keys of the mapping."
    answered = _qa("q1", "Which function compresses the file at path with gzip?", own, "compress_file")
    twin_pair = {"id": "q1-u", "question": answered["question"], "answers": [], "is_impossible": True,
                 "kind": "unanswerable"}
    filekit = _record("filekit-doc", [(own, [answered]), (twin, [twin_pair]),
                                      (keys, [_qa("q3", "What does get_keys() return?", keys, "the keys")])])
    other = _record("archiver-doc", [(near, [_qa("q2", "Which tool archives files?", near, "archive tool")]),
                                     (named, [_qa("q4", "Which function lists keys?", named, "grl_data_get_keys")])])
    cli.merge([filekit, other], tmp_path / "train.json", seed=1, negatives="corpus", rate=1.0)
    written = json.loads((tmp_path / "train.json").read_text())
    impossible = {(a["title"], p["context"], q["question"]) for a in written["data"] for p in a["paragraphs"]
                  for q in p["qas"] if q["is_impossible"]}
    assert ("archiver-doc/a.html", near, answered["question"]) in impossible
    assert not [t for t, _, q in impossible if t.startswith("filekit-doc/") and q == answered["question"]]
    # grl_data_get_keys() may answer "What does get_keys() return?": the name asked about rules it out
    assert not [c for _, c, q in impossible if q == "What does get_keys() return?" and c == named]
    # the per-package records stay as they were (the cache is not rewritten)
    assert filekit["data"][0]["paragraphs"][1]["qas"] == [twin_pair]


def test_page_negatives_keep_the_records_pairs(tmp_path):
    own = "compress_file(path) compresses the file at path."
    qa = _qa("q1", "Which function compresses the file?", own, "compress_file")
    twin = {"id": "q1-u", "question": qa["question"], "answers": [], "is_impossible": True, "kind": "unanswerable"}
    record = _record("filekit-doc", [(own, [qa]), ("Another entry entirely.", [twin])])
    summary = cli.merge([record], tmp_path / "train.json", seed=1, negatives="page")
    assert summary["unanswerable"] == 1


PROSE_HTML = b"""<html><body><div class="body" role="main"><section><h1>Quickstart</h1>
<p>You can pass query parameters as a dictionary, using the <code class="docutils literal notranslate">\
<span class="pre">params</span></code> keyword argument. Both the <code>a</code> and <code>b</code> options \
take strings.</p>
<p>Call <code>session.close()</code> when the program no longer needs its connections.</p>
<pre>r = get(url, <code>timeout</code>=3)  # the timeout option is never read from code</pre>
<p>The <code>json</code> parameter encodes a json body for you.</p>
</section></div></body></html>"""

PROSE_MARKDOWN = """# fetcher

Options are defined with the `.option()` method, which also documents them.

- Pass `--retries` to try a failed request again up to three times.

```js
fetcher.option('--never', 'a code block is never asked about')
```
"""


def test_prose_code_spans_become_which_questions_with_the_literal_as_answer(ingest):
    tokenizer, budget = ingest
    source = Source("fetcher-doc", "1.0-1", "deb", "sphinx")
    article, _ = build_page(source, "quickstart.html", PROSE_HTML, tokenizer, budget, random.Random(1),
                            unanswerable_rate=0.0, templates="prose")
    qas = {qa["answers"][0]["text"]: (p["context"], qa) for p in article["paragraphs"] for qa in p["qas"]}
    context, params = qas["params"]
    assert params["kind"] == "prose"
    assert params["question"] == ("You can pass query parameters as a dictionary, using which keyword argument?")
    start = params["answers"][0]["answer_start"]
    assert context[start:start + len("params")] == "params"
    assert qas["session.close()"][1]["question"].startswith("Call which method ")
    assert "timeout" not in qas  # code blocks are not prose
    assert "a" not in qas and "b" not in qas  # "the a and b options" names two things
    # "The json parameter encodes a json body": the question would name its answer
    assert "json" not in qas
    # the entry templates alone (the default) ask nothing of this page: it has no API entry
    assert build_page(source, "quickstart.html", PROSE_HTML, tokenizer, budget, random.Random(1))[0] is None


def test_prose_questions_from_markdown_take_the_noun_from_the_sentence_or_the_literal(ingest):
    tokenizer, budget = ingest
    source = Source("fetcher", "1.0.0", "npm", "markdown")
    article, _ = build_page(source, "README.md", PROSE_MARKDOWN.encode(), tokenizer, budget, random.Random(1),
                            unanswerable_rate=0.0, templates="all")
    by_answer = {qa["answers"][0]["text"]: qa["question"] for p in article["paragraphs"] for qa in p["qas"]}
    assert by_answer[".option()"] == "Options are defined with which method, which also documents them?"
    assert by_answer["--retries"] == "Pass which option to try a failed request again up to three times?"
    assert "--never" not in by_answer


def test_a_package_is_unpacked_into_a_relative_cache(tmp_path, monkeypatch):
    """The tools run inside the temporary folder, so the archive's path handed to dpkg must not be relative
    (a relative cache, the docdata default, once made every Debian package fail with "No such file")."""
    import os

    from build_model.docdata.fetch import download_and_unpack

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "apt-get").write_text("#!/bin/sh\necho deb > tiny-doc_1.0_all.deb\n")
    (bin_dir / "dpkg").write_text('#!/bin/sh\n[ -f "$2" ] || { echo "cannot read $2" >&2; exit 2; }\n'
                                  'mkdir -p "$3/usr" && echo page > "$3/usr/page.html"\n')
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(tmp_path)
    download_and_unpack("deb", "tiny-doc", "1.0", Path("cache") / "pkgs" / "tiny-doc_1.0")
    assert (tmp_path / "cache" / "pkgs" / "tiny-doc_1.0" / "usr" / "page.html").read_text() == "page\n"


def test_every_benchmark_set_is_held_back_from_training():
    # A documentation set added to the benchmark must never reach the reader's or the encoder's training data.
    root = Path(__file__).resolve().parents[1] / "bench" / "docs_sets"
    named = {p["name"] for f in sorted(root.glob("*.json"))
             for p in json.loads(f.read_text(encoding="utf-8"))["source"].get("packages", [])}
    assert len(named) >= 12
    assert sorted(n for n in named if not is_forbidden(n)) == []


HOW_HTML = b"""<html><body><div class="body" role="main"><section><h1>Installation</h1>
<p>To install the package from PyPI, run:</p>
<div class="highlight-console notranslate"><div class="highlight"><pre><span></span>$ pip install fetcher
</pre></div></div>
<p>To build your own wheel locally, use:</p>
<pre>python -m build --wheel</pre>
<p>To install:</p>
<pre>make install</pre>
<p>Then run the tests:</p>
<pre>pytest</pre>
<p>To list the plugins, type:</p>
<pre># a comment first
fetcher plugins</pre>
</section></div></body></html>"""

HOW_MARKDOWN = """# fetcher

To enable `fetcher`'s debug output in your shell, set:

```sh
export DEBUG=fetcher
```

To quiet it again you may unset it.
"""


def test_a_guide_s_to_sentence_over_a_code_block_becomes_a_how_question_answered_by_its_first_line(ingest):
    """ "To install the package from PyPI, run:" over ``$ pip install fetcher`` asks "How do I install the package
    from PyPI?" with the command, its prompt dropped, as the answer span of ingestion's passage; "your" reads "my". A
    sentence without "To ...:", one that says too little ("To install:") and a block that opens with a comment ask
    nothing."""
    tokenizer, budget = ingest
    source = Source("fetcher-doc", "1.0-1", "deb", "sphinx")
    article, _ = build_page(source, "install.html", HOW_HTML, tokenizer, budget, random.Random(1),
                            unanswerable_rate=0.0, templates="how")
    qas = {qa["question"]: (p["context"], qa) for p in article["paragraphs"] for qa in p["qas"]}
    assert set(qas) == {"How do I install the package from PyPI?", "How do I build my own wheel locally?"}
    context, qa = qas["How do I install the package from PyPI?"]
    assert qa["kind"] == "how"
    start, text = qa["answers"][0]["answer_start"], qa["answers"][0]["text"]
    assert text == "pip install fetcher" and context[start:start + len(text)] == text
    assert qas["How do I build my own wheel locally?"][1]["answers"][0]["text"] == "python -m build --wheel"
    # the entry and prose templates ask nothing of this page
    assert build_page(source, "install.html", HOW_HTML, tokenizer, budget, random.Random(1),
                      templates="prose")[0] is None


@pytest.mark.parametrize("sentence, question", [
    ("To install the package from PyPI, run:", "How do I install the package from PyPI?"),
    ("You can install the package from PyPI by running:", "How do I install the package from PyPI?"),
    ("You can enable debug output in your shell with the following line:",
     "How do I enable debug output in my shell?"),
    ("One can build the docs locally using:", "How do I build the docs locally?"),
    ("Run the following command to build a wheel:", "How do I build a wheel?"),
    ("Use this snippet to configure the logger for tests:", "How do I configure the logger for tests?"),
    ("You can enable it with the following line:", None),  # "it" points back: asks nothing on its own
    ("You can install by running:", None),  # says too little
    ("You can read more about it here:", None),  # no way named
    ("Run the following command:", None),  # no purpose
])
def test_how_question_reads_a_purpose_said_three_ways(sentence, question):
    from build_model.docdata.how import how_question

    assert how_question(sentence) == question


def test_how_questions_come_from_markdown_fenced_blocks_too(ingest):
    tokenizer, budget = ingest
    source = Source("fetcher", "1.0.0", "npm", "markdown")
    article, _ = build_page(source, "README.md", HOW_MARKDOWN.encode(), tokenizer, budget, random.Random(1),
                            unanswerable_rate=0.0, templates="all")
    by_question = {qa["question"]: qa["answers"][0]["text"] for p in article["paragraphs"] for qa in p["qas"]}
    assert by_question == {"How do I enable fetcher's debug output in my shell?": "export DEBUG=fetcher"}


@pytest.mark.parametrize(("block", "answer"), [
    ("mydb=> SELECT * FROM weather;\n", "SELECT * FROM weather"),  # psql's prompt and the statement's ";"
    ("db = SqliteDatabase(':memory:')  # In-memory SQLite database.\n", "db = SqliteDatabase(':memory:')"),
    ("PS> Install-Module PSReadLine\n", "Install-Module PSReadLine"),
    ("extensions = [\n    'sphinx.ext.autodoc',\n]\n", None),  # the first line of a longer statement
    ("GList   *list = NULL;\n", None),  # a column cut that is no comment: not one piece of code
    ("# Forget everything\nimport os\n", None),  # a comment, then an import: the way is not first
])
def test_how_answer_is_the_line_as_ingestion_marks_it_for_the_reader(block, answer):
    from build_model.docdata.how import _first_line
    from function.ingest.documents import code_lines

    assert _first_line(block) == answer
    if answer is not None:  # the same characters serving reads as the block's first line
        a, z = next(code_lines(block, 0, len(block)))
        assert block[a:z] == answer
