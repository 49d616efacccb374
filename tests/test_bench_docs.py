"""``python -m bench docs``: question sets checked against their files' text, asked through the function, scored.

A tiny hand-made set (``tests/docs_set/``: a Sphinx-like HTML page with ``<dl>`` entries, a Markdown guide, and
pages the set leaves out) stands in for a fetched package: it is laid out in a package cache the way
``bench/docs_fetch.py`` leaves one, so no test needs the network.
"""

import copy
import json
import os
import shutil
from pathlib import Path

import pytest

from bench import docs, docs_fetch

pytest.importorskip("trafilatura")

HERE = Path(__file__).parent / "docs_set" / "html"
PKG = "tinyhttp-doc"
ROOT = "usr/share/doc/tinyhttp-doc/html"
API = f"{PKG}/api/client.html"
GUIDE = f"{PKG}/guide.md"

SET = {
    "set": "tiny", "generator": "sphinx", "description": "a hand-made stand-in",
    "source": {"kind": "debian", "packages": [
        {"name": PKG, "version": "1.0-1", "root": ROOT, "include": ["*.html", "*.md"],
         "exclude": ["genindex.html", "_static/*"]}]},
    "questions": [
        {"id": "tiny-001", "question": "Which function downloads a page?", "file": API,
         "answers": ["tinyhttp.fetch", "fetch"], "kind": "which", "part": "test"},
        {"id": "tiny-002", "question": "What is the default number of retries of fetch?", "file": API,
         "answers": ["4"], "evidence": "retries=4", "kind": "default", "part": "test"},
        {"id": "tiny-003", "question": "What does fetch raise when the server does not answer?", "file": API,
         "answers": ["FetchTimeout"], "kind": "raise", "part": "test"},
        {"id": "tiny-004", "question": "How long does a request wait for the server?", "file": GUIDE,
         "answers": ["at most 12 seconds", "12 seconds"], "kind": "default", "part": "dev"},
        {"id": "tiny-005", "question": "Which environment variable sets the proxy?", "file": GUIDE,
         "answers": ["TINYHTTP_PROXY"], "kind": "option", "part": "dev"},
    ],
    "off_topic": [
        {"id": "tiny-off-001", "question": "How do I bake sourdough bread?", "part": "dev"},
        {"id": "tiny-off-002", "question": "Who painted the Mona Lisa?", "part": "test"},
    ],
}


def write_set(folder: Path, docset: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{docset['set']}.json").write_text(json.dumps(docset, ensure_ascii=False), encoding="utf-8")
    return folder


@pytest.fixture
def cache(tmp_path) -> Path:
    """A package cache holding the tiny package as if ``apt-get download`` + ``dpkg -x`` had unpacked it."""
    folder = tmp_path / "cache"
    unpacked = docs_fetch.package_dir("debian", PKG, "1.0-1", folder)
    shutil.copytree(HERE, unpacked / ROOT)
    (unpacked / ".complete").write_text("debian tinyhttp-doc 1.0-1\n")
    return folder


def run(args: list[str], sets: Path, cache: Path) -> int:
    return docs.main([*args, "--sets-dir", str(sets), "--cache", str(cache)])


def test_the_command_is_wired():
    from bench.cli import COMMANDS

    assert COMMANDS["docs"][0] == "bench.docs"


def test_the_corpus_is_the_selected_files_under_the_package_name(cache, tmp_path):
    folder, files = docs_fetch.corpus(SET, cache)
    assert files == [API, GUIDE]  # genindex.html and _static/ excluded
    assert (folder / API).read_bytes() == (HERE / "api" / "client.html").read_bytes()


def test_the_corpus_is_kept_while_its_selection_holds_and_replaced_whole_when_it_changes(cache, monkeypatch):
    """Runs sharing a cache: the second neither copies the files again nor deletes the folder the first reads; a
    changed selection gets a new folder, moved into place, with nothing left of the old one or of the build."""
    folder, files = docs_fetch.corpus(SET, cache)
    copies = []
    copyfile = shutil.copyfile
    monkeypatch.setattr(docs_fetch.shutil, "copyfile", lambda a, b: copies.append(b) or copyfile(a, b))
    inode = folder.stat().st_ino
    assert docs_fetch.corpus(SET, cache) == (folder, files) and copies == [] and folder.stat().st_ino == inode
    narrower = copy.deepcopy(SET)
    narrower["source"]["packages"][0]["include"] = ["*.md"]
    again, only = docs_fetch.corpus(narrower, cache)
    assert again == folder and only == [GUIDE] and len(copies) == 1
    assert not (folder / API).exists() and (folder / GUIDE).is_file()
    assert sorted(p.name for p in folder.parent.iterdir()) == ["corpus"]  # no build or stale folder left
    (folder / docs_fetch.LISTING).unlink()  # a corpus laid out before listings: built again
    assert docs_fetch.corpus(narrower, cache) == (folder, [GUIDE]) and len(copies) == 2


def test_gold_answers_are_checked_against_the_extracted_text(cache, tmp_path, capsys):
    sets = write_set(tmp_path / "sets", SET)
    assert run(["--check"], sets, cache) == 0
    assert "every gold answer found" in capsys.readouterr().err

    # Whitespace is collapsed on both sides: a line break of the source matches a space.
    spaced = copy.deepcopy(SET)
    spaced["questions"][3]["answers"] = ["at most\n12   seconds"]
    assert run(["--check"], write_set(tmp_path / "spaced", spaced), cache) == 0

    wrong = copy.deepcopy(SET)
    wrong["questions"][2]["answers"] = ["FetchTimeout", "FetchTimedOut"]
    assert run(["--check"], write_set(tmp_path / "wrong", wrong), cache) == 1
    err = capsys.readouterr().err
    assert "tiny-003" in err and "'FetchTimedOut'" in err and API in err and "Traceback" not in err

    # The page's permalink mark is not part of its text: an answer holding one is refused outright.
    marked = copy.deepcopy(SET)
    marked["questions"][0]["answers"] = ["tinyhttp.fetch¶"]
    assert run(["--check"], write_set(tmp_path / "marked", marked), cache) == 1
    assert "tiny-001" in capsys.readouterr().err

    missing_evidence = copy.deepcopy(SET)
    missing_evidence["questions"][1]["evidence"] = "retries=5"
    assert run(["--check"], write_set(tmp_path / "evidence", missing_evidence), cache) == 1
    assert "tiny-002" in capsys.readouterr().err

    elsewhere = copy.deepcopy(SET)
    elsewhere["questions"][4]["file"] = "tinyhttp-doc/genindex.html"  # excluded from the corpus
    assert run(["--check"], write_set(tmp_path / "elsewhere", elsewhere), cache) == 1
    assert "tiny-005" in capsys.readouterr().err


@pytest.mark.parametrize("change, named", [
    (lambda s: s["questions"][4].update(part="test"), "both parts"),
    (lambda s: s["questions"][1].update(id="tiny-001"), "id used twice"),
    (lambda s: s["questions"][0].update(kind="why"), "kind 'why'"),
    (lambda s: s["questions"][0].update(answers=[]), "'answers'"),
    (lambda s: s["off_topic"][0].update(id="tiny-002"), "id used twice"),
    (lambda s: s.update(set="Tiny Set"), "'set'"),
    (lambda s: s["off_topic"][0].update(answered_in={"set": "tiny", "file": API, "answers": ["fetch"]}),
     "the question's own set"),
    (lambda s: s["off_topic"][0].update(answered_in={"set": "other", "file": API, "answers": []}),
     "'answered_in.answers'"),
    (lambda s: s["off_topic"][0].update(answered_in="other"), "'answered_in' must be an object"),
    (lambda s: s["source"]["packages"][0].update(whole="*.html"), "'whole' must be a list of globs"),
])
def test_malformed_sets_are_refused_by_name(change, named, tmp_path):
    bad = copy.deepcopy(SET)
    change(bad)
    folder = tmp_path / "sets"
    folder.mkdir()
    (folder / "tiny.json").write_text(json.dumps(bad))
    with pytest.raises(docs.SetError, match=named) as e:
        docs.load_sets(folder)
    assert "tiny.json" in str(e.value)


def test_whole_asks_a_sets_questions_against_the_whole_manual_it_declares(cache, tmp_path, capsys):
    """--whole: the package's ``whole`` globs in place of its ``include`` (its ``exclude`` kept), the set named
    ``<set>-whole`` and its corpus cached apart; a set that declares no whole manual is left out, and said so."""
    narrow = copy.deepcopy(SET)
    narrow["source"]["packages"][0].update(include=["api/*.html"], whole=["*.html", "*.md"])
    narrow["questions"] = narrow["questions"][:3]  # the API page's questions
    other = copy.deepcopy(SET)
    other["set"] = "other"
    for q in other["questions"] + other["off_topic"]:
        q["id"] = q["id"].replace("tiny", "other")
    sets = write_set(tmp_path / "sets", narrow)
    write_set(sets, other)
    assert docs_fetch.corpus(narrow, cache)[1] == [API]
    (wide,) = docs.whole_sets(docs.load_sets(sets, ["tiny"]))
    assert wide["set"] == "tiny-whole" and wide["questions"] == narrow["questions"]
    folder, files = docs_fetch.corpus(wide, cache)
    assert files == [API, GUIDE] and folder == cache / "tiny-whole" / "corpus"  # genindex.html still left out
    assert docs_fetch.corpus(narrow, cache)[1] == [API]  # the set's own corpus as it was
    assert run(["--whole", "--check"], sets, cache) == 0
    err = capsys.readouterr().err
    assert "--whole: left out the sets that declare no whole manual (1): other" in err and "tiny-whole: 2 files" in err
    with pytest.raises(docs.SetError, match="none of these sets declares"):
        docs.whole_sets([other])


def test_unknown_set_and_unreadable_json_are_named(tmp_path):
    folder = write_set(tmp_path / "sets", SET)
    with pytest.raises(docs.SetError, match="no question set nope"):
        docs.load_sets(folder, ["nope"])
    (folder / "broken.json").write_text("{")
    with pytest.raises(docs.SetError, match="broken.json"):
        docs.load_sets(folder)


def test_a_failed_fetch_names_the_package(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "apt-get"
    tool.write_text("#!/bin/sh\necho 'E: Version 9.9 for nosuch-doc was not found' >&2\nexit 100\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(docs_fetch.FetchError, match=r"nosuch-doc 9\.9.*was not found.*apt-get update"):
        docs_fetch.fetch("debian", "nosuch-doc", "9.9", tmp_path / "cache")
    assert not docs_fetch.package_dir("debian", "nosuch-doc", "9.9", tmp_path / "cache").exists()


def test_scores_take_the_best_form_with_squad_normalisation():
    assert docs.score("the tinyhttp.fetch", ["tinyhttp.fetch", "fetch"]) == (1.0, 1.0)
    assert docs.score("fetch", ["tinyhttp.fetch", "fetch"]) == (1.0, 1.0)
    em, f1 = docs.score("at most 12", ["at most 12 seconds"])
    assert em == 0.0 and f1 == pytest.approx(2 * 1.0 * 0.75 / 1.75)
    assert docs.score("", ["x"]) == (0.0, 0.0)  # "no answer" scores 0


def test_as_written_keeps_case_and_punctuation_that_squad_normalisation_drops():
    assert docs.score("a", ["-a"]) == (1.0, 1.0) and docs.as_written("a", ["-a"]) == 0.0
    assert docs.score("%O", ["%o"])[0] == 1.0 and docs.as_written("%O", ["%o"]) == 0.0
    assert docs.score("The -k", ["-k"])[0] == 1.0 and docs.as_written("The -k", ["-k"]) == 0.0
    assert docs.as_written("-h,  --help", ["-h, --help"]) == 1.0  # white space collapsed
    assert docs.as_written("fetch", ["tinyhttp.fetch", "fetch"]) == 1.0  # any form
    assert docs.as_written("", [""]) == 0.0  # "no answer" scores 0


def test_the_right_passage_holds_a_gold_form_and_the_evidence():
    q = {"answers": ["4"], "evidence": "retries=4", "file": "f"}
    passages = {"f": [("f#0", "Retry 4 times."), ("f#1", "fetch(url, retries=4)"), ("f#2", "retries=4 again")]}
    assert docs.right_passage(q, passages) == "f#1"
    assert docs.right_passage({**q, "evidence": ""}, passages) == "f#0"
    assert docs.right_passage({**q, "answers": ["5"]}, passages) is None


def test_a_gold_form_or_evidence_counts_only_as_whole_words():
    passages = {"f": [("f#0", "a 360 degree view; getUser(); certificates"), ("f#1", "limited to 3 times; get(url)"),
                      ("f#2", "from the package certifi."), ("f#3", "calls .opts() here")]}
    assert docs.right_passage({"answers": ["3"], "file": "f"}, passages) == "f#1"
    assert docs.right_passage({"answers": ["get"], "file": "f"}, passages) == "f#1"
    assert docs.right_passage({"answers": ["certifi"], "file": "f"}, passages) == "f#2"
    assert docs.right_passage({"answers": [".opts()"], "file": "f"}, passages) == "f#3"  # no word at either end
    assert docs.right_passage({"answers": ["3"], "evidence": "degree", "file": "f"}, passages) is None


def _row(set_, kind, part, em, f1, no_answer=False, mark=""):
    return {"id": f"{set_}-{kind}-{part}-{em}", "set": set_, "kind": kind, "part": part, "em": em, "f1": f1,
            "em_never": em, "f1_never": f1, "em_given": 1.0, "f1_given": 1.0, "recall@5": em > 0,
            "em_as_written": em / 2, "em_as_written_given": 1.0,
            "no_answer": no_answer, "right_passage": "p", "server_ms": 10.0, "answer": "" if no_answer else "x" + mark,
            "answer_never_abstaining": "x", "answer_right_passage": "y"}


def test_figures_per_set_per_kind_and_per_part():
    a = {"set": "a", "rows": [_row("a", "which", "dev", 1.0, 1.0), _row("a", "default", "test", 0.0, 0.5)],
         "off_topic_rows": [{"part": "dev", "no_answer": True, "answer": "", "server_ms": 30.0},
                            {"part": "test", "no_answer": False, "answer": "z¶", "server_ms": 20.0}]}
    b = {"set": "b", "rows": [_row("b", "which", "test", 0.0, 0.0, no_answer=True),
                              _row("b", "which", "test", 1.0, 1.0, mark=" §")],
         "off_topic_rows": []}
    t = docs.tables([a, b], ["dev", "test"])
    assert set(t["by_set"]) == {"a", "b"} and set(t["by_set"]["a"]) == {"dev", "test", "all"}
    assert t["by_set"]["a"]["dev"]["f1"] == 100.0 and t["by_set"]["a"]["test"]["f1"] == 50.0
    assert t["by_set"]["a"]["dev"]["exact_match_as_written"] == 50.0
    assert t["by_set"]["a"]["dev"]["exact_match_as_written_right_passage"] == 100.0
    assert t["by_set"]["b"]["test"]["no_answer_answerable"] == 50.0
    pooled = t["pooled"]
    assert pooled["test"]["questions"] == 3 and pooled["test"]["f1"] == pytest.approx(50.0)
    assert pooled["all"]["questions"] == 4 and pooled["all"]["recall@5"] == 0.5
    assert pooled["dev"]["no_answer_off_topic"] == 100.0 and pooled["test"]["no_answer_off_topic"] == 0.0
    assert pooled["all"]["server_ms_p50"] == 10.0
    assert pooled["all"]["answers_with_permalink_mark"] == 2  # "x §" and the off-topic "z¶"
    assert t["by_kind"]["which"]["test"]["questions"] == 2 and "dev" not in t["by_kind"]["default"]
    assert t["by_kind"]["default"]["all"]["f1"] == 50.0
    only_test = docs.tables([a, b], ["test"])
    assert set(only_test["pooled"]) == {"test"}


def _read(f1, f1_given, holding=("r",), retrieved=("a", "r", "b"), read=3, answer_passage="a", no_answer=False):
    return {"f1": f1, "f1_given": f1_given, "holding": list(holding), "retrieved": list(retrieved),
            "passages_read": read, "answer_passage": None if no_answer else answer_passage, "no_answer": no_answer}


@pytest.mark.parametrize("row, where", [
    (_read(1.0, 1.0), None),                                    # alone as good as given: nothing lost
    (_read(0.5, 0.0), None),                                    # alone better
    (_read(0.0, 1.0, no_answer=True), "abstained"),
    (_read(0.0, 1.0, holding=(), retrieved=("a", "b")), "not_retrieved"),
    (_read(0.0, 1.0, read=1), "not_read"),                      # the cascade stopped on "a"
    (_read(0.0, 1.0, read=None), "outranked"),                  # a passage id asked: every passage read
    (_read(0.0, 1.0), "outranked"),
    (_read(0.5, 1.0, answer_passage="r"), "same_passage"),
    (_read(0.0, 1.0, holding=("b", "r"), read=2), "outranked"),  # "r" holds it too and was read
    (_read(0.0, 1.0, holding=("b",)), "outranked"),
    ({**_read(0.0, 1.0), "answer_passage": None, "passages_read": None}, "outranked"),
])
def test_where_a_question_asked_alone_loses_to_its_right_passage(row, where):
    assert docs.where_lost(row) == where


def test_losses_count_questions_and_the_f1_points_of_the_part_they_cost():
    old = {k: v for k, v in _read(0.0, 1.0).items() if k not in ("holding", "answer_passage", "passages_read")}
    rows = [_read(0.0, 1.0, read=1), _read(0.5, 1.0, answer_passage="r"), _read(1.0, 1.0), old]
    got = docs.losses(rows)
    assert got["not_read"] == {"questions": 1, "f1_points": 25.0}
    assert got["same_passage"] == {"questions": 1, "f1_points": 12.5}
    assert sum(v["questions"] for v in got.values()) == 2  # a row of a run before the split is not counted


def test_the_bench_asks_every_question_through_the_function(cache, tmp_path, tiny_artifact):
    sets = write_set(tmp_path / "sets", SET)
    out = tmp_path / "out"
    assert run(["--artifact", str(tiny_artifact.folder), "--out", str(out)], sets, cache) == 0
    result = json.loads((out / "docs.json").read_text())
    md = (out / "docs.md").read_text()
    (s,) = result["sets"]
    assert s["set"] == "tiny" and s["ingestion"]["documents"] == 2 and s["ingestion"]["passages"] >= 2
    assert [r["id"] for r in s["rows"]] == [q["id"] for q in SET["questions"]]
    assert [r["id"] for r in s["off_topic_rows"]] == ["tiny-off-001", "tiny-off-002"]
    for r in s["rows"]:
        # Every answer is held whole by a passage of its own file, and that passage was asked by id.
        assert r["right_passage"] is not None and r["right_passage"].startswith(r["file"].replace("/", "%2F"))
        assert 0 <= r["em"] <= r["f1"] <= 1 and 0 <= r["f1_given"] <= 1 and r["server_ms"] > 0
        assert r["em_as_written"] <= r["em"] and r["em_as_written_given"] <= r["em_given"]
        assert len(r["retrieved"]) <= 5
        # asked alone, the answer's passage is one of those the model read
        assert 1 <= r["passages_read"] <= len(r["retrieved"])
        assert r["no_answer"] or r["answer_passage"] in r["retrieved"][: r["passages_read"]]
        assert set(r["holding"]) <= set(r["retrieved"]) and r["recall@5"] == bool(r["holding"])
    t = result["tables"]
    assert t["pooled"]["dev"]["questions"] == 2 and t["pooled"]["test"]["questions"] == 3
    assert t["pooled"]["all"]["off_topic"] == 2
    assert set(t["losses"]) == {"dev", "test", "all"} and set(t["losses"]["all"]) == set(docs.LOSS_WHERE)
    assert set(t["by_kind"]) == {"which", "default", "raise", "option"}
    assert result["artifact"]["name"] == "tiny-random-bert"
    assert "| tiny | dev | 2 |" in md and "| tiny | test | 3 |" in md and "| **pooled** | all | 5 |" in md

    # --part and --limit narrow what is asked.
    assert run(["--artifact", str(tiny_artifact.folder), "--out", str(out), "--part", "dev", "--limit", "1"],
               sets, cache) == 0
    result = json.loads((out / "docs.json").read_text())
    assert [r["id"] for r in result["sets"][0]["rows"]] == ["tiny-004"]
    assert [r["id"] for r in result["sets"][0]["off_topic_rows"]] == ["tiny-off-001"]
    assert set(result["tables"]["pooled"]) == {"dev"}


# -- retrieval variants (--retrieval, --title-weight, --env) -----------------------------------------------------


@pytest.mark.parametrize("args, named", [
    (["--env", "QA_TOP_K_PASSAGES"], "NAME=VALUE"),
    (["--env", "lower=1"], "NAME=VALUE"),
    (["--retrieval", "hybrid", "--encoder", "/nonexistent/encoder"], "no sentence encoder in /nonexistent/encoder"),
    (["--retrieval", "stored", "--encoder", "/nonexistent/encoder"], "no sentence encoder in /nonexistent/encoder"),
    (["--retrieval", "bm25", "--env", "QA_INDEX_URI=/tmp/x.lance"], "--retrieval lance|hybrid|stored"),
    (["--retrieval", "bm25", "--env", "QA_INDEX_ENCODER=encoder"], "--retrieval lance|hybrid|stored"),
    (["--retrieval", "lance", "--title-weight", "2"], "--retrieval bm25|stored only"),
])
def test_retrieval_options_are_checked_by_name(args, named, cache, tmp_path, capsys):
    sets = write_set(tmp_path / "sets", SET)
    assert run([*args, "--check"], sets, cache) == 1
    err = capsys.readouterr().err
    assert named in err and "Traceback" not in err


def test_title_weight_and_env_reach_the_function(cache, tmp_path, tiny_artifact, monkeypatch):
    from function.retrieval import bm25
    from function.service.pipeline import QAService

    weights = []
    retrieve = QAService.retrieve

    def spy(self, question, k, where=None, corpus=None):
        weights.append(bm25.TITLE_WEIGHT)
        return retrieve(self, question, k, where, corpus)

    monkeypatch.setattr(QAService, "retrieve", spy)
    shipped = bm25.TITLE_WEIGHT
    sets = write_set(tmp_path / "sets", SET)
    out = tmp_path / "out"
    assert run(["--artifact", str(tiny_artifact.folder), "--out", str(out), "--part", "dev", "--retrieval", "bm25",
                "--title-weight", "3", "--env", "QA_TOP_K_PASSAGES=2"], sets, cache) == 0
    result = json.loads((out / "docs.json").read_text())
    assert weights and set(weights) == {3.0} and bm25.TITLE_WEIGHT == shipped  # used for every search, then restored
    assert result["retrieval"] == {"kind": "bm25", "title_weight": 3.0, "index_uri": None, "encoder": None,
                                   "env": {"QA_TOP_K_PASSAGES": "2"}}
    assert result["top_k_passages"] == 2
    assert "Retrieval: BM25 (the SQLite store's FTS5 index), title weight 3, `QA_TOP_K_PASSAGES=2`." in (
        out / "docs.md").read_text()


@pytest.fixture(scope="module")
def encoder_folder(tmp_path_factory):
    """A tiny random BERT exported by ``build_model.encoder_export``, as ``tests/test_hybrid.py`` makes it."""
    from build_model.encoder_export import main
    from tests.support.tiny_build import tiny_squad, tiny_teacher

    squad = tmp_path_factory.mktemp("squad")
    tiny_squad(squad)
    source = tiny_teacher(tmp_path_factory.mktemp("encoder-source"), hidden=32)
    out = tmp_path_factory.mktemp("encoder") / "tiny-int8"
    assert main(["--source", str(source), "--out", str(out), "--max-tokens", "24", "--data", str(squad)]) == 0
    return out


def test_hybrid_retrieval_ingests_vectors_and_searches_by_the_question(cache, tmp_path, tiny_artifact,
                                                                        encoder_folder, monkeypatch):
    from function.retrieval.hybrid import HybridIndex

    asked = []
    search_question = HybridIndex.search_question

    def spy(self, question, terms, k, where=None):
        hits = search_question(self, question, terms, k, where)
        asked.append((question, len(hits)))
        return hits

    monkeypatch.setattr(HybridIndex, "search_question", spy)
    sets = write_set(tmp_path / "sets", SET)
    out = tmp_path / "out"
    assert run(["--artifact", str(tiny_artifact.folder), "--out", str(out), "--part", "dev", "--retrieval", "hybrid",
                "--encoder", str(encoder_folder)], sets, cache) == 0
    result = json.loads((out / "docs.json").read_text())
    # Every dev question was searched both ways in the Lance table the set was ingested into, vectors and all.
    assert {q for q, _ in asked} >= {"How long does a request wait for the server?",
                                     "Which environment variable sets the proxy?"}
    assert all(n > 0 for _, n in asked)
    assert all(r["retrieved"] for r in result["sets"][0]["rows"])
    assert result["retrieval"]["kind"] == "hybrid" and result["retrieval"]["title_weight"] is None
    assert result["retrieval"]["env"] == {"QA_INDEX_ENCODER": str(encoder_folder.resolve())}
    assert "Retrieval: hybrid" in (out / "docs.md").read_text()


def test_stored_retrieval_keeps_bm25_and_gives_the_passages_read_their_cosines(cache, tmp_path, tiny_artifact,
                                                                                encoder_folder):
    sets = write_set(tmp_path / "sets", SET)
    out = tmp_path / "out"
    assert run(["--artifact", str(tiny_artifact.folder), "--out", str(out), "--part", "dev", "--retrieval", "stored",
                "--encoder", str(encoder_folder)], sets, cache) == 0
    result = json.loads((out / "docs.json").read_text())
    assert all(r["retrieved"] for r in result["sets"][0]["rows"])
    assert result["retrieval"] == {"kind": "stored", "title_weight": 1.0, "index_uri": None,
                                   "encoder": result["retrieval"]["encoder"],
                                   "env": {"QA_INDEX_ENCODER": str(encoder_folder.resolve())}}
    assert "embeddings stored with the passages (stored cosines)" in (out / "docs.md").read_text()


def test_lance_retrieval_searches_a_lance_index_of_the_set(cache, tmp_path, tiny_artifact, monkeypatch):
    from function.retrieval.lance_index import LanceIndex

    searched = []
    search = LanceIndex.search
    monkeypatch.setattr(LanceIndex, "search", lambda self, terms, k, where=None, among=(): searched.append(
        (self.uri, terms)) or search(self, terms, k, where, among))
    sets = write_set(tmp_path / "sets", SET)
    out = tmp_path / "out"
    assert run(["--artifact", str(tiny_artifact.folder), "--out", str(out), "--part", "dev", "--retrieval", "lance"],
               sets, cache) == 0
    result = json.loads((out / "docs.json").read_text())
    assert searched and {Path(uri).name for uri, _ in searched} == {"tiny.lance"}  # bm25 never opens one
    assert all(r["retrieved"] for r in result["sets"][0]["rows"])
    assert result["retrieval"]["kind"] == "lance" and result["retrieval"]["env"] == {}
    assert "Retrieval: BM25 in a Lance index per set (no vectors)" in (out / "docs.md").read_text()


# -- --pooled: every set in one store ----------------------------------------------------------------------------


def _split_sets() -> tuple[dict, dict]:
    """The tiny set cut in two: its API page's questions and its guide's, each set holding its own file alone."""
    api, guide = copy.deepcopy(SET), copy.deepcopy(SET)
    api["set"], guide["set"] = "tiny-api", "tiny-guide"
    api["source"]["packages"][0]["include"] = ["api/*.html"]
    guide["source"]["packages"][0]["include"] = ["*.md"]
    api["questions"] = [q for q in SET["questions"] if q["file"] == API]
    guide["questions"] = [q for q in SET["questions"] if q["file"] == GUIDE]
    api["off_topic"], guide["off_topic"] = SET["off_topic"][:1], SET["off_topic"][1:]
    for s in (api, guide):
        for q in [*s["questions"], *s["off_topic"]]:
            q["id"] = q["id"].replace("tiny", s["set"])
    return api, guide


def test_pooled_asks_every_set_of_one_store(cache, tmp_path, tiny_artifact):
    """A store per set: a question retrieves its own set's passages alone; --pooled: every set's compete."""
    sets = tmp_path / "sets"
    for s in _split_sets():
        write_set(sets, s)
    out = tmp_path / "out"

    def foreign(result: dict) -> int:
        """How many retrieved passages come from a file of another set than the question's."""
        own = {"tiny-api": API, "tiny-guide": GUIDE}
        return sum(not pid.startswith(own[s["set"]].replace("/", "%2F"))
                   for s in result["sets"] for r in s["rows"] for pid in r["retrieved"])

    assert run(["--artifact", str(tiny_artifact.folder), "--out", str(out), "--retrieval", "bm25"], sets, cache) == 0
    apart = json.loads((out / "docs.json").read_text())
    assert apart["stores"] == "one per set" and foreign(apart) == 0
    assert run(["--artifact", str(tiny_artifact.folder), "--out", str(out), "--retrieval", "bm25", "--pooled"],
               sets, cache) == 0
    pooled = json.loads((out / "docs.json").read_text())
    assert pooled["stores"].startswith("one for every set")
    assert "every set in one store" in (out / "docs.md").read_text()
    assert foreign(pooled) > 0
    assert [s["ingestion"]["documents"] for s in pooled["sets"]] == [1, 1]
    assert [len(s["rows"]) for s in pooled["sets"]] == [3, 2] and pooled["tables"]["pooled"]["all"]["questions"] == 5


def _answered_by_the_guide(api: dict, answers: list[str]) -> dict:
    """The API set with an off-topic question that the guide's set answers."""
    api["off_topic"].append({"id": "tiny-api-off-009", "question": "Which environment variable sets the proxy?",
                             "part": "dev", "answered_in": {"set": "tiny-guide", "file": GUIDE, "answers": answers}})
    return api


def test_an_off_topic_question_another_set_answers_is_scored_as_answerable_in_one_store(cache, tmp_path,
                                                                                         tiny_artifact):
    """In a store of its own the API set does not answer the proxy question: off-topic. With the guide's set in the
    same store (--pooled) it is answerable: left out of the off-topic figures, scored against the guide's forms."""
    api, guide = _split_sets()
    sets = tmp_path / "sets"
    write_set(sets, _answered_by_the_guide(api, ["TINYHTTP_PROXY"]))
    write_set(sets, guide)
    out = tmp_path / "out"
    args = ["--artifact", str(tiny_artifact.folder), "--out", str(out), "--retrieval", "bm25", "--part", "dev"]
    assert run(args, sets, cache) == 0
    apart = json.loads((out / "docs.json").read_text())
    row = next(r for s in apart["sets"] for r in s["off_topic_rows"] if r["id"] == "tiny-api-off-009")
    assert "answered_in" not in row and "f1" not in row
    assert apart["tables"]["pooled"]["dev"]["off_topic"] == 2
    assert apart["tables"]["pooled"]["dev"]["off_topic_answered_in_store"] == 0

    assert run([*args, "--pooled"], sets, cache) == 0
    pooled = json.loads((out / "docs.json").read_text())
    row = next(r for s in pooled["sets"] for r in s["off_topic_rows"] if r["id"] == "tiny-api-off-009")
    assert row["answered_in"] == "tiny-guide"
    assert row["f1"] == docs.score(row["answer"], ["TINYHTTP_PROXY"])[1]
    figures = pooled["tables"]["pooled"]["dev"]
    assert figures["off_topic"] == 1 and figures["off_topic_answered_in_store"] == 1
    assert figures["f1_off_topic_answered_in_store"] == 100.0 * row["f1"]
    assert "another set of the store answers" in (out / "docs.md").read_text()


def test_an_answered_in_form_missing_from_the_other_sets_file_is_named(cache, tmp_path, capsys):
    api, guide = _split_sets()
    sets = tmp_path / "sets"
    write_set(sets, _answered_by_the_guide(api, ["TINYHTTP_PROXY", "HTTPS_PROXY_URL"]))
    write_set(sets, guide)
    assert run(["--check"], sets, cache) == 1
    err = capsys.readouterr().err
    assert "tiny-api-off-009" in err and "'HTTPS_PROXY_URL'" in err and "Traceback" not in err
    assert run(["--check", "--sets", "tiny-api"], sets, cache) == 0  # the guide's set is not run: nothing to check


def test_pooled_refuses_two_sets_holding_the_same_document(cache, tmp_path, capsys):
    sets = write_set(tmp_path / "sets", SET)
    twin = copy.deepcopy(SET)
    twin["set"] = "twin"
    for q in [*twin["questions"], *twin["off_topic"]]:
        q["id"] = q["id"].replace("tiny", "twin")
    write_set(sets, twin)
    assert run(["--pooled", "--check"], sets, cache) == 1
    err = capsys.readouterr().err
    assert "--pooled: twin and tiny both hold" in err and "Traceback" not in err
