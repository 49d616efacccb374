"""Ingestion: formats, malformed records, idempotence, sharding, Cloud Storage, both stores."""

import dataclasses
import json
import re
import sqlite3

import pytest

from function.ingest.cli import main as ingest_main
from function.ingest.cli import parse_args
from function.ingest.documents import Recipe, from_records
from function.ingest.json_input import NoRecords, Record, Rejected, Unread, parse_text, squad_id
from function.ingest.shard import Shard

SAMPLE_PARAGRAPHS = 66


@pytest.fixture
def env(tiny_artifact, tmp_path, monkeypatch):
    monkeypatch.setenv("QA_ARTIFACT_DIR", str(tiny_artifact.folder))
    monkeypatch.setenv("QA_STORE", "sqlite")
    monkeypatch.setenv("QA_SQLITE_PATH", str(tmp_path / "p.sqlite"))
    return tmp_path


def rows(path):
    with sqlite3.connect(path) as db:
        return db.execute("SELECT id, n_tokens, tokenizer FROM passages ORDER BY id").fetchall()


def test_squad_files_give_one_record_per_paragraph_with_stable_ids(repo):
    text = (repo / "samples" / "squad_sample.json").read_text()
    recs = list(parse_text("sample", text))
    assert len(recs) == SAMPLE_PARAGRAPHS and all(isinstance(r, Record) for r in recs)
    assert recs[0].id == squad_id("Normans", 0) == "Normans-0000" and recs[0].title == "Normans"
    assert [r.id for r in parse_text("sample", text)] == [r.id for r in recs]


def test_malformed_jsonl_records_are_named_and_the_good_ones_kept():
    lines = [
        json.dumps({"id": "a", "title": "T", "text": "Good one."}),
        "{not json",
        json.dumps({"id": "b/c", "text": "slash in id"}),
        json.dumps({"id": "d", "text": ""}),
        json.dumps(["not", "an", "object"]),
        "",
        json.dumps({"id": "e", "text": "Another good one.", "doc_id": "doc-9"}),
    ]
    recs = list(parse_text("in.jsonl", "\n".join(lines)))
    good = [r for r in recs if isinstance(r, Record)]
    bad = [r for r in recs if isinstance(r, Rejected)]
    assert [r.id for r in good] == ["a", "e"] and good[1].doc_id == "doc-9"
    assert [b.where for b in bad] == ["in.jsonl line 2", "in.jsonl line 3", "in.jsonl line 4", "in.jsonl line 5"]


def test_ingest_is_idempotent_and_reports_rejects(env, repo, tmp_path, capsys):
    sample = str(repo / "samples" / "squad_sample.json")
    assert ingest_main([sample, "--quiet"]) == 0
    first = rows(tmp_path / "p.sqlite")
    assert ingest_main([sample, "--quiet"]) == 0
    assert rows(tmp_path / "p.sqlite") == first and len(first) == SAMPLE_PARAGRAPHS
    extra = tmp_path / "extra.jsonl"
    extra.write_text(json.dumps({"id": "x1", "text": "Fresh text."}) + "\n{oops\n"
                     + json.dumps({"id": "x2", "text": "y" * 20001}) + "\n")
    assert ingest_main([str(extra), "--quiet"]) == 1  # some rejected: non-zero, good ones written
    err = capsys.readouterr().err
    assert "rejected " + str(extra) + " line 2" in err and "split it into paragraphs" in err
    assert "ingest the document as a .txt or .md file" in err
    assert [r[0] for r in rows(tmp_path / "p.sqlite")].count("x1") == 1
    assert len(rows(tmp_path / "p.sqlite")) == SAMPLE_PARAGRAPHS + 1


def test_json_lines_in_utf16_are_ingested_and_latin1_fails_naming_the_file(env, tmp_path, capsys):
    records = tmp_path / "records.jsonl"  # Windows PowerShell 5's "> records.jsonl" writes UTF-16 LE with its mark
    records.write_bytes("\ufeff".encode("utf-16-le") + (json.dumps({"id": "u1", "text": "Caf\u00e9 hours."}) + "\n")
                        .encode("utf-16-le"))
    assert ingest_main([str(records), "--quiet"]) == 0
    assert [r[0] for r in rows(tmp_path / "p.sqlite")] == ["u1"]
    latin = tmp_path / "latin.json"
    latin.write_bytes(json.dumps({"id": "l1", "text": "Caf\u00e9"}, ensure_ascii=False).encode("latin-1"))
    assert ingest_main([str(latin), "--quiet"]) == 1
    assert f"failed {latin}: cannot read: latin.json: not UTF-8 text" in capsys.readouterr().err


def test_shards_partition_the_input(repo):
    """Three tasks on one file (fewer files than tasks) split its documents: here each paragraph is one."""
    path = repo / "samples" / "squad_sample.json"
    sample = str(path)
    records = [dataclasses.replace(r, doc_id=r.id) for r in parse_text(sample, path.read_text())]
    units = list(from_records(sample, records, Recipe("fp", 0, 0, 20000)))
    tasks = [Shard.of(i, 3, files=1) for i in range(3)]
    shards = [[p.id for n, u in enumerate(units) if task.takes_document(n) for p in u.pieces] for task in tasks]
    flat = [pid for s in shards for pid in s]
    assert len(flat) == len(set(flat)) == SAMPLE_PARAGRAPHS and all(shards)


def test_ingest_from_cloud_storage(env, repo, fake_gcs, tmp_path):
    from function.ingest.sources import _gcs_client

    client = _gcs_client()
    bucket = client.create_bucket("corpus-bucket")
    text = (repo / "samples" / "squad_sample.json").read_text()
    bucket.blob("corpus/part-0.json").upload_from_string(text)
    bucket.blob("corpus/part-1.jsonl").upload_from_string(json.dumps({"id": "gcs-1", "text": "From GCS."}))
    assert ingest_main(["gs://corpus-bucket/corpus/", "--quiet"]) == 0
    ids = [r[0] for r in rows(tmp_path / "p.sqlite")]
    assert len(ids) == SAMPLE_PARAGRAPHS + 1 and "gcs-1" in ids
    assert ingest_main(["gs://corpus-bucket/corpus/part-1.jsonl", "--quiet"]) == 0
    assert len(rows(tmp_path / "p.sqlite")) == SAMPLE_PARAGRAPHS + 1


@pytest.mark.firestore
def test_ingest_into_firestore_with_bulk_writer(tiny_artifact, firestore_env, repo, monkeypatch):
    from function.store.firestore import FirestoreStore

    monkeypatch.setenv("QA_ARTIFACT_DIR", str(tiny_artifact.folder))
    sample = str(repo / "samples" / "squad_sample.json")
    assert ingest_main([sample, "--quiet"]) == 0
    assert ingest_main([sample, "--quiet"]) == 0
    store = FirestoreStore(None, "(default)", "passages", "answers")
    assert store.count() == SAMPLE_PARAGRAPHS
    doc = store.passages.document("Normans-0000").get().to_dict()
    assert isinstance(doc["token_ids"], bytes) and isinstance(doc["offsets"], bytes)
    assert doc["n_tokens"] * 2 == len(doc["token_ids"]) and len(doc["tokenizer"]) == 64


def test_a_folder_of_markdown_is_ingested_and_an_empty_one_is_an_error(env, tmp_path, capsys):
    """The new user's first try: ``python -m function.ingest docs/`` on Markdown files."""
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "index.md").write_text("# Welcome\n\nThis project answers questions about documents.\n")
    (docs / "guide" / "setup.md").write_text("# Setup\n\nInstall it with pip.\n")
    assert ingest_main([str(docs), "--quiet"]) == 0
    assert "2 documents written (2 passages)" in capsys.readouterr().err
    assert [r[0] for r in rows(tmp_path / "p.sqlite")] == ["guide%2Fsetup.md#0000", "index.md#0000"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert ingest_main([str(empty), "--quiet"]) == 1
    assert "nothing to ingest" in capsys.readouterr().err


def test_tasks_share_a_single_file_by_document(env, repo, tmp_path, capsys):
    sample = str(repo / "samples" / "squad_sample.json")
    for task in range(2):
        assert ingest_main([sample, "--quiet", "--sync", "--task-count", "2", "--task-index", str(task)]) == 0
        assert "1 documents written" in capsys.readouterr().err  # the sample's two articles, one each
    assert len(rows(tmp_path / "p.sqlite")) == SAMPLE_PARAGRAPHS


@pytest.mark.parametrize("argv, said", [
    (["--batch-size", "0"], "argument --batch-size: must be at least 1 (got 0)"),
    (["--batch-size", "-5"], "argument --batch-size: must be at least 1 (got -5)"),
    (["--batch-size", "ten"], "argument --batch-size: 'ten' is not a whole number"),
    (["--task-count", "0"], "argument --task-count: must be at least 1 (got 0)"),
    (["--task-index", "-1"], "argument --task-index: must be at least 0 (got -1)"),
])
def test_numeric_options_out_of_range_are_refused_by_name(argv, said, capsys):
    """``--batch-size 0`` and ``-5`` were taken without a word (every document flushed alone); ``--task-count 0``
    said "task index 0 is outside 0..-1"."""
    with pytest.raises(SystemExit) as stop:
        parse_args(["in.jsonl", *argv])
    assert stop.value.code == 2 and said in capsys.readouterr().err


def test_task_variables_cloud_run_sets_are_checked_by_name(monkeypatch, capsys):
    monkeypatch.setenv("CLOUD_RUN_TASK_INDEX", "2")
    monkeypatch.setenv("CLOUD_RUN_TASK_COUNT", "3")
    args = parse_args(["in.jsonl"])
    assert (args.task_index, args.task_count) == (2, 3)
    assert parse_args(["in.jsonl", "--task-index", "0", "--task-count", "1"]).task_count == 1
    monkeypatch.setenv("CLOUD_RUN_TASK_COUNT", "0")  # was read as 0: "task index 2 is outside 0..-1"
    with pytest.raises(SystemExit):
        parse_args(["in.jsonl"])
    assert "CLOUD_RUN_TASK_COUNT='0': must be at least 1 (got 0)" in capsys.readouterr().err
    monkeypatch.setenv("CLOUD_RUN_TASK_COUNT", "three")  # was taken as 1 without a word: every task took every file
    with pytest.raises(SystemExit):
        parse_args(["in.jsonl"])
    assert "CLOUD_RUN_TASK_COUNT='three': 'three' is not a whole number" in capsys.readouterr().err


@pytest.mark.parametrize("name, text, said", [
    ("empty.jsonl", "", "empty.jsonl: no records in this file (it is empty)"),
    ("blank.json", " \n\n", "blank.json: no records in this file (it is empty)"),
    ("squad.json", '{"version": "1.1", "data": []}', "squad.json: no records in this SQuAD file"),
    ("squad.json", '{"data": [{"title": "T", "paragraphs": []}]}', "squad.json: no records in this SQuAD file"),
])
def test_a_json_file_without_records_is_an_error_naming_it(name, text, said):
    with pytest.raises(NoRecords, match=re.escape(said)):
        list(parse_text(name, text))
    assert issubclass(NoRecords, ValueError)


def test_record_fields_that_are_not_read_are_named_with_their_line_and_a_close_known_field():
    """A record's fields other than id, text, title and doc_id were dropped in silence: a misspelt "titel" or "docid"
    silently changed which document a record is, a "txt" rejected it for want of 'text' without saying why. They are
    read as before (a field of the user's own, a "url", is no error) and the file's last item names them."""
    lines = [{"id": "r1", "text": "One.", "title": "A", "url": "https://example.com/1"},
             {"id": "r2", "text": "Two.", "titel": "A"},
             {"id": "r3", "text": "Three.", "title": "A", "docid": "d", "url": "https://example.com/3"},
             {"id": "r4", "txt": "Four."},
             {"id": "r5", "text": "Five.", "extra": 1}]
    recs = list(parse_text("in.jsonl", "\n".join(json.dumps(x) for x in lines)))
    assert recs[-1] == Unread("in.jsonl", (
        "in.jsonl: record fields not read, so not stored: 'url' (line 1 and 1 more record), 'titel' (line 2; did you "
        "mean 'title'?), 'docid' (line 3; did you mean 'doc_id'?), 'txt' (line 4; did you mean 'text'?), 'extra' "
        "(line 5); a record's fields are id, text, title, doc_id (its document: doc_id, else title, else id)"))
    assert [r.id for r in recs if isinstance(r, Record)] == ["r1", "r2", "r3", "r5"]
    assert [r.where for r in recs if isinstance(r, Rejected)] == ["in.jsonl line 4"]
    assert sum(isinstance(r, Unread) for r in recs) == 1
    known = json.dumps({"id": "a", "text": "x", "title": "T", "doc_id": "d"})
    assert not any(isinstance(r, Unread) for r in parse_text("ok.jsonl", known))
    many = json.dumps({"id": "a", "text": "x", **{f"f{i}": i for i in range(10)}})
    assert "'f7' (line 1) and 2 other fields; a record's fields" in list(parse_text("many.jsonl", many))[-1].message


def test_a_json_array_of_records_is_read_as_json_lines_would_be():
    """A JSON array of records (what a database or a script exports as often as JSON Lines; function.evaluate reads its
    questions either way) was read line by line: every line rejected as "not valid JSON". Its items are now records,
    named by item; an array with no record in it is a file without passages, an empty one a file without records."""
    from function.ingest.json_input import NoPassages

    items = [{"id": "a", "title": "T", "text": "Good one."}, {"id": "b/c", "text": "slash in id"},
             {"id": "e", "text": "Another.", "titel": "X"}]
    out = list(parse_text("export.json", json.dumps(items, indent=2)))
    good = [r for r in out if isinstance(r, Record)]
    assert [r.id for r in good] == ["a", "e"] and good[0].title == "T"
    assert [r.where for r in out if isinstance(r, Rejected)] == ["export.json item 2"]
    (unread,) = [r for r in out if isinstance(r, Unread)]
    assert "'titel' (item 3; did you mean 'title'?)" in unread.message
    with pytest.raises(NoPassages, match="a JSON array with no passages"):
        list(parse_text("search_index.json", json.dumps([{"location": "x.html", "title": "X"}])))
    with pytest.raises(NoRecords, match="an empty JSON array"):
        list(parse_text("empty.json", "[]"))
    assert [r.id for r in parse_text("a.jsonl", json.dumps(items[0]))] == ["a"]  # JSON Lines as before
