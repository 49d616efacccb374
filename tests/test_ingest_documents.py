"""Documents as the unit of change: replace, skip, delete and sync on both stores; folders, globs, failures."""

from __future__ import annotations

import json
import sqlite3

import pytest

from function.ingest.cli import main as ingest_main
from function.ingest.sources import list_inputs
from function.retrieval.terms import query_terms
from function.store.ids import chunk_passage_id, document_key, valid_passage_id

INSTALL = """# Install

Run pip install to get the package. It needs Python 3.11 and a C compiler.

## Linux

Use apt on Debian to get the compiler. Zebrafish are not needed for this step.
"""
NOTES = "The Normans were a people in France. They gave their name to Normandy.\n"


@pytest.fixture(params=["sqlite", pytest.param("firestore", marks=pytest.mark.firestore)])
def kind(request, tiny_artifact, tmp_path, monkeypatch):
    monkeypatch.setenv("QA_ARTIFACT_DIR", str(tiny_artifact.folder))
    if request.param == "sqlite":
        monkeypatch.setenv("QA_STORE", "sqlite")
        monkeypatch.setenv("QA_SQLITE_PATH", str(tmp_path / "p.sqlite"))
    else:
        request.getfixturevalue("firestore_env")
    return request.param


def open_store(kind, tmp_path):
    if kind == "sqlite":
        from function.store.sqlite import SqliteStore

        return SqliteStore(tmp_path / "p.sqlite")
    from function.store.firestore import FirestoreStore

    return FirestoreStore(None, "(default)", "passages", "answers", timeout_s=10)


@pytest.fixture
def docs(tmp_path):
    root = tmp_path / "docs"
    (root / "guide").mkdir(parents=True)
    (root / "guide" / "install.md").write_text(INSTALL)
    (root / "notes.txt").write_text(NOTES)
    return root


def state(kind, tmp_path):
    """(passages by id, document records by id) in the store."""
    store = open_store(kind, tmp_path)
    try:
        docs = {r.doc_id: r for r in store.documents_under("")}
        ids = [pid for d in docs for pid in store.passages_of(d)]
        return store.get_many(ids), docs, store.count()
    finally:
        store.close()


def search(kind, tmp_path, word):
    store = open_store(kind, tmp_path)
    try:
        return [h.passage_id for h in store.index.search(query_terms(word), 10)]
    finally:
        store.close()


def test_folder_of_documents_replace_skip_delete_and_sync(kind, docs, tmp_path, capsys):
    assert ingest_main([str(docs), "--quiet"]) == 0
    passages, records, total = state(kind, tmp_path)
    install = [p for p in passages.values() if p.doc_id == "guide/install.md"]
    assert set(records) == {"guide/install.md", "notes.txt"} and total == len(passages)
    assert len(install) >= 2 and all(p.id.startswith("guide%2Finstall.md#") for p in install)
    for p in passages.values():  # every passage says where it comes from, and its span is exact
        assert p.source == str(docs / p.doc_id) and p.id == chunk_passage_id(p.doc_id, p.chunk)
        assert p.text == p.text.strip() and p.end - p.start == len(p.text)
    notes = passages["notes.txt#0000"]
    assert (notes.start, notes.end, notes.title) == (0, len(NOTES.strip()), notes.title)
    assert records["guide/install.md"].passage_ids == tuple(sorted(p.id for p in install))
    zebra = search(kind, tmp_path, "zebrafish")
    assert len(zebra) == 1 and zebra[0].startswith("guide%2Finstall.md#")
    capsys.readouterr()

    # unchanged: skipped, nothing rewritten
    assert ingest_main([str(docs), "--quiet"]) == 0
    assert "0 documents written (0 passages), 2 unchanged skipped" in capsys.readouterr().err
    assert state(kind, tmp_path)[0] == passages

    # changed: fewer passages; the ones it no longer has are gone, postings too
    (docs / "guide" / "install.md").write_text("# Install\n\nRun pip install. That is all.\n")
    assert ingest_main([str(docs), "--quiet"]) == 0
    assert "1 documents written (1 passages), 1 unchanged skipped" in capsys.readouterr().err
    passages2, records2, total2 = state(kind, tmp_path)
    assert sorted(p for p in passages2 if p.startswith("guide")) == ["guide%2Finstall.md#0000"]
    assert total2 == 2 and records2["guide/install.md"].passage_ids == ("guide%2Finstall.md#0000",)
    assert search(kind, tmp_path, "zebrafish") == [] and search(kind, tmp_path, "debian") == []
    assert passages2["notes.txt#0000"] == passages["notes.txt#0000"]

    # removed from the folder: --sync deletes it (and leaves the rest)
    (docs / "notes.txt").unlink()
    (docs / "more.md").write_text("Fresh words about gardens.\n")
    assert ingest_main([str(docs), "--quiet", "--sync"]) == 0
    err = capsys.readouterr().err
    assert "1 documents written (1 passages), 1 unchanged skipped, 1 deleted" in err
    passages3, records3, _ = state(kind, tmp_path)
    assert set(records3) == {"guide/install.md", "more.md"} and "notes.txt#0000" not in passages3
    assert search(kind, tmp_path, "normans") == []

    # --delete
    assert ingest_main(["--delete", "guide/install.md", "--quiet"]) == 0
    passages4, records4, total4 = state(kind, tmp_path)
    assert set(records4) == {"more.md"} and total4 == 1 and list(passages4) == ["more.md#0000"]
    assert search(kind, tmp_path, "pip") == []


def test_interrupted_replace_is_repaired_by_the_next_run(kind, docs, tmp_path, monkeypatch):
    """A crash after writing the new passages (before the record) leaves extra passages; the next run removes them."""
    from function.ingest.ingestion import Ingestion

    assert ingest_main([str(docs), "--quiet"]) == 0
    (docs / "guide" / "install.md").write_text(INSTALL + "\n## Windows\n\n" + "Winget works too. " * 30 + "\n")

    def crash(self, stale):
        raise KeyboardInterrupt

    store_cls = "function.store.sqlite.SqliteStore" if kind == "sqlite" else "function.store.firestore.FirestoreStore"
    with monkeypatch.context() as m:
        m.setattr(store_cls + ".delete_many", crash)
        m.setattr(store_cls + ".put_documents", crash)
        assert ingest_main([str(docs), "--quiet"]) == 130  # interrupted (Ctrl-C), said in a line
    many = len(state(kind, tmp_path)[0])
    (docs / "guide" / "install.md").write_text("# Install\n\nShort now.\n")
    assert ingest_main([str(docs), "--quiet"]) == 0
    passages, records, total = state(kind, tmp_path)
    assert many > 2 and total == 2 == len(passages) and records["guide/install.md"].passage_ids == (
        "guide%2Finstall.md#0000",)
    assert Ingestion.__doc__ and "interrupted" in Ingestion.__doc__


def test_squad_articles_are_documents_too(kind, repo, tmp_path, capsys):
    sample = tmp_path / "squad_sample.json"
    sample.write_text((repo / "samples" / "squad_sample.json").read_text())
    data = json.loads(sample.read_text())
    assert ingest_main([str(sample), "--quiet"]) == 0
    passages, records, _ = state(kind, tmp_path)
    assert set(records) == {a["title"] for a in data["data"]} and "Normans-0000" in passages
    assert passages["Normans-0000"].source == str(sample) and passages["Normans-0000"].chunk == 0
    assert passages["Normans-0000"].start is None
    # one article changes and loses a paragraph: only it is rewritten, its dropped paragraph deleted
    article = data["data"][0]
    article["paragraphs"] = article["paragraphs"][:-1]
    article["paragraphs"][0]["context"] += " Edited."
    changed = sample
    changed.write_text(json.dumps(data))
    capsys.readouterr()
    assert ingest_main([str(changed), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "1 documents written" in err and "1 unchanged skipped" in err
    passages2, records2, total = state(kind, tmp_path)
    gone = f"{article['title']}-{len(article['paragraphs']):04d}"
    assert gone in passages and gone not in passages2 and total == len(passages) - 1
    assert passages2["Normans-0000"].text.endswith(" Edited.")
    assert ingest_main([str(changed), "--quiet"]) == 0
    assert "0 documents written (0 passages), 2 unchanged skipped" in capsys.readouterr().err


def test_an_unreadable_file_is_named_and_the_others_ingested(kind, docs, tmp_path, capsys):
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a PDF")
    (docs / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    (docs / "picture.png").write_bytes(b"\x89PNG")
    assert ingest_main([str(docs), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert f"failed {docs / 'broken.pdf'}: " in err and f"failed {docs / 'latin1.txt'}: " in err
    assert "picture.png" not in err.split("ingest:")[0] or "left out" in err
    assert "2 documents written" in err and "2 failed" in err
    assert set(state(kind, tmp_path)[1]) == {"guide/install.md", "notes.txt"}


def test_nothing_to_ingest_says_so_and_exits_non_zero(kind, tmp_path, capsys):
    folder = tmp_path / "md"
    folder.mkdir()
    (folder / "a.docx").write_text("Not a supported format.")
    assert ingest_main([str(folder), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "nothing to ingest" in err and ".md" in err and ".pdf" in err and "1 other files" in err
    (folder / "bad.pdf").write_bytes(b"garbage")
    assert ingest_main([str(folder), "--quiet"]) == 1
    assert "nothing ingested" in capsys.readouterr().err


def test_include_and_exclude_globs_and_sharded_tasks(kind, docs, tmp_path):
    (docs / "guide" / "draft.md").write_text("A draft about kites.\n")
    (docs / ".hidden.md").write_text("Never read.\n")
    names = [f.rel for f in list_inputs([str(docs)], exclude=["guide/draft*"]).files]
    assert names == ["guide/install.md", "notes.txt"]
    assert [f.rel for f in list_inputs([str(docs)], include=["*.md"]).files] == ["guide/draft.md",
                                                                                "guide/install.md"]
    for task in range(2):  # two tasks: each takes every other file; --sync on each deletes nothing of the other
        assert ingest_main([str(docs), "--quiet", "--sync", "--task-count", "2", "--task-index", str(task)]) == 0
    assert set(state(kind, tmp_path)[1]) == {"guide/draft.md", "guide/install.md", "notes.txt"}
    assert ingest_main([str(docs), "--quiet", "--sync", "--exclude", "guide/draft.md"]) == 0
    assert set(state(kind, tmp_path)[1]) == {"guide/install.md", "notes.txt"}


def test_documents_from_cloud_storage(kind, fake_gcs, tmp_path, monkeypatch):
    from function.ingest.sources import _gcs_client

    bucket = _gcs_client().create_bucket(f"docs-{kind}")
    bucket.blob("site/guide/install.md").upload_from_string(INSTALL)
    bucket.blob("site/notes.txt").upload_from_string(NOTES)
    bucket.blob("site/records.jsonl").upload_from_string(json.dumps({"id": "r1", "text": "A record."}))
    prefix = f"gs://docs-{kind}/site/"
    assert ingest_main([prefix, "--quiet"]) == 0
    passages, records, _ = state(kind, tmp_path)
    assert set(records) == {"guide/install.md", "notes.txt", "r1"}
    assert passages["notes.txt#0000"].source == prefix + "notes.txt"
    bucket.blob("site/notes.txt").delete()
    assert ingest_main([prefix, "--quiet", "--sync"]) == 0
    passages, records, _ = state(kind, tmp_path)
    assert set(records) == {"guide/install.md", "r1"} and "notes.txt#0000" not in passages


def test_passage_ids_and_document_keys_are_valid_firestore_ids():
    assert chunk_passage_id("guide/install.md", 3) == "guide%2Finstall.md#0003"
    assert chunk_passage_id("100%/a", 0) == "100%25%2Fa#0000" != chunk_passage_id("100%2Fa", 0)
    long = "d/" * 400 + "x.md"
    for doc_id in ("guide/install.md", "__init__.py", ".", "..", "__x__", long, "a\x00b"):
        key = document_key(doc_id)
        assert valid_passage_id(key) or "\x00" in doc_id and key.startswith("doc~")
        assert valid_passage_id(chunk_passage_id(doc_id, 12)) or "\x00" in doc_id
    assert chunk_passage_id(long, 0) != chunk_passage_id(long + "y", 0)


def test_an_older_sqlite_file_is_migrated(tmp_path):
    from function.store.sqlite import SqliteStore

    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE passages (id TEXT PRIMARY KEY, title TEXT NOT NULL, doc_id TEXT NOT NULL, "
                   "text TEXT NOT NULL, token_ids BLOB NOT NULL, token_dtype TEXT NOT NULL, offsets BLOB NOT NULL, "
                   "n_tokens INTEGER NOT NULL, tokenizer TEXT NOT NULL, updated REAL NOT NULL)")
        db.execute("INSERT INTO passages VALUES ('p1', 'T', 'd', 'x', x'0100', '<u2', x'0000000001000000', 1, "
                   "'fp', 0)")
    store = SqliteStore(path)
    old = store.get_many(["p1"])["p1"]
    assert (old.source, old.chunk, old.start, old.end) == ("", None, None, None) and old.n_tokens == 1
    assert (old.tags, old.marks, old.embedding, old.encoder, old.lines) == ((), b"", b"", "", b"")
    assert store.passages_of("d") == {"p1": ""} and store.document_count() == 0
    store.close()


def test_progress_is_a_bar_on_a_terminal_and_plain_lines_in_logs():
    import io

    from function.ingest.progress import Counts, Progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    counts = Counts(documents=3, passages=40, skipped=1, failed=0)
    log = io.StringIO()
    plain = Progress(2, counts, stream=log, interval_s=0.0)
    plain.advance()
    plain.note("failed x.pdf: cannot read")
    plain.close()
    lines = log.getvalue().splitlines()
    assert lines[0].startswith("progress: 1/2 files; 3 documents written (40 passages), 1 unchanged skipped")
    assert lines[1] == "failed x.pdf: cannot read" and "\r" not in log.getvalue()
    assert Progress(2, counts, stream=io.StringIO(), quiet=True, interval_s=0.0)._bar is None
    term = Terminal()
    bar = Progress(2, counts, stream=term)
    bar.advance()
    bar._bar.refresh()  # tqdm draws at most every 0.1 s by itself
    bar.close()
    assert "\r" in term.getvalue() and "1/2" in term.getvalue() and "40 passages" in term.getvalue()
    assert "passages/s" in counts.summary() and "0 deleted" in counts.summary()


def test_an_interrupted_delete_is_finished_by_the_next(kind, docs, tmp_path, monkeypatch):
    """--delete removes the record first: a crash before the passages go leaves them findable by doc id."""
    assert ingest_main([str(docs), "--quiet"]) == 0
    store_cls = "function.store.sqlite.SqliteStore" if kind == "sqlite" else "function.store.firestore.FirestoreStore"

    def crash(self, ids):
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(store_cls + ".delete_many", crash)
        assert ingest_main(["--delete", "notes.txt", "--quiet"]) == 130
    passages, records, _ = state(kind, tmp_path)
    assert "notes.txt" not in records
    assert ingest_main(["--delete", "notes.txt", "--quiet"]) == 0
    store = open_store(kind, tmp_path)
    try:
        assert store.passages_of("notes.txt") == {} and store.count() == len(records["guide/install.md"].passage_ids)
    finally:
        store.close()


def test_sync_keeps_the_documents_of_a_file_that_failed_to_read(kind, docs, tmp_path, capsys):
    assert ingest_main([str(docs), "--quiet"]) == 0
    (docs / "notes.txt").write_bytes(b"\xff not utf-8")
    assert ingest_main([str(docs), "--quiet", "--sync"]) == 1
    assert f"failed {docs / 'notes.txt'}" in capsys.readouterr().err
    assert set(state(kind, tmp_path)[1]) == {"guide/install.md", "notes.txt"}


def test_sync_keeps_the_documents_of_a_folder_it_cannot_list(kind, docs, tmp_path, capsys, monkeypatch):
    """os.walk skips a folder it cannot list without a word, so its files looked deleted and --sync deleted their
    documents (a permission or a mount gone for a moment, and ``make run DOCS=`` always syncs). Now the folder is
    reported as failed and its documents are kept."""
    import os

    assert ingest_main([str(docs), "--quiet"]) == 0
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path).rstrip(os.sep).endswith("guide"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert ingest_main([str(docs), "--sync"]) == 1
    err = capsys.readouterr().err
    assert f"failed {docs / 'guide'}{os.sep}: cannot list this folder (Permission denied)" in err
    assert "deleted 0 documents" in err
    assert set(state(kind, tmp_path)[1]) == {"guide/install.md", "notes.txt"}


def test_two_folders_in_separate_runs_do_not_overwrite_each_other(kind, tmp_path, capsys):
    """A document's id is its path under the folder named, so prod-a/index.md and prod-b/index.md ingested in two
    runs (as the same-run collision message and --tag per part suggest) had the second silently replace the first.
    Now the second fails naming both files while the first is still there; once it has moved, it is replaced."""
    a, b = tmp_path / "prod-a", tmp_path / "prod-b"
    for folder, port in ((a, 7001), (b, 9002)):
        folder.mkdir()
        (folder / "index.md").write_text(f"# Guide\n\nIt listens on port {port} by default.\n")
    assert ingest_main([str(a), "--sync", "--tag", "a", "--quiet"]) == 0
    assert ingest_main([str(b), "--sync", "--tag", "b"]) == 1
    err = capsys.readouterr().err
    assert (f"failed {b / 'index.md'}: document id 'index.md' is stored from {a / 'index.md'}, which is still there"
            in err)
    passages, records, _ = state(kind, tmp_path)
    assert records["index.md"].source == str(a / "index.md") and "7001" in passages["index.md#0000"].text
    a.rename(tmp_path / "moved")
    assert ingest_main([str(b), "--quiet"]) == 0
    passages, records, _ = state(kind, tmp_path)
    assert records["index.md"].source == str(b / "index.md") and "9002" in passages["index.md#0000"].text


def test_a_record_id_taken_by_another_file_s_document_is_refused(kind, tmp_path, capsys):
    """JSON records name their passage ids: the same id in another file's record, ingested in a later run, moved
    the passage to the new document while the first document's record still listed it, and re-ingesting the first
    file skipped it as unchanged: its text was gone until --force."""
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    (tmp_path / "x" / "a.jsonl").write_text(json.dumps({"id": "p1", "title": "A", "text": "A uses port 1111."}))
    (tmp_path / "y" / "b.jsonl").write_text(json.dumps({"id": "p1", "title": "B", "text": "B uses port 2222."}))
    assert ingest_main([str(tmp_path / "x"), "--quiet"]) == 0
    assert ingest_main([str(tmp_path / "y")]) == 1
    assert (f"document 'B': passage id 'p1' is stored for document 'A' from {tmp_path / 'x' / 'a.jsonl'}"
            in capsys.readouterr().err)
    passages, records, _ = state(kind, tmp_path)
    assert set(records) == {"A"} and passages["p1"].text == "A uses port 1111."


def test_ingestion_without_firestore_credentials_or_interrupted_says_so_in_a_line(tiny_artifact, docs, tmp_path,
                                                                                     capsys, monkeypatch):
    """Both printed a traceback: google.auth's DefaultCredentialsError, and KeyboardInterrupt (Ctrl-C)."""
    import function.ingest.cli as cli

    monkeypatch.setenv("QA_ARTIFACT_DIR", str(tiny_artifact.folder))
    monkeypatch.delenv("FIRESTORE_EMULATOR_HOST", raising=False)
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "p")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
    assert ingest_main([str(docs), "--store", "firestore", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ingestion failed: cannot reach Firestore: no Google Cloud credentials")
    assert "Traceback" not in err

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "run", interrupted)
    assert ingest_main([str(docs), "--quiet"]) == 130
    assert "ingestion interrupted: the documents written so far are kept" in capsys.readouterr().err


def test_a_record_id_repeated_in_a_file_is_reported_with_both_lines(kind, tmp_path, capsys):
    """It said "rejected r1: passage id 'r1' appears twice in the input", naming neither the file nor the line,
    where every other rejected record names both."""
    recs = tmp_path / "recs.jsonl"
    recs.write_text("\n".join(json.dumps({"id": i, "title": "A", "text": t})
                               for i, t in (("r1", "One."), ("r2", "Two."), ("r1", "Three."))))
    assert ingest_main([str(recs)]) == 1
    assert (f"rejected {recs} line 3: passage id 'r1' appears twice in this file (first at {recs} line 1)"
            in capsys.readouterr().err)
    passages, _, _ = state(kind, tmp_path)
    assert passages["r1"].text == "One." and passages["r2"].text == "Two."


def test_special_files_are_left_out_of_a_folder_and_fail_by_name(kind, docs, tmp_path, capsys):
    """A FIFO named like a document blocked ingestion (and ``make run DOCS=``) for ever, waiting for a writer."""
    import os

    os.mkfifo(docs / "pipe.md")
    assert ingest_main([str(docs)]) == 0
    err = capsys.readouterr().err
    assert f"left out 1 file that is not a regular file (a FIFO, socket or device), e.g. {docs / 'pipe.md'}" in err
    assert set(state(kind, tmp_path)[1]) == {"guide/install.md", "notes.txt"}
    assert ingest_main([str(docs / "pipe.md"), "--quiet"]) == 1
    assert "not a regular file" in capsys.readouterr().err


def test_links_to_folders_are_left_out_and_said_and_a_link_named_is_ingested(kind, docs, tmp_path, capsys):
    """os.walk skipped a link to a folder without a word, while a link to a file was read. It is still not followed
    (``latest -> guide`` would store the guide twice, ``loop -> ..`` would never end) but said, like the other files
    a walk leaves out; a link named as an input is read as the folder it points to. A link to a file the walk finds
    too (linked.txt -> notes.txt) stored the same text twice under two ids: left out and said; one to a file outside
    the folder is read as that file."""
    import os

    os.symlink(docs / "guide", docs / "latest")
    os.symlink(docs, docs / "guide" / "loop")
    os.symlink(docs / "notes.txt", docs / "linked.txt")
    (tmp_path / "outside.md").write_text("# Outside\n\nThe outside file holds a fact.\n")
    os.symlink(tmp_path / "outside.md", docs / "guide" / "outside.md")
    listing = list_inputs([str(docs)])
    assert [f.rel for f in listing.files] == ["guide/install.md", "guide/outside.md", "notes.txt"]
    assert listing.symlinked == [str(docs / "guide" / "loop") + "/", str(docs / "latest") + "/"]
    assert listing.linked_copies == [str(docs / "linked.txt")]
    assert ingest_main([str(docs)]) == 0
    err = capsys.readouterr().err
    assert (f"left out 2 links to folders, not followed (a link to a folder beside it would store its documents "
            f"twice; name a folder to ingest it), e.g. {docs / 'guide' / 'loop'}/") in err
    assert (f"left out 1 link to a file the folder holds already (the same document twice), e.g. "
            f"{docs / 'linked.txt'}") in err
    assert set(state(kind, tmp_path)[1]) == {"guide/install.md", "guide/outside.md", "notes.txt"}
    only = tmp_path / "only"
    only.mkdir()
    os.symlink(docs / "guide", only / "guide")
    assert ingest_main([str(only), "--quiet"]) == 1
    assert (f"nothing to ingest: no file under {only} has a supported extension" in (err := capsys.readouterr().err)
            and f"; 1 link to a folder not followed, e.g. {only / 'guide'}/ (name a folder to ingest it)" in err)
    assert ingest_main([str(docs / "latest"), "--quiet"]) == 0
    assert "install.md" in state(kind, tmp_path)[1]


def test_a_sphinx_build_s_page_sources_are_left_out(kind, docs, tmp_path, capsys):
    """Sphinx's HTML builder keeps each page's source beside the pages (_sources/NAME.rst.txt, for "Show Source"):
    pointing ingestion at the build folder stored every page twice, the copy without what Sphinx's directives made
    (a quarter of the five passages read went to copies). A _sources/ folder that is not beside a build's
    searchindex.js or objects.inv is read as any other."""
    build = docs / "html"
    (build / "_sources").mkdir(parents=True)
    (build / "index.html").write_text("<html><body><h1>Widgets</h1><p>Widgets spin at 40 rpm.</p></body></html>")
    (build / "_sources" / "index.rst.txt").write_text("Widgets\n=======\n\nWidgets spin at 40 rpm.\n")
    (build / "searchindex.js").write_text("Search.setIndex({})")
    (docs / "_sources").mkdir()
    (docs / "_sources" / "kept.txt").write_text(NOTES)
    listing = list_inputs([str(docs)])
    assert [f.rel for f in listing.files] == ["_sources/kept.txt", "guide/install.md", "html/index.html",
                                              "notes.txt"]
    assert listing.sphinx_sources == [str(build / "_sources" / "index.rst.txt")]
    assert ingest_main([str(docs)]) == 0
    assert "left out 1 page source a Sphinx HTML build keeps beside its pages" in capsys.readouterr().err
    assert not list_inputs([str(build)], include=["*.html"]).sphinx_sources  # excluded anyway: not said


def test_json_files_that_hold_no_passages_are_left_out_not_failed(kind, docs, tmp_path, capsys):
    """A built MkDocs site holds search/search_index.json, an npm package its package.json: JSON objects that are
    neither SQuAD nor a record. They were read as JSON Lines and reported as failed records (the command exiting 1);
    now they are left out and said so. A JSON file that is only that gives nothing: said, and the exit status is 1."""
    (docs / "search").mkdir()
    (docs / "search" / "search_index.json").write_text(json.dumps(
        {"config": {"lang": ["en"]}, "docs": [{"location": "", "title": "Home", "text": "Widgets spin."}]}))
    (docs / "package.json").write_text(json.dumps({"name": "widgets", "version": "1.0.0"}, indent=2))
    assert ingest_main([str(docs)]) == 0
    err = capsys.readouterr().err
    assert "left out 2 JSON files that hold no passages" in err and "a JSON object with no passages" in err
    assert "0 failed" in err and "2 JSON files without passages left out" in err and "rejected" not in err
    assert set(state(kind, tmp_path)[1]) == {"guide/install.md", "notes.txt"}
    assert ingest_main([str(docs / "package.json"), "--quiet"]) == 1
    assert "nothing ingested" in capsys.readouterr().err


def test_empty_json_files_fail_by_name_as_an_empty_markdown_file_does(kind, docs, tmp_path, capsys):
    """An empty .json or .jsonl file was named nowhere: not failed, rejected nor left out; alone, it gave "nothing
    ingested ... 0 failed" with no reason. An empty .md fails by name ("no text found"): so do they now."""
    (docs / "empty.json").write_text("")
    (docs / "blank.jsonl").write_text("\n  \n")
    (docs / "empty.md").write_text("")
    (docs / "squad.json").write_text(json.dumps({"version": "1.1", "data": []}))
    assert ingest_main([str(docs), "--quiet"]) == 1
    err = capsys.readouterr().err
    empty = docs / "empty.json"
    assert f"failed {empty}: cannot read: {empty}: no records in this file (it is empty)" in err
    assert f"failed {docs / 'blank.jsonl'}: cannot read: {docs / 'blank.jsonl'}: no records in this file" in err
    assert f"failed {docs / 'empty.md'}: cannot read: empty.md: no text found" in err
    assert f"{docs / 'squad.json'}: no records in this SQuAD file (its 'data' holds no paragraphs)" in err
    assert "4 failed" in err
    assert set(state(kind, tmp_path)[1]) == {"guide/install.md", "notes.txt"}
    assert ingest_main([str(docs / "empty.json"), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "empty.json: no records in this file (it is empty)" in err and "1 failed" in err


def test_record_fields_that_are_not_read_are_noted_by_file_and_line(kind, docs, tmp_path, capsys):
    """A misspelt "titel" made its record a document of its own in silence; now the run notes it (even --quiet, as it
    says a rejected record) and counts the file in its last line. The records are ingested as before."""
    recs = docs / "recs.jsonl"
    recs.write_text("\n".join(json.dumps(r) for r in (
        {"id": "r1", "title": "Widgets", "text": "Widgets spin at 40 rpm.", "url": "https://example.com/w"},
        {"id": "r2", "titel": "Widgets", "text": "Widgets weigh 3 kg."})))
    assert ingest_main([str(docs), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert (f"note: {recs}: record fields not read, so not stored: 'url' (line 1), 'titel' (line 2; did you mean "
            "'title'?); a record's fields are id, text, title, doc_id (its document: doc_id, else title, else id)"
            in err)
    assert "0 failed; " in err and ", 1 JSON file with record fields not read (noted above); the store holds" in err
    assert set(state(kind, tmp_path)[1]) == {"guide/install.md", "notes.txt", "Widgets", "r2"}


SPHINX_PAGE = """<html><head><meta name="generator" content="Docutils 0.19: https://docutils.sourceforge.io/">
<title>{title}</title></head><body><div class="document"><div class="body" role="main">{body}</div></div>
<div class="sphinxsidebar">SIDEBAR</div></body></html>"""


def test_pages_a_generator_made_for_navigation_are_left_out_and_synced_away(kind, docs, tmp_path, capsys):
    """A built site's index, search and source-listing pages are not documents: left out (not failed), said so,
    and with --sync what an older run took from one is removed."""
    (docs / "api.html").write_text(SPHINX_PAGE.format(title="API", body="<h1>API</h1><p>Call spin() to spin the "
                                                      "widget a number of turns; it returns the widget.</p>"))
    (docs / "genindex.html").write_text(SPHINX_PAGE.format(title="Index", body="<h1 id='index'>Index</h1><table "
                                                           "class='indextable genindextable'><tr><td>spin() (in module "
                                                           "widgets)</td></tr></table>"))
    (docs / "search.html").write_text(SPHINX_PAGE.format(title="Search", body="<h1>Search</h1><div "
                                                         "id='search-results'></div>"))
    (docs / "_modules").mkdir()
    source = SPHINX_PAGE.format(title="widgets", body="<h1>Source code for widgets</h1><div class='highlight'>"
                                "<pre>def spin(widget, turns=3):\n    return widget</pre></div>")
    (docs / "_modules" / "widgets.html").write_text(source)
    assert ingest_main([str(docs)]) == 0
    err = capsys.readouterr().err
    assert "left out 3 pages a documentation generator made for navigation" in err and "failed" not in err.split(
        "ingest:")[0]
    assert set(state(kind, tmp_path)[1]) == {"guide/install.md", "notes.txt", "api.html"}
    # a store an older run filled with the listing as a document: --sync removes it, the rest stays
    (docs / "_modules" / "widgets.html").write_text("<html><body><h1>Widgets</h1><p>Spin widgets a number of "
                                                    "turns with the spin function.</p></body></html>")
    assert ingest_main([str(docs), "--quiet"]) == 0
    assert "2 navigation pages left out" in capsys.readouterr().err  # said even when quiet, in the totals
    assert "_modules/widgets.html" in state(kind, tmp_path)[1]
    (docs / "_modules" / "widgets.html").write_text(source)
    assert ingest_main([str(docs), "--quiet", "--sync"]) == 0
    assert set(state(kind, tmp_path)[1]) == {"guide/install.md", "notes.txt", "api.html"}


def test_missing_ingestion_dependencies_stop_with_a_clear_message(docs, tiny_artifact, tmp_path, monkeypatch, capsys):
    import sys

    monkeypatch.setenv("QA_ARTIFACT_DIR", str(tiny_artifact.folder))
    monkeypatch.setenv("QA_STORE", "sqlite")
    monkeypatch.setenv("QA_SQLITE_PATH", str(tmp_path / "p.sqlite"))
    monkeypatch.setitem(sys.modules, "sentencex", None)  # as in an image without requirements-ingest.txt
    assert ingest_main([str(docs), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "'sentencex'" in err and "requirements-ingest.txt" in err


def test_each_line_of_a_code_block_is_marked_as_code_and_a_command_answer_takes_its_whole_line(tiny_artifact, tmp_path):
    """A fenced block's lines are stored beside the page's inline code (``Passage.lines``), indentation aside, so the
    reader widens a "how" answer that is a command's first word to the command (``reader.whole_code``), as it does
    inline code."""
    from function.ingest.documents import code_lines
    from function.model.reader import whole_code
    from function.store.sqlite import SqliteStore

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "install.md").write_text("# Install\n\nRun `pip` to install the latest development version:\n\n"
                                     "```sh\n$ pip install -U git+https://example.org/apispec@dev\n"
                                     "pip list   # what is installed\nrun(a,\n    b);\n```\n")
    db = str(tmp_path / "p.db")
    assert ingest_main([str(docs), "--quiet", "--store", "sqlite", "--sqlite-path", db,
                        "--artifact", str(tiny_artifact.folder)]) == 0
    store = SqliteStore(db)
    [stored] = store.get_many(list(store.passages_of("install.md"))).values()
    store.close()
    text = stored.text
    assert [text[a:z] for a, z in stored.code_spans] == ["pip"]  # inline
    assert [text[a:z] for a, z in stored.line_spans] == [  # no prompt, no second column, no half a statement
        "pip install -U git+https://example.org/apispec@dev", "pip list"]
    first = text.index("pip install")
    assert text[slice(*whole_code(text, stored.line_spans, first, first + 3))] == \
        "pip install -U git+https://example.org/apispec@dev"
    inline = text.index("pip")  # "Run `pip` to install ...": inline code, before the block
    assert whole_code(text, stored.code_spans, inline, inline + 3) == (inline, inline + 3)  # a piece already
    block = "a\n  b c  \n\n>>> d(e[0]);\n... f  // g\n}\nx → y(\u00e9)\nmydb=> SELECT 1;\nsqlite> .bail on\n"
    assert [block[a:z] for a, z in code_lines(block, 0, len(block))] == [
        "a", "b c", "d(e[0])", "f", "x → y(\u00e9)", "SELECT 1", ".bail on"]
    assert [block[a:z] for a, z in code_lines(block, 2, 9)] == ["b c"]


def test_sync_removes_the_part_of_a_json_document_whose_file_is_gone(kind, tmp_path, capsys):
    """JSON records without a doc_id belong to the document of their title, which files can share; the document's
    record names the last file written only, so deleting the other file and running --sync kept its passages, and
    the answers still came from a file that no longer existed."""
    k = tmp_path / "k"
    k.mkdir()
    (k / "a.jsonl").write_text(json.dumps({"id": "a1", "title": "Intro", "text": "Old fact: the port is 1111."}))
    (k / "b.jsonl").write_text(json.dumps({"id": "b1", "title": "Intro", "text": "The colour is green."}))
    (k / "c.jsonl").write_text(json.dumps({"id": "c1", "title": "Other", "text": "The size is large."}))
    assert ingest_main([str(k), "--sync", "--quiet"]) == 0
    passages, records, _ = state(kind, tmp_path)
    assert set(passages) == {"a1", "b1", "c1"} and records["Intro"].source == str(k / "b.jsonl")
    capsys.readouterr()
    (k / "a.jsonl").unlink()
    assert ingest_main([str(k), "--sync"]) == 0
    assert ("--sync: deleted 0 documents no longer in the inputs, and the passages of 1 document from files no "
            "longer there" in capsys.readouterr().err)
    passages, records, count = state(kind, tmp_path)
    assert set(passages) == {"b1", "c1"} and count == 2 and records["Intro"].source == str(k / "b.jsonl")
    (k / "b.jsonl").unlink()
    assert ingest_main([str(k), "--sync"]) == 0
    assert "--sync: deleted 1 documents no longer in the inputs\n" in capsys.readouterr().err
    passages, records, count = state(kind, tmp_path)
    assert set(passages) == {"c1"} and set(records) == {"Other"} and count == 1


def test_sync_of_a_folder_without_json_removes_its_part_of_a_document_recorded_from_another(kind, tmp_path, capsys):
    """The document's record names the other folder's file: with no JSON file left here and no record under this
    folder naming one, only the count of passages under it (more than its records hold) tells of the part left."""
    k1, k2 = tmp_path / "k1", tmp_path / "k2"
    k1.mkdir()
    k2.mkdir()
    (k1 / "a.jsonl").write_text(json.dumps({"id": "a1", "title": "Intro", "text": "Old fact: the port is 1111."}))
    (k1 / "notes.txt").write_text("The notes say the size is large.\n")
    (k2 / "b.jsonl").write_text(json.dumps({"id": "b1", "title": "Intro", "text": "The colour is green."}))
    assert ingest_main([str(k1), str(k2), "--quiet"]) == 0
    passages, records, _ = state(kind, tmp_path)
    assert {"a1", "b1"} <= set(passages) and records["Intro"].source == str(k2 / "b.jsonl")
    capsys.readouterr()
    (k1 / "a.jsonl").unlink()
    assert ingest_main([str(k1), "--sync"]) == 0
    assert "and the passages of 1 document from files no longer there" in capsys.readouterr().err
    passages, records, count = state(kind, tmp_path)
    assert "a1" not in passages and "b1" in passages and count == 2
    assert records["Intro"].source == str(k2 / "b.jsonl")
